"""Cognito's hosted sign-in, locally: the two endpoints of the user pool's domain that the web
app's OAuth sign-in uses (authorization code + PKCE), served by the local HTTP API in
signed-token mode over the stack's own (moto) user pool.

GET  /oauth2/authorize   response_type=code, client_id, redirect_uri, state, scope,
                         code_challenge, code_challenge_method=S256: a sign-in form (e-mail and
                         password);
POST /oauth2/authorize   the form: the pool signs the user in (AdminInitiateAuth, password flow)
                         and the browser goes to redirect_uri?code=...&state=...; a wrong e-mail
                         or password shows the form again with an error and issues nothing;
POST /oauth2/token       grant_type=authorization_code, code, code_verifier, client_id,
                         redirect_uri (form-encoded): {id_token, access_token, expires_in,
                         token_type} once per code.

As Cognito does, the client must be one of the pool's with the code flow allowed, the redirect
URI one of its callback URLs and the scopes among its allowed ones; an unknown client or a
foreign redirect URI gets an error page and never a redirect. Locally the stack's HTTP API is
this server, so a callback URL on the API's AWS address stands for the same path here. Stricter
than Cognito: PKCE (S256) is required. Codes are single-use (a redemption that fails uses the
code up too) and live five minutes, as Cognito's do."""

import base64
import hashlib
import html
import json
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlencode

from botocore.exceptions import ClientError

from slea_local.cloud import LocalCloud
from slea_local.identity import LocalUserPool, PoolTokens, unverified_claims

AUTHORIZE_PATH = "/oauth2/authorize"
TOKEN_PATH = "/oauth2/token"  # noqa: S105 - an address, not a secret
PATHS = frozenset({AUTHORIZE_PATH, TOKEN_PATH})
CODE_SECONDS = 300  # Cognito's authorization codes live five minutes
# RFC 7636: a verifier is 43 to 128 unreserved characters; an S256 challenge is 43 base64url ones.
_VERIFIER = re.compile(r"[A-Za-z0-9\-._~]{43,128}")
_CHALLENGE = re.compile(r"[A-Za-z0-9\-_]{43}")
StartResponse = Callable[[str, list[tuple[str, str]]], Any]


def s256(verifier: str) -> str:
    """The S256 code challenge of a verifier: BASE64URL(SHA-256(verifier)), unpadded."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


class Refused(Exception):
    """An OAuth error: `error` is the protocol's code (invalid_grant, ...), `description` words."""

    def __init__(self, error: str, description: str) -> None:
        super().__init__(f"{error}: {description}")
        self.error, self.description = error, description


@dataclass(frozen=True)
class _Grant:
    client_id: str
    redirect_uri: str
    challenge: str
    tokens: PoolTokens
    expires: float


class AuthorizationCodes:
    """The codes the sign-in has issued and not yet redeemed: each for one client, redirect URI
    and PKCE challenge, redeemed once, within its lifetime."""

    def __init__(self, clock: Callable[[], float] = time.time, lifetime: float = CODE_SECONDS) -> None:
        self.clock, self.lifetime = clock, lifetime
        self._grants: dict[str, _Grant] = {}
        self._lock = threading.Lock()

    def issue(self, client_id: str, redirect_uri: str, challenge: str, tokens: PoolTokens) -> str:
        code = secrets.token_urlsafe(32)
        with self._lock:
            now = self.clock()
            for expired in [key for key, grant in self._grants.items() if grant.expires <= now]:
                del self._grants[expired]
            self._grants[code] = _Grant(client_id, redirect_uri, challenge, tokens, now + self.lifetime)
        return code

    def redeem(self, code: str, verifier: str, client_id: str, redirect_uri: str) -> PoolTokens:
        """The tokens the code was issued with, or Refused("invalid_grant"); either way the code
        is spent."""
        with self._lock:
            grant = self._grants.pop(code, None)
        if grant is None or grant.expires <= self.clock():
            raise Refused("invalid_grant", "the code is unknown, used or expired")
        if grant.client_id != client_id:
            raise Refused("invalid_grant", "the code was issued to another client")
        if grant.redirect_uri != redirect_uri:
            raise Refused("invalid_grant", "redirect_uri differs from the authorization request's")
        if not _VERIFIER.fullmatch(verifier) or not secrets.compare_digest(s256(verifier), grant.challenge):
            raise Refused("invalid_grant", "code_verifier does not match the code challenge")
        return grant.tokens


