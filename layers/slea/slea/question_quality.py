"""Signs of weak multiple-choice items, shared by Tool 4 (which reports them) and the offline
generator (which avoids them)."""

import difflib
import re

CATCH_ALL = re.compile(r"\b(all|none) of the above\b|위의? 모두|모두 정답|정답 없음", re.IGNORECASE)
ABSOLUTE = re.compile(r"\b(always|never)\b|항상|절대", re.IGNORECASE)
# The longest choice more than this many times the shortest: length alone hints at the key.
MAX_LENGTH_RATIO = 3


def lengths_unequal(texts: list[str]) -> bool:
    lengths = [len(text) for text in texts if text]
    return bool(lengths) and min(lengths) * MAX_LENGTH_RATIO < max(lengths)


NEAR_DUPLICATE_RATIO = 0.9
# Below this many words one word is the whole question ("What is RAG?" / "What is LoRA?"):
# such stems count as duplicates only when identical.
NEAR_DUPLICATE_MIN_WORDS = 5


def normalised(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


def near_duplicate_of(stem: str, others: list[str]) -> int | None:
    """Index of the first of `others` that says (almost) the same as `stem`, or None."""
    mine = normalised(stem)
    for index, other in enumerate(map(normalised, others)):
        if not other:
            continue
        if mine == other:
            return index
        long_enough = min(len(mine.split()), len(other.split())) >= NEAR_DUPLICATE_MIN_WORDS
        if long_enough and difflib.SequenceMatcher(None, mine, other).ratio() >= NEAR_DUPLICATE_RATIO:
            return index
    return None
