"""Skipping never pays: an item a learner was given and left unanswered when its round is over
counts in their ability as a test scores an omitted item, as wrong (a score of 0), exactly once.

A round is over when the learner moves on, when it has been open `ROUND_TIME_LIMIT`, or item by
item when the learner skips a question on purpose:
- a later round of the session is started (POST .../rounds: the earlier rounds are over);
- the learner starts a new session (POST /sessions) or round 1 of another session: every other
  session they may have left items open in is over, found in one Query of the sparse
  `open-sessions` index (slea.dal.sessions: a session is in it from a round's start until its
  items are all answered or counted), however many they opened; each is counted and closed, so
  it takes no more answers (SESSION_CLOSED). Decoy sessions settle nothing away;
- the learner's ability is read (GET /learners/me/ability, the level panel; MCP get_ability) and
  a session's latest round started more than `ROUND_TIME_LIMIT` ago: its open items are counted
  (the session stays open for a round not started yet), so a learner who never moves on is
  measured as one who answered them wrong before they see their level;
- the session's summary is requested `ROUND_TIME_LIMIT` after the round started (a summary asked
  for mid-round leaves the current round open, so the learner can continue it);
- POST .../questions/{question_id}/skip: that one question, at once (the same skip attempt as a
  question left open, so skipping it twice, or skipping it and then moving on, counts it once).

Each skipped question gets a skip attempt (score 0, `skipped`, under its own key: the learner's
history shows it) and its answered marker, and the learner's ability is updated with a wrong
response per item (the item's difficulty and guessing floor, as an answer would be), `skipped`
counting them, all in one transaction (slea.dal.attempts.record_skips) conditioned on the
question being still unanswered and on the ability's version: a retry, or two requests settling
the same round at once, count each item once; an answer that wins the race is graded, and an
answer that loses it is refused (answering/rules.py: QUESTION_SKIPPED).
"""

import datetime
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from slea.contracts.profile import normalised_user_id
from slea.dal import abilities, attempts, questions, sessions
from slea.dal.question_records import StoredQuestion
from slea.logic.answering import ability_update
from slea.measurement import irt, items
from slea.platform import clock
from slea.platform.clock import utc_now
from slea.platform.errors import DataAccessError
from slea.platform.observability import logger, metrics

if TYPE_CHECKING:  # a type only: counting skips reads no round records
    from slea.dal.rounds import StoredRound

ROUND_TIME_LIMIT = datetime.timedelta(hours=2)
# Per transaction: two writes per skipped item, a check of the bank item it was drawn from, and the
# ability's two, under DynamoDB's 100.
SKIPS_PER_TRANSACTION = 32
_ATTEMPT_IDS = uuid.UUID("6f1c9a52-4d0e-4b8a-9c53-0d6b1f2e7a41")  # uuid5 namespace of skip attempts


def _bank_item_of(question: StoredQuestion) -> str | None:
    """The bank item a drawn copy was drawn from (None: the question is not a copy)."""
    item_id = question.item_id
    return item_id if item_id and item_id != question.question_id else None


def open_items(
    stored: list[StoredQuestion], over: Callable[[int], bool], retired: frozenset[str] = frozenset()
) -> list[StoredQuestion]:
    """The questions of rounds that are over that the learner was shown and never answered (a
    retired one was hidden from them: not theirs to answer; so is a copy of a bank item in
    `retired`, found retired when its skip was recorded)."""
    return [
        question
        for question in stored
        if not question.answered_at
        and question.status != "retired"
        and _bank_item_of(question) not in retired
        and question.category
        and over(question.round)
    ]


def rounds_over_at_summary(stored: list[StoredQuestion], started: "dict[int, StoredRound]") -> Callable[[int], bool]:
    """At the summary: a round is over when a later round has started or it has been open for
    ROUND_TIME_LIMIT (`started`: the rounds' records as read with the session)."""
    begun = {q.round for q in stored} | set(started)
    now = clock.now()

    def over(number: int) -> bool:
        if any(later > number for later in begun):
            return True
        record = started.get(number)
        since = record.started_at if record else None
        if not since:
            return False
        opened = datetime.datetime.fromisoformat(since.replace("Z", "+00:00"))
        return now - opened > ROUND_TIME_LIMIT

    return over