@dataclass(frozen=True)
class AppClient:
    """What the sign-in checks of a user pool app client."""

    client_id: str
    callback_urls: tuple[str, ...]
    scopes: frozenset[str]


@dataclass(frozen=True)
class _Request:
    """A validated authorization request."""

    client_id: str
    redirect_uri: str
    state: str | None
    scope: str
    challenge: str


class _Redirect(Refused):
    """An error sent back to the (verified) redirect URI, as OAuth does once it can trust it."""

    def __init__(self, request: _Request, error: str, description: str) -> None:
        super().__init__(error, description)
        self.request = request

    def parameters(self) -> dict[str, str | None]:
        return {"error": self.error, "error_description": self.description, "state": self.request.state}


class HostedSignIn:
    """WSGI application for the pool domain's /oauth2/authorize and /oauth2/token."""

    def __init__(self, pool: LocalUserPool, api_endpoint: str, codes: AuthorizationCodes | None = None) -> None:
        self.pool, self.codes = pool, codes or AuthorizationCodes()
        self.api_endpoint = api_endpoint.rstrip("/")  # the HTTP API's address in AWS

    @classmethod
    def of_stack(cls, cloud: LocalCloud) -> "HostedSignIn":
        """The stack's own pool; its HTTP API's default endpoint is what the callbacks name."""
        endpoint = cloud.resolve({"Fn::Sub": "https://${HttpApi}.execute-api.${AWS::Region}.${AWS::URLSuffix}"})
        return cls(LocalUserPool(cloud), str(endpoint))

    # ------------------------------------------------------------------ the client
    def client(self, client_id: str) -> AppClient | None:
        """The pool's app client with the code flow allowed, or None."""
        if not client_id:
            return None
        try:
            found = self.pool.cognito.describe_user_pool_client(UserPoolId=self.pool.pool_id, ClientId=client_id)
        except ClientError:
            return None
        settings = found["UserPoolClient"]
        if not settings.get("AllowedOAuthFlowsUserPoolClient") or "code" not in settings.get("AllowedOAuthFlows", []):
            return None
        callbacks, scopes = settings.get("CallbackURLs", []), settings.get("AllowedOAuthScopes", [])
        return AppClient(client_id, tuple(callbacks), frozenset(scopes))

    def callback_urls(self, client: AppClient, origin: str) -> set[str]:
        """The client's callback URLs, those on the HTTP API's AWS address also at `origin` (where
        the local server answers for the API)."""
        urls = set(client.callback_urls)
        for url in client.callback_urls:
            if url == self.api_endpoint or url.startswith(self.api_endpoint + "/"):
                urls.add(origin + url.removeprefix(self.api_endpoint))
        return urls

    def authorization_request(self, query: Mapping[str, str], origin: str) -> _Request:
        """The request checked as Cognito checks it. Refused("invalid_client" / "redirect_mismatch"):
        show an error page; any other Refused: redirect with the error."""
        client = self.client(query.get("client_id", ""))
        if client is None:
            raise Refused("invalid_client", "unknown client_id, or a client without the authorization code flow")
        redirect_uri = query.get("redirect_uri", "")
        if redirect_uri not in self.callback_urls(client, origin):
            raise Refused("redirect_mismatch", "redirect_uri is not one of the client's callback URLs")
        request = _Request(client.client_id, redirect_uri, query.get("state"), query.get("scope", ""), "")
        if query.get("response_type") != "code":
            raise _Redirect(request, "unsupported_response_type", "response_type must be code")
        if query.get("code_challenge_method") != "S256" or not _CHALLENGE.fullmatch(query.get("code_challenge", "")):
            raise _Redirect(request, "invalid_request", "a code_challenge with code_challenge_method S256 is required")
        if not set(request.scope.split()) <= client.scopes:
            raise _Redirect(request, "invalid_scope", "a scope the client is not allowed")
        return _Request(client.client_id, redirect_uri, request.state, request.scope, query["code_challenge"])

    # ------------------------------------------------------------------ the pool
    def sign_in(self, client_id: str, username: str, secret: str) -> PoolTokens | None:
        """The user's tokens when the e-mail and password are right (the pool's password flow)."""
        if not username or not secret:
            return None
        try:
            result = self.pool.cognito.admin_initiate_auth(
                UserPoolId=self.pool.pool_id,
                ClientId=client_id,
                AuthFlow="ADMIN_USER_PASSWORD_AUTH",
                AuthParameters={"USERNAME": username, "PASSWORD": secret},
            )
        except ClientError:  # unknown user, wrong password, disabled user: one answer for all
            return None
        tokens = result.get("AuthenticationResult")
        if not tokens:  # a challenge (a new password to set): not offered by this sign-in
            return None
        subject = unverified_claims(tokens["IdToken"])["sub"]
        return PoolTokens(tokens["IdToken"], tokens["AccessToken"], subject, username)

    # ------------------------------------------------------------------ HTTP
    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> list[bytes]:
        method, path = environ["REQUEST_METHOD"], environ.get("PATH_INFO", "/")
        origin = request_origin(environ)
        if path == AUTHORIZE_PATH and method in ("GET", "POST"):
            query = _single(parse_qs(environ.get("QUERY_STRING", ""), keep_blank_values=True))
            form = _single(parse_qs(_body(environ), keep_blank_values=True)) if method == "POST" else {}
            return self._authorize(start_response, {**query, **form} if method == "POST" else query, origin, method)
        if path == TOKEN_PATH and method == "POST":
            return self._token(start_response, _single(parse_qs(_body(environ), keep_blank_values=True)), origin)
        return _reply(start_response, 405, {"content-type": "application/json"}, b'{"error":"invalid_request"}')

    def _authorize(
        self, start_response: StartResponse, fields: dict[str, str], origin: str, method: str
    ) -> list[bytes]:
        try:
            request = self.authorization_request(fields, origin)
        except _Redirect as refused:
            return _redirect(start_response, refused.request.redirect_uri, refused.parameters())
        except Refused as refused:
            return _page(start_response, 400, _error_page(refused.description))
        if method == "GET":
            return _page(start_response, 200, _form(request, ""))
        username = fields.get("username", "").strip()
        tokens = self.sign_in(request.client_id, username, fields.get("password", ""))
        if tokens is None:
            return _page(start_response, 200, _form(request, username, "Incorrect e-mail or password."))
        code = self.codes.issue(request.client_id, request.redirect_uri, request.challenge, tokens)
        return _redirect(start_response, request.redirect_uri, {"code": code, "state": request.state})

    def _token(self, start_response: StartResponse, fields: dict[str, str], origin: str) -> list[bytes]:
        try:
            if fields.get("grant_type") != "authorization_code":
                raise Refused("unsupported_grant_type", "grant_type must be authorization_code")
            if self.client(fields.get("client_id", "")) is None:
                raise Refused("invalid_client", "unknown client_id")
            code, verifier = fields.get("code", ""), fields.get("code_verifier", "")
            tokens = self.codes.redeem(code, verifier, fields["client_id"], fields.get("redirect_uri", ""))
        except Refused as refused:
            refusal = {"error": refused.error, "error_description": refused.description}
            return _reply(start_response, 400, _TOKEN_HEADERS, json.dumps(refusal).encode())
        expires = int(unverified_claims(tokens.access_token)["exp"] - time.time())
        body: dict[str, Any] = {
            "id_token": tokens.id_token,
            "access_token": tokens.access_token,
            "expires_in": max(expires, 0),
            "token_type": "Bearer",
        }
        return _reply(start_response, 200, _TOKEN_HEADERS, json.dumps(body).encode())


