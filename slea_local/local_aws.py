"""The local stack's own user pool over HTTP, for operator commands run in another process.

moto's user pool lives in the memory of the process that serves the stack, so `python -m ops.smoke`
(or `slea-users`) started beside `make serve` cannot reach it through boto3's in-process mock. The
local server therefore answers, under `/_local/`:

- `GET /_local/stack`: the outputs an operator command reads from CloudFormation (HttpApiUrl,
  UserPoolId, UserPoolClientId), for this local stack;
- `POST /_local/cognito-idp`: Cognito's own wire protocol (AWS JSON 1.1, `X-Amz-Target`), so a
  boto3 client with `endpoint_url=<server>/_local/cognito-idp` works unchanged, limited to the
  user-management operations the operator commands perform.

Only the local server serves these (API Gateway never sees this module). The JSON content type is
required, which makes a browser ask first (CORS preflight) and be refused: a web page cannot drive
the local pool through a learner's browser.
"""

import json
import re
from collections.abc import Callable, Iterable
from datetime import datetime
from http import HTTPStatus
from typing import Any

import boto3
from botocore.exceptions import ClientError, ParamValidationError

from slea_local.cloud import REGION, LocalCloud
from slea_local.identity import LocalUserPool

PREFIX = "/_local/"
AWS_JSON = "application/x-amz-json-1.1"
TARGET_PREFIX = "AWSCognitoIdentityProviderService."
# What ops.smoke and ops.users call: nothing that changes the pool or its clients.
OPERATIONS = frozenset(
    {
        "AdminAddUserToGroup",
        "AdminCreateUser",
        "AdminDeleteUser",
        "AdminGetUser",
        "AdminInitiateAuth",
        "AdminListGroupsForUser",
        "AdminRemoveUserFromGroup",
        "AdminSetUserPassword",
        "DescribeUserPoolClient",
        "ListUsers",
        "ListUsersInGroup",
    }
)
StartResponse = Callable[[str, list[tuple[str, str]]], Any]


def _snake(operation: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", operation).lower()


class LocalAwsEndpoints:
    """The `/_local/` paths of the local server (WSGI)."""

    def __init__(self, cloud: LocalCloud) -> None:
        self.cloud = cloud

    def outputs(self, base_url: str) -> dict[str, str]:
        outputs = {"HttpApiUrl": base_url}
        try:
            pool = LocalUserPool(self.cloud)
        except ValueError:  # a stack that trusts a given issuer has no pool of its own
            return outputs
        return {**outputs, "UserPoolId": pool.pool_id, "UserPoolClientId": pool.client_id}

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        method, path = environ["REQUEST_METHOD"], environ.get("PATH_INFO", "/")
        if method == "GET" and path == f"{PREFIX}stack":
            base = f"http://{environ.get('HTTP_HOST') or environ['SERVER_NAME'] + ':' + environ['SERVER_PORT']}"
            return _reply(start_response, 200, "application/json", self.outputs(base))
        if method == "POST" and path == f"{PREFIX}cognito-idp":
            status, body = self.cognito(environ)
            return _reply(start_response, status, AWS_JSON, body)
        return _reply(start_response, 404, "application/json", {"message": "Not Found"})

    def cognito(self, environ: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """One Cognito call, as the service answers it: the result, or `__type` and `message`."""
        try:
            operation, parameters = _request(environ)
        except _Refused as refusal:
            return refusal.status, _error(refusal.code, str(refusal))
        # The in-process client reaches moto's pool: the same state the stack's functions see.
        client = boto3.client("cognito-idp", region_name=REGION)
        try:
            result: dict[str, Any] = getattr(client, _snake(operation))(**parameters)
        except ClientError as error:
            details = error.response.get("Error", {})
            status = int(error.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 400)
            return status, _error(str(details.get("Code", "ClientError")), str(details.get("Message", "")))
        except ParamValidationError as error:
            return 400, _error("InvalidParameterException", str(error))
        result.pop("ResponseMetadata", None)
        return 200, result


class _Refused(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code = status, code


def _request(environ: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The operation and its parameters, or why the call is refused before it reaches the pool."""
    if (environ.get("CONTENT_TYPE") or "").split(";")[0].strip() != AWS_JSON:
        raise _Refused(415, "UnsupportedMediaType", f"expected {AWS_JSON}")
    target = environ.get("HTTP_X_AMZ_TARGET", "")
    operation = target.removeprefix(TARGET_PREFIX)
    if not target.startswith(TARGET_PREFIX) or operation not in OPERATIONS:
        raise _Refused(400, "UnknownOperationException", f"not served locally: {target or '(no target)'}")
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        parameters = json.loads(environ["wsgi.input"].read(length) or b"{}")
    except ValueError as error:
        raise _Refused(400, "SerializationException", "the body is not JSON") from error
    if not isinstance(parameters, dict):
        raise _Refused(400, "SerializationException", "the body is not a JSON object")
    return operation, parameters


def _error(code: str, message: str) -> dict[str, Any]:
    return {"__type": code, "message": message}


def _wire(value: Any) -> Any:
    """Timestamps as the service sends them in JSON: seconds since the epoch."""
    if isinstance(value, datetime):
        return value.timestamp()
    raise TypeError(f"not JSON: {type(value).__name__}")


def _reply(start_response: StartResponse, status: int, content_type: str, body: dict[str, Any]) -> list[bytes]:
    data = json.dumps(body, default=_wire).encode()
    start_response(
        f"{status} {HTTPStatus(status).phrase}", [("content-type", content_type), ("content-length", str(len(data)))]
    )
    return [data]
