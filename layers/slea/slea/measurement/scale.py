"""The one logit scale of abilities and difficulties, and how the generator's labels map onto it.

Mapping (documented in the README): a label L in 1..10 is the difficulty b = (L - 5.5) / 2, so
labels span -2.25..+2.25 logits, half a logit per step; a learner whose ability equals an item's
b answers it correctly half the time (before guessing). An LLM's label is a noisy estimate of
difficulty (about 0.7 logits, the figure the issue measured), so it is only the prior of b.

Level words name bands of ability by the labels a learner masters at even odds:
novice (labels 1-2), beginner (3-4), intermediate (5-6), advanced (7-8), expert (9-10). A label
is shown to learners on its scale with the band its b falls in: "4 of 10: beginner"
(`label_level`).

`NextRound` is how the difficulty of the next round compares with the one just met: the
feedback's advice and the summary say the one the planner will use (logic/rounds/target.py
`next_round`, one rule for both).
"""

import math
from dataclasses import dataclass
from typing import Literal

from slea.constants import DIFFICULTY_MAX, DIFFICULTY_MIN

LABEL_CENTRE = 5.5
LOGITS_PER_LABEL = 0.5
LABEL_B_SD = 0.7  # how far an LLM's label typically is from the item's real difficulty, in logits

# (word, lowest theta of the band); the first band has no floor.
LEVELS: tuple[tuple[str, float], ...] = (
    ("novice", -math.inf),
    ("beginner", -1.5),
    ("intermediate", -0.5),
    ("advanced", 0.5),
    ("expert", 1.5),
)

PRECISE_SE = 0.3  # the standard error at which we call an estimate precise (mirtCAT's default stop)
# Information one well-targeted answer adds: P(1-P) at the default 70% success target is 0.21;
# choice items give less (their guessing floor), short answers with partial credit about as much.
INFORMATION_PER_ANSWER = 0.2


def label_to_b(label: float) -> float:
    return (float(label) - LABEL_CENTRE) * LOGITS_PER_LABEL


def b_to_label(b: float) -> int:
    label = round(b / LOGITS_PER_LABEL + LABEL_CENTRE)
    return max(DIFFICULTY_MIN, min(DIFFICULTY_MAX, label))


def level_of(theta: float) -> str:
    return [word for word, floor in LEVELS if theta >= floor][-1]


def label_level(label: int) -> str:
    """The level word of a difficulty label: the band its b lies in (4 -> beginner)."""
    return level_of(label_to_b(label))


Direction = Literal["harder", "same", "easier"]


@dataclass(frozen=True)
class NextRound:
    """The label the next round is generated at, beside `current`, the label of what the learner
    has just met."""

    label: int
    current: int

    @property
    def direction(self) -> Direction:
        if self.label > self.current:
            return "harder"
        return "easier" if self.label < self.current else "same"

    @property
    def level(self) -> str:
        return label_level(self.label)


def answers_to_precision(se: float, target_se: float = PRECISE_SE) -> int:
    """About how many more well-targeted answers bring the standard error down to `target_se`:
    precisions (1/SE^2) add up, each answer adding INFORMATION_PER_ANSWER."""
    if se <= target_se:
        return 0
    return math.ceil((1 / target_se**2 - 1 / se**2) / INFORMATION_PER_ANSWER)
