"""Mode 1, before generation: validate the execution input and decide the round's difficulty.

The target is the b at which the learner succeeds at the round's rate (logic/rounds/target.py),
for the learner's ability in the round's category, updated after every answer; before the first
answer, for the mean of the survey's prior (the posterior the first answer will update). The
earlier rule (`decide_difficulty`, the README's) remains only for a round 2 whose round-1 answers
are there but whose ability could not be read:
- round 1: beginner 3, intermediate 5, advanced 8; +1 with 5+ years of experience and +1 more
  with 10+; +1 if the previous test score was 85 or more, -1 if it was below 50 (0 = no test yet);
- round 2: from the round-1 attempts of the same session: the mean difficulty of the questions
  answered, +2 if 80%+ were correct, +1 if 60%+, 0 if 40%+, -1 if 20%+, else -2;
- always clamped to 1-10; an explicit `difficulty` in the input overrides every rule.

The round's slots get their types (target.slot_types: by information), the bank is drawn from
first, each type's slots among its own items (logic/rounds/bank_draw.py), and only the shortfall
is left for generation (`progress.missing`, `question_types` the slots' types it leaves), with the
neighbouring difficulties whose concept records may write what the round's own cannot
(logic/rounds/shortfall.py).
"""

import uuid
from collections import Counter
from collections.abc import Sequence
from typing import Any

from slea.constants import DIFFICULTY_MAX, DIFFICULTY_MIN, QuestionType
from slea.contracts.exposure import SessionExposure
from slea.contracts.profile import UserProfile, normalised_user_id
from slea.contracts.round import PlanRoundInput, RoundPlan, RoundProgress
from slea.dal import abilities, attempts, questions
from slea.dal.attempts import StoredAttempt
from slea.dal.question_records import StoredQuestion
from slea.logic.rounds import bank_draw as bank
from slea.logic.rounds import target as round_target
from slea.logic.rounds.shortfall import fill_difficulties
from slea.measurement import learner
from slea.platform.clock import utc_now
from slea.platform.errors import DataAccessError
from slea.platform.observability import logger, metrics, tracer
from slea.security import exposure

LEVEL_BASE = {"beginner": 3, "intermediate": 5, "advanced": 8}
# (minimum share of correct answers, step) from the highest band down
ROUND_TWO_STEPS = ((0.8, 2), (0.6, 1), (0.4, 0), (0.2, -1), (0.0, -2))


def _clamp(value: float) -> int:
    return max(DIFFICULTY_MIN, min(DIFFICULTY_MAX, round(value)))


def decide_difficulty(profile: UserProfile, round_number: int, round_one: Sequence[StoredAttempt]) -> tuple[int, str]:
    """The round's difficulty and a one-line reason for it."""
    if round_number == 2 and round_one:
        correct = sum(attempt.is_correct for attempt in round_one) / len(round_one)
        answered = [float(a.difficulty) for a in round_one if a.difficulty is not None]
        base = sum(answered) / len(answered) if answered else _round_one(profile)[0]
        step = next(step for floor, step in ROUND_TWO_STEPS if correct >= floor)
        return _clamp(base + step), f"round 1: {correct:.0%} correct at difficulty {base:.1f}, step {step:+d}"
    return _round_one(profile)


def _round_one(profile: UserProfile) -> tuple[int, str]:
    base = LEVEL_BASE[profile.self_level]
    experience = (profile.years_experience >= 5) + (profile.years_experience >= 10)
    score = 0
    if profile.previous_score >= 85:
        score = 1
    elif 0 < profile.previous_score < 50:
        score = -1
    reason = f"{profile.self_level} {base}, experience {experience:+d}, previous score {score:+d}"
    return _clamp(base + experience + score), reason


def _session_questions(session_id: str) -> list[StoredQuestion]:
    try:
        return questions.session_questions(session_id)
    except DataAccessError as error:
        logger.warning("earlier questions unavailable, not excluding them", extra={"reason": str(error)})
        return []


