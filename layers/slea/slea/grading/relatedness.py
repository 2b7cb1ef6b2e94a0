"""Whether an answer is about something else entirely ("Bananas are purple on Tuesdays", a rant
about the exam, an answer to another question): such an answer is finalised as incorrect instead
of waiting for a human.

A correct answer in other words must never be dismissed, and word statistics alone cannot tell
one from an unrelated answer (a casual correct paraphrase can share no word with the reference).
So two independent kinds of evidence must agree:
- lexical: the answer uses no term of the reference, the keywords or the question (not even a
  near-miss spelling), and matches no keyword (acronyms included);
- semantic, for English: the answer's meaning (`semantic.similarity`, word vectors) is far from
  the reference, from the question and from every keyword: below UNRELATED_MAX_SIMILARITY, a
  value set below every correct answer found that also passes the lexical test (constructed
  casual paraphrases sit at 0.36 and above; junk sentences mostly below 0.3; see
  bench/semantic_signal.py). Without the vectors nothing is dismissed.
- Korean: the vectors cannot read Hangul (see `semantic.py`), so the lexical test is made
  stricter instead: no character bigram at all (function words included) shared with the
  question, the reference or the keywords, and no Latin-script word in the answer (a technical
  term such as "AI" or "TCP" may well be on topic even when the reference spells it otherwise).
- An answer in another language than the reference (a Korean answer to an English question) has
  no words to compare and the vectors cannot read Korean: it is never dismissed.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from slea.grading.evidence import Evidence

UNRELATED_MAX_SIMILARITY = 0.12


def _shares_no_term(evidence: "Evidence") -> bool:
    return not evidence.matched and not evidence.keyword_matches and evidence.on_topic == 0.0


def semantic_closeness(evidence: "Evidence") -> float | None:
    """The answer's highest similarity to the reference, the question or any keyword (None
    without vectors or without readable words); usable as a model feature."""
    from slea.grading import semantic  # noqa: PLC0415 - loads word vectors: only when grading

    material = evidence.material
    found = [
        similarity
        for text in (material.reference, material.stem, *material.keywords)
        if text.strip() and (similarity := semantic.similarity(material.answer, text)) is not None
    ]
    return max(found, default=None)


def _korean_is_unrelated(evidence: "Evidence") -> bool:
    context = set(evidence.reference.units) | set(evidence.stem.units)
    for keyword in evidence.keyword_texts:
        context |= set(keyword.units)
    answer_units = set(evidence.answer.units)
    has_latin_word = any(word.script == "latin" for word in evidence.answer.words)
    return bool(answer_units) and not answer_units & context and not has_latin_word


def is_unrelated(evidence: "Evidence") -> bool:
    """True when the answer is about something else: lexical and semantic evidence agree."""
    if evidence.non_answer or evidence.reference_is_thin or not _shares_no_term(evidence):
        return False
    if evidence.answer.is_korean != evidence.reference.is_korean:
        return False  # another language than the reference: nothing to compare
    if evidence.reference.is_korean:
        return _korean_is_unrelated(evidence)
    closeness = semantic_closeness(evidence)
    return closeness is not None and closeness < UNRELATED_MAX_SIMILARITY