def request_origin(environ: Mapping[str, Any]) -> str:
    """The origin the browser used to reach this server (its Host header)."""
    host = environ.get("HTTP_HOST") or f"{environ.get('SERVER_NAME', '127.0.0.1')}:{environ.get('SERVER_PORT', '80')}"
    return f"{environ.get('wsgi.url_scheme', 'http')}://{host}"


def _single(values: Mapping[str, list[str]]) -> dict[str, str]:
    return {name: found[0] for name, found in values.items() if found}


def _body(environ: Mapping[str, Any]) -> str:
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    raw: bytes = environ["wsgi.input"].read(min(length, 64 * 1024)) if length > 0 else b""
    return raw.decode("utf-8", "replace")


_TOKEN_HEADERS = {"content-type": "application/json;charset=UTF-8", "cache-control": "no-store", "pragma": "no-cache"}
_STATUS = {200: "200 OK", 302: "302 Found", 400: "400 Bad Request", 405: "405 Method Not Allowed"}


def _reply(start_response: StartResponse, status: int, headers: Mapping[str, str], body: bytes) -> list[bytes]:
    start_response(_STATUS[status], [*headers.items(), ("content-length", str(len(body)))])
    return [body]


def _redirect(start_response: StartResponse, uri: str, parameters: Mapping[str, str | None]) -> list[bytes]:
    query = urlencode({name: value for name, value in parameters.items() if value is not None})
    location = f"{uri}{'&' if '?' in uri else '?'}{query}"
    return _reply(start_response, 302, {"location": location, "cache-control": "no-store"}, b"")


