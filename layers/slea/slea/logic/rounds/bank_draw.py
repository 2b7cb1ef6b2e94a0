"""Bank-first rounds: before anything is generated, PlanRound draws what it can from the bank.

Eligible: items of the round's category and language (the bank key) with b in a window around
the target (widened once if too few), written for one of the learner's interests, of a requested
type, never seen by the learner (their ability record's `seen_items`) nor already in the session,
and not waiting for a reviewer (dal/bank.py). Chosen by selection.choose_items, each type for the
round's slots of that type (target.slot_types): for each slot, at random among the best few of its
type for the learner's theta, skipping items shown to more than a quarter of
the learners the bank key has been drawn for (learners, not rounds: a round costs an account
nothing, and a learner is shown an item once). dal/bank.py also rests an item shown to
REST_AFTER_DRAWS accounts and caps its draws per UTC day.

Every account counts as one learner in the exposure rate's denominator and as one viewer in an
item's daily cap, whatever its survey says: accounts with equal surveys are not grouped (a team of
new hires fills the survey in alike, and counting them once made the cap shut the bank to them:
bench/honest_cohort.py). Accounts created to dilute the rate each see items too (their draws count
in the numerator), and what they are shown is judged by their behaviour below.

Accounts judged by their behaviour, not by their survey: a learner whose answers the person-fit
refit flagged (slea.measurement.person_fit: answers that fit no ability, right mostly on items
whose keys had been shown to many other accounts; logic/jobs/person_review.py writes the `review`
mark on the ability record, which the planner reads anyway) is drawn for as any learner, but every
item drawn for them is rested in the same transaction that shows it (`rest_reason` "farm"), so a
key they may be passing on never reaches a later account, and what their round generates is saved
rested too. Equal survey answers alone never do this: a team of new hires fills the survey in alike,
and resting what they are shown would cost them the bank (bench/honest_cohort.py).

A drawn item is saved for the session as a copy under an id keyed on the execution's name and its
slot, so a retried PlanRound (Step Functions retries it) first looks for slot 0's copy and, if the
earlier attempt's draw was recorded (one transaction: all of it or none), returns that draw
instead of drawing twice. Drawing is an optimisation: if the bank cannot be read, the round is
generated as before.
"""

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from slea.constants import QuestionType
from slea.contracts.answers import shuffle_choices
from slea.contracts.exposure import SessionExposure, ShownItem
from slea.contracts.pipeline import GeneratedQuestionOutput
from slea.contracts.questions import normalised_topic
from slea.dal import abilities, bank
from slea.dal.bank import BankItem, DrawnCopy
from slea.dal.question_records import StoredQuestion
from slea.measurement import irt, selection
from slea.platform.clock import utc_now
from slea.platform.errors import DataAccessError
from slea.platform.observability import logger, metrics
from slea.security import exposure
from slea.security.exposure import SessionContext
from slea.security.ids import keyed_random, keyed_uuid

# Half-widths (logits) of the difficulty window: near the target first, then wider if the near
# window holds too few eligible items (a logit from the target a 70% item is still 50-85%).
WINDOWS = (0.5, 1.0)
TOP = 5  # randomesque: at random among five per slot
MAX_EXPOSURE = 0.25
# Exposure spread (selection.choose_items' band): the five least shown of the items within half a
# logit of the nearest to the target, weighted by information. A party of accounts at one level
# then harvests items that the next learner of that level is no more likely to meet than others.
BAND = 0.5
# An exposure rate is not judged before the bank key has this many learners: with three learners,
# one draw would already be "33%" and the cap would shut a young bank.
EXPOSURE_MIN_LEARNERS = 20


@dataclass(frozen=True)
class DrawRequest:
    user_id: str
    session_id: str
    round: int
    round_id: str
    category: str
    language: str
    interests: list[str]
    question_types: list[QuestionType] | None
    count: int
    theta: float
    success_rate: float
    execution: str  # the execution's name: every attempt of one plan has the same
    exclude_items: frozenset[str] = frozenset()  # seen by the learner or already in the session
    first_draw: bool = False  # the learner has never been shown an item of the category: count them once
    # What the session has shown and the learner's recent items: judged by stem and concept, not id.
    exposure: SessionExposure = field(default_factory=SessionExposure)
    group: str = ""  # a group of accounts counted as one learner (none today: every account is one)
    # The type of each slot (target.slot_types): each type's slots are drawn among its own items.
    # Empty: any of `question_types` in any slot.
    slot_types: list[QuestionType] = field(default_factory=list)
    # The learner's answers were flagged by person fit (their ability record's `review` mark): what
    # is drawn for them rests as it is shown.
    flagged: bool = False


