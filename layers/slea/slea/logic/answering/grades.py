"""What grading an answer returns, and what a short answer is graded against: values, built once
and never changed (grading.py grades a choice, short_answers.py a short answer).

They are named tuples, not frozen dataclasses: every handler that answers defines them at import,
and a named tuple costs a quarter of a frozen dataclass there (bench/cold_import.py)."""

from typing import Any, NamedTuple

from slea.constants import Language
from slea.contracts.llm import GradingItem, ShortAnswerGrade
from slea.dal.question_records import StoredQuestion
from slea.language.detect import question_language


class OtherPrints(NamedTuple):
    """The reference prints of the category's short-answer items (read with the answer), and the
    ids the question's own item is kept under (its print is not another item's)."""

    prints: dict[str, list[int]]
    own_items: tuple[str, ...] = ()


class ShortAnswerReads(NamedTuple):
    """What a short answer is compared with, as read with it: the session's questions (its other
    items' references), the reviewed answers and review groups of its bank item (the exemplar
    item's record), the reference prints of its category; and, for a grading that is recorded,
    the (bank item, attempt key) under which an answer sent to a reviewer joins a review group."""

    question_id: str = ""
    session: tuple[StoredQuestion, ...] = ()
    exemplars: dict[str, Any] | None = None
    prints: OtherPrints | None = None
    group: tuple[str, str] | None = None


class Grade(NamedTuple):
    score: int
    is_correct: bool
    needs_review: bool = False
    confidence: float = 1.0
    note: str | None = None  # the model was unavailable: said to the learner
    short_answer: ShortAnswerGrade | None = None
    probability: float | None = None  # the offline evidence's probability of "correct" (short answers)
    # Short answers: the keywords the evidence found in the answer, and whether it was no answer
    # at all ("I don't know", the question copied back); the explainer reads both (graded_item).
    keyword_matches: tuple[str, ...] = ()
    non_answer: bool = False
    # A short answer sent to a reviewer: the review group it joins, and the write of that group's
    # face if the group is new (it goes into the recording transaction).
    review_group: str | None = None
    group_face: dict[str, Any] | None = None

    @property
    def flagged(self) -> bool:
        """The grader flagged the short answer's form (a gaming or contradiction pattern)."""
        return bool(self.short_answer and self.short_answer.flags)


def language(item: GradingItem) -> Language:
    """The question's language, which every fixed phrase of its grading is written in."""
    return question_language(item.stem, item.choices, item.reference_answer, item.reference_explanation)
