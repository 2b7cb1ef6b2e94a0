"""A saved question as the layers above read it: a frozen record built from the stored item in one
place (`stored_question`), so the table's attribute names and wire formats stay in dal/.

Tool 5 writes every field of the content and placement (logic/generation/saving.py
`question_item`); the rest came later or is written by answers and reviews, so an item may lack
it and the record says so honestly: None, 0 or empty. A bank item's learnt difficulty
(`difficulty_b`, `difficulty_precision`, `item_answers`) and its `language` and `topics` came with
the bank; a drawn copy has `item_id` but none of its own learnt difficulty; the answer counters
(`usage_count`, `correct_count`), `answered_at`, `answered_attempt_key`, `skipped_at`,
`stats_flag` and the review fields exist once an answer, a skip or a reviewer wrote them. An
author's item carries `authored_by`; a learner's report adds to `reports`.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, cast

from slea.constants import QuestionType


@dataclass(frozen=True, slots=True)
class AnswerSchema:
    """The answer key and what is kept with it, never shown before the answer."""

    correct_key: str | None = None  # multiple choice and true/false
    correct_keywords: tuple[str, ...] | None = None  # short answer
    reference_answer: str | None = None
    explanation: str | None = None
    validation_score: float | None = None  # Tool 4's score (None: never validated)
    sources: tuple[Mapping[str, Any], ...] = ()  # contracts' Source, as stored
    choice_notes: tuple[Mapping[str, Any], ...] = ()  # contracts' ChoiceNote, as stored
    # The whole map as stored: what a write that changes the key keeps of the rest (dal/review_writes.py).
    as_stored: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class QuestionReport:
    """A learner's report of a question (why, when), kept on it for a reviewer."""

    reason: str
    at: str


@dataclass(frozen=True, slots=True)
class StoredQuestion:
    question_id: str
    item_type: QuestionType  # as Tool 5 validated it
    stem: str
    # None and [] are kept apart: both are in the graded request's identity (an attempt's key).
    choices: tuple[str, ...] | None
    answer_schema: AnswerSchema
    difficulty: int | None  # the label, 1-10
    category: str | None
    categories: tuple[str, ...] = ()
    session_id: str | None = None  # None: an author's item, kept outside every session
    round: int = 1
    round_id: str | None = None
    created_at: str | None = None
    language: str | None = None
    topics: tuple[str, ...] = ()
    # The bank: `item_id` is the bank item (the question's own id, or the original of a drawn copy).
    item_id: str | None = None
    difficulty_b: float | None = None  # learnt online (None: its label's prior)
    difficulty_precision: float | None = None
    item_answers: int = 0
    bank_key: str | None = None
    # Answers and skips.
    usage_count: int = 0
    correct_count: int = 0
    answered_at: str | None = None
    answered_attempt_key: str | None = None
    skipped_at: str | None = None
    stats_flag: str | None = None
    # Reviews.
    status: str | None = None  # "retired" once a reviewer took it out
    review_state: str | None = None
    queued_at: str | None = None
    review_reasons: frozenset[str] = frozenset()
    retired_at: str | None = None
    retired_category: str | None = None
    rested_at: str | None = None
    rest_reason: str | None = None
    edited_at: str | None = None
    authored_by: str | None = None  # an author's item: who wrote it
    reports: tuple[QuestionReport, ...] = ()

    @property
    def bank_item_id(self) -> str:
        """The bank item this question counts for: a drawn copy's original, else itself."""
        return self.item_id or self.question_id


def _text(item: Mapping[str, Any], name: str) -> str | None:
    value = item.get(name)
    return None if value is None else str(value)


def _count(item: Mapping[str, Any], name: str) -> int:
    return int(item.get(name) or 0)


def _number(item: Mapping[str, Any], name: str) -> float | None:
    value = item.get(name)
    return float(value) if isinstance(value, int | float | Decimal) and not isinstance(value, bool) else None


def _texts(value: Any) -> tuple[str, ...]:
    return tuple(str(entry) for entry in value or ())


def _answer_schema(stored: Any) -> AnswerSchema:
    schema: Mapping[str, Any] = stored if isinstance(stored, Mapping) else {}
    keywords = schema.get("correct_keywords")
    return AnswerSchema(
        correct_key=_text(schema, "correct_key"),
        correct_keywords=None if keywords is None else _texts(keywords),
        reference_answer=_text(schema, "reference_answer"),
        explanation=_text(schema, "explanation"),
        validation_score=_number(schema, "validation_score"),
        sources=tuple(schema.get("sources") or ()),
        choice_notes=tuple(schema.get("choice_notes") or ()),
        as_stored=dict(schema),
    )


def _reports(stored: Any) -> tuple[QuestionReport, ...]:
    return tuple(
        QuestionReport(reason=str(report.get("reason", "")), at=str(report.get("at", "")))
        for report in stored or ()
        if isinstance(report, Mapping)
    )


def stored_question(item: Mapping[str, Any]) -> StoredQuestion:
    """The record of a stored question item (as `wire_format.from_item` gives it)."""
    choices = item.get("choices")
    difficulty = item.get("difficulty")
    return StoredQuestion(
        question_id=str(item.get("question_id") or ""),
        item_type=cast(QuestionType, str(item.get("item_type") or "")),
        stem=str(item.get("stem") or ""),
        choices=None if choices is None else _texts(choices),
        answer_schema=_answer_schema(item.get("answer_schema")),
        difficulty=int(difficulty) if difficulty is not None else None,
        category=_text(item, "category"),
        categories=_texts(item.get("categories")),
        session_id=_text(item, "session_id"),
        round=int(item.get("round", 1) or 1),
        round_id=_text(item, "round_id"),
        created_at=_text(item, "created_at"),
        language=_text(item, "language"),
        topics=_texts(item.get("topics")),
        item_id=_text(item, "item_id"),
        difficulty_b=_number(item, "difficulty_b"),
        difficulty_precision=_number(item, "difficulty_precision"),
        item_answers=_count(item, "item_answers"),
        bank_key=_text(item, "bank_key"),
        usage_count=_count(item, "usage_count"),
        correct_count=_count(item, "correct_count"),
        answered_at=_text(item, "answered_at"),
        answered_attempt_key=_text(item, "answered_attempt_key"),
        skipped_at=_text(item, "skipped_at"),
        stats_flag=_text(item, "stats_flag"),
        status=_text(item, "status"),
        review_state=_text(item, "review_state"),
        queued_at=_text(item, "queued_at"),
        review_reasons=frozenset(_texts(item.get("review_reasons"))),
        retired_at=_text(item, "retired_at"),
        retired_category=_text(item, "retired_category"),
        rested_at=_text(item, "rested_at"),
        rest_reason=_text(item, "rest_reason"),
        edited_at=_text(item, "edited_at"),
        authored_by=_text(item, "authored_by"),
        reports=_reports(item.get("reports")),
    )
