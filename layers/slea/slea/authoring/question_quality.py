"""Signs of weak multiple-choice items, shared by Tool 4 (which reports them) and the offline
generator (which avoids them)."""

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import NamedTuple

from rapidfuzz import fuzz, process

CATCH_ALL = re.compile(r"\b(all|none) of the above\b|위의? 모두|모두 정답|정답 없음", re.IGNORECASE)
ABSOLUTE = re.compile(r"\b(always|never)\b|항상|절대", re.IGNORECASE)
# The longest choice more than this many times the shortest: length alone hints at the key.
MAX_LENGTH_RATIO = 3


def lengths_unequal(texts: list[str], ratio: float = MAX_LENGTH_RATIO) -> bool:
    lengths = [len(text) for text in texts if text]
    return bool(lengths) and min(lengths) * ratio < max(lengths)


NEAR_DUPLICATE_RATIO = 0.9
# Below this many words one word is the whole question ("What is RAG?" / "What is LoRA?"):
# such stems count as duplicates only when identical.
NEAR_DUPLICATE_MIN_WORDS = 5
# rapidfuzz's ratio is difflib's 2*matches/total (0-100) with the most matches there are (the longest
# common subsequence), and no `autojunk` heuristic, which blinds difflib to stems of 200+ characters.
_NEAR_DUPLICATE_SCORE = NEAR_DUPLICATE_RATIO * 100


def normalised(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


class PreparedStem(NamedTuple):
    text: str  # normalised
    comparable: bool  # long enough to be compared by similarity, not only by identity


# The generator asks about each draft against every stem taken so far: normalise each stem once.
# Bounded: a few thousand stems of at most QUESTION_STEM_MAX characters is a few megabytes.
@lru_cache(maxsize=4096)
def prepared_stem(stem: str) -> PreparedStem:
    text = normalised(stem)
    return PreparedStem(text, len(text.split()) >= NEAR_DUPLICATE_MIN_WORDS)


class StemIndex:
    """Stems in order, prepared once, for repeated near-duplicate look-ups against all of them."""

    def __init__(self, stems: Iterable[str] = ()) -> None:
        self._count = 0
        self._first_position: dict[str, int] = {}  # normalised text -> its first position
        self._comparable_texts: list[str] = []
        self._comparable_positions: list[int] = []
        for stem in stems:
            self.add(stem)

    def __len__(self) -> int:
        return self._count

    def add(self, stem: str) -> None:
        prepared = prepared_stem(stem)
        # An empty stem (a malformed batch entry's) matches nothing but still takes a position.
        if prepared.text:
            self._first_position.setdefault(prepared.text, self._count)
            if prepared.comparable:
                self._comparable_texts.append(prepared.text)
                self._comparable_positions.append(self._count)
        self._count += 1

    def first_match(self, stem: str) -> int | None:
        """Position of the first stem that says (almost) the same as `stem`, or None."""
        prepared = prepared_stem(stem)
        identical = self._first_position.get(prepared.text) if prepared.text else None
        similar = self._first_similar(prepared.text) if prepared.comparable else None
        return min((position for position in (identical, similar) if position is not None), default=None)

    def _first_similar(self, text: str) -> int | None:
        # extract_iter scores in C, in order, skipping by length alone pairs too unequal to reach the
        # cutoff; the first hit is the earliest similar stem.
        hits = process.extract_iter(text, self._comparable_texts, scorer=fuzz.ratio, score_cutoff=_NEAR_DUPLICATE_SCORE)
        for _, _, slot in hits:
            return self._comparable_positions[slot]
        return None


def near_duplicate_of(stem: str, others: list[str]) -> int | None:
    """Index of the first of `others` that says (almost) the same as `stem`, or None."""
    return StemIndex(others).first_match(stem)
