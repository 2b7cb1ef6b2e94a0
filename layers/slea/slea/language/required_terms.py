"""The key terms an answer is held to: ideas, never product names unless the question asks for one.

A short answer's keywords are written with its reference answer and may hold the name of a
product, a service or a vendor the reference happened to use as an example ("producer-consumer,
RabbitMQ, dead-letter"). An answer that explains the idea with another product, or none, is not
missing anything; telling the learner "your answer did not mention: RabbitMQ", or counting it
against the key-concept points, treats a brand as knowledge. One rule, used by the grader's key
term set (grading/short_answer_evidence.material_for) and by the feedback's "did not mention" list
(feedback/short_answer.py), so the two never disagree:

- a keyword is a proper name when it is written as one: a capital inside a word after a small
  letter ("RabbitMQ", "DynamoDB", "PostgreSQL", "PyTorch"), or capitalised wherever the item's
  texts write it (never in small letters) and at least once in the middle of a sentence
  ("Kafka", "Apache Kafka"), where a common noun would be written small;
- acronyms ("ACID", "RAG", "TTL") are ideas here: they name concepts as often as products, and
  Korean words have no case, so a Korean keyword is never a name;
- a name the question itself uses is kept (the question is about it), and so is the item's own
  concept (the head of its stored explanation, "Name (ACR): definition"), and every keyword when
  the question asks for a tool, product, service or the like ("which tool ...", "어떤 도구");
- if every keyword would go, none goes: an item whose key terms are all names asks for names.
"""

import re
from collections.abc import Sequence

# A small letter followed by a capital inside one word: how product names are written.
INNER_CAPITAL = re.compile(r"[a-z][A-Z]")
WORD = re.compile(r"[A-Za-z][\w.+#-]*")
SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n\s*|[-*•]\s+|\(\s*)$")
ASKS_FOR_A_PRODUCT = re.compile(
    r"\b(?:tools?|products?|services?|vendors?|librar(?:y|ies)|frameworks?|platforms?|software|brands?|"
    r"implementations?|engines?|offerings?)\b|도구|제품|서비스|라이브러리|프레임워크|플랫폼|소프트웨어|솔루션",
    re.IGNORECASE,
)
ACRONYM_MAX = 6
CONCEPT_HEAD_MAX = 80


def _is_acronym(word: str) -> bool:
    letters = [char for char in word if char.isalpha()]
    return bool(letters) and all(char.isupper() for char in letters) and len(letters) <= ACRONYM_MAX


def _written_as_a_name(term: str, texts: Sequence[str]) -> bool:
    words = WORD.findall(term)
    if not words or term != term.strip() or any(not word[0].isupper() for word in words):
        return False  # a small word, or a Korean one: an idea
    if all(_is_acronym(word) for word in words):
        return False
    if any(INNER_CAPITAL.search(word) for word in words):
        return True
    found = [
        (text, match.start())
        for text in texts
        for match in re.finditer(rf"(?<![\w-]){re.escape(term)}(?![\w-])", text, re.IGNORECASE)
    ]
    if not found or any(text[start : start + len(term)] != term for text, start in found):
        return False  # nowhere to read it from, or written small somewhere: a common noun
    return any(not SENTENCE_START.search(text[:start]) for text, start in found)


def _concept_head(explanation: str | None) -> str:
    head = (explanation or "").split(":", 1)[0].strip()
    return head if explanation and ":" in explanation and len(head) <= CONCEPT_HEAD_MAX else ""


def required_terms(keywords: Sequence[str], stem: str | None, sources: Sequence[str | None]) -> list[str]:
    """The `keywords` an answer is held to: those that are ideas, the product and vendor names
    left out unless the question (`stem`) uses them or asks for a product. `sources`: the texts
    the keywords were written with (reference answer, stored explanation), where their casing is
    read; the first text whose head is "Name: ..." names the item's own concept, always kept."""
    stem = stem or ""
    if not keywords or ASKS_FOR_A_PRODUCT.search(stem):
        return list(keywords)
    texts = [text for text in (stem, *sources) if text]
    folded_stem = stem.casefold()
    heads = [_concept_head(text).casefold() for text in sources if text]

    def kept(term: str) -> bool:
        folded = term.casefold().strip()
        if folded and (folded in folded_stem or any(folded and folded in head for head in heads if head)):
            return True
        return not _written_as_a_name(term.strip(), texts)

    ideas = [keyword for keyword in keywords if kept(keyword)]
    return ideas or list(keywords)
