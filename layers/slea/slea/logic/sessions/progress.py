"""What moves a learner on (the HTTP API's and the MCP server's): a new session, a round started,
a question skipped. Each counts what the learner left unanswered elsewhere as skipped
(logic/rounds/skips.py); the API's routes and the MCP server's tools that do these load this
module with their first request, not with the cold start."""

import json
import uuid
from collections.abc import Callable

from botocore.exceptions import BotoCoreError, ClientError

from slea.constants import FALLBACK_PROFILE
from slea.contracts.profile import is_uuid
from slea.contracts.sessions import CreateSessionRequest, RoundStarted, SessionCreated, SkipRecorded, StartRoundRequest
from slea.dal import executions, profiles, questions, rounds, sessions, usage
from slea.dal.rounds import StoredRound
from slea.logic.answering import rules
from slea.logic.rounds import lifecycle as round_logic
from slea.logic.rounds import skips
from slea.logic.sessions.use_cases import check_owner
from slea.measurement import learner
from slea.platform.clock import utc_now
from slea.platform.errors import (
    Conflict,
    DataAccessError,
    DomainError,
    Forbidden,
    Invalid,
    NotFound,
    RateLimited,
    Unavailable,
)
from slea.platform.observability import logger, tracer
from slea.security import rate_limits


@tracer.capture_method
def create_session(
    user_id: str, user_name: str | None = None, request: CreateSessionRequest | None = None
) -> SessionCreated:
    """A new session with a random id (a client cannot choose, so cannot take, another's id):
    practice by default, or a placement test of one category (logic/sessions/placement.py)."""
    if not is_uuid(user_id):  # Mode 1 keys profiles by UUID (Cognito subjects are UUIDs)
        raise Forbidden("UNSUPPORTED_SUBJECT", "the token's subject must be a UUID to start a session")
    request = request or CreateSessionRequest()
    placement = None
    if request.purpose == "placement":
        if request.category is None:
            raise Invalid("CATEGORY_REQUIRED", "a placement test needs the category it measures")
        placement = {"category": request.category, **starting_point(user_id)}
    session_id = str(uuid.uuid4())
    if not sessions.create(session_id, user_id, user_name, placement):  # a UUID4 collision: practically never
        raise Unavailable("SERVICE_UNAVAILABLE", "could not create a session, please retry")
    _settle_moving_on(user_id, session_id)  # the learner moved on: every session they left is over
    return SessionCreated(session_id=session_id, purpose=request.purpose)


def starting_point(user_id: str) -> dict[str, str]:
    """Where a new placement starts, kept on its session: the prior of the learner's survey
    (learner.prior_for: the population's without one) and its language. The test measures from
    where it began, even if the survey changes meanwhile."""
    try:
        survey = profiles.latest_survey_record(user_id)
    except DataAccessError as error:
        logger.warning("profile unavailable, the population's prior is used", extra={"reason": str(error)})
        survey = None
    mean, sd = learner.prior_for({**FALLBACK_PROFILE, **(survey.answers if survey else {})})
    language = (survey.language if survey else None) or "en"
    return {"prior": json.dumps([round(mean, 4), round(sd, 4)]), "language": language}


def _settle_moving_on(user_id: str, staying: str) -> None:
    """The learner moved on: what they left unanswered in every other session is counted as
    skipped and those sessions close (logic/rounds/skips.py; one Query when there are none)."""
    skips.settle_moving_on(user_id, staying)


def _count_skips_safely(session_id: str, user_id: str, over: Callable[[int], bool]) -> None:
    """The learner moved on to a later round (logic/rounds/skips.py)."""
    skips.count_skips_safely(session_id, user_id, over)


def discard_new_session(session_id: str, user_id: str) -> None:
    """Undo create_session for a session nothing was started in."""
    sessions.delete(session_id, user_id)


