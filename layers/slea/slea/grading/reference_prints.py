"""Fingerprints of reference answers, so that an answer that is the reference of ANOTHER item
(of any session, or of the bank) is found without reading that item.

Every short-answer item saved with a reference leaves its print in one record per category
(dal/reference_prints.py), read with the answer's other records (no call of its own). A print is a
bottom-k sketch: the `SKETCH` smallest hashes of the reference's word 3-grams (shingles of its
content words: English stems, Korean words without their particle), about 100 bytes whatever the
reference's length. The share of an item's print found among the answer's own shingles estimates
how much of that reference the answer contains, in its order: a pasted reference contains all of
it, half a reference spliced with another about half, and an answer written in one's own words
almost none (three content words in a row, in the same form, are rarely chance).

The answer is held not correct (and sent to a reviewer) when it contains at least `PASTED` of
another item's reference, less than `OWN_AT_MOST` of its own, and more of the other than its own;
or when it is spliced from references: part of another item's (`SPLICED_OTHER`) and part of its
own, together most of a reference (`SPLICED_TOGETHER`).
Items whose references share that much wording with the question's own (twins: "terminal 1 ...
the gap" and "terminal 6 ... the gap") are left to the grader: the answer may be right to both.
"""

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from slea.grading.terms import terms

SHINGLE_WORDS = 3
SKETCH = 16  # hashes kept per reference
MIN_SHINGLES = 4  # a reference of fewer content-word 3-grams leaves no print: too short to recognise
# Set on the human-graded corpora (docs/grading.md has the figures): the share
# of another reference's print found in the answer from which it is held back, and the most of its
# own reference's print it may then hold. A pasted reference (or one with a word dropped) holds all
# of another print; honest answers reach 0.75 only where one corpus's questions share their answers
# word for word (a tutoring corpus: "bulb A is still contained in a closed path with the battery").
PASTED = 0.75
OWN_AT_MOST = 0.5
# A splice: part of another item's reference (at least SPLICED_OTHER of its print, verbatim runs of
# three content words) beside part of its own, together at least SPLICED_TOGETHER: an answer made
# of references. Only a reference sharing none of its print with the question's own
# counts (on the corpora's tutoring questions, references share runs like "in a closed path"):
# held back there, 11 of 13,783 answers humans marked correct, all in that corpus; none elsewhere.
SPLICED_OTHER = 0.3
SPLICED_TOGETHER = 0.7
SPLICED_OVERLAP_AT_MOST = 0.0  # a reference that shares none of its print with the question's own


def _tokens(text: str) -> list[str]:
    """The text's content words in order, each as the run of its content units."""
    found: dict[int, list[str]] = {}
    for term in terms(text):
        if term.weight > 0 and not term.is_function_word:
            found.setdefault(term.word, []).append(term.unit)
    return ["".join(units) for _, units in sorted(found.items())]


def _hash(shingle: tuple[str, ...]) -> int:
    digest = hashlib.blake2b("\x1f".join(shingle).encode("utf-8"), digest_size=6).digest()
    return int.from_bytes(digest, "big")


@lru_cache(maxsize=4096)
def shingles(text: str) -> frozenset[int]:
    tokens = _tokens(text)
    return frozenset(_hash(tuple(tokens[i : i + SHINGLE_WORDS])) for i in range(len(tokens) - SHINGLE_WORDS + 1))


def sketch(reference: str) -> list[int]:
    """The print of a reference (empty: too short to leave one)."""
    found = shingles(reference)
    return sorted(found)[:SKETCH] if len(found) >= MIN_SHINGLES else []


def contained(print_: Iterable[int], answer: str) -> float:
    """The share of a print's shingles that the answer has (0-1)."""
    hashes = list(print_)
    if not hashes:
        return 0.0
    mine = shingles(answer)
    return sum(value in mine for value in hashes) / len(hashes)


@dataclass(frozen=True)
class Pasted:
    item_id: str  # the other item whose reference the answer contains (for reviewers only)
    share: float
    own: float


def pasted_from(
    answer: str, own_reference: str, prints: Mapping[str, Iterable[int]], own_items: Iterable[str] = ()
) -> Pasted | None:
    """The other item whose reference `answer` contains, if any (see the module's rule)."""
    skip = {item for item in own_items if item}
    own_print = sketch(own_reference)
    own = contained(own_print, answer) if own_print else 0.0
    best: tuple[float, str] | None = None
    spliced: tuple[float, str] | None = None
    for item_id, print_ in prints.items():
        hashes = list(print_)
        overlap = contained(hashes, own_reference)
        if item_id in skip or overlap >= OWN_AT_MOST:
            continue  # the item itself, or a twin whose reference words as much as its own
        share = contained(hashes, answer)
        if best is None or share > best[0]:
            best = (share, item_id)
        if overlap <= SPLICED_OVERLAP_AT_MOST and share >= SPLICED_OTHER and own + share >= SPLICED_TOGETHER:
            spliced = max(spliced or (share, item_id), (share, item_id))
    if best is not None and best[0] >= PASTED and own < OWN_AT_MOST and best[0] > own:
        return Pasted(best[1], round(best[0], 3), round(own, 3))
    return Pasted(spliced[1], round(spliced[0], 3), round(own, 3)) if spliced is not None else None
