"""Real tokens locally: the local HTTP API in signed-token mode checks every request as API
Gateway's JWT authorizer does (the local user pool's key, issuer, audience, expiry), then the
claims reach the functions as API Gateway hands them on and roles come from the pool's groups.

Tokens come from the stack's own user pool (moto's Cognito, which signs with RS256): users are
created, put in groups and signed in as the web app's users would be. Every refusal is checked on
every route of template.yaml that has the authorizer, /mcp included."""

import base64
import json
import re
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from joserfc import jwk, jwt

from slea.security.roles import AUTHOR_GROUP, REVIEWER_GROUP
from slea_local.cloud import REGION, LocalCloud
from slea_local.http import HttpApiAdapter, Route, call, http_api_routes, serve_in_background
from slea_local.identity import JwtAuthorizer, LocalUserPool, PoolTokens, unverified_claims
from slea_local.runtime import LocalRuntime

UNAUTHORIZED = {"message": "Unauthorized"}


class Stack:
    """One local stack for the module: its cloud, runtime, pool and signed-token adapter."""

    def __init__(self, cloud: LocalCloud) -> None:
        self.cloud, self.runtime = cloud, LocalRuntime(cloud)
        self.pool = LocalUserPool(cloud)
        self.adapter = HttpApiAdapter(self.runtime, signed_tokens=True)
        self.learner = self.pool.user()
        self.reviewer = self.pool.user([REVIEWER_GROUP])

    def request(self, method: str, path: str, token: str | None, body: Any = None) -> tuple[int, dict[str, str], Any]:
        return call(self.adapter, method, path, body, token)


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    with LocalCloud() as cloud:
        yield Stack(cloud)


def authorised_routes(stack: Stack) -> list[Route]:
    routes = [route for route in http_api_routes(stack.cloud.template) if route.authorized]
    assert {"POST /mcp", "GET /review/queue", "POST /sessions"} <= {route.key for route in routes}
    return routes


def concrete(route: Route) -> tuple[str, str]:
    """A request the route serves: each path parameter filled in."""
    return ("GET" if route.method == "ANY" else route.method), re.sub(r"\{\w+\+?\}", "x1", route.path)


def assert_refused_everywhere(stack: Stack, token: str | None) -> None:
    answered = {}
    for route in authorised_routes(stack):
        method, path = concrete(route)
        status, headers, body = stack.request(method, path, token, body={})
        answered[route.key] = (status, body, "www-authenticate" in headers)
    assert answered == dict.fromkeys(answered, (401, UNAUTHORIZED, True))


