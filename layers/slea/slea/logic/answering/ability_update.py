"""What one graded answer teaches the learner model, prepared for the transaction that records the
grade (slea.dal.attempts.record_graded_answer), and a reviewer's correction of it.

The measurement is slea.measurement's (pure); from what the answer's reads found (the learner's
stored posterior, else a prior from the profile; the bank item's difficulty, else its label's
prior) this module makes the transaction items:
- the learner's ability item: the new posterior, conditioned on the version that was read, so of
  two answers of one learner racing, one wins and the other re-reads and updates on top of it;
- a history point (the ability just after this answer);
- the bank item's online difficulty step, an increment DynamoDB applies to the stored value.

A provisional grade (a short answer waiting for a reviewer) counts by the pending rule
(`counted_score`) until a reviewer confirms or corrects it:
- with the grader's calibrated probability p that a reviewer judges it correct (the fitted
  evidence model's `probability_correct`, grading/model.py), it counts as the fractional response
  r = min(p, s/100), s its provisional score: the likelihood P^r (1-P)^(1-r) of a partial-credit
  answer. Why p: the log-likelihood is linear in r, so counting p is counting the expectation,
  over the reviewer's verdict (correct with probability p), of the log-likelihood the review will
  put in its place; the log-posterior before review is the expected one after it, and the estimate
  lands where the review is expected to put it (to first order). Counting 0 (the rule before
  this one) counted every short answer as wrong until reviewed: four reference-text answers of a
  new learner read "beginner, down 0.9" before review and +0.8 after it; now they stand within
  0.13 logits of their review (bench/pending_grades.py, docs/benchmarks.md). The expected
  reviewed score p * s (a rejection taken as 0) discounts a grade below 100 twice, by p and by s:
  with a calibrated grader it stood twice as far below the review (0.69 logits against 0.35).
  The unchecked score s stands closer on average but counts a keyword list's provisional 60 as
  60. The cap s: an unchecked grade never counts more than a reviewer's accept of it would.
- flagged by the grader (gaming or contradiction patterns, a keyword list, an injected
  instruction, another item's reference, a declined answer that still went to review): 0, as
  reviewers give such answers; it may lower the ability, never raise it.
- no calibrated probability and no flag (a reference too thin to judge meaning, a model that
  failed or ran out of time): the response the learner's current estimate expects, capped at s,
  which moves the estimate by nothing to first order: the review decides.
Junk is low on every branch: the model gives it p of about 0.05, and its score (the cap) is low.
The attempt keeps the score the ability used (`ability_score`, an integer percentage, so taking
it out is exact) and `ability_pending` (true while it is counted in its ability's
`pending_review`, the count the learner's level panel shows); the review re-scores the ability
from `ability_score` (`rescore_items`: the same path for an accept and an override, and for
older attempts, which counted 0 or their score) and takes one off `pending_review` in the same
Update.

The grade is what must never be lost: if the learner's data cannot be read, the attempt is
recorded without the ability update (marked `ability_skipped`, logged and counted in the
AbilityUpdatesSkipped metric) rather than refused.
"""

from dataclasses import dataclass, field, replace
from typing import Any

from slea.constants import FALLBACK_PROFILE
from slea.contracts.profile import normalised_user_id
from slea.contracts.scoring import ScoreAnswerInput
from slea.dal import abilities, profiles
from slea.dal.attempts import DifficultyStep, StoredAttempt
from slea.dal.question_records import StoredQuestion
from slea.measurement import irt, items, learner
from slea.platform.errors import DataAccessError
from slea.platform.observability import logger, metrics

DEFAULT_LABEL = 5  # a question recorded without a difficulty label: the middle of the scale
# Answers of one learner in one category racing each other: each lost race re-reads and tries
# again; after this many the grade is recorded without its ability update (see the docstring).
CONFLICT_ATTEMPTS = 4


@dataclass(frozen=True)
class Evidence:
    """One graded answer as the learner model sees it."""

    user_id: str
    category: str
    item_id: str
    item_type: str
    choice_count: int | None
    score: float  # in [0, 1]: partial credit for a short answer
    # A grade waiting for review (counted in the ability's pending_review); `expected`: the score
    # above is only a cap, the answer counts as the response the current estimate expects.
    pending: bool = False
    expected: bool = False


@dataclass(frozen=True)
class AbilityWrites:
    """What to add to the attempt and to its transaction (empty: the answer updates nothing)."""

    attempt_fields: dict[str, Any] = field(default_factory=dict)
    learner_items: list[dict[str, Any]] = field(default_factory=list)
    difficulty: DifficultyStep | None = None


def skipped(reason: str) -> AbilityWrites:
    metrics.add_metric(name="AbilityUpdatesSkipped", unit="Count", value=1)
    return AbilityWrites(attempt_fields={"ability_skipped": reason})