# ------------------------------------------------------------------ the page
_STYLE = (
    "body{font:1rem/1.5 system-ui,sans-serif;margin:0;padding:1rem;background:#f4f5f7;color:#1b1d21}"
    "main{max-width:24rem;margin:2rem auto;background:#fff;padding:1.5rem;border-radius:.5rem}"
    "h1{font-size:1.4rem;margin:0 0 .5rem}p.note{color:#4a4f57;font-size:.9rem}"
    "label{display:block;margin-top:1rem;font-weight:600}"
    "input{box-sizing:border-box;width:100%;font-size:1rem;padding:.6rem;margin-top:.25rem;"
    "border:1px solid #6b717a;border-radius:.3rem}"
    "button{margin-top:1.25rem;width:100%;font-size:1rem;padding:.7rem;border:0;border-radius:.3rem;"
    "background:#1f5fbf;color:#fff}"
    "input:focus,button:focus{outline:3px solid #f0a500;outline-offset:2px}"
    "#signin-error{color:#a4161a;font-weight:600}"
)
_STYLE_HASH = base64.b64encode(hashlib.sha256(_STYLE.encode()).digest()).decode()
_PAGE_HEADERS = {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "content-security-policy": f"default-src 'none'; style-src 'sha256-{_STYLE_HASH}'; form-action 'self';"
    " frame-ancestors 'none'; base-uri 'none'",
}


def _document(title: str, content: str) -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body><main>{content}</main></body></html>"
    )


def _hidden(fields: Iterable[tuple[str, str | None]]) -> str:
    inputs = (f'<input type="hidden" name="{name}" value="{html.escape(value)}">' for name, value in fields if value)
    return "".join(inputs)


def _form(request: _Request, username: str, error: str = "") -> str:
    described = ' aria-describedby="signin-error" aria-invalid="true"' if error else ""
    alert = f'<p id="signin-error" role="alert">{html.escape(error)}</p>' if error else ""
    hidden = _hidden(
        [
            ("response_type", "code"),
            ("client_id", request.client_id),
            ("redirect_uri", request.redirect_uri),
            ("state", request.state),
            ("scope", request.scope),
            ("code_challenge", request.challenge),
            ("code_challenge_method", "S256"),
        ]
    )
    return _document(
        "Sign in",
        "<h1>Sign in</h1>"
        "<p class=\"note\">Local user pool (the stack's own, as Cognito's hosted sign-in).</p>"
        f"{alert}"
        f'<form method="post" action="{AUTHORIZE_PATH}">{hidden}'
        '<label for="username">E-mail</label>'
        f'<input id="username" name="username" type="email" autocomplete="username" required'
        f' value="{html.escape(username)}"{described}>'
        '<label for="password">Password</label>'
        f'<input id="password" name="password" type="password" autocomplete="current-password" required{described}>'
        '<button type="submit">Sign in</button></form>',
    )


def _error_page(description: str) -> str:
    return _document(
        "Sign-in error",
        f'<h1>Sign-in error</h1><p role="alert">{html.escape(description)}</p>',
    )


def _page(start_response: StartResponse, status: int, document: str) -> list[bytes]:
    return _reply(start_response, status, _PAGE_HEADERS, document.encode("utf-8"))