def b64(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def with_payload(token: str, **changes: Any) -> str:
    """The token with its claims changed and its signature kept."""
    header, _, signature = token.split(".")
    return f"{header}.{b64({**unverified_claims(token), **changes})}.{signature}"


# ---------------------------------------------------------------------------- accepted


def test_a_reviewer_of_the_pool_reaches_the_review_routes_and_a_learner_does_not(stack: Stack) -> None:
    review_routes = ["/review/queue", "/review/groups", "/review/stats"]
    for tokens in (stack.reviewer.id_token, stack.reviewer.access_token):
        assert [stack.request("GET", path, tokens)[0] for path in review_routes] == [200, 200, 200]
    for tokens in (stack.learner.id_token, stack.learner.access_token):
        assert [stack.request("GET", path, tokens)[0] for path in review_routes] == [403, 403, 403]


def test_a_learner_of_the_pool_uses_the_api_as_its_subject(stack: Stack) -> None:
    learner = stack.pool.user()
    status, _, created = stack.request("POST", "/sessions", learner.id_token)
    assert status in (200, 201), created
    status, _, listed = stack.request("GET", "/sessions", learner.access_token)  # the access token is the same user
    assert status == 200
    assert created["session_id"] in json.dumps(listed)
    # Another user of the pool does not see it.
    assert created["session_id"] not in json.dumps(stack.request("GET", "/sessions", stack.learner.id_token)[2])


def test_claims_reach_the_function_as_api_gateway_hands_them_on(stack: Stack) -> None:
    seen: dict[str, Any] = {}
    invoke = stack.runtime.invoke

    def spy(function: str, event: dict[str, Any]) -> dict[str, Any]:
        seen.update(event["requestContext"]["authorizer"]["jwt"]["claims"])
        return invoke(function, event)

    stack.adapter.runtime = type("Spy", (), {"invoke": staticmethod(spy)})()  # type: ignore[assignment]
    try:
        stack.request("GET", "/review/queue", stack.reviewer.id_token)
    finally:
        stack.adapter.runtime = stack.runtime
    assert seen["sub"] == stack.reviewer.subject
    assert seen["cognito:groups"] == "[reviewers]"  # an array claim arrives as one string
    assert seen["iss"] == stack.pool.issuer
    assert seen["aud"] == stack.pool.client_id


def test_a_learner_holding_every_scope_the_web_client_allows_is_still_a_learner(stack: Stack) -> None:
    client = stack.pool.cognito.describe_user_pool_client(UserPoolId=stack.pool.pool_id, ClientId=stack.pool.client_id)
    allowed = client["UserPoolClient"]["AllowedOAuthScopes"]
    # Every scope the client allows, the pool's own, and the scope that once made a reviewer.
    scopes = " ".join([*allowed, "aws.cognito.signin.user.admin", "slea/review", "slea/author"])
    token = stack.pool.signed(stack.learner.username, "access", scope=scopes)
    assert stack.request("GET", "/sessions", token)[0] == 200  # a valid token of the pool
    assert [stack.request("GET", path, token)[0] for path in ("/review/queue", "/review/groups")] == [403, 403]


# ---------------------------------------------------------------------------- refused everywhere


def test_no_token_or_the_development_shortcut_is_refused(stack: Stack) -> None:
    assert_refused_everywhere(stack, None)
    assert_refused_everywhere(stack, stack.learner.subject)  # "the token is the subject": not here


def test_an_unsigned_token_is_refused(stack: Stack) -> None:
    claims = unverified_claims(stack.reviewer.id_token)
    assert_refused_everywhere(stack, f"{b64({'alg': 'none', 'typ': 'JWT', 'kid': 'dummy'})}.{b64(claims)}.")


def test_a_token_signed_with_another_key_is_refused(stack: Stack) -> None:
    claims = unverified_claims(stack.reviewer.id_token)
    other = jwk.RSAKey.generate_key(2048, parameters={"kid": "dummy"})  # the pool's key id, not its key
    assert_refused_everywhere(stack, jwt.encode({"alg": "RS256", "kid": "dummy"}, claims, other))


def test_a_token_signed_with_the_public_key_as_a_shared_secret_is_refused(stack: Stack) -> None:
    claims = unverified_claims(stack.reviewer.id_token)
    public = JwtAuthorizer.of_stack(stack.cloud).keys.keys[0].as_dict()["n"]  # published: anyone knows it
    key = jwk.OctKey.import_key(public)
    assert_refused_everywhere(stack, jwt.encode({"alg": "HS256", "kid": "dummy"}, claims, key, algorithms=["HS256"]))


def test_a_tampered_payload_is_refused(stack: Stack) -> None:
    # A learner's token made a reviewer's by editing its groups, the pool's signature kept.
    assert_refused_everywhere(stack, with_payload(stack.learner.id_token, **{"cognito:groups": [REVIEWER_GROUP]}))


def test_an_expired_or_not_yet_valid_token_is_refused(stack: Stack) -> None:
    assert_refused_everywhere(stack, stack.pool.signed(stack.reviewer.username, "id", expires_in=-5))
    assert_refused_everywhere(stack, stack.pool.signed(stack.reviewer.username, "id", nbf=int(time.time()) + 600))
    assert_refused_everywhere(stack, stack.pool.signed(stack.reviewer.username, "id", iat=int(time.time()) + 600))


def test_a_token_for_another_app_client_of_the_pool_is_refused(stack: Stack) -> None:
    other = stack.pool.cognito.create_user_pool_client(UserPoolId=stack.pool.pool_id, ClientName="another-app")
    email = "other-client@example.com"
    tokens = stack.pool.sign_in(
        email, stack.pool.create_user(email, [REVIEWER_GROUP]), other["UserPoolClient"]["ClientId"]
    )
    assert_refused_everywhere(stack, tokens.id_token)  # aud: the other client
    assert_refused_everywhere(stack, tokens.access_token)  # client_id: the other client
    # An ID token's aud decides, even when a client_id claim names the right client.
    assert_refused_everywhere(stack, stack.pool.signed(email, "id", aud="another-app", client_id=stack.pool.client_id))


def test_a_token_of_another_user_pool_is_refused(stack: Stack) -> None:
    # Another pool in the same region signs with the same key (moto's, as Cognito pools would
    # not), so only the issuer tells them apart: it must.
    cognito = boto3.client("cognito-idp", region_name=REGION)
    pool_id = cognito.create_user_pool(PoolName="someone-elses")["UserPool"]["Id"]
    client_id = cognito.create_user_pool_client(UserPoolId=pool_id, ClientName="web")["UserPoolClient"]["ClientId"]
    email = "elsewhere@example.com"
    cognito.admin_create_user(UserPoolId=pool_id, Username=email, MessageAction="SUPPRESS")
    cognito.admin_set_user_password(UserPoolId=pool_id, Username=email, Password="Aa1!elsewhere", Permanent=True)
    result = cognito.admin_initiate_auth(
        UserPoolId=pool_id,
        ClientId=client_id,
        AuthFlow="ADMIN_USER_PASSWORD_AUTH",
        AuthParameters={"USERNAME": email, "PASSWORD": "Aa1!elsewhere"},
    )["AuthenticationResult"]
    assert_refused_everywhere(stack, result["IdToken"])
    # Even with our client id as its audience, the issuer is not ours.
    assert_refused_everywhere(stack, with_payload(result["IdToken"], aud=stack.pool.client_id))


def test_the_authorizer_is_the_templates(stack: Stack) -> None:
    authorizer = JwtAuthorizer.of_stack(stack.cloud)
    assert authorizer.issuer == f"https://cognito-idp.{REGION}.amazonaws.com/{stack.pool.pool_id}"
    assert authorizer.audience == {stack.pool.client_id}
    assert authorizer.claims(f"Bearer {stack.learner.id_token}") is not None
    assert authorizer.claims(stack.learner.id_token) is not None  # API Gateway takes it without "Bearer" too


# ---------------------------------------------------------------------------- over HTTP, and MCP


LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}