def _earlier_stems(earlier: list[StoredQuestion], category: str) -> list[str]:
    """Stems the session already has, so a new round never repeats a question, and the stems
    reviewers retired in this category, so no round brings one back."""
    stems = [question.stem for question in earlier]
    try:
        retired = questions.retired_stems(category)
    except DataAccessError as error:
        logger.warning("retired questions unavailable, not excluding them", extra={"reason": str(error)})
        retired = []
    return [*stems, *(stem for stem in retired if stem and stem not in stems)]


def _session_attempts(session_id: str) -> list[StoredAttempt]:
    try:
        return attempts.session_attempts(session_id)
    except DataAccessError as error:
        logger.warning("the session's attempts unavailable, planning without them", extra={"reason": str(error)})
        return []


def exposure_of(
    earlier: list[StoredQuestion],
    graded: Sequence[StoredAttempt],
    ability: abilities.StoredAbility | None,
    purpose: str,
) -> SessionExposure:
    """What the session has shown (each item with what its feedback named: the option picked, or
    before an answer, any option) and, for a practice round, the learner's recent items."""
    picked = {str(attempt.question_id): attempt.user_answer for attempt in graded}
    shown = [
        exposure.shown_question(question, picked.get(question.question_id), question.question_id in picked)
        for question in earlier
    ]
    recent = list(ability.seen_recent) if ability is not None else []
    return SessionExposure(shown=shown, recent=recent, practice=purpose == "practice")


def stored_ability(user_id: str, category: str) -> abilities.StoredAbility | None:
    """The learner's ability in `category`, None without one or if it cannot be read."""
    try:
        return abilities.get_ability(user_id, category)
    except DataAccessError as error:
        logger.warning("ability unavailable, planning without it", extra={"reason": str(error)})
        return None


def without_estimate(
    profile: UserProfile,
    round_number: int,
    round_one: Sequence[StoredAttempt],
    rate: float,
    question_types: list[QuestionType] | None,
) -> round_target.Target:
    """The target before the learner has an estimate in the category: the survey's prior is the
    posterior then (what the first answer will update), so the round aims at its mean as every
    later round aims at the estimate. Only a round 2 whose round-1 answers are there but whose
    ability could not be read falls back on the earlier rule (decide_difficulty)."""
    if round_number == 2 and round_one:
        label, reason = decide_difficulty(profile, round_number, round_one)
        return round_target.from_label(label, reason, rate, question_types)
    mean, sd = learner.prior_for(profile.model_dump())
    return round_target.from_prior(mean, sd, rate, question_types)


def _target(
    request: PlanRoundInput,
    ability: abilities.StoredAbility | None,
    graded: Sequence[StoredAttempt],
    slots: list[QuestionType],
) -> round_target.Target:
    """The round's target. A request of the default mix is aimed as the summary announces it and
    the feedback advises it (target.next_round: the default mix, whatever its count lays out in
    `slots`); a requested mix, by its slots."""
    wanted = request.request
    question_types = slots if wanted.question_types else None
    rate = round_target.success_rate(wanted.purpose)
    if wanted.difficulty is not None:
        return round_target.from_label(wanted.difficulty, "set in the request", rate, question_types)
    if (estimate := round_target.estimate_of(ability)) is not None:
        return round_target.from_ability(estimate.theta, estimate.se, rate, question_types)
    history = [attempt for attempt in graded if attempt.round == 1] if wanted.round == 2 else []
    return without_estimate(request.profile, wanted.round, history, rate, question_types)


def _slot_types(request: PlanRoundInput, ability: abilities.StoredAbility | None) -> list[QuestionType]:
    """The round's slots' types, laid out by information at the learner's current uncertainty
    (the prior's before any answer)."""
    wanted = request.request
    rate = round_target.success_rate(wanted.purpose)
    if (estimate := round_target.estimate_of(ability)) is not None:
        theta_se = estimate.se
    else:
        theta_se = learner.prior_for(request.profile.model_dump())[1]
    return round_target.slot_types(wanted.question_types, wanted.count, rate, theta_se)