def _skip_attempt(
    question: StoredQuestion, user_id: str, at: str, difficulty: items.ItemDifficulty, floor: float
) -> dict[str, Any]:
    key = attempts.skip_key(question.question_id)
    return {
        "session_id": question.session_id,
        "attempt_key": key,
        "attempt_id": str(uuid.uuid5(_ATTEMPT_IDS, f"{question.session_id}#{key}")),
        "question_id": question.question_id,
        "user_id": user_id,
        "round": question.round,
        "skipped": True,
        "is_correct": False,
        "score": 0,
        "user_answer": "",
        "graded_at": at,
        "needs_review": False,
        "confidence": 1.0,
        "difficulty": question.difficulty,
        "question_type": question.item_type,
        "question_stem": question.stem,
        "question_choices": list(question.choices) if question.choices else None,
        "item_id": question.bank_item_id,
        "item_b": difficulty.b,
        "item_b_se": difficulty.se,
        "guess_floor": floor,
        "ability_category": question.category,
        "ability_score": 0,
    }


def _settle_batch(
    user_id: str, category: str, batch: list[StoredQuestion], ability: abilities.StoredAbility | None
) -> tuple[attempts.SkipsRefused | None, abilities.StoredAbility | None]:
    """One transaction: the batch counted as wrong on `ability` as read. (None if recorded, else
    why not; the ability as it now stands)."""
    prior = None if ability_update.has_posterior(ability) else ability_update.profile_prior(user_id)
    posterior = ability_update.posterior_of(ability, prior)
    at = utc_now("milliseconds")
    skips = []
    for question in batch:
        # The question's own learnt difficulty if it has one, else its label's prior (a copy drawn
        # from the bank is counted at its label: reading the bank item would cost a call).
        difficulty = ability_update.item_difficulty(question, question.difficulty)
        floor = irt.guess_floor(question.item_type, len(question.choices or ()) or None)
        posterior = posterior.updated(difficulty.b, floor, 0.0, difficulty.se)  # as a wrong answer counts
        skips.append(_skip_attempt(question, user_id, at, difficulty, floor))
    estimate = posterior.estimate()
    change = abilities.AbilityChange(
        user_id=user_id,
        category=category,
        posterior=posterior.to_stored(),
        theta=estimate.theta,
        se=estimate.se,
        answers=ability_update.answers_of(ability),
        read_version=ability_update.version_of(ability),
        at=at,
        point_suffix=abilities.skipped_point(str(batch[0].session_id), batch[0].question_id),
        skipped=len(batch),
    )
    # A copy whose bank item was retired is withdrawn even if its retirement missed it: checked in
    # the same transaction, so it costs no read.
    bank_items = [item for item in map(_bank_item_of, batch) if item]
    refused = attempts.record_skips(skips, abilities.answer_items(change), bank_items)
    if refused is not None:
        return refused, ability
    return None, abilities.applied(change, ability)


def count_skips(
    session_id: str,
    user_id: str,
    over: Callable[[int], bool],
    stored: list[StoredQuestion] | None = None,
    ability: abilities.StoredAbility | None = None,
) -> tuple[int, abilities.StoredAbility | None]:
    """Count the session's items left unanswered in rounds that are `over` as skipped. `stored`:
    the session's questions if already read; `ability`: the learner's ability in their category
    if already read (consistently). Returns how many were counted now and the ability as it
    stands after (None: untouched or unknown). Raises DataAccessError when storage fails (nothing
    half-written: the next trigger counts them)."""
    counted, current, _ = _count(session_id, user_id, over, stored, ability)
    return counted, current


