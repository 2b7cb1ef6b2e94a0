"""The HTTP API locally, without Docker: a WSGI app that turns each request into the API Gateway
HTTP API (payload 2.0) event of template.yaml's API function and its result back into a response.

Authorization stands in for API Gateway's JWT authorizer, locally only: `Authorization: Bearer
<token>` where the token is a JWT (its claims are read, not verified) or simply the subject's id.
Without it the request is refused with 401 before the function runs, as API Gateway does."""

import base64
import binascii
import json
import time
import uuid
from collections.abc import Callable, Iterable
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from slea_local import REPO_ROOT
from slea_local.cloud import ACCOUNT
from slea_local.runtime import LocalRuntime

OPENAPI_PATH = REPO_ROOT / "docs" / "openapi.json"
StartResponse = Callable[[str, list[tuple[str, str]]], Any]


def claims_from(authorization: str) -> dict[str, Any] | None:
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    token = token.strip()
    if token.count(".") == 2:
        payload = token.split(".")[1]
        try:
            claims: dict[str, Any] = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        except (binascii.Error, ValueError):
            return None
        return claims if claims.get("sub") else None
    return {"sub": token}


def gateway_claims(claims: dict[str, Any]) -> dict[str, Any]:
    """The claims as API Gateway's JWT authorizer hands them on: an array claim (e.g.
    `cognito:groups`) becomes one string, "[reviewers admins]"."""
    return {
        name: "[" + " ".join(map(str, value)) + "]" if isinstance(value, list) else value
        for name, value in claims.items()
    }


def http_api_event(
    method: str, path: str, query: str, headers: dict[str, str], *, body: str, claims: dict[str, Any]
) -> dict[str, Any]:
    now = time.time()
    return {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": path,
        "rawQueryString": query,
        "headers": headers,
        "queryStringParameters": {k: ",".join(v) for k, v in parse_qs(query).items()} or None,
        "requestContext": {
            "accountId": ACCOUNT,
            "apiId": "local",
            "domainName": headers.get("host", "127.0.0.1"),
            "domainPrefix": "local",
            "http": {
                "method": method,
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "127.0.0.1",
                "userAgent": headers.get("user-agent", ""),
            },
            "requestId": str(uuid.uuid4()),
            "routeKey": "$default",
            "stage": "$default",
            "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
            "timeEpoch": int(now * 1000),
            "authorizer": {"jwt": {"claims": gateway_claims(claims), "scopes": None}},
        },
        "body": body or None,
        "isBase64Encoded": False,
    }


class HttpApiAdapter:
    """WSGI application serving the API function of template.yaml (and, locally, its OpenAPI
    document at /openapi.json)."""

    def __init__(self, runtime: LocalRuntime, function: str = "api", openapi: Path = OPENAPI_PATH) -> None:
        self.runtime, self.function, self.openapi = runtime, function, openapi

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        method, path = environ["REQUEST_METHOD"], environ.get("PATH_INFO", "/")
        if method == "GET" and path == "/openapi.json":
            return self._reply(start_response, 200, {"content-type": "application/json"}, self.openapi.read_bytes())
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length).decode("utf-8") if length else ""
        headers = {
            key[5:].replace("_", "-").lower(): value for key, value in environ.items() if key.startswith("HTTP_")
        }
        if environ.get("CONTENT_TYPE"):
            headers["content-type"] = environ["CONTENT_TYPE"]
        claims = claims_from(headers.get("authorization", ""))
        if claims is None:
            return self._reply(start_response, 401, {"content-type": "application/json"}, b'{"message":"Unauthorized"}')
        event = http_api_event(method, path, environ.get("QUERY_STRING", ""), headers, body=body, claims=claims)
        try:
            result = self.runtime.invoke(self.function, event)
        except Exception:  # what API Gateway answers when the function fails
            return self._reply(
                start_response, 500, {"content-type": "application/json"}, b'{"message":"Internal Server Error"}'
            )
        payload = result.get("body") or ""
        data = base64.b64decode(payload) if result.get("isBase64Encoded") else payload.encode("utf-8")
        return self._reply(start_response, int(result["statusCode"]), result.get("headers") or {}, data)

    @staticmethod
    def _reply(start_response: StartResponse, status: int, headers: dict[str, str], body: bytes) -> list[bytes]:
        phrase = HTTPStatus(status).phrase
        start_response(f"{status} {phrase}", [*headers.items(), ("content-length", str(len(body)))])
        return [body]


def call(
    app: HttpApiAdapter, method: str, path: str, body: Any = None, token: str | None = None
) -> tuple[int, dict[str, str], Any]:
    """One in-process request through the WSGI app: (status, headers, JSON body or text)."""
    import io
    from wsgiref.util import setup_testing_defaults

    payload = body if isinstance(body, str) else json.dumps(body) if body is not None else ""
    path_only, _, query = path.partition("?")
    environ: dict[str, Any] = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path_only,
        "QUERY_STRING": query,
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(payload.encode())),
        "wsgi.input": io.BytesIO(payload.encode()),
    }
    if token is not None:
        environ["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    setup_testing_defaults(environ)
    captured: dict[str, Any] = {}

    def start_response(status: str, headers: list[tuple[str, str]]) -> None:
        captured["status"], captured["headers"] = int(status.split(maxsplit=1)[0]), dict(headers)

    raw = b"".join(app(environ, start_response)).decode("utf-8")
    try:
        parsed: Any = json.loads(raw) if raw else None
    except json.JSONDecodeError:
        parsed = raw
    return captured["status"], captured["headers"], parsed
