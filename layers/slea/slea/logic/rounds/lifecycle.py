"""A session's rounds as the learner follows them: claiming a round before it starts (so it is
started once), its status (the execution, the questions it saved, and when it has fewer than
asked, why), and the session's summary (scores, what to review, the next round and, once the
current round is over, its difficulty)."""

import datetime
import json
from collections.abc import Callable
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from slea.constants import HIGH_SCORE_THRESHOLD
from slea.contracts.ability import SessionAbility
from slea.contracts.profile import GetUserProfileInput
from slea.contracts.sessions import RoundStatus, RoundSummary, SessionSummary, ToReview
from slea.dal import attempts, questions, rounds, usage
from slea.dal.abilities import StoredAbility
from slea.dal.question_records import StoredQuestion
from slea.measurement import scale
from slea.platform.aws import stepfunctions
from slea.platform.clock import utc_now
from slea.platform.errors import Conflict, DataAccessError, NotFound, Unavailable
from slea.platform.observability import logger, metrics, tracer
from slea.platform.settings import resource_name

RUNNING, SUCCEEDED, FAILED = "RUNNING", "SUCCEEDED", "FAILED"
# A claim whose execution never got an ARN after this long was left by a request that died
# between claiming and starting (the API function's timeout is 29 s): the round did not start.
ABANDONED_CLAIM = datetime.timedelta(minutes=2)
ROUNDS = (1, 2)
STATE_MACHINE_VARIABLE = "GENERATE_ROUND_STATE_MACHINE_ARN"


def claim_round(record: dict[str, Any]) -> dict[str, Any] | None:
    """Claim the round for `record` (Conflict if it is RUNNING or SUCCEEDED). Returns the
    FAILED record the claim replaced, if any, so an unstarted round can be put back."""
    claimed, previous = rounds.claim(record)
    if not claimed and previous is not None and refreshed(previous)["round_status"] == FAILED:
        # The execution failed (or never started) and nobody had looked: now it may start again.
        claimed, previous = rounds.claim(record)
    if not claimed:
        raise Conflict(
            "ROUND_ALREADY_STARTED",
            f"round {record['round']} of session {record['session_id']} has already been started",
        )
    return previous


def _iso(moment: Any) -> str | None:
    if not isinstance(moment, datetime.datetime):
        return None
    return moment.astimezone(datetime.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _abandoned(record: dict[str, Any]) -> bool:
    started = datetime.datetime.fromisoformat(str(record["started_at"]).replace("Z", "+00:00"))
    return datetime.datetime.now(datetime.UTC) - started > ABANDONED_CLAIM


def _execution(record: dict[str, Any]) -> dict[str, Any] | None:
    """DescribeExecution of the round's execution, None if it does not exist (yet, or ever)."""
    arn = record.get("execution_arn")
    if not arn and record.get("execution_name"):
        machine = resource_name(STATE_MACHINE_VARIABLE)
        arn = f"{machine.replace(':stateMachine:', ':execution:', 1)}:{record['execution_name']}"
    if not arn:
        return None
    try:
        return dict(stepfunctions("api").describe_execution(executionArn=arn))
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") == "ExecutionDoesNotExist":
            return None
        logger.error("round status unavailable", extra={"execution_arn": arn, "reason": str(error)})
        raise Unavailable("SERVICE_UNAVAILABLE", "the round's status is unavailable; please retry") from error
    except BotoCoreError as error:
        logger.error("round status unavailable", extra={"execution_arn": arn, "reason": str(error)})
        raise Unavailable("SERVICE_UNAVAILABLE", "the round's status is unavailable; please retry") from error


def refreshed(record: dict[str, Any]) -> dict[str, Any]:
    """The record with a RUNNING round's execution looked up; a finished round's outcome is
    written back, so it is looked up once and a FAILED round can be claimed again."""
    if record.get("round_status") != RUNNING:
        return record
    described = _execution(record)
    if described is None:
        if not _abandoned(record):
            return record
        changes: dict[str, Any] = {
            "round_status": FAILED,
            "finished_at": utc_now(),
            "error": "the round's execution was never started",
        }
        # The request died between taking the quota and starting the execution: the round cost
        # nothing, so its unit comes back, in the same write that fails the claim (once).
        day = record.get("quota_day")
        give_back = usage.give_back_round(str(record["user_id"]), str(day)) if day else None
        if rounds.finish_unstarted(record, changes, give_back):
            logger.warning("a round's execution was never started", extra={"session_id": record["session_id"]})
            metrics.add_metric(name="RoundsNeverStarted", unit="Count", value=1)
        return {**record, **changes}
    if described["status"] in (RUNNING, "PENDING_REDRIVE"):
        return record
    changes = {"round_status": SUCCEEDED if described["status"] == SUCCEEDED else FAILED}
    changes["finished_at"] = _iso(described.get("stopDate")) or utc_now()
    if described["status"] == SUCCEEDED:
        output = json.loads(described.get("output") or "{}") or {}
        changes |= {"generated": output.get("total_generated"), "valid": output.get("total_valid")}
        # How many came of those asked, and why fewer (an output from before they were kept has none).
        changes |= {
            name: output[name]
            for name in ("delivered", "from_neighbours", "shortfall_reason")
            if output.get(name) is not None
        }
    else:
        changes["error"] = described.get("error") or described["status"]
    rounds.update(record["session_id"], int(record["round"]), changes, str(record["claim_id"]))
    return {**record, **changes}


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
        status=record["round_status"],
        requested=int(record.get("requested", 0)),
        generated=record.get("generated"),
        valid=record.get("valid"),
        saved=len(saved),
        question_ids=saved,
        started_at=record["started_at"],
        finished_at=record.get("finished_at"),
        error=record.get("error"),
        delivered=_count(record.get("delivered")),
        from_neighbours=_count(record.get("from_neighbours")),
        shortfall_reason=record.get("shortfall_reason"),
    )


