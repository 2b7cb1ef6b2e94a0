"""Grading an answer: multiple choice and true/false by the key (pure), a short answer by the
offline evidence and, with a model configured, the model's grade checked against that evidence.

- Multiple choice: the answer names the keyed choice (its letter or its text, see
  contracts/answers.py), else an exact case-insensitive match. True/false: true/false in either
  language (True/False, 참/거짓, O/X). 100 or 0.
- Short answer (short_answers.py, loaded with the first one): the 40/40/20 rubric plus keyword
  matches; correct at 80+; a model failure gives the default score, not correct, with a note. A
  grade the evidence does not make final (or any flag) marks the attempt `needs_review`. An
  answer that agrees with another item of the session's reference better than with its own is
  not correct (grading/other_items.py), and one the grader cannot tell from another item's
  reference goes to review. docs/grading.md has the method and its figures.
"""

from typing import Any

from slea.constants import HIGH_SCORE_THRESHOLD, PARTIAL_CREDIT_RANGE, Language
from slea.contracts.answers import choice_index, truth_value
from slea.contracts.llm import GradingItem
from slea.contracts.scoring import ScoreAnswerInput
from slea.dal.question_records import AnswerSchema, StoredQuestion
from slea.feedback.references import for_learner
from slea.language.scoring_phrases import phrase
from slea.logic.answering.grades import Grade, ShortAnswerReads, language


def grading_item(request: ScoreAnswerInput, stored: StoredQuestion | None, shown_texts: list[str]) -> GradingItem:
    """What the grader and the explainer know of the question: the request's key, the stored
    question's stem, reference, explanation, sources and per-option notes."""
    answer_schema = stored.answer_schema if stored is not None else AnswerSchema()
    item = GradingItem(
        question_type=request.question_type,
        user_answer=request.user_answer,
        stem=stored.stem if stored is not None else None,
        choices=request.choices or list((stored.choices if stored is not None else None) or []),
        correct_answer=request.correct_answer,
        correct_keywords=request.correct_keywords or [],
        reference_answer=request.reference_answer or answer_schema.reference_answer,
        reference_explanation=answer_schema.explanation,
        shown_texts=shown_texts,
        difficulty=request.difficulty,
        category=request.category or (stored.category if stored is not None else None),
        sources=list(answer_schema.sources),
        choice_notes=list(answer_schema.choice_notes),
    )
    # A Korean item with no source of its own is offered its English twin's, labelled as English.
    sources = for_learner(item.sources, language(item), item.reference_explanation, item.stem)
    return item.model_copy(update={"sources": sources})


def feedback_line(score: int, in_language: Language = "en", *, non_answer: bool = False) -> str | None:
    if score >= HIGH_SCORE_THRESHOLD:
        return None
    if non_answer:  # "I don't know": no reproach, the way on
        return phrase(in_language, "non_answer")
    low, high = PARTIAL_CREDIT_RANGE
    return phrase(in_language, "partial" if low <= score <= high else "constructive")


def _multiple_choice_correct(answer: str, key: str, choices: list[str]) -> bool:
    """The exact case-insensitive match, or (when the choices are known) the same choice named by
    letter or by text."""
    if answer.strip().casefold() == key.strip().casefold():
        return True
    keyed = choice_index(key, choices) if choices else None
    return keyed is not None and choice_index(answer, choices) == keyed


def keyed_outcome(item: GradingItem) -> bool:
    """Multiple choice or true/false: whether the answer names the key (pure, no I/O)."""
    answer_key = item.correct_answer or ""
    if item.question_type == "multiple_choice":
        return _multiple_choice_correct(item.user_answer, answer_key, item.choices)
    expected = truth_value(answer_key)
    return expected is not None and truth_value(item.user_answer) == expected


def grade(item: GradingItem, reads: ShortAnswerReads | None = None) -> Grade:
    """Grade the answer in `item` (unchanged: `graded_item` is the item the explainer reads). A
    short answer is graded by `short_answers.py` against what was read with it (`reads`).

    Short-answer grading is imported here, not at the top: multiple-choice and true/false answers
    (most of them) never need it, and loading it is a large part of a cold start."""
    if item.question_type == "short_answer":
        from slea.logic.answering.short_answers import grade_read  # noqa: PLC0415 - short answers only

        return grade_read(item, reads or ShortAnswerReads())
    correct = keyed_outcome(item)
    return Grade(score=100 if correct else 0, is_correct=correct)


def graded_item(item: GradingItem, grade: Grade) -> GradingItem:
    """`item` as the explainer reads it once graded: its outcome and, for a short answer, the
    keywords the evidence found in it and whether it was no answer at all."""
    update: dict[str, Any] = {"is_correct": grade.is_correct}
    if item.question_type == "short_answer":
        update |= {"keyword_matches": list(grade.keyword_matches), "non_answer": grade.non_answer}
    return item.model_copy(update=update)
