"""Which bank items a round draws: information at the target, randomesque, with an exposure cap.

For each slot the candidates are ranked by how close their difficulty is to the target for this
learner (the b at which they succeed with the target rate, given the item's guessing floor, but
never harder than the item's most informative b: irt.aimed_difficulty), and
one is drawn at random among the best `top` (randomesque: pure maximum information would give every
learner of the same ability the same items). Items already shown to more than `max_exposure` of
the rounds are skipped, which caps how much any one item can leak.

Spread (`band`, logits): a cap alone leaves every item under it equally likely, so the items near
the target are shown to nearly everyone of that ability and a party of accounts at one level
harvests the very items a later account of that level will meet. With a band, each slot looks at
every candidate within `band` logits of the best one's distance to the target (at least `top` of
them), keeps the `top` least exposed of those, and draws one at random weighted by its information
at theta: among near-equally informative items the least shown come first, so exposure is spread
over the band (the "minimum exposure" flavour of Sympson-Hetter conditional control, with no
simulation to tune), and a key shown to many accounts is drawn again only once the fresher items
near the target have caught up with it. Without a band (the default), randomesque among the
nearest `top`, as before.
"""

import random
from dataclasses import dataclass

from slea.measurement.irt import aimed_difficulty, information

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
) -> list[Candidate]:
    pool = [candidate for candidate in candidates if candidate.exposure_rate <= max_exposure]
    pool.sort(key=lambda candidate: (distance_to_target(candidate, theta, success_rate), candidate.item_id))
    chosen: list[Candidate] = []
    while pool and len(chosen) < count:
        pick = (
            rng.randrange(min(top, len(pool)))
            if band is None
            else _spread(pool, theta, success_rate, top=top, band=band, rng=rng)
        )
        chosen.append(pool.pop(pick))
    return chosen


def _spread(
    pool: list[Candidate], theta: float, success_rate: float, *, top: int, band: float, rng: random.Random
) -> int:
    """The index in `pool` (nearest first) of one of the `top` least exposed candidates within
    `band` of the nearest, drawn with weights proportional to their information at theta."""
    nearest = distance_to_target(pool[0], theta, success_rate)
    width = max(top, sum(1 for c in pool if distance_to_target(c, theta, success_rate) <= nearest + band))
    fresh = sorted(range(min(width, len(pool))), key=lambda index: (pool[index].exposure_rate, index))[:top]
    weights = [information(theta, pool[index].b, pool[index].floor) for index in fresh]
    point = rng.random() * sum(weights)
    for index, weight in zip(fresh, weights, strict=True):
        point -= weight
        if point < 0.0:
            return index
    return fresh[-1]
