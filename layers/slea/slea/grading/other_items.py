"""An answer that agrees with another item's reference rather than its own.

A learner who pastes the reference answer of another item of the session (one they read in an
earlier item's feedback, say) restates a real concept fluently, and the grader, measuring
agreement with the question's own reference, can reward that fluency. So the answer is also graded
against each other short-answer item's reference (the same offline grader, the other item's
stem and keywords): if it agrees with another item's reference better than with its own, it is
not correct; if another reference is about as close (within `UNDECIDED_MARGIN` points), the grader
cannot tell which concept it states, and the grade goes to a reviewer instead of standing."""

from collections.abc import Sequence
from dataclasses import dataclass

from slea.grading.evidence import Material
from slea.grading.offline import grade

# Points of the offline score within which another item's reference is "as close" as the own one.
UNDECIDED_MARGIN = 10
FLAG = "matches_another_item"


@dataclass(frozen=True)
class Reference:
    """Another item's model answer, as its own grading would compare with it."""

    reference: str
    keywords: tuple[str, ...] = ()
    stem: str = ""


@dataclass(frozen=True)
class OtherMatch:
    own: int  # the offline score against the question's own reference
    best_other: int  # the best offline score against another item's reference

    @property
    def better_elsewhere(self) -> bool:
        return self.best_other > self.own

    @property
    def undecided(self) -> bool:
        return self.best_other >= self.own - UNDECIDED_MARGIN


def other_match(material: Material, own_score: int, others: Sequence[Reference]) -> OtherMatch | None:
    """How well the answer in `material` agrees with the best of `others` (None: no other)."""
    scores = [
        grade(
            Material(
                answer=material.answer,
                reference=other.reference,
                keywords=list(other.keywords),
                stem=other.stem,
                shown=material.shown,
            )
        ).score
        for other in others
        if other.reference.strip()
    ]
    return OtherMatch(own=own_score, best_other=max(scores)) if scores else None
