"""Answers that are no answer, finalised as incorrect at once (a reviewer has nothing to decide):

- **declined**: the learner says they do not know ("I don't know", "I really don't know the
  answer to this", "모르겠습니다", "잘 모르겠어요", "기억이 안 나요"), with nothing else but words
  about the question itself ("I don't know what RAG is" holds only the question's own words);
- **stem repeated**: the question copied back, once or several times, with nothing added;
- **stem with a term list**: the question copied back with a bare list of terms (its keywords,
  say) after or before it;
- **keyword list**: three or more bare terms, all of them the item's own keywords or the
  question's words, to a question that asks what something is, why or how (not one that asks to
  name or list things): the terms named, nothing said about them.

Any other bare list of terms is not one of them: to "What are the objectives of IPv6?" or "How
many comparisons ...?" a list ("O(log n)") is often right (on the human-graded corpora, 52 of the
145 answers that are lists to a reference written in sentences were graded correct, and 4 of the 6
lists of three or more terms to a "describe" or "explain" question, each in words of its own), so
it stays flagged for a reviewer (`evidence.py`). Nor is an answer that names the concept with a doubt
("I'm not sure, but it retrieves documents first"): it holds words of its own.
"""

import re

from rapidfuzz import fuzz

from slea.grading.terms import Text, is_inflected

# A decline anywhere in the answer (the rest is then read for anything beyond the question).
DECLINE = re.compile(
    r"\b(?:i\s+)?(?:(?:really|honestly|just|simply)\s+)?(?:do\s+not|don'?t|dont|did\s+not|didn'?t)\s+know\b"
    r"|\bno\s+(?:idea|clue)\b|\bnot\s+sure\b|\bidk\b|\bdunno\b|\bno\s+answer\b"
    r"|\b(?:can'?t|cannot|don'?t|do\s+not)\s+(?:remember|recall)\b|\b(?:i\s+)?forg[eo]t(?:ten)?\b"
    r"|\bhave\s+not\s+learn(?:ed|t)\b|\bhaven'?t\s+learn(?:ed|t)\b"
    r"|모르겠\w*|모릅니다|모름|몰라\w*|모르\w*|기억(?:이|은|도)?\s*(?:안\s*나\w*|나지\s*않\w*)|잘\s*모르\w*"
    r"|생각(?:이|은)?\s*(?:안\s*나\w*|나지\s*않\w*)|배우지\s*않\w*|안\s*배웠\w*|답(?:을|은)?\s*(?:모르|없)\w*",
    re.IGNORECASE,
)
# Words about the question or the speaker, not about the subject: what may stand beside a decline.
META_WORDS = frozenset(
    [
        "i",
        "im",
        "i'm",
        "me",
        "my",
        "really",
        "honestly",
        "sorry",
        "unfortunately",
        "exactly",
        "sure",
        "answer",
        "answers",
        "question",
        "questions",
        "this",
        "that",
        "it",
        "topic",
        "subject",
        "part",
        "one",
        "yet",
        "now",
        "what",
        "how",
        "why",
        "which",
        "is",
        "are",
        "the",
        "a",
        "an",
        "to",
        "of",
        "about",
        "know",
        "idea",
        "clue",
        "remember",
        "recall",
        "well",
        "hmm",
        "um",
        "uh",
        "actually",
        "quite",
        "anything",
        "much",
        "here",
    ]
)
META_KOREAN = (
    "잘",
    "정말",
    "솔직히",
    "죄송",
    "미안",
    "정확히",
    "아직",
    "이",
    "그",
    "저",
    "이건",
    "이것",
    "문제",
    "질문",
    "답",
    "정답",
    "내용",
    "부분",
    "뭔지",
    "무엇",
    "어떻게",
    "왜",
    "전혀",
    "사실",
    "음",
)
# What may stand beside copies of the question for it to be copied back "with nothing added": any
# other word may be the answer ("... of merge sort is one.": "one" is it).
FILLER = frozenset(
    [
        "and",
        "so",
        "again",
        "the",
        "a",
        "an",
        "i",
        "it",
        "is",
        "this",
        "that",
        "question",
        "answer",
        "그리고",
        "다시",
        "질문",
        "문제",
    ]
)
STEM_COPY_RATIO = 90  # rapidfuzz partial_ratio: the stem appears in the answer
LIST_PIECE_WORDS = 3  # a piece of a bare list: a term, not a sentence
LIST_SEPARATORS = re.compile(r"[,;/|\n·•]+")
KEYWORD_LIST_PIECES = 3  # "TCP, UDP" may be the answer to a question about two things
# A question that asks for names or a list: a bare list of its keywords may be its answer.
ASKS_FOR_NAMES = re.compile(
    r"\b(?:list|name|names|which|identify|enumerate|how\s+many|give\s+(?:\w+\s+)?examples?"
    r"|what\s+are\s+the\s+(?:\w+\s+)?(?:types|kinds|steps|stages|layers|components|parts|elements|objectives))\b"
    r"|나열|열거|종류|몇\s*(?:개|가지)|이름을",
    re.IGNORECASE,
)


