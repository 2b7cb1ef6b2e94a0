"""One adaptive loop, in four small pure parts (the shape of catsim: initialise, select, estimate,
stop), and the policies that run it.

    posterior = initialise(prior)                               # the learner before any answer
    while (reason := stop(posterior, given, policy.stop)) is None:
        item = select(bank, posterior.estimate(), policy, rng)  # the best item, under constraints
        posterior = estimate(posterior, [response])             # the EAP update (learner.Posterior)

Practice rounds and placement are two `Policy` values over these parts, not two code paths:
practice aims a batch of items at the success rate the deployment sets and stops at the round's
length; placement aims each item where it tells most and stops when the standard error reaches
its target, when the level is settled, or at its maximum length.

The constraints `select` honours are the caller's: which items are eligible at all (the learner
has not seen them, nothing the session showed answers them: security/exposure.py) is decided
before; `select` ranks what is left by information and spreads exposure (randomesque among the
best few, skipping items already shown to more than `max_exposure` of the learners).
"""

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from slea.measurement import irt, scale
from slea.measurement.learner import GRID, POPULATION_PRIOR, Estimate, Posterior

StopReason = Literal["precise", "classified", "max_items", "no_items"]


@dataclass(frozen=True)
class Item:
    """A bank item as the loop sees it: its difficulty (known to `b_se`), its guessing floor and
    the share of learners it has been shown to."""

    item_id: str
    b: float
    floor: float = 0.0
    b_se: float = 0.0
    exposure_rate: float = 0.0  # the share of learners shown it, counting this draw
    # The share of the model's information an answer to it is expected to carry: 1 for a score that
    # is exact; less where the score is a grader's probability until a reviewer confirms it.
    information_share: float = 1.0


@dataclass(frozen=True)
class Response:
    """An answer as the estimate counts it: the item's b, its uncertainty, its floor and the score
    in [0, 1] (partial credit, or the pending-grade rule's value for a grade awaiting review)."""

    b: float
    floor: float
    score: float
    b_se: float = 0.0


@dataclass(frozen=True)
class StopRule:
    """When a test has said enough. Any rule that holds stops it:
    - `se_target`: the standard error is at or below it;
    - `classification`: the posterior puts at least this much of its mass in one level band (the
      level is settled even if theta is not: shorter for learners far from a cut);
    - `max_items`: this many items were given.
    `min_items` items are always given first."""

    se_target: float | None = 0.5
    classification: float | None = None
    max_items: int = 25
    min_items: int = 1


@dataclass(frozen=True)
class Policy:
    name: Literal["practice", "placement"]
    success_rate: float  # the share of items the learner should answer correctly; 0.5: most informative
    stop: StopRule
    top: int = 5  # randomesque: at random among the best `top`
    max_exposure: float = 0.25
    prior_doubt: float = 0.0  # the share of the prior that is the population's (initialise)
    # Exposure spread (logits; None: randomesque among the best `top`): each pick looks at every
    # item within `spread` of the best one's distance to its aimed difficulty (at least `top`),
    # keeps the `top` least shown of them and draws one weighted by its information: among
    # near-equally good items the least shown come first, so no key near a common estimate is
    # shown to nearly everyone there (the "minimum exposure" flavour of Sympson-Hetter
    # conditional control, with no simulation to tune).
    spread: float | None = None


# A fifth of the prior is the population's: simulated (bench/placement_simulation.py, a third of
# the learners stating a level two bands off), learners whose survey missed by 1.5 logits or more
# were placed with an error of 0.56-0.67 logits instead of 1.25 (15-30% of the prior the
# population's), at a cost of one or two items for everyone else.
# Its exposure spread (0.3 logits) keeps any item from a large share of the tests at the cost of two
# items at the median: simulated, the most shown item went from 25% of the learners (the cap) to 9%,
# so a pool of keys shared by a few accounts covers little of a later test.
PLACEMENT = Policy(
    name="placement",
    success_rate=0.5,
    stop=StopRule(se_target=0.5, max_items=25),
    prior_doubt=0.2,
    spread=0.3,
)


def practice(
    success_rate: float, round_length: int, *, top: int = 5, max_exposure: float = 0.25, spread: float | None = None
) -> Policy:
    """A practice round: items the learner answers `success_rate` of the time, `round_length` of
    them (no standard-error stop: a round is a practice set of a size the learner asked for)."""
    return Policy(
        name="practice",
        success_rate=success_rate,
        stop=StopRule(se_target=None, max_items=round_length, min_items=round_length),
        top=top,
        max_exposure=max_exposure,
        spread=spread,
    )


