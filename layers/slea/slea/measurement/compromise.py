"""Compromised-item detection: an item whose key is going round is answered right far more often
than its answerers' abilities predict, from the moment it leaks. Each folded answer gives a
standardised residual z = (x - P) / sqrt(P(1 - P)) at the learner's ability before the answer and
the item's difficulty before its online step, capped at CAP so one lucky answer moves little; a
one-sided CUSUM per item, S <- max(0, S + z - K), rests the item when S > H (Veerkamp & Glas 2000,
a statistical quality control method for known items in adaptive testing).

A change detector, not a level test. Every answer also moves the item's online difficulty
(measurement.items), the item's own running estimate from its answers, so an item whose label is
off by a logit is soon answered as its online difficulty predicts. While S is at zero the residual
is read at that online difficulty (and its uncertainty, irt.p_correct's b_se, which flattens P for
a new item whose label is all that is known); when an answer lifts S above zero the difficulty of
that moment is kept as the reference until S returns to zero. A leaked key pulls the online
difficulty down with every right answer and would hide itself; against the reference kept from
before the excursion it cannot.

K, H and CAP were chosen by simulation (bench/compromise.py; figures in docs/security.md): honest
learners' answers rest about one item in a hundred over 200 answers each (two when its label
is a logit off); a key-holder's right answer on an item at their level is weak evidence (P is 0.6
to 0.75 there), so a leaked item takes tens of key-holders' answers, fewer when they are below it.
Pure: no I/O.
"""

import math
from dataclasses import dataclass

from slea.measurement.irt import MIN_PROBABILITY, p_correct

CAP = 3.0  # |z| at most: one right answer on an item far above the learner counts as 3 at most
K = 0.75  # the allowance per answer: an honest answer's z averages 0, a key-holder's about 1 or more
H = 4.0  # the decision interval: S above it rests the item
REST_REASON = "compromised"


def residual(theta: float, b: float, floor: float, score: float, b_se: float = 0.0) -> float:
    """The answer's standardised residual, capped to [-CAP, CAP]."""
    p = min(max(p_correct(theta, b, floor, b_se), MIN_PROBABILITY), 1.0 - MIN_PROBABILITY)
    z = (score - p) / math.sqrt(p * (1.0 - p))
    return max(-CAP, min(CAP, z))


def step(theta: float, b: float, floor: float, score: float, b_se: float = 0.0) -> float:
    """What the answer adds to the item's CUSUM before the floor at zero: z - K."""
    return residual(theta, b, floor, score, b_se) - K


def next_cusum(cusum: float, increment: float) -> float:
    """S <- max(0, S + z - K)."""
    return max(0.0, cusum + increment)


def compromised(cusum: float) -> bool:
    return cusum > H


@dataclass(frozen=True)
class Cusum:
    """An item's CUSUM and, while it is above zero, the difficulty (and its standard error) the
    excursion started from."""

    cusum: float = 0.0
    b: float | None = None
    b_se: float = 0.0

    def after(self, theta: float, b: float, b_se: float, floor: float, score: float) -> "Cusum":
        """The state after one more answer, given at ability theta when the item's online
        difficulty was b (uncertain by b_se)."""
        reference, reference_se = (b, b_se) if self.cusum <= 0.0 or self.b is None else (self.b, self.b_se)
        cusum = next_cusum(self.cusum, step(theta, reference, floor, score, reference_se))
        if cusum <= 0.0:
            return Cusum()
        return Cusum(cusum, reference, reference_se)

    @property
    def compromised(self) -> bool:
        return compromised(self.cusum)
