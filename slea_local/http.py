"""The HTTP API locally, without Docker: a WSGI app that routes each request as API Gateway would,
by the HttpApi events of template.yaml (path templates, methods, each route's Auth), turns it into
the HTTP API (payload 2.0) event of the function behind that route, and its result back into a
response.

Authorization stands in for API Gateway's JWT authorizer in one of two modes:
- development (the default): `Authorization: Bearer <token>` where the token is a JWT (its claims
  are read, not verified) or simply the subject's id;
- signed tokens (`signed_tokens=True`, `serve --signed-tokens`): the token must be one the stack's
  own user pool signed (slea_local/identity.py), checked for key, signature, issuer, audience and
  expiry exactly as the deployed authorizer checks it; the pool's hosted sign-in
  (/oauth2/authorize, /oauth2/token: slea_local/hosted_signin.py) is served too, and the web app's
  pages sign in through it as in AWS.
Without an accepted token a request to a route that needs one is refused with 401 before any
function runs, as API Gateway does; routes whose Auth is `Authorizer: NONE` (the web app's pages)
need none."""

import base64
import binascii
import contextlib
import json
import re
import socket
import socketserver
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from slea_local import REPO_ROOT
from slea_local.cloud import ACCOUNT
from slea_local.local_aws import PREFIX as LOCAL_AWS_PREFIX
from slea_local.local_aws import LocalAwsEndpoints
from slea_local.runtime import LocalRuntime
from slea_local.template import Template

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
            claims: Any = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        except (binascii.Error, ValueError, RecursionError):
            return None
        # API Gateway's authorizer refuses a token whose payload is not a claims object, or whose
        # subject is not a string: 401, never the function.
        if not isinstance(claims, dict) or not isinstance(claims.get("sub"), str) or not claims["sub"].strip():
            return None
        return claims
    return {"sub": token}


def gateway_claims(claims: dict[str, Any]) -> dict[str, Any]:
    """The claims as API Gateway's JWT authorizer hands them on: an array claim (e.g.
    `cognito:groups`) becomes one string, "[reviewers admins]"."""
    return {name: _gateway_claim(value) for name, value in claims.items()}


def _gateway_claim(value: Any) -> Any:
    if isinstance(value, list):
        return "[" + " ".join(map(str, value)) + "]"
    if isinstance(value, dict):  # an object claim arrives as its JSON text
        return json.dumps(value)
    return value


@dataclass(frozen=True)
class Route:
    """One HttpApi event of template.yaml: `METHOD /path/{param}` served by `function`."""

    method: str
    path: str
    function: str
    authorized: bool  # False where the event says Auth: { Authorizer: NONE }

    @property
    def key(self) -> str:
        return f"{self.method} {self.path}"

    def match(self, method: str, path: str) -> dict[str, str] | None:
        """The path parameters when this route serves the request, else None."""
        if self.method not in (method, "ANY"):
            return None
        pattern = re.sub(
            r"\\\{(\w+)(\\\+)?\\\}",
            lambda found: f"(?P<{found.group(1)}>{'.+' if found.group(2) else '[^/]+'})",
            re.escape(self.path),
        )
        matched = re.fullmatch(pattern, path)
        return dict(matched.groupdict()) if matched else None


def http_api_routes(template: Template) -> list[Route]:
    """The routes of template.yaml's HTTP API, most specific first: API Gateway prefers a path
    without parameters, then the one with fewer (a greedy {proxy+} last)."""
    (api,) = template.of_type("AWS::Serverless::HttpApi").values()
    default_authorizer = (api.get("Properties", {}).get("Auth") or {}).get("DefaultAuthorizer")
    routes = []
    for logical_id, spec in template.of_type("AWS::Serverless::Function").items():
        for event in spec["Properties"].get("Events", {}).values():
            if event["Type"] != "HttpApi":
                continue
            properties = event["Properties"]
            authorizer = (properties.get("Auth") or {}).get("Authorizer", default_authorizer)
            routes.append(
                Route(properties["Method"].upper(), properties["Path"], logical_id, authorizer not in (None, "NONE"))
            )
    return sorted(routes, key=lambda route: (route.path.count("{"), "+}" in route.path, -len(route.path)))


