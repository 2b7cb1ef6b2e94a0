"""Which bank items a practice round draws: the practice policy of the one adaptive loop
(measurement/cat.py), for callers that hold candidates and an estimate rather than a posterior.

For each slot the candidates are ranked by how close their difficulty is to the target for this
learner (the b at which they succeed with the target rate, given the item's guessing floor, but
never harder than the item's most informative b: irt.aimed_difficulty), and one is drawn at random
among the best `top` (randomesque), or with a `band`, by the loop's exposure spread (cat.Policy's
`spread`: the least shown of the near-equally good, weighted by information). Items already shown
to more than `max_exposure` of the learners are skipped, which caps how much any one item can leak.
"""

import random
from collections.abc import Callable
from dataclasses import dataclass

from slea.measurement import cat
from slea.measurement.irt import aimed_difficulty
from slea.measurement.learner import Estimate

DEFAULT_TOP = 5
DEFAULT_MAX_EXPOSURE = 0.25


@dataclass(frozen=True)
class Candidate:
    item_id: str
    b: float
    floor: float = 0.0
    exposure_rate: float = 0.0


def distance_to_target(candidate: Candidate, theta: float, success_rate: float) -> float:
    return abs(candidate.b - aimed_difficulty(theta, success_rate, candidate.floor))


def choose_items(
    candidates: list[Candidate],
    theta: float,
    success_rate: float,
    count: int,
    *,
    rng: random.Random,
    top: int = DEFAULT_TOP,
    max_exposure: float = DEFAULT_MAX_EXPOSURE,
    band: float | None = None,
    admits: Callable[[Candidate], bool] | None = None,
) -> list[Candidate]:
    """cat.select_batch under the practice policy, at the estimate `theta` (`admits`: see there)."""
    by_id = {candidate.item_id: candidate for candidate in candidates}
    items = [cat.Item(c.item_id, c.b, c.floor, exposure_rate=c.exposure_rate) for c in candidates]
    policy = cat.practice(success_rate, count, top=top, max_exposure=max_exposure, spread=band)
    allowed = None if admits is None else (lambda item: admits(by_id[item.item_id]))
    chosen = cat.select_batch(items, Estimate(theta, 0.0), policy, rng, count, admits=allowed)
    return [by_id[item.item_id] for item in chosen]
