"""Person fit: does a learner's pattern of answers look like the model's, or like someone who
knew the keys of some items?

The statistic is lz (Drasgow, Levine & Williams, 1985), the standardised log-likelihood of the
learner's answers at their estimated ability:

    l0 = sum(x log P + (1 - x) log(1 - P)),   E = sum(P log P + (1 - P) log(1 - P)),
    Var = sum(P (1 - P) logit(P)^2),          lz = (l0 - E) / sqrt(Var)

with P the model's chance of success (the guessing floor included, slea.measurement.irt). Near 0
the answers vary with difficulty as the model says; strongly negative, they do not: right on hard
items and wrong on easy ones, the pattern of an account answering from harvested keys (and of one
failing easy items on purpose to make them look hard). A graded score in [0, 1] enters l0 as it
enters the likelihood; its variance is at most P (1 - P), which is used (a conservative lz).

The ability is estimated from the same answers, which makes lz's spread under the model smaller
than 1 (Snijders, 2001): a cut on the normal scale flags fewer honest learners than its nominal
rate. The cut below, LZ_FLAG, is the nominal 1% one-sided point; bench/person_fit.py measures the
false alarms on simulated honest learners and the hits on simulated colluders (docs/measurement.md).
Few answers say little: below MIN_ANSWERS no statistic is given.

Only answers count: an item left unanswered (a round abandoned, a question skipped, an "I don't
know") says the learner stopped, not how their knowledge varies with difficulty. Counted as wrong,
a round abandoned on easier items reads as "right on hard items, wrong on easy ones", the pattern
of an account answering from harvested keys; so such an item (`answered` False) enters neither
statistic nor the count of answers.

lz sees a pattern only across difficulties, and a round's items sit near one difficulty (they are
chosen for the learner): an account answering from harvested keys is right on the items whose keys
went round, whatever their difficulty, and lz hardly notices (bench/person_fit.py). What it does
leave is a dependence of success on the item's key exposure (the share of accounts its key was
shown to) that ability does not explain. `exposure_fit` is the score test of that dependence, the
same form as the item slope test of slea.measurement.calibration with exposure as the covariate:

    z = sum((x - P)(e - mean e)) / sqrt(sum(P (1 - P)(e - mean e)^2))

near N(0, 1) for an honest learner, large and positive for one who knows the exposed keys.
EXPOSURE_Z_FLAG is its one-sided 1% point.
"""

import math
from collections.abc import Iterable
from dataclasses import dataclass

from slea.measurement.irt import MIN_PROBABILITY, p_correct

LZ_FLAG = -2.33  # one-sided 1% of a standard normal
EXPOSURE_Z_FLAG = 2.33
MIN_ANSWERS = 10


@dataclass(frozen=True)
class Answered:
    """One answer as person fit reads it: the item's difficulty and floor, and the score in [0, 1]."""

    b: float
    floor: float
    score: float
    exposure: float = 0.0  # the share of accounts the item's key was shown to before this answer
    answered: bool = True  # False: left unanswered or declined (module docstring): not counted


@dataclass(frozen=True)
class PersonFit:
    lz: float
    answers: int
    exposure_z: float | None = None  # None when the items' exposures do not vary

    @property
    def flagged(self) -> bool:
        return self.lz < LZ_FLAG or (self.exposure_z is not None and self.exposure_z > EXPOSURE_Z_FLAG)


def person_fit(theta: float, answers: Iterable[Answered]) -> PersonFit | None:
    """lz of the answers at ability `theta`; None with fewer than MIN_ANSWERS answers or when no
    answer carries information (every P at an end of the scale). Unanswered items are left out."""
    observed = expected = variance = 0.0
    count = 0
    seen = [answer for answer in answers if answer.answered]
    for answer in seen:
        p = min(max(p_correct(theta, answer.b, answer.floor), MIN_PROBABILITY), 1.0 - MIN_PROBABILITY)
        log_p, log_q = math.log(p), math.log(1.0 - p)
        observed += answer.score * log_p + (1.0 - answer.score) * log_q
        expected += p * log_p + (1.0 - p) * log_q
        variance += p * (1.0 - p) * (log_p - log_q) ** 2
        count += 1
    if count < MIN_ANSWERS or variance <= 0.0:
        return None
    return PersonFit(
        lz=(observed - expected) / math.sqrt(variance), answers=count, exposure_z=exposure_fit(theta, seen)
    )


def exposure_fit(theta: float, answers: list[Answered]) -> float | None:
    """The score test of success depending on key exposure beyond ability (module docstring)."""
    answers = [answer for answer in answers if answer.answered]
    if not answers:
        return None
    mean = sum(answer.exposure for answer in answers) / len(answers)
    score = variance = 0.0
    for answer in answers:
        p = min(max(p_correct(theta, answer.b, answer.floor), MIN_PROBABILITY), 1.0 - MIN_PROBABILITY)
        centred = answer.exposure - mean
        score += (answer.score - p) * centred
        variance += p * (1.0 - p) * centred * centred
    return score / math.sqrt(variance) if variance > 1e-12 else None