def _post_mcp(url: str, token: str | None, message: dict[str, Any] = LIST_TOOLS) -> tuple[int, dict[str, str], Any]:
    request = urllib.request.Request(
        f"{url}/mcp",
        data=json.dumps(message).encode(),
        headers={
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2025-06-18",
            **({"authorization": f"Bearer {token}"} if token else {}),
        },
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read() or b"null")


def test_mcp_over_the_local_server_takes_pool_tokens_only(stack: Stack) -> None:
    expired = stack.pool.signed(stack.learner.username, "access", expires_in=-5)
    with serve_in_background(stack.runtime, signed_tokens=True) as url:
        status, _, listed = _post_mcp(url, stack.learner.access_token)
        assert status == 200, listed
        assert "save_generated_question" not in json.dumps(listed)  # a learner's agent: no authoring tools
        for token in (None, expired, stack.learner.subject):
            status, headers, body = _post_mcp(url, token)
            assert (status, body) == (401, UNAUTHORIZED)
            assert "invalid_token" in {key.lower(): value for key, value in headers.items()}["www-authenticate"]
    # The development mode stays the default: there the bearer string is the subject.
    with serve_in_background(stack.runtime) as url:
        assert _post_mcp(url, stack.learner.subject)[0] == 200


def _tools(url: str, token: str) -> set[str]:
    status, _, listed = _post_mcp(url, token)
    assert status == 200, listed
    return {tool["name"] for tool in listed["result"]["tools"]}


def _call_tool(url: str, token: str, tool: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
    message = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
    status, _, answer = _post_mcp(url, token, message)
    assert status == 200, answer
    return bool(answer["result"].get("isError")), json.loads(answer["result"]["content"][0]["text"])


def test_over_mcp_only_an_author_of_the_pool_reaches_the_authoring_tools(stack: Stack) -> None:
    """Users of the pool signed in, their roles their groups there: a learner's and a reviewer's
    tokens are offered no authoring tool and refused one by name; an author's are served."""
    author = stack.pool.user([AUTHOR_GROUP])
    authoring = {"search_question_templates", "get_difficulty_keywords", "save_generated_question"}
    arguments = {"interests": ["AI"], "difficulty": 5, "category": "technical"}
    with serve_in_background(stack.runtime, signed_tokens=True) as url:
        for user in (stack.learner, stack.reviewer):
            for token in (user.id_token, user.access_token):
                assert not authoring & _tools(url, token)
                is_error, refused = _call_tool(url, token, "search_question_templates", arguments)
                assert (is_error, refused["error_code"]) == (True, "FORBIDDEN")
        for token in (author.id_token, author.access_token):
            assert authoring <= _tools(url, token)
            is_error, served = _call_tool(url, token, "search_question_templates", arguments)
            assert not is_error, served
        # A learner's token with the authors' group written in, the pool's signature kept: 401.
        forged = with_payload(stack.learner.id_token, **{"cognito:groups": [AUTHOR_GROUP]})
        status, _, body = _post_mcp(url, forged)
        assert (status, body) == (401, UNAUTHORIZED)


def test_pool_tokens_are_what_the_pool_signed_in(stack: Stack) -> None:
    tokens: PoolTokens = stack.pool.user([REVIEWER_GROUP])
    id_claims, access_claims = unverified_claims(tokens.id_token), unverified_claims(tokens.access_token)
    assert id_claims["sub"] == access_claims["sub"] == tokens.subject
    assert id_claims["token_use"] == "id"
    assert access_claims["token_use"] == "access"
    assert id_claims["cognito:groups"] == access_claims["cognito:groups"] == [REVIEWER_GROUP]


@pytest.mark.parametrize(("argv", "signed"), [([], False), (["--signed-tokens"], True)])
def test_serve_checks_signed_tokens_only_when_asked(
    argv: list[str], signed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    import slea_local.__main__ as local_main

    seen: dict[str, Any] = {}
    monkeypatch.setattr(local_main, "serve", lambda *args: seen.setdefault("args", args) and 0)
    local_main.main(["serve", "--port", "0", *argv])
    assert seen["args"][-1] is signed