def _eligible(item: BankItem, request: DrawRequest, interests: set[str], context: SessionContext | None = None) -> bool:
    question = item.question
    if question.item_id != question.question_id or question.question_id in request.exclude_items:
        return False
    if request.question_types and question.item_type not in request.question_types:
        return False
    topics = {normalised_topic(topic) for topic in question.topics}
    if topics and not topics & interests:  # an item without topics was written for the category
        return False
    context = context or SessionContext(request.exposure)
    return context.conflict(exposure.shown_question(question)) is None


def viewers(item: BankItem) -> int:
    """Accounts an item's key was shown to: its draws, and the learner whose round it was written
    for (a generated item joins the bank from a session; `draws` counts only later draws). An
    author's item ("authored#..." session) was shown to no learner."""
    session = item.question.session_id or ""
    return item.draws + (1 if session and "#" not in session else 0)


def _floor(question: StoredQuestion) -> float:
    return irt.guess_floor(question.item_type, len(question.choices) if question.choices else None)


def _candidates(request: DrawRequest, key: str, target: float) -> dict[str, BankItem]:
    """Eligible items by id, from the narrowest window that holds enough of them."""
    interests = {normalised_topic(interest) for interest in request.interests}
    context = SessionContext(request.exposure)
    found: dict[str, BankItem] = {}
    for half_width in WINDOWS:
        found = {
            item.question.question_id: item
            for item in bank.window(key, target - half_width, target + half_width)
            if _eligible(item, request, interests, context)
        }
        if len(found) >= request.count + TOP - 1:
            break
    return found


def _apart(found: dict[str, BankItem], seen: SessionExposure) -> Callable[[selection.Candidate], bool]:
    """Whether a chosen item may join the round's earlier picks: it does not repeat, answer or
    give away one of them (security/exposure.py, the rules never relaxed; each was judged
    strictly against the session already). Two bank items on one concept are not drawn into one
    round: the selection passes over the second and draws the next best in its place."""
    context = SessionContext(seen)

    def admits(candidate: selection.Candidate) -> bool:
        item = exposure.shown_question(found[candidate.item_id].question)
        if context.conflict(item, strict=False) is not None:
            return False
        context.add(item)
        return True

    return admits


def copy_id(execution: str, slot: int) -> str:
    return keyed_uuid("bank-copy", execution, slot)


def _copy(item: BankItem, request: DrawRequest, slot: int, at: str) -> DrawnCopy:
    return session_copy(
        item,
        copy_id(request.execution, slot),
        session_id=request.session_id,
        round_number=request.round,
        round_id=request.round_id,
        at=at,
    )


def session_copy(
    item: BankItem, question_id: str, *, session_id: str, round_number: int, round_id: str, at: str
) -> DrawnCopy:
    """A bank item as a question of a learner's session (a round's draw, a placement's next item)."""
    question, order = item.question, None
    key = question.answer_schema.correct_key
    if question.item_type == "multiple_choice" and key:
        # A learner who met the item elsewhere must not find the key where it was.
        rng = keyed_random("choice-order", question_id)
        order = shuffle_choices(list(question.choices or ()), key, rng)
    return bank.new_copy(
        item, question_id, session_id=session_id, round_id=round_id, round_number=round_number, at=at, order=order
    )


def _output(copy: StoredQuestion) -> GeneratedQuestionOutput:
    answer = copy.answer_schema
    short = copy.item_type == "short_answer"
    return GeneratedQuestionOutput(
        question_id=copy.question_id,
        stem=copy.stem,
        type=copy.item_type,
        choices=list(copy.choices or ()),
        correct_answer=", ".join(answer.correct_keywords or ()) if short else str(answer.correct_key),
        difficulty=int(copy.difficulty or 0),  # every bank item has its label
        category=str(copy.category),
        round_id=str(copy.round_id),
        validation_score=answer.validation_score or 0.0,
        saved_at=str(copy.created_at),
        language=copy.language,
        from_bank=True,
    )


def _earlier_draw(request: DrawRequest) -> list[StoredQuestion] | None:
    """The copies an earlier attempt of this plan saved, or None if it drew nothing."""
    first = bank.stored_copy(copy_id(request.execution, 0))
    if first is None:
        return None
    copies = [first]
    for slot in range(1, request.count):
        stored = bank.stored_copy(copy_id(request.execution, slot))
        if stored is None:
            break
        copies.append(stored)
    return copies


def _count_round(request: DrawRequest, key: str, counter: bank.Counter | None) -> None:
    """Count a round with nothing drawn (and its learner, on a first draw of a group new today)."""
    if request.first_draw and counter is None:  # is the learner's group new today? (a first draw only)
        counter = bank.drawn_for(key)
    new_learner = counter is not None and counter.new_learner(request.group, request.first_draw)
    bank.count_round(key, new_learner=new_learner, group=request.group, counter=counter)