def _count(value: Any) -> int | None:
    return None if value is None else int(value)


def visible(question: StoredQuestion) -> bool:
    """Learners see a retired question only if they had answered it before it was retired."""
    return question.status != "retired" or bool(question.answered_at)


def _round_summary(number: int, shown: list[StoredQuestion], graded: list[dict[str, Any]]) -> RoundSummary:
    """`graded`: the round's attempts, skipped items included (a score of 0, as a test scores an
    omitted item)."""
    scores = [int(attempt["score"]) for attempt in graded]
    skipped = sum(bool(attempt.get("skipped")) for attempt in graded)
    return RoundSummary(
        round=number,
        questions=len(shown),
        answered=len(graded) - skipped,
        correct=sum(bool(attempt.get("is_correct")) for attempt in graded),
        score=round(sum(scores) / len(scores), 1) if scores else None,
        pending_review=sum(bool(a.get("needs_review")) and not a.get("reviewed") for a in graded),
        skipped=skipped,
    )


def _next_round(started: dict[int, Any], saved_rounds: set[int]) -> int | None:
    """The first round not started yet (a FAILED one may be started again); `started`: the
    rounds' records as read with the session."""
    for number in ROUNDS:
        record = started.get(number)
        running_or_done = record is not None and record.get("round_status") in (RUNNING, SUCCEEDED)
        if not running_or_done and number not in saved_rounds:  # rounds from before records were kept
            return number
    return None


def _next_difficulty(user_id: str, number: int, graded: list[dict[str, Any]], ability: StoredAbility | None) -> int:
    """Plan_round's own rule (not a copy of it): from the learner's ability in the session's
    category when there is an estimate, else from the survey's prior (or, for a round 2 whose
    ability could not be read, round 1's attempts). Imported here: the summary is the only API
    request that needs the planner and the profile."""
    from slea.logic.learners.profile import get_user_profile  # noqa: PLC0415
    from slea.logic.rounds.planning import without_estimate  # noqa: PLC0415
    from slea.logic.rounds.target import estimate_of, from_ability, success_rate  # noqa: PLC0415

    if (estimate := estimate_of(ability)) is not None:
        return from_ability(estimate.theta, estimate.se, success_rate(), None).label
    profile = get_user_profile(GetUserProfileInput(user_id=user_id))
    round_one = [a for a in graded if a.get("round", 1) == 1] if number == 2 else []
    return without_estimate(profile, number, round_one, success_rate(), None).label


def _category(stored: list[StoredQuestion]) -> str | None:
    """The session's category: that of its latest question (a session keeps to one in practice)."""
    return stored[-1].category if stored and stored[-1].category else None


