"""Additive sums from which an item's fit statistics and a learner's person fit are read, so a
stream of answers can be folded in one at a time and the statistics recomputed from the sums alone
(slea.logic.jobs.incremental_calibration).

Each answer is scored at a fixed ability theta and difficulty b: the estimates as they stood when
it was given (the learner's ability before the answer, the item's difficulty before its online
step). At fixed theta and b every statistic below is a ratio of sums over answers, so answers are
added (and a reviewer's correction is the difference of two answers) without reading any other:

- item: facility = sum x / n; infit = sum (x - P)^2 / sum P(1 - P); outfit = sum [(x - P)^2 /
  P(1 - P)] / n, with P(1 - P) floored as slea.measurement.calibration floors it;
- learner: lz = (l0 - E) / sqrt(Var) with l0, E and Var the sums of slea.measurement.person_fit.

The full refit (slea.measurement.calibration) scores every answer at the final estimates instead;
from the same responses at the same theta and b the two give the same numbers
(tests/unit/measurement/test_sufficient.py). The sums carry no difficulty: b is the refit's job.
"""

import math
from dataclasses import dataclass, fields

from slea.measurement.irt import MIN_PROBABILITY, p_correct
from slea.measurement.person_fit import MIN_ANSWERS


@dataclass(frozen=True)
class ItemSums:
    answers: float = 0.0
    score: float = 0.0  # sum of x
    expected: float = 0.0  # sum of P
    variance: float = 0.0  # sum of P(1 - P): the answers' information at b
    squared: float = 0.0  # sum of (x - P)^2
    standardised: float = 0.0  # sum of (x - P)^2 / P(1 - P)

    def __add__(self, other: "ItemSums") -> "ItemSums":
        return ItemSums(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def __sub__(self, other: "ItemSums") -> "ItemSums":
        return ItemSums(*(getattr(self, f.name) - getattr(other, f.name) for f in fields(self)))

    @property
    def facility(self) -> float | None:
        return self.score / self.answers if self.answers > 0 else None

    @property
    def infit(self) -> float | None:
        return self.squared / self.variance if self.variance > 0 else None

    @property
    def outfit(self) -> float | None:
        return self.standardised / self.answers if self.answers > 0 else None


@dataclass(frozen=True)
class LearnerSums:
    answers: float = 0.0
    observed: float = 0.0  # l0: sum of x log P + (1 - x) log(1 - P)
    expected: float = 0.0  # E: sum of P log P + (1 - P) log(1 - P)
    variance: float = 0.0  # Var: sum of P(1 - P) logit(P)^2

    def __add__(self, other: "LearnerSums") -> "LearnerSums":
        return LearnerSums(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def __sub__(self, other: "LearnerSums") -> "LearnerSums":
        return LearnerSums(*(getattr(self, f.name) - getattr(other, f.name) for f in fields(self)))

    @property
    def lz(self) -> float | None:
        """None below person fit's MIN_ANSWERS, or when no answer carried information."""
        if self.answers < MIN_ANSWERS or self.variance <= 0.0:
            return None
        return (self.observed - self.expected) / math.sqrt(self.variance)


def item_part(theta: float, b: float, floor: float, score: float) -> ItemSums:
    """One answer's share of the item's sums (as slea.measurement.calibration's statistics)."""
    p = p_correct(theta, b, floor)
    variance = max(p * (1.0 - p), MIN_PROBABILITY)
    squared = (score - p) ** 2
    return ItemSums(1.0, score, p, variance, squared, squared / variance)


def learner_part(theta: float, b: float, floor: float, score: float) -> LearnerSums:
    """One answer's share of the learner's sums (as slea.measurement.person_fit's lz)."""
    p = min(max(p_correct(theta, b, floor), MIN_PROBABILITY), 1.0 - MIN_PROBABILITY)
    log_p, log_q = math.log(p), math.log(1.0 - p)
    return LearnerSums(
        1.0,
        score * log_p + (1.0 - score) * log_q,
        p * log_p + (1.0 - p) * log_q,
        p * (1.0 - p) * (log_p - log_q) ** 2,
    )