def _beyond(text: str, stem_units: set[str]) -> list[str]:
    """The words of `text` that say something: not function words, not the question's own words,
    not words about the question or the speaker."""
    found = []
    parsed = Text(text)
    content = {term.word for term in parsed.content_terms if term.unit not in stem_units}
    for index, word in enumerate(parsed.words):
        if index not in content:
            continue
        if word.script == "latin" and word.text in META_WORDS:
            continue
        if word.script == "hangul" and word.text.startswith(META_KOREAN):
            continue
        found.append(word.text)
    return found


def _declined(answer: str, stem_units: set[str]) -> bool:
    if not DECLINE.search(answer):
        return False
    rest = DECLINE.sub(" ", answer)
    return not _beyond(rest, stem_units)


def _without_stem(answer: str, stem: str) -> str | None:
    """The answer with every copy of the stem taken out, or None when the stem is not in it."""
    stem = " ".join(stem.split())
    rest = " ".join(answer.split())
    if len(stem) < 10:
        return None
    copied = False
    while rest:
        found = fuzz.partial_ratio_alignment(stem.casefold(), rest.casefold())
        if found is None or found.score < STEM_COPY_RATIO or found.dest_end - found.dest_start < 0.8 * len(stem):
            break
        copied = True
        rest = f"{rest[: found.dest_start]} {rest[found.dest_end :]}".strip()
    return rest if copied else None


def _bare_list(text: str) -> bool:
    pieces = [piece for piece in LIST_SEPARATORS.split(text) if piece.strip()]
    if not pieces:
        return False
    if len(pieces) == 1:  # "retrieval generation vectors": terms without a function word or ending
        words = Text(text).words
        return 0 < len(words) <= 2 * LIST_PIECE_WORDS and not _reads_as_sentence(text)
    return all(len(Text(piece).words) <= LIST_PIECE_WORDS for piece in pieces)


def _reads_as_sentence(text: str) -> bool:
    parsed = Text(text)
    if parsed.is_korean:
        return any(word.script == "hangul" and is_inflected(word.text) for word in parsed.words)
    return any(term.is_function_word for term in parsed.terms)


def kind(answer: str, stem: str, keywords: list[str] | None = None) -> str | None:
    """Which kind of non-answer `answer` is to the question `stem` whose item lists `keywords`
    (None: it is an answer)."""
    stem_units = set(Text(stem).units)
    if _declined(answer, stem_units):
        return "declined"
    if keywords and _keyword_list(answer, stem, stem_units, keywords):
        return "keyword_list"
    rest = _without_stem(answer, stem)
    if rest is None:
        return None
    added = _added_words(answer, stem_units)
    if not added:
        return "stem_repeated"
    if _bare_list(rest):
        return "stem_with_term_list"
    return None


def _keyword_list(answer: str, stem: str, stem_units: set[str], keywords: list[str]) -> bool:
    """Three or more bare terms, every one the item's keywords' or the question's words, to a
    question that does not ask for names: e.g. "producer-consumer, RabbitMQ, dead-letter"."""
    if ASKS_FOR_NAMES.search(stem):
        return False
    pieces = [piece for piece in LIST_SEPARATORS.split(answer) if piece.strip()]
    if len(pieces) < KEYWORD_LIST_PIECES or not _bare_list(answer):
        return False
    keyword_units = {unit for keyword in keywords for unit in Text(keyword).units}
    named = {term.unit for term in Text(answer).content_terms}
    return bool(named) and named <= keyword_units | stem_units and bool(named & keyword_units)


def _added_words(answer: str, stem_units: set[str]) -> list[str]:
    """The answer's words that the question does not hold (fillers aside)."""
    parsed = Text(answer)
    units: dict[int, set[str]] = {}
    for term in parsed.terms:
        units.setdefault(term.word, set()).add(term.unit)
    return [
        word.text
        for index, word in enumerate(parsed.words)
        if word.text not in FILLER and not units.get(index, set()) <= stem_units
    ]
