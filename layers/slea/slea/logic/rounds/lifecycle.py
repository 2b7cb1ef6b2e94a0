"""A session's rounds as the learner follows them: claiming a round before it starts (so it is
started once), its status (the execution, the questions it saved, and when it has fewer than
asked, why), and which questions a learner sees. The session's summary reads them
(logic/sessions/summary.py)."""

import datetime
from typing import cast

from botocore.exceptions import BotoCoreError, ClientError
from pydantic import ValidationError

from slea.contracts.pipeline import PipelineOutput, ShortfallReason
from slea.contracts.sessions import QuestionView, RoundState, RoundStatus
from slea.dal import executions, questions, rounds, usage
from slea.dal.executions import DescribedExecution
from slea.dal.question_records import StoredQuestion
from slea.dal.rounds import RoundOutcome, StoredRound
from slea.measurement import scale
from slea.platform import clock
from slea.platform.clock import utc_now
from slea.platform.errors import Conflict, NotFound, Unavailable
from slea.platform.observability import logger, metrics, tracer

RUNNING, SUCCEEDED, FAILED = "RUNNING", "SUCCEEDED", "FAILED"
# A claim whose execution never got an ARN after this long was left by a request that died
# between claiming and starting (the API function's timeout is 29 s): the round did not start.
ABANDONED_CLAIM = datetime.timedelta(minutes=2)
ROUNDS = (1, 2)


def claim_round(record: StoredRound) -> StoredRound | None:
    """Claim the round for `record` (Conflict if it is RUNNING or SUCCEEDED). Returns the
    FAILED record the claim replaced, if any, so an unstarted round can be put back."""
    claimed, previous = rounds.claim(record)
    if not claimed and previous is not None and refreshed(previous).round_status == FAILED:
        # The execution failed (or never started) and nobody had looked: now it may start again.
        claimed, previous = rounds.claim(record)
    if not claimed:
        raise Conflict(
            "ROUND_ALREADY_STARTED",
            f"round {record.round} of session {record.session_id} has already been started",
        )
    return previous


def _iso(moment: datetime.datetime | None) -> str | None:
    if moment is None:
        return None
    return moment.astimezone(datetime.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _abandoned(record: StoredRound) -> bool:
    started = datetime.datetime.fromisoformat(record.started_at.replace("Z", "+00:00"))
    return clock.now() - started > ABANDONED_CLAIM


def _execution(record: StoredRound) -> DescribedExecution | None:
    """DescribeExecution of the round's execution, None if it does not exist (yet, or ever)."""
    arn = record.execution_arn
    if not arn and record.execution_name:
        arn = executions.execution_arn(record.execution_name)
    if not arn:
        return None
    try:
        return executions.describe(arn)
    except (ClientError, BotoCoreError) as error:
        logger.error("round status unavailable", extra={"execution_arn": arn, "reason": str(error)})
        raise Unavailable("SERVICE_UNAVAILABLE", "the round's status is unavailable; please retry") from error


def _succeeded(finished_at: str, output: str | None) -> RoundOutcome:
    """A SUCCEEDED round's outcome: how many came of those asked, and why fewer, from its
    execution's output (the pipeline's PipelineOutput). An output from before a count was kept
    has none: that count is not known (None), and so is every count of an output that is no
    PipelineOutput."""
    try:
        totals = PipelineOutput.model_validate_json(output or "{}")
    except ValidationError as error:
        logger.warning("a round's output is no pipeline output", extra={"errors": error.error_count()})
        return RoundOutcome(SUCCEEDED, finished_at)
    return RoundOutcome(
        SUCCEEDED,
        finished_at,
        generated=totals.total_generated,
        valid=totals.total_valid,
        delivered=totals.delivered,
        from_neighbours=totals.from_neighbours if "from_neighbours" in totals.model_fields_set else None,
        shortfall_reason=totals.shortfall_reason,
    )


def refreshed(record: StoredRound) -> StoredRound:
    """The record with a RUNNING round's execution looked up; a finished round's outcome is
    written back, so it is looked up once and a FAILED round can be claimed again."""
    if record.round_status != RUNNING:
        return record
    described = _execution(record)
    if described is None:
        if not _abandoned(record):
            return record
        never = RoundOutcome(FAILED, utc_now(), error="the round's execution was never started")
        # The request died between taking the quota and starting the execution: the round cost
        # nothing, so its unit comes back, in the same write that fails the claim (once).
        day = record.quota_day
        give_back = usage.give_back_round(record.user_id, day) if day else None
        if rounds.finish_unstarted(record, never, give_back):
            logger.warning("a round's execution was never started", extra={"session_id": record.session_id})
            metrics.add_metric(name="RoundsNeverStarted", unit="Count", value=1)
        return record.ended(never)
    status = described.status
    if status in (RUNNING, "PENDING_REDRIVE"):
        return record
    finished_at = _iso(described.stopped_at) or utc_now()
    if status == SUCCEEDED:
        outcome = _succeeded(finished_at, described.output)
    else:
        outcome = RoundOutcome(FAILED, finished_at, error=described.error or status)
    rounds.record_outcome(record, outcome)
    return record.ended(outcome)


@tracer.capture_method
def round_status(session_id: str, round_number: int) -> RoundStatus:
    record = rounds.get_round(session_id, round_number)
    if record is None:
        raise NotFound("ROUND_NOT_FOUND", f"round {round_number} was never started in session {session_id}")
    record = refreshed(record)
    saved = [q.question_id for q in questions.session_questions(session_id) if q.round == round_number]
    return RoundStatus(
        session_id=session_id,
        round=round_number,
        status=cast(RoundState, record.round_status),  # the contract validates it
        requested=record.requested,
        generated=record.generated,
        valid=record.valid,
        saved=len(saved),
        question_ids=saved,
        started_at=record.started_at,
        finished_at=record.finished_at,
        error=record.error,
        delivered=record.delivered,
        from_neighbours=record.from_neighbours,
        shortfall_reason=cast(ShortfallReason | None, record.shortfall_reason),
    )


def visible(question: StoredQuestion) -> bool:
    """Learners see a retired question only if they had answered it before it was retired."""
    return question.status != "retired" or bool(question.answered_at)


def question_view(stored: StoredQuestion) -> QuestionView:
    """A stored question as its learner sees it: everything but the answer key. Tool 5 saves every
    question with its difficulty label, and a bank item's copy takes its item's."""
    difficulty = stored.difficulty or 0
    return QuestionView(
        question_id=stored.question_id,
        round=stored.round,
        type=stored.item_type,
        stem=stored.stem,
        choices=list(stored.choices or ()),
        difficulty=difficulty,
        difficulty_level=scale.label_level(difficulty),
        category=stored.category or "",
        answered=bool(stored.answered_at),
        skipped=bool(stored.skipped_at),
    )
