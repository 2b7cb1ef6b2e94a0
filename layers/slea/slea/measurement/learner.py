"""A learner's ability as a posterior distribution on a fixed quadrature grid (EAP estimation).

Why a grid and not a running estimate: the expected a posteriori (EAP) estimate is finite for
all-right and all-wrong patterns (maximum likelihood is not), its standard deviation is an honest
standard error from the first answer on, one answer updates it exactly in O(grid) operations, and
an answer can be taken out again exactly (a reviewer's override). The posterior is stored as
log-weights (81 numbers), so it persists across sessions without keeping every answer.
"""

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from slea.constants import FALLBACK_PROFILE
from slea.measurement.irt import log_likelihood

GRID_MIN, GRID_MAX, GRID_POINTS = -5.0, 5.0, 81
GRID: tuple[float, ...] = tuple(
    GRID_MIN + index * (GRID_MAX - GRID_MIN) / (GRID_POINTS - 1) for index in range(GRID_POINTS)
)
STORED_DECIMALS = 4
LOG_WEIGHT_FLOOR = -200.0  # e^-200 is nothing; bounding keeps stored numbers short

# A new learner's prior: a wide normal around their self-assessment (in logits).
SELF_LEVEL_MEAN = {"beginner": -1.0, "intermediate": 0.0, "advanced": 1.0}
EXPERIENCE_STEP = 0.25  # per step: 5+ years, 10+ years
PREVIOUS_SCORE_STEP = 0.25  # previous test score 85+ (up) or below 50 (down; 0 = no test)
POPULATION_PRIOR = (0.0, 1.0)  # the scale's population: abilities N(0, 1) (calibration assumes it too)
# How learners spread over the self-levels (a quarter beginners, half intermediate, a quarter
# advanced): only the prior's width depends on it, through the law of total variance below.
SELF_LEVEL_SHARE = {"beginner": 0.25, "intermediate": 0.5, "advanced": 0.25}


def _within_level_sd() -> float:
    """The spread of ability among learners who give the same self-assessment. The profile priors
    together must make up the population: its variance (1) is the variance between the self-level
    means plus the variance within a level, so a self-assessment can only narrow the prior. (A
    prior wider than the population, 1.2 here once, made every early 95% interval too wide: it
    held the true ability 99% of the time in the simulation, and shrank the estimate too little.)"""
    centre = sum(share * SELF_LEVEL_MEAN[level] for level, share in SELF_LEVEL_SHARE.items())
    between = sum(share * (SELF_LEVEL_MEAN[level] - centre) ** 2 for level, share in SELF_LEVEL_SHARE.items())
    return math.sqrt(POPULATION_PRIOR[1] ** 2 - between)


PRIOR_SD = _within_level_sd()  # 0.71


@dataclass(frozen=True)
class Estimate:
    theta: float
    se: float


def prior_from_profile(self_level: str, years_experience: float, previous_score: float) -> tuple[float, float]:
    mean = SELF_LEVEL_MEAN.get(self_level, 0.0)
    mean += EXPERIENCE_STEP * ((years_experience >= 5) + (years_experience >= 10))
    if previous_score >= 85:
        mean += PREVIOUS_SCORE_STEP
    elif 0 < previous_score < 50:
        mean -= PREVIOUS_SCORE_STEP
    return mean, PRIOR_SD


def prior_for(profile: Mapping[str, Any]) -> tuple[float, float]:
    """A new learner's prior from their profile: around their self-assessment, or the population's
    when there is none. The fallback profile (served when no survey exists or can be read) says
    "beginner" for content's sake, but nobody said it: centring a learner who told us nothing on the
    beginners' mean, with the narrow width of a self-assessment, would bias their first estimates
    by most of a logit. A survey that repeats the fallback profile field for field tells as little."""
    if {name: profile.get(name) for name in FALLBACK_PROFILE} == FALLBACK_PROFILE:
        return POPULATION_PRIOR
    try:
        return prior_from_profile(
            str(profile["self_level"]), float(profile["years_experience"]), float(profile["previous_score"])
        )
    except (KeyError, TypeError, ValueError):  # a malformed survey tells nothing either
        return POPULATION_PRIOR


@dataclass(frozen=True)
class Posterior:
    log_weights: tuple[float, ...]

    @classmethod
    def prior(cls, mean: float, sd: float) -> "Posterior":
        return cls(tuple(-0.5 * ((point - mean) / sd) ** 2 for point in GRID))._normalised()

    @classmethod
    def mixture(cls, components: list[tuple[float, float, float]]) -> "Posterior":
        """A prior mixing normals: (share, mean, sd) each, shares summing to 1."""
        log_weights = []
        for point in GRID:
            density = sum(share / sd * math.exp(-0.5 * ((point - mean) / sd) ** 2) for share, mean, sd in components)
            log_weights.append(math.log(max(density, math.exp(LOG_WEIGHT_FLOOR))))
        return cls(tuple(log_weights))._normalised()

    @classmethod
    def from_stored(cls, stored: list[float] | None, prior: tuple[float, float] = POPULATION_PRIOR) -> "Posterior":
        """A stored posterior, or the prior when none is stored (or it does not fit this grid)."""
        if stored and len(stored) == GRID_POINTS:
            return cls(tuple(float(value) for value in stored))._normalised()
        return cls.prior(*prior)

    def to_stored(self) -> list[float]:
        return [round(max(value, LOG_WEIGHT_FLOOR), STORED_DECIMALS) for value in self._normalised().log_weights]

    def updated(self, b: float, floor: float, score: float, b_se: float = 0.0) -> "Posterior":
        """After one answer: multiply by its likelihood P^r (1-P)^(1-r), P averaged over the
        item's difficulty b ~ N(b, b_se^2) (irt.p_correct): a new item, whose b is only its
        label's guess, counts for less than a calibrated one, and the range stays honest."""
        return self._shifted(b, floor, score, 1.0, b_se)

    def removed(self, b: float, floor: float, score: float, b_se: float = 0.0) -> "Posterior":
        """Take one earlier answer out again (divide by its likelihood, with the b and b_se it was
        counted with), e.g. before a reviewer's new score."""
        return self._shifted(b, floor, score, -1.0, b_se)

    def estimate(self) -> Estimate:
        weights = self._weights()
        theta = sum(w * q for w, q in zip(weights, GRID, strict=True))
        variance = sum(w * (q - theta) ** 2 for w, q in zip(weights, GRID, strict=True))
        return Estimate(theta=theta, se=math.sqrt(variance))

    def _shifted(self, b: float, floor: float, score: float, sign: float, b_se: float) -> "Posterior":
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"score must be between 0 and 1, got {score}")
        if not 0.0 <= b_se < math.inf:
            raise ValueError(f"b_se must be finite and not negative, got {b_se}")
        return Posterior(
            tuple(
                value + sign * log_likelihood(point, b, floor, score, b_se)
                for value, point in zip(self.log_weights, GRID, strict=True)
            )
        )._normalised()

    def _normalised(self) -> "Posterior":
        top = max(self.log_weights)
        return Posterior(tuple(max(value - top, LOG_WEIGHT_FLOOR) for value in self.log_weights))

    def weights(self) -> list[float]:
        """The posterior's probability at each grid point (they sum to 1)."""
        return self._weights()

    def _weights(self) -> list[float]:
        raw = [math.exp(value) for value in self.log_weights]
        total = sum(raw)
        return [value / total for value in raw]
