"""Grading an answer: multiple choice and true/false by the key (pure), a short answer by the
offline evidence and, with a model configured, the model's grade checked against that evidence.

- Multiple choice: the answer names the keyed choice (its letter or its text, see
  contracts/answers.py), else an exact case-insensitive match. True/false: true/false in either
  language (True/False, 참/거짓, O/X). 100 or 0.
- Short answer: the 40/40/20 rubric plus keyword matches; correct at 80+; a model failure gives
  the default score, not correct, with a note. A grade the evidence does not make final (or any
  flag) marks the attempt `needs_review`. An answer that agrees with another item of the
  session's reference better than with its own is not correct (grading/other_items.py), and one
  the grader cannot tell from another item's reference goes to review. docs/grading.md has the
  method and its figures.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from slea.constants import DEFAULT_SCORING_LLM_SCORE, HIGH_SCORE_THRESHOLD, PARTIAL_CREDIT_RANGE, Language
from slea.contracts.answers import choice_index, truth_value
from slea.contracts.llm import GradingItem, ShortAnswerGrade
from slea.contracts.scoring import ScoreAnswerInput
from slea.dal.question_records import AnswerSchema, StoredQuestion
from slea.feedback.references import for_learner
from slea.language.detect import question_language
from slea.language.scoring_phrases import phrase
from slea.llm import budget
from slea.llm.model_settings import LLMSettings
from slea.llm.provider import LLMError
from slea.llm.provider_choice import get_provider
from slea.platform.observability import logger

if TYPE_CHECKING:
    from slea.grading.answer_groups import Exemplar
    from slea.grading.offline import OfflineGrade
    from slea.grading.other_items import Reference


@dataclass(frozen=True)
class OtherPrints:
    """The reference prints of the category's short-answer items (read with the answer), and the
    ids the question's own item is kept under (its print is not another item's)."""

    prints: dict[str, list[int]]
    own_items: tuple[str, ...] = ()


@dataclass(frozen=True)
class Grade:
    score: int
    is_correct: bool
    needs_review: bool = False
    confidence: float = 1.0
    note: str | None = None  # the model was unavailable: said to the learner
    short_answer: ShortAnswerGrade | None = None
    probability: float | None = None  # the offline evidence's probability of "correct" (short answers)


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
    item.sources = for_learner(item.sources, language(item), item.reference_explanation, item.stem)
    return item


def language(item: GradingItem) -> Language:
    """The question's language, which every fixed phrase of its grading is written in."""
    return question_language(item.stem, item.choices, item.reference_answer, item.reference_explanation)


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


def other_references(question_id: str, session: list[StoredQuestion]) -> list["Reference"]:
    """The reference answers of the session's other short-answer items (read with the session's
    questions: no call of its own)."""
    from slea.grading.other_items import Reference  # noqa: PLC0415 - short answers only

    return [
        Reference(
            reference=question.answer_schema.reference_answer or "",
            keywords=question.answer_schema.correct_keywords or (),
            stem=question.stem,
        )
        for question in session
        if question.question_id != question_id
        and question.item_type == "short_answer"
        and question.answer_schema.reference_answer
    ]


def _checked_against_others(
    graded: ShortAnswerGrade,
    item: GradingItem,
    evidence: "OfflineGrade",
    others: Sequence["Reference"],
    prints: OtherPrints | None = None,
) -> ShortAnswerGrade:
    """The grade, not correct if the answer agrees better with another item's reference, and not
    final if another reference is about as close; not correct either if it holds most of the
    reference of another item of the category (its print: grading/reference_prints.py). The flag
    is for reviewers; the learner is told only that the grade is provisional (naming the other
    item would say what its key is like)."""
    from slea.grading.other_items import FLAG, other_match  # noqa: PLC0415

    if prints is not None and prints.prints:
        from slea.grading.reference_prints import pasted_from  # noqa: PLC0415

        pasted = pasted_from(item.user_answer, item.reference_answer or "", prints.prints, prints.own_items)
        if pasted is not None:  # another item's reference, from any session or the bank
            score = min(graded.score, HIGH_SCORE_THRESHOLD - 1)
            flags = graded.flags if FLAG in graded.flags else [*graded.flags, FLAG]
            graded = graded.model_copy(update={"score": score, "flags": flags, "final": False})
    if not others or graded.score <= 0:
        return graded
    from slea.grading.short_answer_evidence import material_for  # noqa: PLC0415

    match = other_match(material_for(item), evidence.score, others)
    if match is None or not match.undecided:
        return graded
    flags = [*graded.flags, FLAG]
    if match.better_elsewhere:
        score = min(graded.score, HIGH_SCORE_THRESHOLD - 1)
        return graded.model_copy(update={"score": score, "flags": flags, "final": False})
    return graded.model_copy(update={"flags": flags, "final": False})