def initialise(prior: tuple[float, float], doubt: float = 0.0) -> Posterior:
    """The learner before any answer: a normal prior (from their survey, or the population's).
    With `doubt` > 0, that share of the prior's mass is the population's instead (a mixture): a
    survey that misstates the learner's level by a logit or two is then overturned by a few
    answers, where a normal prior of the survey's narrow width would hold the estimate back."""
    if doubt <= 0.0:
        return Posterior.prior(*prior)
    return Posterior.mixture([(1.0 - doubt, *prior), (doubt, *POPULATION_PRIOR)])


def estimate(posterior: Posterior, responses: Sequence[Response]) -> Posterior:
    """The expected a posteriori update (learner.Posterior) with each response in turn."""
    for response in responses:
        posterior = posterior.updated(response.b, response.floor, response.score, response.b_se)
    return posterior


def aimed_b(theta: float, item: Item, policy: Policy) -> float:
    """The difficulty the policy wants for an item of this floor at `theta`."""
    return irt.aimed_difficulty(theta, policy.success_rate, item.floor)


def expected_information(item: Item, theta: float, theta_se: float) -> float:
    """The item's Fisher information averaged over the learner's ability as the posterior knows
    it (a normal with the estimate's mean and standard error, by Gauss-Hermite quadrature), with
    its difficulty's own uncertainty flattening the curve (irt.uncertainty_slope): what answering
    it is expected to add to the precision of the estimate. Averaging (not taking it at the point
    estimate) keeps a wide early posterior from favouring one narrow band of items."""
    slope = irt.uncertainty_slope(item.b_se) if item.b_se > 0 else 1.0
    total = 0.0
    weight_of_answer = item.information_share
    for node, weight in zip(irt.HERMITE_NODES, irt.HERMITE_WEIGHTS, strict=True):
        at = theta + node * theta_se
        # The flattened curve's information: slope^2 times the Rasch item's at the scaled distance.
        total += weight * slope * slope * irt.information(item.b + (at - item.b) * slope, item.b, item.floor)
    return total * weight_of_answer


def distance(item: Item, theta: float, policy: Policy) -> float:
    """How far the item's difficulty is from the one the policy aims an item of its floor at."""
    return abs(item.b - aimed_b(theta, item, policy))


def rank(items: Sequence[Item], guess: Estimate, policy: Policy) -> list[Item]:
    """Items best first: for placement by expected information; for practice by distance to the
    policy's aimed difficulty at the estimate (a practice item is chosen for its success rate)."""
    if policy.name == "placement":
        return sorted(items, key=lambda item: (-expected_information(item, guess.theta, guess.se), item.item_id))
    return sorted(items, key=lambda item: (distance(item, guess.theta, policy), item.item_id))


def select(items: Sequence[Item], guess: Estimate, policy: Policy, rng: random.Random) -> Item | None:
    """The next item for a learner estimated at `guess`: at random among the `top` best of those
    shown to at most `max_exposure` of the learners (randomesque: pure maximum information would
    give every learner with the same prior the same first items), or by the policy's exposure
    spread; None when nothing is eligible."""
    batch = select_batch(items, guess, policy, rng, 1)
    return batch[0] if batch else None


def select_batch(
    items: Sequence[Item],
    guess: Estimate,
    policy: Policy,
    rng: random.Random,
    count: int,
    *,
    admits: Callable[[Item], bool] | None = None,
) -> list[Item]:
    """`count` items chosen one after another without an answer between them (a practice round
    is laid out before it is answered): each pick is `select`'s among the items not yet picked.
    `admits`: whether a pick may join those already chosen (two items of one concept, or one that
    gives another's key away, may not share a round); a pick it refuses is passed over and the
    next best drawn in its place, so a constraint never leaves a slot empty while a fit item is left."""
    pool = rank([item for item in items if item.exposure_rate <= policy.max_exposure], guess, policy)
    chosen: list[Item] = []
    while pool and len(chosen) < count:
        if policy.spread is None:
            pick = rng.randrange(min(policy.top, len(pool)))
        else:
            pick = _spread_pick(pool, guess.theta, policy, rng)
        item = pool.pop(pick)
        if admits is None or admits(item):
            chosen.append(item)
    return chosen


