"""Mode 2 HTTP API (API Gateway HTTP API, JWT authorizer): the caller is the token's `sub`.

POST /sessions                         create a session for the caller (the server chooses its id)
GET  /sessions                         the caller's sessions, newest first, with each round's progress
POST /sessions/{session_id}/rounds     start a Mode 1 round in one of the caller's sessions
GET  /sessions/{session_id}/questions  the session's saved questions, without answer keys
POST /sessions/{session_id}/answers    grade an answer (the key is looked up server-side)
GET  /sessions/{session_id}/attempts   the session's graded attempts
GET  /sessions/{session_id}/rounds/{round}                  a round's status
GET  /sessions/{session_id}/summary                         scores, what to review, the next round
POST /sessions/{session_id}/questions/{question_id}/reports report a problem with a question
GET  /learners/me/ability              the caller's measured ability per category, and its history
GET  /review/queue, /review/stats, /review/audit            reviewers only (slea.security.roles)
GET  /review/audit/recent                                   reviewers: every reviewer's latest actions
GET  /review/items                                          reviewers: item statistics (calibration)
POST /review/attempts/{attempt_id}, /review/questions/{question_id}
POST /review/attempts/accept                                reviewers: accept up to 50 grades at once
POST /review/attempts/accept                                reviewers: accept up to 50 grades at once
"""

import gc

# Cyclic garbage collection is paused while the modules below load (about a sixth of a cold
# start: bench/cold_import.py) and resumed at the end of this module.
gc.disable()

from typing import Annotated, Any, Literal

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from aws_lambda_powertools.utilities.parser.models import APIGatewayProxyEventV2Model
from aws_lambda_powertools.utilities.typing import LambdaContext

from slea.constants import Category, Language, QuestionType
from slea.contracts.ability import LearnerAbility
from slea.contracts.common import parse_input
from slea.contracts.errors import ErrorResponse
from slea.contracts.item_analysis import ItemAnalysis, SortColumn
from slea.contracts.review import (
    AttemptReviewed,
    AttemptReviewRequest,
    AuditRecords,
    BulkAccepted,
    BulkAcceptRequest,
    QuestionReviewed,
    QuestionReviewRequest,
    QueueSort,
    QueueSource,
    QueueView,
    ReportAccepted,
    ReportRequest,
    ReviewQueue,
    ReviewStats,
    RoundStatus,
    SessionSummary,
)
from slea.contracts.scoring import AnswerRequest, AttemptList, ScoreAnswerOutput
from slea.contracts.sessions import RoundStarted, SessionCreated, SessionList, SessionQuestions, StartRoundRequest
from slea.http.api import (
    SESSION_ID_PATTERN,
    caller,
    domain_error_response,
    error_response,
    responses,
    review_refusal,
    review_responses,
    reviewer,
    unparseable_body,
    unsupported_media_type,
    validation_error_response,
)
from slea.llm import budget
from slea.logic.sessions import listing as session_list
from slea.logic.sessions import use_cases as sessions
from slea.platform.errors import DataAccessError, DomainError
from slea.platform.observability import logger, metrics, tracer

app = APIGatewayHttpResolver(enable_validation=True)
SessionId = Annotated[str, Path(min_length=1, max_length=64, pattern=SESSION_ID_PATTERN)]
ItemId = Annotated[str, Path(min_length=1, max_length=128, pattern=SESSION_ID_PATTERN)]
CURSOR_PATTERN = r"^[A-Za-z0-9_\-]+$"  # base64url without padding


@app.post(
    "/sessions",
    status_code=201,
    summary="Create a session for the caller",
    responses={
        201: {"description": "The new session", "content": {"application/json": {"model": SessionCreated}}},
        401: {
            "description": "No bearer token, or one without a subject",
            "content": {"application/json": {"model": ErrorResponse}},
        },
        403: {
            "description": "The token's subject is not a UUID",
            "content": {"application/json": {"model": ErrorResponse}},
        },
        503: {
            "description": "Storage is temporarily unavailable; retry",
            "content": {"application/json": {"model": ErrorResponse}},
        },
    },
)
def create_session() -> SessionCreated:
    return sessions.create_session(caller(app))


@app.get(
    "/sessions",
    summary="The caller's sessions, newest first, with each round's progress (to resume on any device)",
    responses={
        200: {"description": "A page of sessions", "content": {"application/json": {"model": SessionList}}},
        401: {
            "description": "No bearer token, or one without a subject",
            "content": {"application/json": {"model": ErrorResponse}},
        },
        503: {
            "description": "Storage is temporarily unavailable; retry",
            "content": {"application/json": {"model": ErrorResponse}},
        },
    },
)
def list_sessions(
    limit: Annotated[int, Query(ge=1, le=20)] = 5,
    cursor: Annotated[str | None, Query(min_length=1, max_length=1024, pattern=CURSOR_PATTERN)] = None,
) -> SessionList:
    return session_list.list_sessions(caller(app), limit, cursor)


