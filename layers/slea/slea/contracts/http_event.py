"""The HTTP API's event (API Gateway payload format 2.0) as the API and MCP functions receive it:
the fields and types Powertools' `APIGatewayProxyEventV2Model` requires, so a malformed envelope
is refused the same way and names its field.

Declared here rather than imported because importing Powertools' parser models loads every event
model it ships (SQS, Kinesis, S3, Cognito, ...): about 30 ms, a fifth of the API function's cold
import (bench/cold_import.py). A test checks these models against Powertools' field by field.
"""

from typing import Any, Literal

from pydantic import BaseModel, Field


class HttpApiJwt(BaseModel):
    claims: dict[str, Any]
    scopes: list[str] | None = None


class HttpApiAuthorizer(BaseModel):
    jwt: HttpApiJwt | None = None
    iam: dict[str, Any] | None = None
    lambda_value: dict[str, Any] | None = Field(None, alias="lambda")


class HttpApiRequestHttp(BaseModel):
    method: Literal["DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"]
    path: str
    protocol: str
    sourceIp: str
    userAgent: str


class HttpApiRequestContext(BaseModel):
    accountId: str
    apiId: str
    authorizer: HttpApiAuthorizer | None = None
    domainName: str
    domainPrefix: str
    requestId: str
    routeKey: str
    stage: str
    time: str
    timeEpoch: int
    http: HttpApiRequestHttp


class HttpApiEvent(BaseModel):
    version: str
    routeKey: str
    rawPath: str
    rawQueryString: str
    cookies: list[str] | None = None
    headers: dict[str, str]
    queryStringParameters: dict[str, str] | None = None
    pathParameters: dict[str, str] | None = None
    stageVariables: dict[str, str] | None = None
    requestContext: HttpApiRequestContext
    body: str | None = None
    isBase64Encoded: bool | None = None
