"""GET /sessions/{session_id}/summary: scores per round, what to review, the next round and, once
the current round is over, its difficulty, and the learner's ability in the session's category.

The only API request that needs the planner (the next round's difficulty is plan_round's own
rule), the learner's profile and the skip count: the API's route handler loads this module with
the first summary, not at its cold start."""

from collections.abc import Callable
from typing import Any

from slea.constants import HIGH_SCORE_THRESHOLD
from slea.contracts.ability import SessionAbility
from slea.contracts.profile import GetUserProfileInput
from slea.contracts.sessions import RoundSummary, SessionSummary, ToReview
from slea.dal import attempts, questions, rounds
from slea.dal.abilities import StoredAbility
from slea.dal.question_records import StoredQuestion
from slea.dal.rounds import StoredRound
from slea.logic.learners.ability import session_ability
from slea.logic.learners.profile import get_user_profile
from slea.logic.rounds import skips
from slea.logic.rounds.lifecycle import ROUNDS, RUNNING, SUCCEEDED, refreshed, visible
from slea.logic.rounds.planning import stored_ability, without_estimate
from slea.logic.rounds.target import estimate_of, from_ability, success_rate
from slea.logic.sessions.use_cases import check_owner
from slea.measurement import scale
from slea.platform.errors import DataAccessError
from slea.platform.observability import logger, tracer


@tracer.capture_method
def session_summary(session_id: str, user_id: str) -> SessionSummary:
    """The summary of the caller's own session (NotFound, Forbidden otherwise)."""
    session, started = rounds.session_with_rounds(session_id, ROUNDS)
    check_owner(session_id, user_id, session.user_id if session else None)
    return summary_of(session_id, user_id, started)


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


def _next_round(started: dict[int, StoredRound], saved_rounds: set[int]) -> int | None:
    """The first round not started yet (a FAILED one may be started again); `started`: the
    rounds' records as read with the session."""
    for number in ROUNDS:
        record = started.get(number)
        running_or_done = record is not None and record.round_status in (RUNNING, SUCCEEDED)
        if not running_or_done and number not in saved_rounds:  # rounds from before records were kept
            return number
    return None


def _next_difficulty(user_id: str, number: int, graded: list[dict[str, Any]], ability: StoredAbility | None) -> int:
    """Plan_round's own rule (not a copy of it): from the learner's ability in the session's
    category when there is an estimate, else from the survey's prior (or, for a round 2 whose
    ability could not be read, round 1's attempts)."""
    if (estimate := estimate_of(ability)) is not None:
        return from_ability(estimate.theta, estimate.se, success_rate(), None).label
    profile = get_user_profile(GetUserProfileInput(user_id=user_id))
    round_one = [a for a in graded if a.get("round", 1) == 1] if number == 2 else []
    return without_estimate(
        profile, number, [attempts.stored_attempt(a) for a in round_one], success_rate(), None
    ).label


def _category(stored: list[StoredQuestion]) -> str | None:
    """The session's category: that of its latest question (a session keeps to one in practice)."""
    return stored[-1].category if stored and stored[-1].category else None


def summary_of(session_id: str, user_id: str, started: dict[int, StoredRound]) -> SessionSummary:
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


def _current_round_over(
    shown: list[StoredQuestion], graded: list[dict[str, Any]], started: dict[int, StoredRound]
) -> bool:
    """No question the learner can still answer (`graded`, read after the skips were counted,
    holds the skipped ones) and no round still being generated."""
    done = {str(attempt.get("question_id")) for attempt in graded}
    if any(question.question_id not in done and not question.answered_at for question in shown):
        return False
    return not any(record.round_status == RUNNING for record in started.values())


def _count_skips(
    session_id: str,
    user_id: str,
    stored: list[StoredQuestion],
    *,
    started: dict[int, StoredRound],
    ability_in: Callable[[str | None], StoredAbility | None],
    abilities_read: dict[str, StoredAbility | None],
) -> None:
    """Count the items of rounds that are over as skipped (no call when there are none); the
    ability they changed is what the summary then shows. A storage failure leaves them to the
    next trigger: the summary is whole without it."""
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
    updated = [str(a["ability_category"]) for a in graded if a.get("ability_category")]
    asked = [q.category for q in stored if q.category]
    category = updated[-1] if updated else asked[0] if asked else None
    return session_ability(category, ability_in(category))