def _spread_pick(pool: list[Item], theta: float, policy: Policy, rng: random.Random) -> int:
    """The index in `pool` (best first) of one of the `top` least shown items within
    `policy.spread` of the best one's distance to its aim, drawn with weights proportional to
    their information at theta (see Policy.spread)."""
    band = policy.spread or 0.0
    nearest = min(distance(item, theta, policy) for item in pool[: policy.top])
    width = max(policy.top, sum(1 for item in pool if distance(item, theta, policy) <= nearest + band))
    fresh = sorted(range(min(width, len(pool))), key=lambda index: (pool[index].exposure_rate, index))[: policy.top]
    weights = [irt.information(theta, pool[index].b, pool[index].floor) for index in fresh]
    point = rng.random() * sum(weights)
    for index, weight in zip(fresh, weights, strict=True):
        point -= weight
        if point < 0.0:
            return index
    return fresh[-1]


def band_chances(posterior: Posterior) -> dict[str, float]:
    """The posterior's mass in each level band (scale.LEVELS), in the bands' order."""
    weights = posterior.weights()
    chances = {word: 0.0 for word, _ in scale.LEVELS}
    for weight, theta in zip(weights, GRID, strict=True):
        chances[scale.level_of(theta)] += weight
    return chances


def interval(posterior: Posterior, mass: float = 0.95) -> tuple[float, float]:
    """The central `mass` credible interval of theta (quantiles of the grid posterior, linearly
    interpolated between grid points: the posterior may be skewed near the scale's ends)."""
    weights = posterior.weights()
    tail = (1.0 - mass) / 2.0
    return _quantile(weights, tail), _quantile(weights, 1.0 - tail)


def _quantile(weights: Sequence[float], share: float) -> float:
    step = GRID[1] - GRID[0]
    cumulative = 0.0
    for weight, theta in zip(weights, GRID, strict=True):
        if weight > 0 and cumulative + weight >= share:
            # The grid point's mass spread over its cell [theta - step/2, theta + step/2].
            return theta - step / 2 + step * (share - cumulative) / weight
        cumulative += weight
    return GRID[-1]


def stop(posterior: Posterior, given: int, rule: StopRule, *, exhausted: bool = False) -> StopReason | None:
    """Why the test stops after `given` items, or None to go on. `exhausted`: no eligible item is
    left (the test ends with what it has)."""
    if given < rule.min_items and not exhausted:
        return None
    if rule.se_target is not None and posterior.estimate().se <= rule.se_target:
        return "precise"
    if rule.classification is not None and max(band_chances(posterior).values()) >= rule.classification:
        return "classified"
    if given >= rule.max_items:
        return "max_items"
    if exhausted:
        return "no_items"
    return None


def items_to_stop(posterior: Posterior, given: int, rule: StopRule, per_item: float) -> int:
    """About how many more items the rule waits for, each adding `per_item` to the precision
    (1/SE^2): what a progress line can honestly promise."""
    left = max(rule.max_items - given, 0)
    if rule.se_target is None:
        return left
    se = posterior.estimate().se
    if se <= rule.se_target:
        return 0
    needed = math.ceil((1.0 / rule.se_target**2 - 1.0 / se**2) / max(per_item, 1e-6))
    return max(min(needed, left), 1 if left else 0)


@dataclass(frozen=True)
class LevelStatement:
    """The level with how sure the evidence makes it: the band of the estimate, its chance, and
    the likeliest other band with its chance."""

    level: str
    chance: float
    runner_up: str | None
    runner_up_chance: float
    chances: dict[str, float] = field(default_factory=dict)


def level_statement(posterior: Posterior) -> LevelStatement:
    chances = band_chances(posterior)
    level = scale.level_of(posterior.estimate().theta)
    others = sorted(((chance, word) for word, chance in chances.items() if word != level), reverse=True)
    runner_chance, runner = others[0] if others else (0.0, None)
    return LevelStatement(
        level=level,
        chance=chances[level],
        runner_up=runner if runner_chance >= 0.05 else None,
        runner_up_chance=runner_chance if runner_chance >= 0.05 else 0.0,
        chances=chances,
    )


def one_chance_in(chance: float) -> int:
    """'1 chance in N' for a probability: N rounded, at least 2."""
    return max(2, round(1.0 / chance)) if chance > 0 else 0
