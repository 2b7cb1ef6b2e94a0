"""The reviewer role is checked once for every route of the review router (its middleware,
slea.http.api.reviewers_only), so a route added there is refused to anyone else without a check
of its own. Requests here go to the resolver itself, past the handler's refusal before routing
(review_refusal), which tests/integration/test_review_api.py covers: these are the claims API
Gateway's authorizer hands on, so no token is sent."""

import inspect
import json
import re
import sys
import typing
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pytest
from aws_lambda_powertools.event_handler.openapi.params import Body, Query

from slea.contracts.review import (
    AttemptReviewRequest,
    BulkAcceptRequest,
    GroupReviewRequest,
    QuestionReviewRequest,
    UndoRequest,
)
from slea.http import api
from slea.platform import errors
from slea_local.http import JSON, http_api_event
from slea_local.runtime import load_function_module

LEARNER = {"sub": "550e8400-e29b-41d4-a716-446655440000"}
REVIEWER_WITHOUT_SUBJECT = {"cognito:groups": ["reviewers"]}
# A body each review request model accepts; a route with a new model fails here until it has one.
VALID_BODIES: dict[type[Any], dict[str, Any]] = {
    AttemptReviewRequest: {"action": "accept"},
    QuestionReviewRequest: {"action": "accept"},
    GroupReviewRequest: {"score": 90, "note": "right"},
    BulkAcceptRequest: {"attempt_ids": ["a1"], "note": "checked"},
    UndoRequest: {"note": "by mistake"},
}


@pytest.fixture(scope="module")
def api_function() -> ModuleType:
    """The API function as a new execution environment loads it, with the review routes included
    before any request (so every route's middleware stack is built with the review router's)."""
    module = load_function_module("api")
    module.with_every_route()
    return module


def review_routes(api_function: ModuleType) -> list[tuple[str, str, Any]]:
    """(method, rule, function) of every route registered on the review router."""
    router = sys.modules["routers.review"].router
    assert router.api_resolver is api_function.app
    # Powertools 3 lists a router's own routes only in `_routes`: {(rule, methods, ...): function}.
    return [(method, rule, function) for (rule, methods, *_), function in router._routes.items() for method in methods]


def valid_request(rule: str, function: Any) -> tuple[str, str, str]:
    """(path, query, body) that pass the route's request validation: what the middleware sees."""
    path = re.sub(r"<\w+>", "x1", rule)
    query, body = [], ""
    for name, hint in typing.get_type_hints(function, include_extras=True).items():
        markers = getattr(hint, "__metadata__", ())
        if any(isinstance(marker, Body) for marker in markers):
            body = json.dumps(VALID_BODIES[typing.get_args(hint)[0]])
        elif any(isinstance(marker, Query) for marker in markers) and name in _required(function):
            query.append(f"{name}=x1")
    return path, "&".join(query), body


def _required(function: Any) -> set[str]:
    parameters = inspect.signature(function).parameters.values()
    return {parameter.name for parameter in parameters if parameter.default is parameter.empty}


def resolve(api_function: ModuleType, method: str, path: str, query: str, body: str, claims: Any) -> tuple[int, Any]:
    event = http_api_event(method, path, query, dict(JSON), body=body, claims=claims)
    response = api_function.app.resolve(event, None)
    return response["statusCode"], json.loads(response["body"])


def test_the_review_router_has_its_routes(api_function: ModuleType) -> None:
    routes = review_routes(api_function)
    assert len(routes) >= 15
    assert all(api.is_review_path(rule) for _, rule, _ in routes)


@pytest.mark.parametrize(
    ("claims", "status", "code"),
    [(LEARNER, 403, "FORBIDDEN"), (REVIEWER_WITHOUT_SUBJECT, 401, "UNAUTHORIZED"), ({}, 401, "UNAUTHORIZED")],
    ids=["learner", "reviewer-without-subject", "no-claims"],
)
def test_every_route_of_the_review_router_refuses_anyone_but_a_reviewer(
    api_function: ModuleType, claims: dict[str, Any], status: int, code: str
) -> None:
    answers = {}
    for method, rule, function in review_routes(api_function):
        path, query, body = valid_request(rule, function)
        answered, response = resolve(api_function, method, path, query, body, claims)
        answers[f"{method} {rule}"] = (answered, response["error_code"])
    assert answers == dict.fromkeys(answers, (status, code))


def test_a_learners_route_is_not_refused_once_the_review_routes_are_included(
    api_function: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Powertools runs a router's middlewares for every route of the resolver that includes it:
    the role check must leave the others alone."""

    def listed(user_id: str, limit: int, cursor: str | None = None) -> Any:
        raise errors.NotFound("LISTED", f"listed for {user_id}")

    monkeypatch.setattr("slea.logic.sessions.listing.list_sessions", listed)
    status, response = resolve(api_function, "GET", "/sessions", "", "", LEARNER)
    assert (status, response["error_code"], response["error"]) == (404, "LISTED", f"listed for {LEARNER['sub']}")


@dataclass
class Handled:
    """A request being handled, as a route sees its context."""

    context: dict[str, Any]


def test_a_review_route_reads_the_reviewer_the_middleware_let_through() -> None:
    assert api.reviewing(Handled({api.REVIEWER_KEY: "carol"})) == "carol"
    with pytest.raises(RuntimeError):  # a route the middleware did not run for
        api.reviewing(Handled({}))