def _left_to_generate(slots: list[QuestionType], drawn: list[Any]) -> list[QuestionType]:
    """The slots' types the draw did not fill, in slot order: generation writes these."""
    left = Counter(question.type for question in drawn)
    remaining = []
    for item_type in slots:
        if left[item_type] > 0:
            left[item_type] -= 1
        else:
            remaining.append(item_type)
    return remaining


@tracer.capture_method
def _draw(fill_bank: bool, request: bank.DrawRequest, target_b: float) -> bank.Draw:
    """The round's draw from the bank; nothing for a bank fill (it writes what the bank lacks)."""
    return bank.Draw([], []) if fill_bank else bank.draw(request, target_b)


def plan_round(request: PlanRoundInput) -> RoundPlan:
    wanted, profile = request.request, request.profile
    learner = normalised_user_id(wanted.user_id)  # the id the learner's ability is kept under
    ability = stored_ability(learner, wanted.category)
    earlier = _session_questions(wanted.session_id)
    # One read of the attempts: round 2's rule without an estimate, and what the feedback named.
    graded = _session_attempts(wanted.session_id) if earlier or wanted.round == 2 else []
    slots = _slot_types(request, ability)
    target = _target(request, ability, graded, slots)
    metrics.add_metric(name="RoundDifficulty", unit="Count", value=target.label)
    seen_before = exposure_of(earlier, graded, ability, wanted.purpose)
    language = profile.language or "en"
    interests = profile.interests or [wanted.category]
    round_id = f"{wanted.session_id}_{wanted.round}_{utc_now()}"
    seen = set(ability.seen_items) if ability is not None else set()
    in_session = {q.bank_item_id for q in earlier}
    draw = _draw(
        wanted.fill_bank,
        bank.DrawRequest(
            user_id=learner,
            session_id=wanted.session_id,
            round=wanted.round,
            round_id=round_id,
            category=wanted.category,
            language=language,
            interests=interests,
            question_types=list(dict.fromkeys(slots)),
            count=wanted.count,
            theta=target.theta,
            success_rate=target.rate,
            # The execution's name: a retried plan finds its earlier draw (tools/bank.py).
            execution=request.correlation_id or uuid.uuid4().hex,
            exclude_items=frozenset(seen | in_session),
            first_draw=not seen,
            exposure=seen_before,
            slot_types=slots,
            # Judged by behaviour: person fit flagged the learner's answers (the refit's review mark).
            flagged=ability is not None and ability.flagged,
        ),
        target.b,
    )
    drawn, drawn_shown = draw.questions, draw.shown
    if drawn:  # a retried plan returns the earlier attempt's draw, under that attempt's round id
        round_id = drawn[0].round_id
    drawn_ids = {question.question_id for question in drawn}  # in the session already on a retried plan
    stems = _earlier_stems([q for q in earlier if q.question_id not in drawn_ids], wanted.category)
    # The round's own draws join what generation is judged against (a retried plan's are in `earlier`).
    shown = [item for item in seen_before.shown if item.stem not in {question.stem for question in drawn}]
    round_exposure = seen_before.model_copy(update={"shown": [*shown, *drawn_shown]})
    return RoundPlan(
        session_id=wanted.session_id,
        round=wanted.round,
        round_id=round_id,
        category=wanted.category,
        count=wanted.count,
        difficulty=target.label,
        difficulty_reason=target.reason,
        interests=interests,
        # What generation writes: the slots the draw left, in order (all of them if it filled the round).
        question_types=_left_to_generate(slots, drawn) or slots,
        progress=RoundProgress(
            attempt=0,
            missing=wanted.count - len(drawn),
            used_stems=[*stems, *(question.stem for question in drawn if question.stem not in stems)],
            exposure=round_exposure,
        ),
        # A bank fill marks nothing seen: its items are for later learners, this one included.
        user_id=None if wanted.fill_bank else learner,
        language=language,
        drawn=drawn,
        farm=draw.farm,
        # What the round's own concept record cannot write, its neighbours' may (not a set difficulty).
        fill_difficulties=fill_difficulties(target.label, wanted.difficulty is not None),
    )
