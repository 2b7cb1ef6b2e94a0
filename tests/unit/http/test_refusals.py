"""Refusals have one shape wherever they are made: answered before routing (a raw API Gateway
response) or documented on a route (OpenAPI), the body is ErrorResponse and a wait is a
Retry-After header."""

import json

import pytest

from slea.contracts.error_response import ErrorResponse
from slea.http import api
from slea.security import rate_limits


def _body(response: dict[str, object]) -> dict[str, object]:
    body = json.loads(str(response["body"]))
    assert set(body) == {"error", "error_code", "detail", "timestamp"}
    return {key: value for key, value in body.items() if key != "timestamp"}


def test_a_refusal_before_routing_is_an_error_response_with_json_headers() -> None:
    refused = api._gateway_error(415, "UNSUPPORTED_MEDIA_TYPE", "content-type: no")
    assert set(refused) == {"statusCode", "headers", "body", "isBase64Encoded"}
    assert (refused["statusCode"], refused["headers"], refused["isBase64Encoded"]) == (
        415,
        {"Content-Type": "application/json"},
        False,
    )
    assert _body(refused) == {"error": "content-type: no", "error_code": "UNSUPPORTED_MEDIA_TYPE", "detail": None}


def test_a_request_over_the_budget_is_refused_with_retry_after(monkeypatch: pytest.MonkeyPatch) -> None:
    def spent(subject: str, action: rate_limits.Action) -> None:
        raise rate_limits.RateLimited(action, 7)

    monkeypatch.setattr(rate_limits, "take", spent)
    event = {"requestContext": {"authorizer": {"jwt": {"claims": {"sub": "alice"}}}}}
    refused = api.over_budget(event)
    assert refused is not None
    assert (refused["statusCode"], list(refused["headers"].items())) == (
        429,
        [("Content-Type", "application/json"), ("Retry-After", "7")],
    )
    assert _body(refused) == {
        "error": "too many requests in a short time; retry in 7 s",
        "error_code": "RATE_LIMITED",
        "detail": None,
    }


def test_routes_document_every_refusal_with_the_error_response_body() -> None:
    assert api.documented_refusal("Storage is temporarily unavailable; retry") == {
        "description": "Storage is temporarily unavailable; retry",
        "content": {"application/json": {"model": ErrorResponse}},
    }
    documented = api.responses(200, dict, "ok")
    assert documented[200] == {"description": "ok", "content": {"application/json": {"model": dict}}}
    assert all(documented[status] == api.documented_refusal(documented[status]["description"]) for status in (401, 503))