@tracer.capture_method
def start_round(session_id: str, user_id: str, request: StartRoundRequest) -> RoundStarted:
    session = sessions.get_session(session_id)
    check_owner(session_id, user_id, session.user_id if session else None)
    if session and session.purpose == "placement":
        raise Conflict("PLACEMENT_SESSION", "a placement test asks one question at a time: POST .../next")
    if session and session.closed_at:
        raise rules.left_session()
    rate_limits.take(user_id, "round_start")  # before any write: a refused start costs one
    # The round is claimed first: a second start of a RUNNING or SUCCEEDED round is a Conflict that
    # takes nothing from the quota and never generates a second set of questions.
    claim_id = uuid.uuid4().hex
    # Named before it starts, so the round's execution can be found even if recording its ARN
    # below fails.
    execution_name = f"{session_id[:40]}-r{request.round}-{claim_id[:12]}"
    record = StoredRound(
        session_id=session_id,
        round=request.round,
        round_status=round_logic.RUNNING,
        claim_id=claim_id,
        user_id=user_id,
        started_at=utc_now(),
        execution_name=execution_name,
        requested=request.count,
        category=request.category,
    )
    previous = round_logic.claim_round(record)
    day = usage.today()
    # The unit is taken and noted on the claim in one write: if this request dies before the
    # execution starts, the claim is found abandoned later and the unit given back (rounds.py).
    if not rounds.take_quota(record, day, usage.take_round(user_id, day)):
        rounds.release(record, previous)
        raise RateLimited(
            "QUOTA_EXCEEDED",
            f"you have started {usage.daily_round_limit()} rounds today; try again tomorrow (UTC)",
            retry_after=usage.seconds_until_tomorrow(),
        )
    if request.round > 1:  # the earlier rounds are over: what was left unanswered is skipped
        _count_skips_safely(session_id, user_id, lambda number: number < request.round)
    execution_input = {
        "user_id": user_id,
        "session_id": session_id,
        **request.model_dump(mode="json", exclude_none=True),
    }
    try:
        arn = executions.start(execution_name, execution_input)
    except (executions.ExecutionExists, ClientError, BotoCoreError) as error:
        # Nothing was generated and nothing is left half-done: the round is not counted and can
        # be started again in the same session.
        logger.error("the round could not be started", extra={"session_id": session_id, "reason": str(error)})
        rounds.release(record, previous, give_back=usage.give_back_round(user_id, day))
        raise Unavailable("ROUND_NOT_STARTED", "the round could not be started; please retry") from error
    try:
        rounds.note_execution(record, arn)
    except DataAccessError as error:  # the round has started; its status finds it by name
        logger.warning("execution ARN not recorded", extra={"session_id": session_id, "reason": str(error)})
    if request.round == 1:
        # A round in another session is moving on too: the learner's other sessions are over
        # (their open items counted, closed: they take no more answers, and what their rounds
        # held back is shown in their history, history.py). Usually none: a new session settled them.
        _settle_moving_on(user_id, session_id)
    return RoundStarted(session_id=session_id, round=request.round, execution_arn=arn)


@tracer.capture_method
def skip_question(session_id: str, user_id: str, question_id: str) -> SkipRecorded:
    """The learner skips a question on purpose: it counts as a wrong answer, once (a repeat
    answers the same); refused once it is answered, and in a session the learner has left."""
    session = sessions.get_session(session_id)
    check_owner(session_id, user_id, session.user_id if session else None)
    stored = questions.session_questions(session_id)
    question = next((q for q in stored if q.question_id == question_id and round_logic.visible(q)), None)
    if question is None:
        raise NotFound("QUESTION_NOT_FOUND", f"question {question_id} not found in session {session_id}")
    done = SkipRecorded(session_id=session_id, question_id=question_id)
    if question.skipped_at:
        return done  # skipped already (this request's retry, or its round was over): counted once
    # The answer rules apply to a skip as to an answer: an answered, retired or over question, a
    # closed session.
    refused = rules.refusal(question, "", stored, session_closed=bool(session and session.closed_at))
    if refused is not None:
        raise refused
    rate_limits.take(user_id, "answer")  # a skip is a write to the learner model, as an answer is
    if not skips.skip_question(session_id, user_id, question_id, stored):
        raise rules.already_answered(question_id)  # answered (or withdrawn) meanwhile
    return done


def start_round_in_any_session(session_id: str | None, user_id: str, request: StartRoundRequest) -> RoundStarted:
    """A round in one of the learner's sessions, or in a new session for this round only (the MCP
    server's start_round): a refused start (the rate limit, the daily quota) leaves nothing behind,
    so refused calls cannot pile up empty sessions."""
    if session_id:
        return start_round(session_id, user_id, request)
    created = create_session(user_id).session_id
    try:
        return start_round(created, user_id, request)
    except DomainError:
        discard_new_session(created, user_id)
        raise
