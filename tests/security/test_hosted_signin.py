"""The user pool's hosted sign-in, locally (slea_local/hosted_signin.py): authorization code +
PKCE (S256) against the stack's own pool, as the web app's OAuth sign-in uses Cognito's. Codes
are single-use and short-lived, bound to their client, redirect URI and challenge; an unknown
client or a foreign redirect URI is never redirected to; a wrong password issues nothing."""

import io
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit
from wsgiref.util import setup_testing_defaults

import pytest

from slea.security.roles import REVIEWER_GROUP
from slea_local.cloud import LocalCloud
from slea_local.hosted_signin import AuthorizationCodes, Refused, s256
from slea_local.http import HttpApiAdapter, call
from slea_local.identity import LocalUserPool, PoolTokens, unverified_claims
from slea_local.runtime import LocalRuntime

ORIGIN = "http://127.0.0.1:8765"
VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"  # RFC 7636, appendix B
CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
TOKENS = PoolTokens("id.token.x", "access.token.x", "subject", "someone@example.com")


# ---------------------------------------------------------------- PKCE and the codes alone
def test_the_s256_challenge_is_rfc_7636s():
    assert s256(VERIFIER) == CHALLENGE


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def _issued(clock: Clock | None = None) -> tuple[AuthorizationCodes, str]:
    codes = AuthorizationCodes(clock=clock or Clock())
    return codes, codes.issue("client-1", f"{ORIGIN}/", CHALLENGE, TOKENS)


def test_a_code_gives_its_tokens_once():
    codes, code = _issued()
    assert codes.redeem(code, VERIFIER, "client-1", f"{ORIGIN}/") == TOKENS
    with pytest.raises(Refused) as refused:
        codes.redeem(code, VERIFIER, "client-1", f"{ORIGIN}/")
    assert refused.value.error == "invalid_grant"


@pytest.mark.parametrize(
    ("verifier", "client_id", "redirect_uri"),
    [
        ("x" * 43, "client-1", f"{ORIGIN}/"),  # another verifier
        (VERIFIER[:-1], "client-1", f"{ORIGIN}/"),  # too short to be one
        (CHALLENGE, "client-1", f"{ORIGIN}/"),  # the challenge itself
        (VERIFIER, "client-2", f"{ORIGIN}/"),  # another client
        (VERIFIER, "client-1", f"{ORIGIN}/review"),  # another redirect URI
    ],
)
def test_a_code_is_refused_to_anything_but_its_verifier_client_and_redirect_and_then_spent(
    verifier, client_id, redirect_uri
):
    codes, code = _issued()
    with pytest.raises(Refused) as refused:
        codes.redeem(code, verifier, client_id, redirect_uri)
    assert refused.value.error == "invalid_grant"
    with pytest.raises(Refused):  # a failed redemption spends the code too
        codes.redeem(code, VERIFIER, "client-1", f"{ORIGIN}/")


def test_a_code_lives_five_minutes():
    clock = Clock()
    codes, code = _issued(clock)
    clock.now += 299
    assert codes.redeem(code, VERIFIER, "client-1", f"{ORIGIN}/") == TOKENS
    code = codes.issue("client-1", f"{ORIGIN}/", CHALLENGE, TOKENS)
    clock.now += 300
    with pytest.raises(Refused):
        codes.redeem(code, VERIFIER, "client-1", f"{ORIGIN}/")


def test_an_unknown_code_is_refused():
    codes, _ = _issued()
    with pytest.raises(Refused):
        codes.redeem("not-a-code", VERIFIER, "client-1", f"{ORIGIN}/")


# ---------------------------------------------------------------- through the local server
class Stack:
    def __init__(self, cloud: LocalCloud) -> None:
        self.cloud, self.runtime = cloud, LocalRuntime(cloud)
        self.pool = LocalUserPool(cloud)
        self.adapter = HttpApiAdapter(self.runtime, signed_tokens=True)
        self.password = self.pool.create_user("a.learner@example.com")
        self.reviewer_password = self.pool.create_user("a.reviewer@example.com", [REVIEWER_GROUP])


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    with LocalCloud() as cloud:
        yield Stack(cloud)