@app.post(
    "/sessions/<session_id>/rounds",
    status_code=202,
    summary="Start a Mode 1 round",
    responses={
        **responses(202, RoundStarted, "The round is being generated"),
        429: {
            "description": "The caller has started rounds too fast (RATE_LIMITED) or the most allowed per day "
            "(QUOTA_EXCEEDED); the Retry-After header says in how many seconds to try again",
            "content": {"application/json": {"model": ErrorResponse}},
        },
    },
)
def start_round(session_id: SessionId, request: Annotated[StartRoundRequest, Body()]) -> RoundStarted:
    return sessions.start_round(session_id, caller(app), request)


@app.get(
    "/sessions/<session_id>/questions",
    summary="The session's questions, without answer keys",
    responses=responses(200, SessionQuestions, "The questions saved so far"),
)
def list_questions(session_id: SessionId) -> SessionQuestions:
    return sessions.list_questions(session_id, caller(app))


@app.post(
    "/sessions/<session_id>/answers",
    summary="Grade an answer and explain it",
    responses={
        **responses(200, ScoreAnswerOutput, "The grading result"),
        429: {
            "description": "The caller has sent answers too fast (RATE_LIMITED); the Retry-After header says in "
            "how many seconds to try again",
            "content": {"application/json": {"model": ErrorResponse}},
        },
    },
)
def answer(session_id: SessionId, request: Annotated[AnswerRequest, Body()]) -> ScoreAnswerOutput:
    return sessions.answer_question(session_id, caller(app), request)


@app.get(
    "/sessions/<session_id>/attempts",
    summary="The session's graded attempts",
    responses=responses(200, AttemptList, "The attempts, oldest first"),
)
def list_attempts(session_id: SessionId) -> AttemptList:
    return sessions.list_attempts(session_id, caller(app))


@app.get(
    "/sessions/<session_id>/rounds/<round>",
    summary="A round's status: its execution and the questions it saved",
    responses=responses(200, RoundStatus, "The round's status"),
)
def get_round(session_id: SessionId, round: Annotated[int, Path(ge=1, le=2)]) -> RoundStatus:
    return sessions.round_status(session_id, caller(app), round)


@app.get(
    "/sessions/<session_id>/summary",
    summary="The session so far: scores per round, answers to review, the next round",
    responses=responses(200, SessionSummary, "The session's summary"),
)
def get_summary(session_id: SessionId) -> SessionSummary:
    return sessions.session_summary(session_id, caller(app))


@app.post(
    "/sessions/<session_id>/questions/<question_id>/reports",
    status_code=202,
    summary="Report a problem with a question (it goes to the reviewers)",
    responses=responses(202, ReportAccepted, "The report is queued for review"),
)
def report_question(
    session_id: SessionId, question_id: ItemId, request: Annotated[ReportRequest, Body()]
) -> ReportAccepted:
    return sessions.report_question(session_id, caller(app), question_id, request)


@app.get(
    "/learners/me/ability",
    summary="The caller's ability per category (logit scale, with its standard error and level) and its history",
    responses={
        200: {
            "description": "The abilities and the newest history points, oldest first",
            "content": {"application/json": {"model": LearnerAbility}},
        },
        401: {
            "description": "No bearer token, or one without a subject",
            "content": {"application/json": {"model": ErrorResponse}},
        },
        503: {
            "description": "Storage is temporarily unavailable; retry",
            "content": {"application/json": {"model": ErrorResponse}},
        },
    },
)
def get_my_ability() -> LearnerAbility:
    from slea.logic.learners.ability import learner_ability  # noqa: PLC0415 - loaded by the first such request

    return learner_ability(caller(app))


def _reviewer_name(subject: str) -> str:
    from slea.logic.review.actions import display_name  # noqa: PLC0415 - loaded by a reviewer's first request

    return display_name(app.current_event.request_context.authorizer.jwt_claim, subject)


@app.get(
    "/review/queue",
    summary="Reviewers: the open review entries, filtered and sorted, a page (at most 1 MB) at a time; "
    "a filtered page may hold fewer than `limit` entries (even none) and still have a next cursor",
    responses=review_responses(200, ReviewQueue, "The queue"),
)
def review_queue(
    *,
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
    cursor: Annotated[str | None, Query(min_length=1, max_length=4096, pattern=CURSOR_PATTERN)] = None,
    source: Annotated[QueueSource | None, Query(description="grade, report or item")] = None,
    item_type: Annotated[QuestionType | None, Query()] = None,
    category: Annotated[Category | None, Query()] = None,
    language: Annotated[Language | None, Query()] = None,
    q: Annotated[
        str | None, Query(min_length=1, max_length=100, pattern=r"\S", description="text in the stem or answer")
    ] = None,
    sort: Annotated[QueueSort, Query(description="confidence: provisional grades only, least sure first")] = (
        "queued_asc"
    ),
) -> ReviewQueue:
    who = reviewer(app)
    from slea.logic.review import queue  # noqa: PLC0415 - loaded by a reviewer's first request

    view = QueueView(source=source, item_type=item_type, category=category, language=language, q=q, sort=sort)
    return queue.review_queue(limit, cursor, who, view)


