"""Mode 2 HTTP API (API Gateway HTTP API, JWT authorizer): the caller is the token's `sub`.

routers/sessions.py:
POST /sessions                         create a session for the caller (the server chooses its id)
GET  /sessions                         the caller's sessions, newest first, with each round's progress
POST /sessions/{session_id}/rounds     start a Mode 1 round in one of the caller's sessions
GET  /sessions/{session_id}/questions  the session's saved questions, without answer keys
POST /sessions/{session_id}/answers    grade an answer (the key is looked up server-side)
GET  /sessions/{session_id}/attempts   the session's graded attempts
GET  /sessions/{session_id}/rounds/{round}                  a round's status
GET  /sessions/{session_id}/summary                         scores, what to review, the next round
POST /sessions/{session_id}/questions/{question_id}/reports report a problem with a question
routers/learners.py:
GET  /learners/me/ability              the caller's measured ability per category, and its history
routers/review.py:
GET  /review/queue, /review/stats, /review/audit            reviewers only (slea.security.roles)
GET  /review/audit/recent                                   reviewers: every reviewer's latest actions
GET  /review/items                                          reviewers: item statistics (calibration)
POST /review/attempts/{attempt_id}, /review/questions/{question_id}
POST /review/attempts/accept                                reviewers: accept up to 50 grades at once

This module holds the resolver, the error responses (a domain refusal's status comes from
slea.http.api) and the handler, which refuses a non-reviewer on any review path before routing
(review_refusal); the review router's middleware checks the role again for each of its routes.
`routers` is a package beside it: the function's code directory is on sys.path in Lambda, as in
slea_local. The reviewers' routes (and the review contracts) are included by the first request
under /review: a learner's cold start never loads them.
"""

import gc
import threading

# Cyclic garbage collection is paused while the modules below load (about a sixth of a cold
# start: bench/cold_import.py) and resumed at the end of this module.
gc.disable()

from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from aws_lambda_powertools.utilities.typing import LambdaContext
from routers import learners, sessions  # type: ignore[import-not-found]  # to mypy: functions.api.routers

from slea.contracts.common import parse_input
from slea.contracts.http_event import HttpApiEvent
from slea.http.api import (
    domain_error_response,
    error_response,
    is_review_path,
    over_budget,
    review_refusal,
    unparseable_body,
    unsupported_media_type,
    validation_error_response,
)
from slea.llm import budget
from slea.platform.errors import DataAccessError, DomainError
from slea.platform.observability import logger, metrics, tracer

app = APIGatewayHttpResolver(enable_validation=True)
# In this order, the order of the OpenAPI document's paths (the review routes last).
app.include_router(sessions.router)
app.include_router(learners.router)
_review_routes: list[object] = []
_including = threading.Lock()  # the local server answers requests on several threads


def include_review_routes() -> None:
    """The reviewers' routes, once. Powertools matches a request against the routes registered
    when it arrives, so routes added later are served like the others."""
    with _including:
        if not _review_routes:
            from routers import review  # noqa: PLC0415 - a reviewer's first request

            app.include_router(review.router)
            _review_routes.append(review.router)


def with_every_route() -> APIGatewayHttpResolver:
    """The resolver with all its routes: what the OpenAPI document describes."""
    include_review_routes()
    return app


@app.exception_handler(DomainError)  # type: ignore[untyped-decorator]
def refused(error: DomainError) -> Response[Any]:
    return domain_error_response(error)


@app.exception_handler(DataAccessError)  # type: ignore[untyped-decorator]
def storage_unavailable(error: DataAccessError) -> Response[Any]:
    logger.error("storage unavailable", extra={"reason": str(error)})
    return error_response(503, "SERVICE_UNAVAILABLE", "storage is temporarily unavailable, please retry")


@app.exception_handler(RequestValidationError)  # type: ignore[untyped-decorator]
def invalid_request(error: RequestValidationError) -> Response[Any]:
    return validation_error_response(error)


@app.not_found
def not_found(_: Exception) -> Response[Any]:
    return error_response(404, "NOT_FOUND", f"no route for {app.current_event.http_method} {app.current_event.path}")


@logger.inject_lambda_context(correlation_id_path="requestContext.requestId")
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    parse_input(HttpApiEvent, event)  # a malformed envelope names its field
    refused = over_budget(event) or review_refusal(event) or unsupported_media_type(event) or unparseable_body(event)
    if refused is not None:
        return refused
    budget.start(context)  # model calls must end before API Gateway gives up on us
    if is_review_path(str(event.get("rawPath") or "")):
        include_review_routes()
    return app.resolve(event, context)


# What the modules above made lives as long as the execution environment: frozen out of every
# later collection, which would otherwise walk it all, the first (in the first client) included.
gc.freeze()
gc.enable()