def _request(
    app: Any, method: str, path: str, query: dict[str, str] | None = None, form: dict[str, str] | None = None
) -> tuple[int, dict[str, str], str]:
    body = urlencode(form or {}).encode()
    environ: dict[str, Any] = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": urlencode(query or {}),
        "CONTENT_TYPE": "application/x-www-form-urlencoded",
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.input": io.BytesIO(body),
        "HTTP_HOST": ORIGIN.removeprefix("http://"),
    }
    setup_testing_defaults(environ)
    captured: dict[str, Any] = {}

    def start_response(status: str, headers: list[tuple[str, str]]) -> None:
        captured["status"], captured["headers"] = int(status.split(maxsplit=1)[0]), dict(headers)

    text = b"".join(app(environ, start_response)).decode()
    return captured["status"], captured["headers"], text


def _authorization(stack: Stack, **changes: str) -> dict[str, str]:
    query = {
        "response_type": "code",
        "client_id": stack.pool.client_id,
        "redirect_uri": f"{ORIGIN}/",
        "state": "state-123",
        "scope": "openid profile",
        "code_challenge": CHALLENGE,
        "code_challenge_method": "S256",
    }
    return {name: value for name, value in {**query, **changes}.items() if value is not None}


def _sign_in(stack: Stack, email: str, secret: str, **changes: str) -> tuple[int, dict[str, str], str]:
    form = {**_authorization(stack, **changes), "username": email, "password": secret}
    return _request(stack.adapter, "POST", "/oauth2/authorize", form=form)


def _code(stack: Stack, email: str = "a.learner@example.com", secret: str | None = None, **changes: str) -> str:
    status, headers, _ = _sign_in(stack, email, secret or stack.password, **changes)
    assert status == 302
    location = urlsplit(headers["location"])
    redirect = urlsplit(changes.get("redirect_uri", f"{ORIGIN}/"))
    assert (location.scheme, location.netloc, location.path) == (redirect.scheme, redirect.netloc, redirect.path)
    query = parse_qs(location.query)
    assert query["state"] == ["state-123"]
    return query["code"][0]


def _exchange(stack: Stack, code: str, **changes: str) -> tuple[int, dict[str, str], Any]:
    form = {
        "grant_type": "authorization_code",
        "client_id": stack.pool.client_id,
        "code": code,
        "redirect_uri": f"{ORIGIN}/",
        "code_verifier": VERIFIER,
        **changes,
    }
    status, headers, text = _request(stack.adapter, "POST", "/oauth2/token", form=form)
    return status, headers, json.loads(text)


def test_the_sign_in_form_is_plain_html_with_labels_for_a_phone(stack):
    status, headers, page = _request(stack.adapter, "GET", "/oauth2/authorize", _authorization(stack))
    assert status == 200
    assert headers["content-type"].startswith("text/html")
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    assert '<label for="username">E-mail</label>' in page
    assert '<label for="password">Password</label>' in page
    assert 'type="password"' in page
    assert "<script" not in page
    assert f'name="code_challenge" value="{CHALLENGE}"' in page


def test_a_code_for_the_right_password_gives_tokens_the_api_accepts_once(stack):
    code = _code(stack)
    status, headers, tokens = _exchange(stack, code)
    assert status == 200
    assert headers["cache-control"] == "no-store"
    assert set(tokens) == {"id_token", "access_token", "expires_in", "token_type"}
    assert tokens["token_type"] == "Bearer"
    assert 3500 < tokens["expires_in"] <= 3600
    for token in (tokens["access_token"], tokens["id_token"]):
        assert call(stack.adapter, "GET", "/sessions", token=token)[0] == 200
        assert call(stack.adapter, "GET", "/review/queue", token=token)[0] == 403  # a learner
    status, _, refused = _exchange(stack, code)
    assert (status, refused["error"]) == (400, "invalid_grant")


def test_a_reviewer_signed_in_here_reaches_the_review_queue(stack):
    code = _code(stack, "a.reviewer@example.com", stack.reviewer_password, redirect_uri=f"{ORIGIN}/review")
    _, _, tokens = _exchange(stack, code, redirect_uri=f"{ORIGIN}/review")
    assert call(stack.adapter, "GET", "/review/queue", token=tokens["access_token"])[0] == 200


