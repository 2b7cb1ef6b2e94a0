"""The HTTP API's logic: the server creates sessions, each for the user who asked and only for
them; answers are graded with the answer key looked up server-side; questions are listed
without their keys."""

import uuid
from collections.abc import Callable

from botocore.exceptions import BotoCoreError, ClientError

from slea.contracts.profile import is_uuid, normalised_user_id
from slea.contracts.scoring import AnswerRequest, AttemptList, ScoreAnswerOutput
from slea.contracts.sessions import (
    CreateSessionRequest,
    PlacementNext,
    ReportAccepted,
    ReportRequest,
    RoundStarted,
    RoundStatus,
    SessionCreated,
    SessionQuestions,
    SkipRecorded,
    StartRoundRequest,
)
from slea.dal import attempts, executions, questions, rounds, sessions, usage
from slea.dal.rounds import StoredRound
from slea.logic.answering import rules
from slea.logic.rounds import lifecycle as round_logic
from slea.platform.clock import utc_now
from slea.platform.errors import Conflict, DataAccessError, Forbidden, Invalid, NotFound, RateLimited, Unavailable
from slea.platform.observability import logger, tracer
from slea.security import rate_limits


def require_owner(session_id: str, user_id: str) -> None:
    """NotFound for an unknown session, Forbidden for another user's (ids compared normalised, so a session
    stored under "ABC..." before callers were normalised is still its owner's)."""
    check_owner(session_id, user_id, sessions.owner_of(session_id))


def check_owner(session_id: str, user_id: str, owner: str | None) -> None:
    if owner is None:
        raise NotFound("SESSION_NOT_FOUND", f"session {session_id} not found")
    if normalised_user_id(owner) != normalised_user_id(user_id):
        raise Forbidden("FORBIDDEN", f"session {session_id} belongs to another user")


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
        placement = {"category": request.category, **placement_start(user_id)}
    session_id = str(uuid.uuid4())
    if not sessions.create(session_id, user_id, user_name, placement):  # a UUID4 collision: practically never
        raise Unavailable("SERVICE_UNAVAILABLE", "could not create a session, please retry")
    _settle_moving_on(user_id, session_id)  # the learner moved on: every session they left is over
    return SessionCreated(session_id=session_id, purpose=request.purpose)


def placement_start(user_id: str) -> dict[str, str]:
    """Where a new placement test starts: the learner's survey's prior and language."""
    from slea.logic.sessions.placement import starting_point  # noqa: PLC0415 - only placements load it

    return starting_point(user_id)


def _settle_moving_on(user_id: str, staying: str) -> None:
    """The learner moved on: what they left unanswered in every other session is counted as
    skipped and those sessions close (logic/rounds/skips.py; one Query when there are none)."""
    from slea.logic.rounds import skips  # noqa: PLC0415 - listed in slea.platform.deferred_imports

    skips.settle_moving_on(user_id, staying)


def _count_skips_safely(session_id: str, user_id: str, over: Callable[[int], bool]) -> None:
    """The learner moved on to a later round (logic/rounds/skips.py)."""
    from slea.logic.rounds import skips  # noqa: PLC0415 - listed in slea.platform.deferred_imports

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
def next_placement_question(session_id: str, user_id: str) -> PlacementNext:
    """A placement test's next step (logic/sessions/placement.py: loaded by placements only)."""
    from slea.logic.sessions.placement import next_question  # noqa: PLC0415

    return next_question(session_id, user_id)


@tracer.capture_method
def list_questions(session_id: str, user_id: str) -> SessionQuestions:
    require_owner(session_id, user_id)
    shown = [item for item in questions.session_questions(session_id) if round_logic.visible(item)]
    return SessionQuestions(session_id=session_id, questions=[round_logic.question_view(item) for item in shown])


@tracer.capture_method
def answer_question(session_id: str, user_id: str, answer: AnswerRequest) -> ScoreAnswerOutput:
    """Grade a learner's answer (logic/answering/answer.py). Loaded on the first answer, not at
    every cold start of the API function: most requests list or start, and it is a fifth of the
    import."""
    from slea.logic.answering import answer as answering  # noqa: PLC0415 - listed in slea.platform.deferred_imports

    try:
        return answering.answer_question(session_id, user_id, answer)
    except answering.GradeNotRecordedError as error:
        raise Unavailable(
            "ANSWER_NOT_RECORDED", "your answer was graded but could not be recorded; send it again"
        ) from error


@tracer.capture_method
def list_attempts(session_id: str, user_id: str) -> AttemptList:
    """The session's attempts, with what the key-leak guard held back delivered where it may be
    (history.py: loaded here, as the answer path is, not at every cold start)."""
    from slea.logic.sessions import history  # noqa: PLC0415

    session = sessions.get_session(session_id)
    check_owner(session_id, user_id, session.user_id if session else None)
    return AttemptList(
        session_id=session_id,
        attempts=history.views(attempts.session_attempts(session_id), {session_id: session}),
    )


@tracer.capture_method
def round_status(session_id: str, user_id: str, round_number: int) -> RoundStatus:
    require_owner(session_id, user_id)
    return round_logic.round_status(session_id, round_number)


@tracer.capture_method
def skip_question(session_id: str, user_id: str, question_id: str) -> SkipRecorded:
    """The learner skips a question on purpose: it counts as a wrong answer, once (a repeat
    answers the same); refused once it is answered, and in a session the learner has left."""
    from slea.logic.rounds import skips  # noqa: PLC0415 - listed in slea.platform.deferred_imports

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


@tracer.capture_method
def report_question(session_id: str, user_id: str, question_id: str, report: ReportRequest) -> ReportAccepted:
    """A learner's "there is a problem with this question": the question joins the review queue."""
    require_owner(session_id, user_id)
    # Only a well-formed id is looked up, so only an item a reviewer's route can name is queued.
    stored = questions.get_question(question_id) if is_uuid(question_id) else None
    if stored is None or stored.session_id != session_id or not round_logic.visible(stored):
        raise NotFound("QUESTION_NOT_FOUND", f"question {question_id} not found in session {session_id}")
    # A copy drawn from the bank is reported on its bank item: that is what a reviewer fixes or
    # retires, and a reported item is held out of draws until they have.
    target = stored.item_id or question_id
    questions.report_question(
        target, {"reason": report.reason.strip(), "at": utc_now(), "by": user_id, "question_id": question_id}
    )
    return ReportAccepted(question_id=question_id)
