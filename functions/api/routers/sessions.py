"""The caller's sessions: create and list them, start a round, read its questions and status,
answer or skip a question, see the attempts and the summary, report a question.

What every learner's request may use (listing, ownership, questions, a round's status, a report)
is imported here, with the API's cold start. A route that alone needs more imports its use case
with its first request: a new session, a round or a skip (logic/sessions/progress.py: the skip
count), an answer (answers.py: the grading path, a fifth of the import), the attempts
(attempt_list.py: the key-leak matcher), a placement's next step (placement_steps.py: the
planner) and the summary (summary.py: the planner, the profile and the skip count)."""

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from slea.contracts.scoring import AnswerRequest, AttemptList, ScoreAnswerOutput
from slea.contracts.sessions import (
    CreateSessionRequest,
    PlacementNext,
    ReportAccepted,
    ReportRequest,
    RoundStarted,
    RoundStatus,
    SessionCreated,
    SessionList,
    SessionQuestions,
    SessionSummary,
    SkipRecorded,
    StartRoundRequest,
)
from slea.http.api import caller, caller_responses, documented_refusal, responses
from slea.logic.sessions import listing as session_list
from slea.logic.sessions import use_cases as sessions
from slea.security.names import display_name

from . import CURSOR_PATTERN, ItemId, SessionId

router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]


@router.post(
    "/sessions",
    status_code=201,
    summary="Create a session for the caller",
    responses=caller_responses(201, SessionCreated, "The new session", forbidden="The token's subject is not a UUID"),
)
def create_session(request: Annotated[CreateSessionRequest | None, Body()] = None) -> SessionCreated:
    who = caller(router)
    # The learner's name as their token gives it, for reviewers' record (sanitised: shown to others).
    claims = router.current_event.request_context.authorizer.jwt_claim
    from slea.logic.sessions import progress  # noqa: PLC0415 - see the module's docstring

    return progress.create_session(who, display_name(claims, who) if claims else None, request)


@router.get(
    "/sessions",
    summary="The caller's sessions, newest first, with each round's progress (to resume on any device)",
    responses=caller_responses(200, SessionList, "A page of sessions"),
)
def list_sessions(
    limit: Annotated[int, Query(ge=1, le=20)] = 5,
    cursor: Annotated[str | None, Query(min_length=1, max_length=1024, pattern=CURSOR_PATTERN)] = None,
) -> SessionList:
    return session_list.list_sessions(caller(router), limit, cursor)


@router.post(
    "/sessions/<session_id>/rounds",
    status_code=202,
    summary="Start a Mode 1 round",
    responses=responses(
        202,
        RoundStarted,
        "The round is being generated",
        too_fast="started rounds too fast (RATE_LIMITED) or the most allowed per day (QUOTA_EXCEEDED)",
    ),
)
def start_round(session_id: SessionId, request: Annotated[StartRoundRequest, Body()]) -> RoundStarted:
    from slea.logic.sessions import progress  # noqa: PLC0415 - see the module's docstring

    return progress.start_round(session_id, caller(router), request)


@router.post(
    "/sessions/<session_id>/next",
    summary="A placement test's next question (the same until it is answered), or its result once it stops",
    responses={
        **responses(200, PlacementNext, "The next question with the test's progress, or the result"),
        409: documented_refusal("The session is not a placement test (NOT_A_PLACEMENT) or was closed (SESSION_CLOSED)"),
    },
)
def next_question(session_id: SessionId) -> PlacementNext:
    from slea.logic.sessions import placement_steps  # noqa: PLC0415 - see the module's docstring

    return placement_steps.next_placement_question(session_id, caller(router))


@router.get(
    "/sessions/<session_id>/questions",
    summary="The session's questions, without answer keys",
    responses=responses(200, SessionQuestions, "The questions saved so far"),
)
def list_questions(session_id: SessionId) -> SessionQuestions:
    return sessions.list_questions(session_id, caller(router))


@router.post(
    "/sessions/<session_id>/answers",
    summary="Grade an answer and explain it",
    responses=responses(200, ScoreAnswerOutput, "The grading result", too_fast="sent answers too fast (RATE_LIMITED)"),
)
def answer(session_id: SessionId, request: Annotated[AnswerRequest, Body()]) -> ScoreAnswerOutput:
    from slea.logic.sessions import answers  # noqa: PLC0415 - see the module's docstring

    return answers.answer_question(session_id, caller(router), request)


@router.get(
    "/sessions/<session_id>/attempts",
    summary="The session's graded attempts",
    responses=responses(200, AttemptList, "The attempts, oldest first"),
)
def list_attempts(session_id: SessionId) -> AttemptList:
    from slea.logic.sessions import attempt_list  # noqa: PLC0415 - see the module's docstring

    return attempt_list.list_attempts(session_id, caller(router))


@router.get(
    "/sessions/<session_id>/rounds/<round>",
    summary="A round's status: its execution and the questions it saved",
    responses=responses(200, RoundStatus, "The round's status"),
)
def get_round(session_id: SessionId, round: Annotated[int, Path(ge=1, le=2)]) -> RoundStatus:
    return sessions.round_status(session_id, caller(router), round)


@router.get(
    "/sessions/<session_id>/summary",
    summary="The session so far: scores per round, answers to review, the next round",
    responses=responses(200, SessionSummary, "The session's summary"),
)
def get_summary(session_id: SessionId) -> SessionSummary:
    from slea.logic.sessions import summary  # noqa: PLC0415 - see the module's docstring

    return summary.session_summary(session_id, caller(router))


@router.post(
    "/sessions/<session_id>/questions/<question_id>/skip",
    summary="Skip a question: it counts as a wrong answer (a score of 0), once",
    responses=responses(
        200,
        SkipRecorded,
        "The question is skipped (also when it already was: a retry)",
        too_fast="sent answers or skips too fast (RATE_LIMITED)",
    ),
)
def skip_question(session_id: SessionId, question_id: ItemId) -> SkipRecorded:
    from slea.logic.sessions import progress  # noqa: PLC0415 - see the module's docstring

    return progress.skip_question(session_id, caller(router), question_id)


@router.post(
    "/sessions/<session_id>/questions/<question_id>/reports",
    status_code=202,
    summary="Report a problem with a question (it goes to the reviewers)",
    responses=responses(202, ReportAccepted, "The report is queued for review"),
)
def report_question(
    session_id: SessionId, question_id: ItemId, request: Annotated[ReportRequest, Body()]
) -> ReportAccepted:
    return sessions.report_question(session_id, caller(router), question_id, request)