@pytest.mark.parametrize(
    "changes",
    [
        {"code_verifier": "A" * 43},
        {"client_id": "unknown-client"},
        {"redirect_uri": f"{ORIGIN}/review"},
        {"grant_type": "refresh_token"},
    ],
)
def test_the_token_endpoint_refuses_a_wrong_verifier_client_redirect_or_grant(stack, changes):
    code = _code(stack)
    status, _, refused = _exchange(stack, code, **changes)
    assert status == 400
    assert refused["error"] == {"client_id": "invalid_client", "grant_type": "unsupported_grant_type"}.get(
        next(iter(changes)), "invalid_grant"
    )
    assert "access_token" not in refused


def test_a_wrong_password_or_unknown_user_shows_the_form_again_and_issues_nothing(stack):
    codes = stack.adapter.hosted_signin.codes
    before = len(codes._grants)
    for email, secret in [("a.learner@example.com", "Wrong1!password"), ("nobody@example.com", stack.password)]:
        status, headers, page = _sign_in(stack, email, secret)
        assert status == 200
        assert "location" not in headers
        assert 'role="alert">Incorrect e-mail or password.' in page
        assert f'value="{email}"' in page  # kept; the password is not
        assert 'aria-invalid="true"' in page
    assert len(codes._grants) == before


@pytest.mark.parametrize(
    "changes",
    [
        {"client_id": "unknown-client"},
        {"client_id": None},
        {"redirect_uri": "https://evil.example/"},
        {"redirect_uri": f"{ORIGIN}/elsewhere"},
        {"redirect_uri": "http://127.0.0.1:9999/"},  # another origin than the server's
    ],
)
def test_an_unknown_client_or_foreign_redirect_gets_an_error_page_never_a_redirect(stack, changes):
    for method in ("GET", "POST"):
        fields = {**_authorization(stack, **changes), "username": "a.learner@example.com", "password": stack.password}
        if method == "GET":
            status, headers, page = _request(stack.adapter, "GET", "/oauth2/authorize", fields)
        else:
            status, headers, page = _request(stack.adapter, "POST", "/oauth2/authorize", form=fields)
        assert status == 400
        assert "location" not in headers
        assert "Sign-in error" in page


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"response_type": "token"}, "unsupported_response_type"),
        ({"code_challenge": None}, "invalid_request"),
        ({"code_challenge_method": "plain"}, "invalid_request"),
        ({"scope": "openid aws.cognito.signin.user.admin"}, "invalid_scope"),
    ],
)
def test_a_bad_request_from_a_known_client_goes_back_with_the_error(stack, changes, error):
    status, headers, _ = _request(stack.adapter, "GET", "/oauth2/authorize", _authorization(stack, **changes))
    assert status == 302
    query = parse_qs(urlsplit(headers["location"]).query)
    assert query["error"] == [error]
    assert query["state"] == ["state-123"]
    assert "code" not in query


def test_the_pages_configuration_points_at_the_hosted_sign_in_with_the_pools_client(stack):
    status, _, config = _request(stack.adapter, "GET", "/config.json")
    assert status == 200
    assert json.loads(config) == {
        "mode": "oauth",
        "authorize_url": f"{ORIGIN}/oauth2/authorize",
        "token_url": f"{ORIGIN}/oauth2/token",
        "client_id": stack.pool.client_id,
        "scope": "openid profile",
    }


def test_the_development_mode_keeps_its_local_sign_in_and_has_no_hosted_one(stack):
    development = HttpApiAdapter(stack.runtime)
    assert json.loads(_request(development, "GET", "/config.json")[2])["mode"] == "local"
    assert _request(development, "GET", "/oauth2/authorize", _authorization(stack))[0] == 404
    assert _request(development, "POST", "/oauth2/token", form={"grant_type": "authorization_code"})[0] == 404


def test_serve_with_signed_tokens_prints_pool_users_who_can_sign_in_on_the_page(stack, capsys):
    from slea_local import __main__ as local_main

    local_main._print_signed_tokens("http://127.0.0.1:8080", stack.cloud)
    printed = capsys.readouterr().out
    assert "http://127.0.0.1:8080/oauth2/authorize" in printed
    for email, groups in (("learner@example.com", None), ("reviewer@example.com", [REVIEWER_GROUP])):
        (password,) = [line.split("password ")[1].strip() for line in printed.splitlines() if f" {email} " in line]
        code = _code(stack, email, password)
        _, _, tokens = _exchange(stack, code)
        assert unverified_claims(tokens["access_token"]).get("cognito:groups") == groups
