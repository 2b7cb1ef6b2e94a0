"""A round's target difficulty: from the learner's ability when there is an estimate, else from
the old heuristic (plan_round.decide_difficulty), and the success rate the round aims at.

The target is the b at which the learner answers with the round's success rate (practice 70% by
default, the deployment's `TargetSuccessRate`; placement 50%, the most informative). A guessing
floor moves it: a learner who can guess half of the true/false items needs harder ones to succeed
70% of the time than with short answers; but never harder than the type's most informative
difficulty (irt.aimed_difficulty: for true/false the 70% target lies past it, so the informative b
is both easier and more telling; placement's 50% is past it for every choice type, so placement
aims at the most informative b of each type). A round mixes types, so its one generation label comes
from the mean of the types' targets; items drawn from the bank are each chosen for their own floor
(selection.choose_items).

Which type each slot of a round gets (`slot_types`): the requested mix (or the default one) cycled
as before, then laid out by information. Every requested type keeps at least one slot, and a
short answer keeps every slot the mix gives it; the other choice slots go to the choice type that
tells most about the learner at its aimed difficulty, averaged over the learner's current
uncertainty (irt.aimed_information: at 70%, four options 0.154, true/false 0.090 at the estimate).
Only choice types compete: their score is exact, so their information is what the model says; a
short answer's score comes from a model grader and may wait for a reviewer (counted provisionally until
then), so its nominal 0.21 is not known to hold, and typing is effort the mix asks of the learner.
"""

import os
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from slea.constants import QuestionType
from slea.measurement import irt, scale

if TYPE_CHECKING:  # the planner's rule stays free of storage at run time
    from slea.dal.abilities import AbilityEstimate, StoredAbility

SUCCESS_RATE_VARIABLE = "TARGET_SUCCESS_RATE"
PRACTICE_SUCCESS_RATE = 0.7  # when the variable is unset (tests, the local server)
PLACEMENT_SUCCESS_RATE = 0.5  # capped per type at its most informative b (irt.aimed_difficulty)
# The default mix of generation (contracts.generation.DEFAULT_QUESTION_TYPES), not imported: the
# API function plans a summary's next difficulty without loading the generation contracts.
DEFAULT_MIX: tuple[QuestionType, ...] = ("multiple_choice", "true_false", "short_answer", "multiple_choice")

Purpose = Literal["practice", "placement"]


def success_rate(purpose: Purpose = "practice") -> float:
    """The share of items a round aims for the learner to answer correctly."""
    if purpose == "placement":
        return PLACEMENT_SUCCESS_RATE
    configured = os.environ.get(SUCCESS_RATE_VARIABLE, "").strip()
    rate = float(configured) if configured else PRACTICE_SUCCESS_RATE
    if not 0.0 < rate < 1.0:
        raise RuntimeError(f"{SUCCESS_RATE_VARIABLE} must be between 0 and 1, not {configured}")
    return rate


@dataclass(frozen=True)
class Target:
    label: int  # the generator's 1-10 difficulty
    b: float  # the difficulty on the logit scale
    theta: float  # the ability items are chosen for (an estimate, or the one the heuristic implies)
    rate: float
    reason: str
    from_ability: bool


def _floors(question_types: list[QuestionType] | None) -> list[float]:
    return [irt.guess_floor(item_type, None) for item_type in (question_types or DEFAULT_MIX)]


def target_b(theta: float, rate: float, question_types: list[QuestionType] | None) -> float:
    """The round's b for `theta`: the mean of its types' targets."""
    floors = _floors(question_types)
    return sum(irt.aimed_difficulty(theta, rate, floor) for floor in floors) / len(floors)


def _theta_for(b: float, rate: float, question_types: list[QuestionType] | None) -> float:
    """The ability whose target is `b` (targets shift one for one with theta), so that bank items
    are chosen around a label the heuristic or the request set."""
    return b + (b - target_b(b, rate, question_types))


def slot_types(
    question_types: list[QuestionType] | None, count: int, rate: float, theta_se: float = 0.0
) -> list[QuestionType]:
    """The type of each of a round's `count` slots (see the module's docstring)."""
    cycle = list(question_types or DEFAULT_MIX)
    slots = [cycle[index % len(cycle)] for index in range(count)]
    choice_types = [item_type for item_type in dict.fromkeys(cycle) if irt.guess_floor(item_type, None) > 0.0]
    if len(choice_types) < 2:
        return slots
    best = max(choice_types, key=lambda item_type: irt.aimed_information(rate, irt.guess_floor(item_type), theta_se))
    kept: set[QuestionType] = set()
    for index, item_type in enumerate(slots):
        if item_type in choice_types and item_type != best:
            if item_type in kept:
                slots[index] = best
            kept.add(item_type)
    return slots


def estimate_of(ability: "StoredAbility | None") -> "AbilityEstimate | None":
    """The ability record's estimate if at least one answer (or skipped item) is behind it (a
    bare prior is no estimate), else None."""
    if ability is None or ability.estimate is None:
        return None
    return ability.estimate if ability.estimate.answers + ability.estimate.skipped > 0 else None


def round_label(theta: float, rate: float, question_types: list[QuestionType] | None) -> int:
    """The label a round is generated at for a learner of ability `theta`: the one rule behind the
    planner's target, the summary's next difficulty and the feedback's advice (`next_round`)."""
    return scale.b_to_label(target_b(theta, rate, question_types))


def next_round(theta: float, current: int) -> scale.NextRound:
    """The difficulty the learner's next round will be generated at, given their current estimate
    `theta` (a practice round of the default mix, as the web app and the summary ask for it),
    beside `current`, the label of the item just answered: the feedback advises what the planner
    will do."""
    return scale.NextRound(label=round_label(theta, success_rate(), None), current=current)


def from_ability(theta: float, se: float, rate: float, question_types: list[QuestionType] | None) -> Target:
    """The target for a learner estimated at `theta` (standard error `se`)."""
    b = target_b(theta, rate, question_types)
    label = round_label(theta, rate, question_types)
    reason = f"theta {theta:.2f} (standard error {se:.2f}), target {rate:.0%}: b {b:.2f} -> label {label}"
    return Target(label=label, b=b, theta=theta, rate=rate, reason=reason, from_ability=True)


def from_prior(mean: float, sd: float, rate: float, question_types: list[QuestionType] | None) -> Target:
    """Before any answer: the survey's prior is the learner's posterior, aimed at like an estimate."""
    target = from_ability(mean, sd, rate, question_types)
    return replace(target, reason=f"no answer yet, the survey's prior: {target.reason}", from_ability=False)


def from_label(label: int, reason: str, rate: float, question_types: list[QuestionType] | None) -> Target:
    b = scale.label_to_b(label)
    return Target(
        label=label, b=b, theta=_theta_for(b, rate, question_types), rate=rate, reason=reason, from_ability=False
    )