def _by_slot_type(
    candidates: list[selection.Candidate], found: dict[str, BankItem], request: DrawRequest, rng: random.Random
) -> list[selection.Candidate]:
    """Up to `count` items: as many of each type as the round has slots of it (any type when the
    slots' types are not given), in the order of the slots, none repeating or giving away another."""
    admits = _apart(found, request.exposure)
    if not request.slot_types:
        return selection.choose_items(
            candidates,
            request.theta,
            request.success_rate,
            request.count,
            rng=rng,
            top=TOP,
            max_exposure=MAX_EXPOSURE,
            band=BAND,
            admits=admits,
        )
    wanted = Counter(request.slot_types)
    chosen: dict[str, list[selection.Candidate]] = {}
    for item_type in wanted:  # in the order types first appear in the slots: one draw sequence
        of_type = [candidate for candidate in candidates if found[candidate.item_id].question.item_type == item_type]
        chosen[item_type] = selection.choose_items(
            of_type,
            request.theta,
            request.success_rate,
            wanted[item_type],
            rng=rng,
            top=TOP,
            max_exposure=MAX_EXPOSURE,
            band=BAND,
            admits=admits,
        )
    return [chosen[item_type].pop(0) for item_type in request.slot_types if chosen[item_type]]


def _new_draw(request: DrawRequest, key: str, target: float) -> tuple[list[StoredQuestion], bool]:
    """The round's copies, and whether its learner is flagged (then they were rested, and what the
    round generates is saved rested too)."""
    farm = request.flagged
    found = _candidates(request, key, target)
    if not found:
        _count_round(request, key, None)
        return [], farm
    counter = bank.drawn_for(key)
    learners = max(counter.learners, EXPOSURE_MIN_LEARNERS)
    candidates = [
        selection.Candidate(
            item_id=item_id,
            b=float(item.question.difficulty_b or 0.0),  # the window's sort key: every item in it has one
            floor=_floor(item.question),
            # Accounts shown the key (its first learner's included) over learners: see dal/bank.py.
            exposure_rate=viewers(item) / learners,
        )
        for item_id, item in found.items()
    ]
    # Keyed on the round, not on its execution: a retried plan replays the same choice.
    rng = keyed_random("bank-draw", request.session_id, request.round)
    chosen = _by_slot_type(candidates, found, request, rng)
    if not chosen:
        _count_round(request, key, counter)
        return [], farm
    at = utc_now()
    copies = [_copy(found[candidate.item_id], request, slot, at) for slot, candidate in enumerate(chosen)]
    new_learner = counter.new_learner(request.group, request.first_draw)
    recorded = bank.record_draw(
        key, copies, new_learner, originals=found, group=request.group, counter=counter, farm=farm
    )
    if recorded:
        if farm:  # what the rule costs: each of these is generated again for a later round
            metrics.add_metric(name="FarmItemsRested", unit="Count", value=len(copies))
        return [copy.question for copy in copies], farm
    # A condition failed: another attempt of this plan saved its draw first, or an item was
    # retired meanwhile (then nothing was written and the round is generated).
    return _earlier_draw(request) or [], farm


@dataclass(frozen=True)
class Draw:
    """What the bank gave a round: its questions; with each, what the round's generated items are
    judged against; and whether the learner's behaviour flagged them (`farm`: what the round
    generates is then saved rested: shown to them, it never joins the bank)."""

    questions: list[GeneratedQuestionOutput]
    shown: list[ShownItem]
    farm: bool = False


def draw(request: DrawRequest, target: float) -> Draw:
    """Up to `count` questions from the bank for the round, saved in its session and marked seen."""
    key = bank.bank_key(request.category, request.language)
    farm = request.flagged
    try:
        copies = _earlier_draw(request)
        if copies is None:
            copies, farm = _new_draw(request, key, target)
    except DataAccessError as error:
        logger.warning("the bank is unavailable, generating the whole round", extra={"reason": str(error)})
        metrics.add_metric(name="BankDrawFailed", unit="Count", value=1)
        copies = _draw_that_may_have_landed(request)
    if copies:
        _mark_seen(request.user_id, request.category, [copy.bank_item_id for copy in copies])
    metrics.add_metric(name="QuestionsDrawnFromBank", unit="Count", value=len(copies))
    return Draw([_output(copy) for copy in copies], [exposure.shown_question(copy) for copy in copies], farm)


def _draw_that_may_have_landed(request: DrawRequest) -> list[StoredQuestion]:
    """After a failed write whose outcome is unknown (a timeout), the draw may have been saved:
    its copies are then in the session and the round must show them, not generate in their place."""
    try:
        return _earlier_draw(request) or []
    except DataAccessError:
        return []


def _mark_seen(user_id: str, category: str, item_ids: list[str]) -> None:
    """Best effort: a learner shown an item twice is a lesser harm than a round that fails."""
    try:
        abilities.mark_seen(user_id, category, item_ids)
    except DataAccessError as error:
        logger.warning("items not marked seen", extra={"reason": str(error), "items": len(item_ids)})
