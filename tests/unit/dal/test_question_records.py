"""A stored question is read as one frozen record (slea.dal.question_records.stored_question)."""

import dataclasses
from decimal import Decimal

import pytest

from slea.dal.question_records import AnswerSchema, stored_question
from slea.dal.wire_format import from_item, to_item


def test_a_saved_question_reads_as_its_record():
    item = {
        "question_id": "q1",
        "session_id": "s1",
        "round": 2,
        "round_id": "s1#2",
        "item_type": "short_answer",
        "stem": "What is RAG?",
        "choices": None,
        "answer_schema": {
            "correct_keywords": ["retrieval", "generation"],
            "reference_answer": "Retrieval then generation.",
            "validation_score": Decimal("0.91"),
            "explanation": "RAG: ...",
            "sources": [{"title": "t", "url": "https://example.com"}],
        },
        "difficulty": 6,
        "category": "technical",
        "categories": ["technical"],
        "item_id": "q1",
        "difficulty_b": Decimal("0.25"),
        "difficulty_precision": Decimal(4),
        "item_answers": 3,
        "review_reasons": {"revise"},
    }
    record = stored_question(from_item(to_item(item)))  # as written, then read
    assert (record.question_id, record.session_id, record.round, record.item_type) == ("q1", "s1", 2, "short_answer")
    assert record.answer_schema.correct_keywords == ("retrieval", "generation")
    assert record.answer_schema.validation_score == 0.91
    assert record.answer_schema.sources == ({"title": "t", "url": "https://example.com"},)
    assert (record.difficulty, record.difficulty_b, record.difficulty_precision, record.item_answers) == (
        6,
        0.25,
        4.0,
        3,
    )
    assert record.review_reasons == frozenset({"revise"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.stem = "changed"  # type: ignore[misc]


def test_what_an_older_item_lacks_reads_as_none_or_empty():
    """Items saved before the bank, the counters or the reviews lack those fields."""
    record = stored_question({"question_id": "old", "item_type": "true_false", "stem": "S?", "difficulty": 5})
    assert record.answer_schema == AnswerSchema()
    assert (record.round, record.usage_count, record.correct_count, record.item_answers) == (1, 0, 0, 0)
    assert (record.item_id, record.difficulty_b, record.status, record.stats_flag, record.session_id) == (None,) * 5
    assert record.bank_item_id == "old"  # its own bank item
    assert stored_question({"question_id": "copy", "item_id": "orig"}).bank_item_id == "orig"


def test_no_choices_and_an_empty_list_stay_apart():
    """Both are part of a graded request's identity (an attempt's key): a retry must find the same."""
    assert stored_question({"question_id": "a", "choices": None}).choices is None
    assert stored_question({"question_id": "b", "choices": []}).choices == ()
    assert (
        stored_question({"question_id": "c", "answer_schema": {"correct_key": "A"}}).answer_schema.correct_keywords
        is None
    )


def test_an_authors_item_and_its_reports_read_from_the_record():
    item = {
        "question_id": "q2",
        "item_type": "multiple_choice",
        "stem": "Pick one",
        "choices": ["A", "B"],
        "answer_schema": {"correct_key": "A", "extra": "kept"},
        "authored_by": "author-1",
        "reports": [{"reason": "wrong_key", "at": "2026-01-01T00:00:00Z"}],
    }
    record = stored_question(from_item(to_item(item)))
    assert record.authored_by == "author-1"
    assert [(report.reason, report.at) for report in record.reports] == [("wrong_key", "2026-01-01T00:00:00Z")]
    # What a write that changes the key keeps of the rest: the map as stored, every name.
    assert record.answer_schema.as_stored == {"correct_key": "A", "extra": "kept"}
    older = stored_question({"question_id": "q3", "item_type": "true_false", "stem": "s", "answer_schema": None})
    assert older.authored_by is None
    assert older.reports == ()
    assert older.answer_schema.as_stored == {}