def counted_score(
    score: int, needs_review: bool, probability: float | None = None, *, flagged: bool = False
) -> int | None:
    """The score (0-100) an answer counts with in the learner model now (the module's docstring
    has the pending rule): a final grade its score; a grade waiting for review min(100 p, score)
    with the grader's calibrated probability p, 0 when the grader flagged it, and None when there
    is no probability (the response the current estimate expects, capped at the score:
    `writes_for_answer` resolves it)."""
    if not needs_review:
        return score
    if flagged:
        return 0
    if probability is None:
        return None
    return max(0, min(score, round(100 * probability)))


def evidence_of(
    request: ScoreAnswerInput,
    stored: StoredQuestion | None,
    score: int | None,
    *,
    provisional: bool = False,
    cap: int = 100,
) -> Evidence | None:
    """The answer's evidence, or None when it belongs to no category (nothing to measure in).
    `score` is counted_score's (None: the expected response, at most `cap`); `provisional`: the
    grade waits for a reviewer."""
    category = request.category or (stored.category if stored else None)
    if not category:
        return None
    choices = request.choices or (stored.choices if stored else None)
    return Evidence(
        user_id=normalised_user_id(request.user_id),
        category=str(category),
        item_id=(stored.bank_item_id if stored else "") or request.question_id,
        item_type=request.question_type,
        choice_count=len(choices) if choices else None,
        score=max(0.0, min(1.0, (cap if score is None else score) / 100)),
        pending=provisional,
        expected=score is None,
    )


def item_difficulty(bank_item: StoredQuestion | None, label: Any) -> items.ItemDifficulty:
    """The item's current difficulty: learnt online if it has been, else its label's prior."""
    own_label = bank_item.difficulty if bank_item else None
    prior = items.ItemDifficulty.from_label(int(own_label or label or DEFAULT_LABEL))
    if bank_item is None or bank_item.difficulty_b is None:
        return prior
    return items.ItemDifficulty(
        b=bank_item.difficulty_b,
        precision=bank_item.difficulty_precision or prior.precision,
        answers=bank_item.item_answers,
    )


def profile_prior(user_id: str) -> tuple[float, float]:
    """A new learner's prior from their latest survey (learner.prior_for: the population's when
    they have none, or it cannot be read)."""
    try:
        survey = profiles.latest_survey(user_id) or {}
    except DataAccessError as error:
        logger.warning("profile unavailable, the population's prior is used", extra={"reason": str(error)})
        survey = {}
    return learner.prior_for({**FALLBACK_PROFILE, **survey})


def fallback_prior() -> tuple[float, float]:
    """The prior of a learner of whom nothing is known: the fallback profile's."""
    return learner.prior_for(FALLBACK_PROFILE)


def has_posterior(ability: abilities.StoredAbility | None) -> bool:
    """Whether the learner has a posterior stored in the category (else their first answer there
    starts from a prior)."""
    return ability is not None and bool(ability.posterior)


def posterior_of(ability: abilities.StoredAbility | None, prior: tuple[float, float] | None) -> learner.Posterior:
    """The learner's posterior as stored, else (before their first answer in the category) the
    prior given, else the fallback profile's."""
    if ability is not None and ability.posterior:
        return learner.Posterior.from_stored(list(ability.posterior))
    return learner.Posterior.prior(*(prior or fallback_prior()))


def stored_posterior(user_id: str, ability: abilities.StoredAbility | None) -> learner.Posterior:
    """The learner's posterior as stored, else the prior from their profile (read only then)."""
    return posterior_of(ability, None if has_posterior(ability) else profile_prior(user_id))


def counted_evidence(evidence: Evidence, known: learner.Estimate, difficulty: items.ItemDifficulty) -> Evidence:
    """The evidence as it counts: a pending grade with no calibrated probability counts as the
    response the estimate before it expects (at most its cap, the provisional score)."""
    if not evidence.expected:
        return evidence
    floor = irt.guess_floor(evidence.item_type, evidence.choice_count)
    expected = irt.p_correct(known.theta, difficulty.b, floor, difficulty.se)
    return replace(evidence, score=min(evidence.score, round(100 * expected) / 100))


def _updated(before: learner.Posterior, evidence: Evidence, difficulty: items.ItemDifficulty) -> learner.Posterior:
    # The item's difficulty is known only to its own error (a new item's is its label's guess):
    # the posterior averages over it, so new items move the ability less and widen the range.
    floor = irt.guess_floor(evidence.item_type, evidence.choice_count)
    return before.updated(difficulty.b, floor, evidence.score, difficulty.se)


def estimate_after(
    evidence: Evidence,
    label: Any,
    *,
    ability: abilities.StoredAbility | None,
    bank_item: StoredQuestion | None,
    prior: tuple[float, float] | None,
) -> learner.Estimate:
    """The learner's estimate once this answer is counted, as `writes_for_answer` will store it
    (pure): what the feedback's advice is given."""
    before, difficulty = posterior_of(ability, prior), item_difficulty(bank_item, label)
    return _updated(before, counted_evidence(evidence, before.estimate(), difficulty), difficulty).estimate()