@tracer.capture_method
def session_summary(session_id: str, user_id: str, started: dict[int, Any]) -> SessionSummary:
    """Scores per round, what to review, the next round and its difficulty, and the learner's
    ability; `started`: the rounds' records as read with the session's owner. The learner's
    ability is read once (one category serves both its uses in a session). Items left unanswered
    in rounds that are over are counted as skipped first (logic/rounds/skips.py), so the scores
    and the ability include them."""
    stored = questions.session_questions(session_id)
    abilities_read: dict[str, StoredAbility | None] = {}

    def ability_in(category: str | None) -> StoredAbility | None:
        """The learner's ability in `category`, read once per request (None if unreadable)."""
        if not category:
            return None
        if category not in abilities_read:
            from slea.logic.rounds.planning import stored_ability  # noqa: PLC0415

            abilities_read[category] = stored_ability(user_id, category)
        return abilities_read[category]

    # A round still recorded RUNNING is looked up (and its outcome written back): whether it is
    # being generated decides whether the next round's difficulty may be announced.
    started = {number: refreshed(record) for number, record in started.items()}
    _count_skips(session_id, user_id, stored, started=started, ability_in=ability_in, abilities_read=abilities_read)
    graded = attempts.session_attempts(session_id)
    by_id = {question.question_id: question for question in stored}
    shown = [question for question in stored if visible(question)]
    numbers = sorted({q.round for q in stored} | {int(a.get("round", 1)) for a in graded})
    summaries = [
        _round_summary(
            number,
            [q for q in shown if q.round == number],
            [a for a in graded if a.get("round", 1) == number],
        )
        for number in numbers
    ]
    to_review = [
        ToReview(
            question_id=attempt["question_id"],
            round=int(attempt.get("round", 1)),
            stem=question.stem if (question := by_id.get(attempt["question_id"])) else "",
            score=int(attempt["score"]),
            category=question.category if question else None,
        )
        for attempt in graded
        if int(attempt["score"]) < HIGH_SCORE_THRESHOLD
    ]
    next_round = _next_round(started, {q.round for q in stored})
    # The next round's difficulty is said once the current round is over: every question answered
    # (or counted skipped) and no round being generated; until then the answers still to come move it.
    next_difficulty = None
    if next_round is not None and _current_round_over(shown, graded, started):
        next_difficulty = _next_difficulty(user_id, next_round, graded, ability_in(_category(stored)))
    return SessionSummary(
        session_id=session_id,
        rounds=summaries,
        to_review=to_review,
        next_round=next_round,
        next_difficulty=next_difficulty,
        next_level=scale.label_level(next_difficulty) if next_difficulty is not None else None,
        ability=_ability(stored, graded, ability_in),
    )


def _current_round_over(shown: list[StoredQuestion], graded: list[dict[str, Any]], started: dict[int, Any]) -> bool:
    """No question the learner can still answer (`graded`, read after the skips were counted,
    holds the skipped ones) and no round still being generated."""
    done = {str(attempt.get("question_id")) for attempt in graded}
    if any(question.question_id not in done and not question.answered_at for question in shown):
        return False
    return not any((record or {}).get("round_status") == RUNNING for record in started.values())


def _count_skips(
    session_id: str,
    user_id: str,
    stored: list[StoredQuestion],
    *,
    started: dict[int, Any],
    ability_in: Callable[[str | None], StoredAbility | None],
    abilities_read: dict[str, StoredAbility | None],
) -> None:
    """Count the items of rounds that are over as skipped (no call when there are none); the
    ability they changed is what the summary then shows. A storage failure leaves them to the
    next trigger: the summary is whole without it."""
    from slea.logic.rounds import skips  # noqa: PLC0415 - listed in slea.platform.deferred_imports

    over = skips.rounds_over_at_summary(stored, started)
    pending = skips.open_items(stored, over)
    if not pending:
        return
    category = str(pending[0].category)
    try:
        _, settled = skips.count_skips(session_id, user_id, over, stored=stored, ability=ability_in(category))
    except DataAccessError as error:
        logger.error("skipped items not counted", extra={"session_id": session_id, "reason": str(error)})
        return
    if settled is not None:
        abilities_read[category] = settled


def _ability(
    stored: list[StoredQuestion],
    graded: list[dict[str, Any]],
    ability_in: Callable[[str | None], StoredAbility | None],
) -> SessionAbility | None:
    """The learner's ability in the session's category: the one its newest answer updated, else
    its questions' category. The summary is whole without it: if it cannot be read, null."""
    from slea.logic.learners.ability import session_ability  # noqa: PLC0415 - listed in slea.platform.deferred_imports

    updated = [str(a["ability_category"]) for a in graded if a.get("ability_category")]
    asked = [q.category for q in stored if q.category]
    category = updated[-1] if updated else asked[0] if asked else None
    return session_ability(category, ability_in(category))