# Before /review/attempts/<attempt_id>: "accept" would otherwise be taken for an attempt id.
@app.post(
    "/review/attempts/accept",
    summary="Reviewers: accept up to 50 automatic grades, each on its own; a repeat changes nothing",
    responses=review_responses(200, BulkAccepted, "Each attempt's result"),
)
def review_bulk_accept(request: Annotated[BulkAcceptRequest, Body()]) -> BulkAccepted:
    who = reviewer(app)
    from slea.logic.review import actions as review  # noqa: PLC0415 - loaded by a reviewer's first request, not at every cold start

    return review.bulk_accept(request, who, _reviewer_name(who))


@app.post(
    "/review/attempts/<attempt_id>",
    summary="Reviewers: accept or override an automatic grade",
    responses=review_responses(200, AttemptReviewed, "The attempt as reviewed"),
)
def review_attempt(attempt_id: ItemId, request: Annotated[AttemptReviewRequest, Body()]) -> AttemptReviewed:
    from slea.logic.review import actions as review  # noqa: PLC0415 - loaded by a reviewer's first request, not at every cold start

    who = reviewer(app)
    return review.review_attempt(attempt_id, who, request, _reviewer_name(who))


@app.post(
    "/review/questions/<question_id>",
    summary="Reviewers: accept, retire or edit a question",
    responses=review_responses(200, QuestionReviewed, "The question as reviewed"),
)
def review_question(question_id: ItemId, request: Annotated[QuestionReviewRequest, Body()]) -> QuestionReviewed:
    from slea.logic.review import actions as review  # noqa: PLC0415 - loaded by a reviewer's first request, not at every cold start

    who = reviewer(app)
    return review.review_question(question_id, who, request, _reviewer_name(who))


@app.get(
    "/review/stats",
    summary="Reviewers: how often reviewers agreed with the automatic grades, and the queue's size",
    responses=review_responses(200, ReviewStats, "The statistics"),
)
def review_stats() -> ReviewStats:
    reviewer(app)
    from slea.logic.review import actions as review  # noqa: PLC0415 - loaded by a reviewer's first request, not at every cold start

    return review.review_stats()


@app.get(
    "/review/audit",
    summary="Reviewers: the review record of an attempt or question",
    responses=review_responses(200, AuditRecords, "The records, oldest first"),
)
def review_audit(
    target_id: Annotated[str, Query(min_length=1, max_length=128, pattern=SESSION_ID_PATTERN)],
) -> AuditRecords:
    reviewer(app)
    from slea.logic.review import actions as review  # noqa: PLC0415 - loaded by a reviewer's first request, not at every cold start

    return review.audit(target_id)


@app.get(
    "/review/audit/recent",
    summary="Reviewers: every reviewer's latest actions, newest first",
    responses=review_responses(200, AuditRecords, "The records, newest first"),
)
def review_recent_audit(limit: Annotated[int, Query(ge=1, le=100)] = 50) -> AuditRecords:
    reviewer(app)
    from slea.logic.review import actions as review  # noqa: PLC0415 - loaded by a reviewer's first request, not at every cold start

    return review.recent_audit(limit)


@app.get(
    "/review/items",
    summary="Reviewers: item analysis - calibrated difficulty, its uncertainty, answers, facility, "
    "discrimination, fit and exposure; flagged items first",
    responses=review_responses(200, ItemAnalysis, "A page of items"),
)
def review_items(
    *,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: Annotated[str | None, Query(min_length=1, max_length=512, pattern=CURSOR_PATTERN)] = None,
    category: Annotated[Category | None, Query()] = None,
    flagged: Annotated[bool, Query(description="only items with a flag")] = False,
    item_type: Annotated[QuestionType | None, Query()] = None,
    sort: Annotated[SortColumn, Query(description="the column to sort by, after flagged items first")] = "b",
    order: Annotated[Literal["asc", "desc"], Query()] = "asc",
) -> ItemAnalysis:
    reviewer(app)
    from slea.logic.review import item_analysis  # noqa: PLC0415 - loaded by a reviewer's first request, not at every cold start

    return item_analysis.item_analysis(
        limit=limit, cursor=cursor, category=category, flagged=flagged, item_type=item_type, sort=sort, order=order
    )


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
    parse_input(APIGatewayProxyEventV2Model, event)  # a malformed envelope names its field
    if (refused := review_refusal(event) or unsupported_media_type(event) or unparseable_body(event)) is not None:
        return refused
    budget.start(context)  # model calls must end before API Gateway gives up on us
    return app.resolve(event, context)


gc.enable()
