"""Comparison questions ("How does X differ from Y?", "X와 Y의 차이는?") need both sides.

An answer that describes only one of the two things compared does not answer the question, however
well it describes that one: "how does a process differ from a thread?" answered with a correct
definition of a thread alone is not correct. Word statistics over the whole reference miss it, since
one side of a two-sided reference is half its terms and a full description of it covers enough of
the reference to pass.

- A comparison stem is recognised in English (differ, difference, compare, comparison, contrast,
  versus, vs, distinguish) and Korean (차이, 비교, 다른 점, 다르다/다른가/다릅니까, 구별, 대비).
- The reference is split into its two sides at its contrast marker (English "By contrast",
  "whereas", "while", "unlike", "in contrast", "on the other hand"; Korean "반면", "이와 달리",
  "…와 달리", "한편"), the form every comparison reference of the generator takes ("X: ... By
  contrast, Y: ..." / "X: ... 반면 Y: ...") and the usual form of a written one. A reference with
  no such marker is not split, and no side is required.
- Each side's own terms (those of its half that the other half does not use) are weighted as the
  grader weighs the reference's terms; an answer is one-sided when it covers one side's own terms
  well (ONE_SIDE_COVERED) and the other's hardly at all (OTHER_SIDE_MISSING).
"""

import re
from dataclasses import dataclass

from slea.grading.terms import Text
from slea.language.comparison_stems import is_comparison

ONE_SIDE_COVERED = 0.35  # weighted share of one side's own terms: that side is described
OTHER_SIDE_MISSING = 0.15  # below this share of its own terms, the other side is left out

CONTRAST_MARKER = re.compile(
    r"\bby contrast\b|\bin contrast\b|\bwhereas\b|\bon the other hand\b|\bunlike\b|(?<=[,;])\s*while\b"
    r"|반면에?|이와\s*달리|[와과]\s*달리|한편",
    re.IGNORECASE,
)
MIN_SIDE_CHARACTERS = 12  # a side shorter than this is no description of anything


def sides(reference: str) -> tuple[str, str] | None:
    """The reference's two halves at its first contrast marker, or None where it has none."""
    marker = CONTRAST_MARKER.search(reference)
    if marker is None:
        return None
    first, second = reference[: marker.start()].strip(), reference[marker.end() :].strip(" ,;:")
    if min(len(first), len(second)) < MIN_SIDE_CHARACTERS:
        return None
    return first, second


@dataclass(frozen=True)
class SideCoverage:
    first: float  # weighted share of the first side's own terms the answer has
    second: float

    @property
    def one_sided(self) -> bool:
        stronger, weaker = max(self.first, self.second), min(self.first, self.second)
        return stronger >= ONE_SIDE_COVERED and weaker < OTHER_SIDE_MISSING


def side_coverage(
    stem: str, reference: str, weights: dict[str, float], credit_of: dict[str, float]
) -> SideCoverage | None:
    """How much of each side's own terms the answer has (`weights`: the grader's weights of the
    reference's units; `credit_of`: the answer's credit per unit it has). None where the question
    compares nothing or the reference has no two sides."""
    if not is_comparison(stem):
        return None
    halves = sides(reference)
    if halves is None:
        return None
    units = [{term.unit for term in Text(half).content_terms if weights.get(term.unit, 0.0) > 0} for half in halves]
    own = [units[0] - units[1], units[1] - units[0]]
    shares = []
    for side in own:
        total = sum(weights[unit] for unit in side)
        if not total:
            return None  # a side with no terms of its own: nothing to require
        shares.append(sum(weights[unit] * credit_of.get(unit, 0.0) for unit in side) / total)
    return SideCoverage(shares[0], shares[1])