def _short_answer_grade(
    item: GradingItem,
    others: Sequence["Reference"] = (),
    exemplars: Sequence["Exemplar"] = (),
    prints: OtherPrints | None = None,
) -> tuple[ShortAnswerGrade, str | None, float | None]:
    """The grade and, when the model was unavailable, a note for the learner. The offline
    evidence is always computed: it gives the keyword matches and the form checks, and with a
    model it is the second opinion whose disagreement lowers the model's confidence.

    The grading modules are imported here, not at the top: multiple-choice and true/false answers
    (most of them) never need them, and loading them is a large part of a cold start."""
    from slea.grading.short_answer_evidence import as_short_answer_grade, grade_with_evidence  # noqa: PLC0415
    from slea.grading.verdict import with_second_opinion  # noqa: PLC0415

    evidence = grade_with_evidence(item)
    item.keyword_matches = evidence.keyword_matches
    item.non_answer = evidence.non_answer is not None
    if item.non_answer:
        # No answer at all ("I don't know", the question copied back): final and incorrect at once,
        # whatever a model, another item's reference or a reviewed answer would add.
        return as_short_answer_grade(evidence), None, None
    provider = get_provider()
    if provider.name != "offline" and not budget.call_fits(LLMSettings.from_environment()):
        logger.warning("no time left for the model's grading, using the offline grader")
        fallback = as_short_answer_grade(evidence)
        fallback = fallback.model_copy(update={"confidence": min(fallback.confidence, 0.5), "final": False})
        return _checked_against_others(fallback, item, evidence, others, prints), None, None
    from slea.logic.answering.exemplars import examples_for, with_exemplars  # noqa: PLC0415

    if provider.name != "offline":  # a model grades consistently with the item's reviewed answers
        item.graded_examples = examples_for(item.user_answer, list(exemplars))
    try:
        graded = provider.grade_short_answer(item)
    except LLMError as error:
        logger.warning("short-answer grading failed, using the default score", extra={"reason": str(error)})
        note = phrase(language(item), "grading_unavailable", reason=str(error))
        return ShortAnswerGrade(score=DEFAULT_SCORING_LLM_SCORE, reasoning=note, confidence=0.0), note, None
    finally:
        item.graded_examples = []  # other learners' answers go no further than the grader
    if provider.name != "offline":
        graded = with_second_opinion(graded, evidence)
    graded = _checked_against_others(graded, item, evidence, others, prints)
    # What reviewers graded of this item decides a grade the evidence left provisional.
    probability = evidence.probability_correct
    return with_exemplars(graded, evidence, item.user_answer, list(exemplars)), None, probability


def grade(
    item: GradingItem,
    others: Sequence["Reference"] = (),
    exemplars: Sequence["Exemplar"] = (),
    prints: OtherPrints | None = None,
) -> Grade:
    """Grade the answer in `item` and set `item.is_correct` (the explainer reads it); `others`:
    the references of the session's other short-answer items; a short answer is also compared
    with its item's reviewed answers (`exemplars`) and the reference prints of its category's
    items (`prints`)."""
    if item.question_type == "short_answer":
        graded, note, probability = _short_answer_grade(item, others, exemplars, prints)
        result = Grade(
            score=graded.score,
            is_correct=graded.score >= HIGH_SCORE_THRESHOLD and note is None,
            needs_review=note is not None or bool(graded.flags) or not graded.final,
            confidence=graded.confidence,
            note=note,
            short_answer=graded,
            probability=probability,
        )
    else:
        correct = keyed_outcome(item)
        result = Grade(score=100 if correct else 0, is_correct=correct)
    item.is_correct = result.is_correct
    return result