def writes_for_answer(
    evidence: Evidence | None,
    label: Any,
    graded_at: str,
    attempt_key: str,
    *,
    ability: abilities.StoredAbility | None,
    bank_item: StoredQuestion | None,
    prior: tuple[float, float] | None,
) -> AbilityWrites:
    """Update the learner and the item with the answer, from what was read (no I/O): the stored
    `ability` (None before the learner's first answer in the category, when `prior` is their
    profile's), the `bank_item` (None: the question was never saved, there is no item to move)."""
    if evidence is None:
        return AbilityWrites()
    difficulty = item_difficulty(bank_item, label)
    floor = irt.guess_floor(evidence.item_type, evidence.choice_count)
    before = posterior_of(ability, prior)
    known = before.estimate()  # the item learns from the learner as known before this answer
    evidence = counted_evidence(evidence, known, difficulty)
    after = _updated(before, evidence, difficulty)
    estimate = after.estimate()
    step = None
    if bank_item is not None:
        delta_b, delta_precision = items.online_step(difficulty, known.theta, floor, evidence.score, known.se)
        labelled = items.ItemDifficulty.from_label(int(bank_item.difficulty or label or DEFAULT_LABEL))
        step = DifficultyStep(evidence.item_id, delta_b, delta_precision, labelled.b, labelled.precision)
    learner_items = abilities.answer_items(
        abilities.AbilityChange(
            user_id=evidence.user_id,
            category=evidence.category,
            posterior=after.to_stored(),
            theta=estimate.theta,
            se=estimate.se,
            answers=answers_of(ability) + 1,
            read_version=version_of(ability),
            at=graded_at,
            point_suffix=attempt_key,
            seen_item=evidence.item_id,
            pending=int(evidence.pending),
        )
    )
    return AbilityWrites(
        attempt_fields={
            "item_id": evidence.item_id,
            "item_b": difficulty.b,
            "item_b_se": difficulty.se,
            "guess_floor": floor,
            "ability_category": evidence.category,
            "ability_score": round(evidence.score * 100),
            # The ability the answer was expected from: the stream's fit statistics score the
            # answer at it and at item_b (slea.measurement.sufficient), with no read of their own.
            "learner_theta": round(known.theta, 6),
            # Counted in the ability's pending_review until a review takes it off (then false).
            **({"ability_pending": True} if evidence.pending else {}),
        },
        learner_items=learner_items,
        difficulty=step,
    )


def counted_of(attempt: StoredAttempt) -> int:
    """The score the attempt counts with in the ability now (older attempts: their score)."""
    return attempt.ability_score if attempt.ability_score is not None else attempt.score


def version_of(ability: abilities.StoredAbility | None) -> int | None:
    return ability.version if ability is not None else None


def answers_of(ability: abilities.StoredAbility | None) -> int:
    """The answers counted in the learner's estimate (0 before the first)."""
    return ability.estimate.answers if ability is not None and ability.estimate is not None else 0


def pending_change(attempt: StoredAttempt, *, reopening: bool = False) -> int:
    """What a review does to the ability's pending_review: a review of a grade counted in it takes
    it off (-1; the review sets `ability_pending` false); undoing that review, so that the grade
    waits again, puts it back (+1). Attempts recorded before the count (no `ability_pending`) were
    never in it: 0."""
    if reopening:
        return 1 if attempt.ability_pending is False else 0
    return -1 if attempt.ability_pending is True else 0


def rescore_items(attempt: StoredAttempt, new_score: int, at: str, *, pending: int = 0) -> list[dict[str, Any]]:
    """A reviewer's accept or override, as it changes the learner's ability: the response as it
    was counted (`ability_score`: the pending rule's score for a provisional grade, 0 for one
    recorded before it; older attempts counted their score) is taken out of the posterior and the
    reviewed one put in (the same item b, its uncertainty `item_b_se`, 0 for attempts recorded
    before it was kept, and guess floor), conditioned on the version read; `pending` is added to
    the ability's pending_review in the same Update (pending_change). Only pending_review's Update
    when the counted score stands, [] when the attempt updated no ability or nothing changes.
    Raises DataAccessError when the ability cannot be read (the review can be retried)."""
    category, item_b, floor = attempt.ability_category, attempt.item_b, attempt.guess_floor
    old_score = counted_of(attempt)
    if not category or item_b is None or floor is None or not attempt.user_id:
        return []
    user_id = normalised_user_id(attempt.user_id)
    if new_score == old_score:
        return [abilities.pending_item(user_id, category, pending)] if pending else []
    ability = abilities.get_ability(user_id, category)
    if not has_posterior(ability):
        logger.warning("an override of an attempt whose ability is gone", extra={"attempt_id": attempt.attempt_id})
        return []
    before = stored_posterior(user_id, ability)
    b_se = attempt.item_b_se or 0.0
    after = before.removed(item_b, floor, old_score / 100, b_se).updated(item_b, floor, new_score / 100, b_se)
    estimate = after.estimate()
    return abilities.answer_items(
        abilities.AbilityChange(
            user_id=user_id,
            category=category,
            posterior=after.to_stored(),
            theta=estimate.theta,
            se=estimate.se,
            answers=answers_of(ability),
            read_version=version_of(ability),
            at=at,
            point_suffix=abilities.review_point(attempt.attempt_key),
            seen_item=None,
            pending=pending,
        )
    )
