"""The offline provider's short-answer grader: the evidence every grader uses
(`slea.grading.short_answer_evidence`; the method is documented in `slea.grading.offline`), the
40/40/20 rubric from text statistics against the question's reference answer, with a confidence
and form checks, given alone. Its explainer is `slea.feedback.offline_explanation`."""

from slea.contracts.llm import GradingItem, ShortAnswerGrade
from slea.grading.short_answer_evidence import as_short_answer_grade, grade_with_evidence


def grade_offline(item: GradingItem) -> ShortAnswerGrade:
    return as_short_answer_grade(grade_with_evidence(item))
