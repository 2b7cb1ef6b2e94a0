"""Which bank items a round draws: information at the target, randomesque, with an exposure cap.

For each slot the candidates are ranked by how close their difficulty is to the target for this
learner (the b at which they succeed with the target rate, given the item's guessing floor, but
never harder than the item's most informative b: irt.aimed_difficulty), and
one is drawn at random among the best `top` (randomesque: pure maximum information would give every
learner of the same ability the same items). Items already shown to more than `max_exposure` of
the rounds are skipped, which caps how much any one item can leak.
"""

import random
from dataclasses import dataclass

from slea.measurement.irt import aimed_difficulty

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
) -> list[Candidate]:
    pool = [candidate for candidate in candidates if candidate.exposure_rate <= max_exposure]
    pool.sort(key=lambda candidate: (distance_to_target(candidate, theta, success_rate), candidate.item_id))
    chosen: list[Candidate] = []
    while pool and len(chosen) < count:
        pick = rng.randrange(min(top, len(pool)))
        chosen.append(pool.pop(pick))
    return chosen
