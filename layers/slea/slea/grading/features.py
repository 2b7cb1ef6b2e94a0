"""The evidence about one short answer as the fitted model's input: a fixed list of numbers.

Every feature is a property of the answer against its own question (reference, keywords, stem):
nothing depends on other learners' answers, so an answer is graded the same whoever answered
before it. The fitting script (bench/fit_grader.py) computes exactly these, through this module,
on human-graded corpora; the layer ships only the coefficients (`model.json`).
"""

import math
from dataclasses import dataclass

from slea.grading.evidence import Evidence

FULL_COVERAGE = 0.32  # `meaning` at which an answer covers the reference's ideas
KEYWORD_SHARE = 0.35  # of the key-concept points, the share the expected keywords earn

FEATURE_NAMES: tuple[str, ...] = (
    "rubric",  # the 40/40/20 rubric's points from the evidence, / 100
    "coverage",  # min(1, (0.8 bounded recall + 0.2 phrase order) / FULL_COVERAGE)
    "bounded_recall",
    "recall",
    "order",
    "alignment",
    "on_topic",
    "keyword_coverage",
    "question_share",  # share of the answer's weight that only restates the question
    "prose",
    "fragment_for_prose_reference",
    "answer_words_log",
    "length_ratio_log",  # answer words against reference words
    "matched_terms_log",
    "negation_mismatch",  # clauses restating the reference with the opposite polarity (contradiction.py)
    "opposites_swapped",  # reference terms swapped for their opposites
    "unsupported_share",  # share of the answer's weight in clauses off the reference
    "similarity",  # semantic cosine of answer and reference (NaN without vectors: see below)
    "similarity_gap",  # similarity to the reference minus similarity to the question
)
# Where no vector applies (Korean text, an answer of unknown words), the similarity features are
# NaN and the model reads them as their average in the training data: they then add nothing,
# neither for nor against the answer (all training corpora are English, so a "missing" indicator
# would learn nothing true about Korean).
MISSING = math.nan


def meaning_of(evidence: Evidence) -> float:
    return 0.8 * evidence.bounded_recall + 0.2 * evidence.order


def coverage_of(evidence: Evidence) -> float:
    return min(1.0, meaning_of(evidence) / FULL_COVERAGE)


@dataclass(frozen=True)
class RubricPoints:
    key_concepts: int  # of 40
    correctness: int  # of 40
    clarity: int  # of 20

    @property
    def total(self) -> int:
        return self.key_concepts + self.correctness + self.clarity


def rubric_points(evidence: Evidence) -> RubricPoints:
    """The spec's rubric from the evidence: key concepts (40) from the keywords and the
    reference's key terms, correctness (40) from how much of the reference's meaning the answer
    carries and how much of it is on topic, clarity (20) from sentences and completeness."""
    coverage = coverage_of(evidence)
    key_share = KEYWORD_SHARE if evidence.material.keywords else 0.0
    key_concepts = 40 * (key_share * evidence.keyword_coverage + (1 - key_share) * coverage)
    if not evidence.answer.content_terms:
        topicality = 0.0
    elif evidence.reference_is_thin:  # too little reference to tell what is off topic
        topicality = 1.0
    else:
        topicality = min(1.0, 0.4 + evidence.on_topic)
    correctness = 40 * coverage * topicality
    clarity = (20 if evidence.prose else 12) * (0.5 + 0.5 * coverage)
    return RubricPoints(round(key_concepts), round(correctness), round(clarity))


def _question_share(evidence: Evidence) -> float:
    stem_units = set(evidence.stem.units)
    reference_units = set(evidence.reference_weights)
    content = evidence.answer.content_terms
    total = sum(term.weight for term in content)
    restated = sum(term.weight for term in content if term.unit in stem_units and term.unit not in reference_units)
    return restated / total if total else 0.0


def features(
    evidence: Evidence, similarity: float | None, question_similarity: float | None = None
) -> dict[str, float]:
    """The model's inputs, named as in FEATURE_NAMES. `similarity` is the semantic cosine of the
    answer and the reference, `question_similarity` of the answer and the question (None where no
    vector applies, e.g. Korean text)."""
    answer_words = evidence.answer.word_count
    reference_words = evidence.reference.word_count
    gap = MISSING
    if similarity is not None and question_similarity is not None:
        gap = similarity - question_similarity
    values = {
        "rubric": rubric_points(evidence).total / 100,
        "coverage": coverage_of(evidence),
        "bounded_recall": evidence.bounded_recall,
        "recall": evidence.recall,
        "order": evidence.order,
        "alignment": evidence.alignment,
        "on_topic": evidence.on_topic,
        "keyword_coverage": evidence.keyword_coverage,
        "question_share": _question_share(evidence),
        "prose": float(evidence.prose),
        "fragment_for_prose_reference": float(not evidence.prose and evidence.reference_is_prose),
        "answer_words_log": math.log1p(answer_words),
        "length_ratio_log": math.log((answer_words + 1) / (reference_words + 1)),
        "matched_terms_log": math.log1p(len(evidence.matched)),
        "negation_mismatch": evidence.negation_mismatch,
        "opposites_swapped": min(3.0, evidence.opposites_swapped),
        "unsupported_share": evidence.unsupported_share,
        "similarity": similarity if similarity is not None else MISSING,
        "similarity_gap": gap,
    }
    return {name: values[name] for name in FEATURE_NAMES}