def _count(
    session_id: str,
    user_id: str,
    over: Callable[[int], bool],
    stored: list[StoredQuestion] | None = None,
    ability: abilities.StoredAbility | None = None,
    *,
    only: str | None = None,
) -> tuple[int, abilities.StoredAbility | None, bool]:
    """count_skips, only the question `only` if given, and whether items were left uncounted."""
    user = normalised_user_id(user_id)
    stored = questions.session_questions(session_id) if stored is None else stored

    def chosen(found: list[StoredQuestion]) -> list[StoredQuestion]:
        return [q for q in found if only is None or q.question_id == only]

    pending = open_items(chosen(stored), over)
    counted, current, conflicts, retired = 0, ability, 0, frozenset[str]()
    while pending and conflicts < ability_update.CONFLICT_ATTEMPTS:
        category = str(pending[0].category)
        batch = [q for q in pending if q.category == category][:SKIPS_PER_TRANSACTION]
        if current is None or current.category != category:
            current = abilities.get_ability(user, category)
        refused, settled = _settle_batch(user, category, batch, current)
        if refused is None:
            counted += len(batch)
            metrics.add_metric(name="ItemsSkipped", unit="Count", value=len(batch))
            done = {q.question_id for q in batch}
            pending, current = [q for q in pending if q.question_id not in done], settled
            continue
        # An answer (or another request's count) came first, or the ability moved: read again.
        if refused.retired:  # withdrawn copies: left out, and the rest counted without a read
            retired |= refused.retired
            pending = open_items(pending, over, retired)
            continue
        metrics.add_metric(name="SkipCountConflicts", unit="Count", value=1)
        pending = open_items(chosen(questions.session_questions(session_id)), over, retired)
        current, conflicts = None, conflicts + 1
    if pending:
        logger.warning("skipped items left to the next count", extra={"session_id": session_id})
    return counted, current, bool(pending)


def skip_question(session_id: str, user_id: str, question_id: str, stored: list[StoredQuestion]) -> bool:
    """The learner skips `question_id` on purpose (`stored`: the session's questions as read):
    counted as a wrong answer now, as a question left open would be. True if it is skipped now
    or was already (a retry); False if it was answered or withdrawn meanwhile."""
    if _count(session_id, user_id, lambda _round: True, stored, only=question_id)[0]:
        return True
    found = next((q for q in questions.session_questions(session_id) if q.question_id == question_id), None)
    return found is not None and bool(found.skipped_at)


def _past_limit(started: str | None) -> bool:
    if not started:
        return False
    opened = datetime.datetime.fromisoformat(started.replace("Z", "+00:00"))
    return clock.now() - opened > ROUND_TIME_LIMIT


def settle_moving_on(user_id: str, staying: str | None = None) -> int:
    """The learner moved on (a new session, or round 1 of `staying`): each other session they
    may have left items open in is over; its open items are counted and it is closed. Returns
    how many items were counted. Best effort: what storage refused stays in `open-sessions` for
    the next trigger (a session that could not be counted is still closed)."""
    return _settle(user_id, lambda found: found.session_id != staying, close=True)


def settle_timed_out(user_id: str) -> int:
    """Before the learner's ability is shown: each of their sessions whose latest round started
    more than ROUND_TIME_LIMIT ago is over; its open items are counted (it stays open: a round
    not started yet may still start there). One Query when there is none."""
    return _settle(user_id, lambda found: _past_limit(found.round_started_at), close=False)


def _settle(user_id: str, chosen: Callable[[sessions.OpenSession], bool], *, close: bool) -> int:
    try:
        found = [session for session in sessions.open_sessions(user_id) if chosen(session)]
    except DataAccessError as error:
        logger.error("open sessions not read", extra={"reason": str(error)})
        return 0
    counted = 0
    for session in found:
        session_id = session.session_id
        try:
            now, _, left = _count(session_id, user_id, lambda _round: True)
        except DataAccessError as error:
            logger.error("skipped items not counted", extra={"session_id": session_id, "reason": str(error)})
            now, left = 0, True
        counted += now
        try:
            at = utc_now("milliseconds")
            if not left:
                sessions.settled(session_id, session.round_started_at or "", at, close=close)
            elif close:
                sessions.close_session(session_id, at)
        except DataAccessError as error:
            logger.error("the session was not settled", extra={"session_id": session_id, "reason": str(error)})
    return counted


def count_skips_safely(session_id: str, user_id: str, over: Callable[[int], bool], **read: Any) -> int:
    """count_skips for a request whose own work must go on if storage fails (round start, new
    session): the items are counted by the next trigger instead."""
    try:
        return count_skips(session_id, user_id, over, **read)[0]
    except DataAccessError as error:
        logger.error("skipped items not counted", extra={"session_id": session_id, "reason": str(error)})
        return 0
