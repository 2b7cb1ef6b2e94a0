"""Malformed tokens and bodies, sent to every route of template.yaml's HTTP API through the local
server (it stands in for API Gateway and its JWT authorizer), answer 4xx, never 5xx: a hostile
client must not be able to make the service look broken, nor reach a function with input it
cannot read."""

import base64
import io
import json
import re
from wsgiref.util import setup_testing_defaults

import pytest

from slea_local.http import HttpApiAdapter, http_api_routes
from slea_local.template import load_template

LEARNER = "550e8400-e29b-41d4-a716-446655440000"
ROUTES = http_api_routes(load_template())


def _concrete(path: str) -> str:
    """A route's path with its parameters filled in (a round number where one is expected)."""
    path = path.replace("{round}", "1").replace("{proxy+}", "app.js")
    return re.sub(r"\{\w+\}", "0b8a9c4e-1f4e-4a55-9d44-5a8f3c2b7e10", path)


def _jwt(payload: bytes) -> str:
    def part(raw: bytes) -> str:
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    return f"{part(b'{"alg":"none"}')}.{part(payload)}.sig"


def _request(adapter, method, path, body: bytes = b"", content_type="application/json", token=None):
    environ = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "CONTENT_TYPE": content_type,
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.input": io.BytesIO(body),
    }
    if token is not None:
        environ["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    setup_testing_defaults(environ)
    captured = {}

    def start_response(status, headers):
        captured["status"] = int(status.split()[0])

    b"".join(adapter(environ, start_response))
    return captured["status"]


@pytest.fixture
def adapter(step_functions):
    return HttpApiAdapter(step_functions.runtime)


NOT_A_CLAIMS_OBJECT = [b"[1, 2]", b'"alice"', b"42", b"null", b'{"sub": 7}', b'{"sub": ["a"]}', b'{"sub": ""}']


@pytest.mark.parametrize("payload", NOT_A_CLAIMS_OBJECT)
def test_a_token_whose_payload_is_not_a_claims_object_is_401_on_every_route(adapter, payload):
    for route in ROUTES:
        status = _request(adapter, route.method, _concrete(route.path), token=_jwt(payload))
        expected = 401 if route.authorized else 200
        assert status < 500, (route.key, payload, status)
        if route.authorized:
            assert status == expected, (route.key, payload, status)


BODIES = {
    "invalid UTF-8": (b'{"user_answer": "\xff\xfe"}', "application/json"),
    "Latin-1 text": ('{"category": "caf\u00e9"}'.encode("latin-1"), "application/json"),
    "plain text type": (b'{"category": "technical"}', "text/plain"),
    "form type": (b"category=technical", "application/x-www-form-urlencoded"),
    "multipart type": (b"--x\r\n\r\n--x--", "multipart/form-data; boundary=x"),
    "no type": (b'{"category": "technical"}', ""),
}


@pytest.mark.parametrize("name", BODIES)
def test_bodies_that_are_not_json_text_are_4xx_never_5xx_on_every_route(adapter, name):
    body, content_type = BODIES[name]
    for route in ROUTES:
        status = _request(adapter, route.method, _concrete(route.path), body, content_type, token=LEARNER)
        assert status < 500, (route.key, name, status)


@pytest.mark.parametrize("name", ["invalid UTF-8", "plain text type", "form type", "multipart type"])
def test_a_post_body_that_is_not_json_is_refused_with_4xx(adapter, name):
    body, content_type = BODIES[name]
    for route in ROUTES:
        if route.method != "POST":
            continue
        status = _request(adapter, route.method, _concrete(route.path), body, content_type, token=LEARNER)
        assert 400 <= status < 500, (route.key, name, status)


def test_a_content_length_that_is_not_a_number_is_400(adapter):
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/sessions",
        "CONTENT_LENGTH": "lots",
        "wsgi.input": io.BytesIO(b"{}"),
        "HTTP_AUTHORIZATION": f"Bearer {LEARNER}",
    }
    setup_testing_defaults(environ)
    captured = {}
    b"".join(adapter(environ, lambda status, headers: captured.update(status=int(status.split()[0]))))
    assert captured["status"] == 400


def test_object_claims_reach_the_function_as_api_gateway_sends_them():
    from slea_local.http import gateway_claims

    claims = gateway_claims({"sub": LEARNER, "cognito:groups": ["a", "b"], "address": {"city": "Seoul"}})
    assert claims["cognito:groups"] == "[a b]"
    assert json.loads(claims["address"]) == {"city": "Seoul"}
