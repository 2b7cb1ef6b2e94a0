"""The offline evidence every short-answer grader uses: what an answer is compared with
(`material_for`), the grade the evidence gives (`grade_with_evidence`, `grading/offline.py`'s
method) and that grade as the graders' contract (`as_short_answer_grade`). The offline provider
grades with it alone; with a model configured it is the model's second opinion, and it gives every
grading its keyword matches and form checks (logic/answering/short_answers.py)."""

from slea.contracts.llm import GradingItem, ShortAnswerGrade
from slea.contracts.scoring import RubricPoints
from slea.grading.evidence import Material
from slea.grading.offline import OfflineGrade, grade
from slea.language.required_terms import required_terms


def material_for(item: GradingItem) -> Material:
    """What the answer is compared with: the reference answer (else the stored explanation, else
    the keywords alone), the keywords that are ideas (a product name the reference used as an
    example is no key concept unless the question asks for one: language/required_terms.py, the
    one rule the feedback's "did not mention" uses too), the stem, and the text shown to the learner."""
    reference = item.reference_answer or item.reference_explanation or ""
    sources = [text for text in (item.reference_answer, item.reference_explanation) if text]
    return Material(
        answer=item.user_answer,
        reference=reference,
        keywords=required_terms(item.correct_keywords, item.stem, sources),
        stem=item.stem or "",
        shown=[*item.choices, *item.shown_texts],
        listed_keywords=list(item.correct_keywords or []),
    )


def grade_with_evidence(item: GradingItem) -> OfflineGrade:
    return grade(material_for(item))


def as_short_answer_grade(offline: OfflineGrade) -> ShortAnswerGrade:
    points = offline.points
    return ShortAnswerGrade(
        score=offline.score,
        reasoning=offline.reasoning,
        points=RubricPoints(key_concepts=points.key_concepts, correctness=points.correctness, clarity=points.clarity),
        confidence=offline.confidence,
        flags=offline.flags,
        final=not offline.needs_review,
    )