def http_api_event(
    method: str,
    path: str,
    query: str,
    headers: dict[str, str],
    *,
    body: str | bytes,
    claims: dict[str, Any] | None,
    route_key: str = "$default",
    path_parameters: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The payload 2.0 event; `claims` None: a route without an authorizer (no authorizer context)."""
    now = time.time()
    request_context: dict[str, Any] = {
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
        "routeKey": route_key,
        "stage": "$default",
        "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
        "timeEpoch": int(now * 1000),
    }
    if claims is not None:
        request_context["authorizer"] = {"jwt": {"claims": gateway_claims(claims), "scopes": None}}
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": route_key,
        "rawPath": path,
        "rawQueryString": query,
        "headers": headers,
        "queryStringParameters": {k: ",".join(v) for k, v in parse_qs(query).items()} or None,
        "requestContext": request_context,
        "body": body or None,
        "isBase64Encoded": False,
    }
    if isinstance(body, bytes):
        # As API Gateway does, a body that is not UTF-8 text reaches the function base64-encoded.
        try:
            event["body"] = body.decode("utf-8") or None
        except UnicodeDecodeError:
            event["body"], event["isBase64Encoded"] = base64.b64encode(body).decode("ascii"), True
    if path_parameters:
        event["pathParameters"] = path_parameters
    return event


JSON = {"content-type": "application/json"}
# The user pool domain's endpoints the hosted sign-in serves in signed-token mode.
SIGN_IN_PATHS = frozenset({"/oauth2/authorize", "/oauth2/token"})
# What API Gateway's JWT authorizer sends with its 401 (MCP clients look for it).
CHALLENGE = {"www-authenticate": 'Bearer scope="" error="invalid_token" error_description="no bearer token"'}


class HttpApiAdapter:
    """WSGI application serving template.yaml's HTTP API: each request goes to the function whose
        HttpApi event matches it (and, locally only, the OpenAPI document is at /openapi.json and the
    local user pool at /_local/, for operator commands run beside the server)."""

    def __init__(self, runtime: LocalRuntime, openapi: Path = OPENAPI_PATH, *, signed_tokens: bool = False) -> None:
        self.runtime, self.openapi = runtime, openapi
        self.routes = http_api_routes(runtime.cloud.template)
        self.local_aws = LocalAwsEndpoints(runtime.cloud)
        # Signed tokens: the stack's authorizer with its pool's keys; else the development stand-in.
        self.claims_from: Callable[[str], dict[str, Any] | None] = claims_from
        # Signed tokens: the user pool's hosted sign-in is here too (slea_local/hosted_signin.py),
        # and the web app's configuration sends the pages to it.
        self.hosted_signin: Callable[[dict[str, Any], StartResponse], Iterable[bytes]] | None = None
        if signed_tokens:
            from slea_local.hosted_signin import HostedSignIn
            from slea_local.identity import JwtAuthorizer

            self.claims_from = JwtAuthorizer.of_stack(runtime.cloud).claims
            self.hosted_signin = HostedSignIn.of_stack(runtime.cloud)
        # The functions configured with the pool's OAuth endpoints (the web app's configuration).
        self.oauth_configured = {
            route.function
            for route in self.routes
            if signed_tokens and "OAUTH_AUTHORIZE_URL" in runtime.cloud.environment_of(route.function)
        }

    def route(self, method: str, path: str) -> tuple[Route, dict[str, str]] | None:
        for route in self.routes:
            parameters = route.match(method, path)
            if parameters is not None:
                return route, parameters
        return None

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        method, path = environ["REQUEST_METHOD"], environ.get("PATH_INFO", "/")
        local = self._local_only(method, path, environ, start_response)
        if local is not None:
            return local
        found = self.route(method, path)
        if found is None:  # API Gateway's own answer: no function runs
            return self._reply(start_response, 404, JSON, b'{"message":"Not Found"}')
        route, path_parameters = found
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return self._reply(start_response, 400, JSON, b'{"message":"Bad Request"}')
        raw = environ["wsgi.input"].read(length) if length > 0 else b""
        headers = {
            key[5:].replace("_", "-").lower(): value for key, value in environ.items() if key.startswith("HTTP_")
        }
        if environ.get("CONTENT_TYPE"):
            headers["content-type"] = environ["CONTENT_TYPE"]
        claims = None
        if route.authorized:
            claims = self.claims_from(headers.get("authorization", ""))
            if claims is None:  # API Gateway's JWT authorizer answers so, with the challenge
                return self._reply(start_response, 401, {**JSON, **CHALLENGE}, b'{"message":"Unauthorized"}')
        event = http_api_event(
            method,
            path,
            environ.get("QUERY_STRING", ""),
            headers,
            body=raw,
            claims=claims,
            route_key=route.key,
            path_parameters=path_parameters,
        )
        try:
            if route.function in self.oauth_configured:
                result = self.runtime.invoke(route.function, event, environment=self._sign_in_environment(environ))
            else:
                result = self.runtime.invoke(route.function, event)
        except Exception:  # what API Gateway answers when the function fails
            return self._reply(start_response, 500, JSON, b'{"message":"Internal Server Error"}')
        payload = result.get("body") or ""
        data = base64.b64decode(payload) if result.get("isBase64Encoded") else payload.encode("utf-8")
        return self._reply(start_response, int(result["statusCode"]), result.get("headers") or {}, data)

    def _local_only(
        self, method: str, path: str, environ: dict[str, Any], start_response: StartResponse
    ) -> Iterable[bytes] | None:
        """What only the local server answers: the OpenAPI document, the local user pool for
        operator commands in another process (slea_local/local_aws.py) and, with signed tokens,
        the user pool domain's sign-in endpoints (a domain of its own in AWS, not the API's)."""
        if method == "GET" and path == "/openapi.json":
            return self._reply(start_response, 200, JSON, self.openapi.read_bytes())
        if path.startswith(LOCAL_AWS_PREFIX):
            return self.local_aws(environ, start_response)
        if self.hosted_signin is not None and path in SIGN_IN_PATHS:
            return self.hosted_signin(environ, start_response)
        return None

    @staticmethod
    def _sign_in_environment(environ: dict[str, Any]) -> dict[str, str]:
        """Signed tokens: a function configured with the pool's OAuth endpoints (the web app)
        has them at this server, where the hosted sign-in answers (the browser's origin)."""
        from slea_local.hosted_signin import AUTHORIZE_PATH, TOKEN_PATH, request_origin

        origin = request_origin(environ)
        return {
            "SLEA_LOCAL_HOSTED_SIGN_IN": "1",
            "OAUTH_AUTHORIZE_URL": origin + AUTHORIZE_PATH,
            "OAUTH_TOKEN_URL": origin + TOKEN_PATH,
        }

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


class _ThreadingWSGIServer(socketserver.ThreadingMixIn, WSGIServer):
    """One thread per request, as API Gateway serves requests side by side: a slow request (a
    model call, a client that never finishes its body) never holds up the others."""

    daemon_threads = True


# A client that has not sent its request line, headers and body within this many seconds is cut
# off (slowloris); API Gateway's own limit for a whole request is 30 s.
REQUEST_READ_SECONDS = 30


class QuietRequestHandler(WSGIRequestHandler):
    """No access log (the tests and the demo print what matters to them). Reads time out, and a
    whole request must arrive within `request_seconds`: a client that dribbles a byte now and
    then (each read well within the timeout) is still cut off at that deadline, as API Gateway
    would. The cut closes only the reading side, so a response already under way is still sent."""

    timeout = REQUEST_READ_SECONDS
    request_seconds: float = REQUEST_READ_SECONDS

    def setup(self) -> None:
        super().setup()
        self._deadline = threading.Timer(self.request_seconds, self._stop_reading)
        self._deadline.daemon = True
        self._deadline.start()

    def _stop_reading(self) -> None:
        with contextlib.suppress(OSError):  # already closed
            self.connection.shutdown(socket.SHUT_RD)

    def finish(self) -> None:
        self._deadline.cancel()
        super().finish()

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        pass

    def get_environ(self) -> dict[str, Any]:
        """wsgiref gives a request sent without a content type "text/plain"; API Gateway passes
        only the headers the client sent (a POST without a body, e.g. POST /sessions, has none)."""
        environ = super().get_environ()
        if self.headers.get("content-type") is None:
            environ.pop("CONTENT_TYPE", None)
        return environ


def local_server(
    runtime: LocalRuntime,
    port: int,
    handler: type[WSGIRequestHandler] = QuietRequestHandler,
    *,
    signed_tokens: bool = False,
) -> Any:
    """The local HTTP API's server on 127.0.0.1:`port` (0: any free port); `signed_tokens`: only
    tokens the local user pool signed are accepted, as in AWS (else the development stand-in)."""
    return make_server(
        "127.0.0.1",
        port,
        HttpApiAdapter(runtime, signed_tokens=signed_tokens),
        server_class=_ThreadingWSGIServer,
        handler_class=handler,
    )


@contextmanager
def serve_in_background(runtime: LocalRuntime, *, signed_tokens: bool = False) -> Iterator[str]:
    """The local HTTP API (pages, routes, /mcp) on an ephemeral 127.0.0.1 port from a background
    thread, for the demo and the tests that drive it as a client would: yields its base URL.
    `signed_tokens`: every authorised route checks tokens as API Gateway does (slea_local/identity.py)."""
    server = local_server(runtime, 0, signed_tokens=signed_tokens)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
