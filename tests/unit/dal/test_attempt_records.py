"""A stored attempt is read as one frozen record (slea.dal.attempts.stored_attempt)."""

import dataclasses
from decimal import Decimal

import pytest

from slea.dal.attempts import AttemptAnswerKey, stored_attempt
from slea.dal.wire_format import from_item, to_item


def test_a_queued_attempt_reads_as_its_record():
    item = {
        "session_id": "s1",
        "attempt_key": "q1#abc",
        "attempt_id": "a1",
        "question_id": "q1",
        "user_id": "u1",
        "user_answer": "an answer",
        "score": 70,
        "is_correct": False,
        "confidence": Decimal("0.73"),
        "question_type": "short_answer",
        "round": 2,
        "difficulty": 5,
        "details": {"language": "ko"},
        "grader_reasoning": "rubric",
        "keyword_matches": ["x"],
        "feedback": "fb",
        "answer_key": {"correct_keywords": ["x", "y"], "reference_answer": "ref"},
        "graded_at": "2026-01-01T00:00:00Z",
        "queued_at": "2026-01-01T00:00:01Z",
        "review_group": "g1",
        "proposal": {"score": 90, "at": "2026-01-02T00:00:00Z"},
    }
    record = stored_attempt(from_item(to_item(item)))
    assert (record.session_id, record.attempt_key, record.attempt_id, record.question_id) == (
        "s1",
        "q1#abc",
        "a1",
        "q1",
    )
    assert (record.score, record.is_correct, record.confidence) == (70, False, 0.73)
    assert (record.round, record.difficulty, record.language) == (2, 5, "ko")
    assert record.keyword_matches == ("x",)
    assert record.answer_key == AttemptAnswerKey(correct_keywords=("x", "y"), reference_answer="ref")
    assert (record.queued_at, record.review_group) == ("2026-01-01T00:00:01Z", "g1")
    assert record.proposal == {"score": 90, "at": "2026-01-02T00:00:00Z"}
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.score = 0  # type: ignore[misc]


def test_what_an_older_attempt_lacks_reads_as_none_empty_or_the_graders_default():
    record = stored_attempt(
        {
            "session_id": "s1",
            "attempt_key": "q1#abc",
            "user_answer": "A",
            "score": 100,
            "is_correct": True,
            "graded_at": "t",
        }
    )
    assert record.attempt_id is None
    assert record.confidence == 1.0
    assert record.keyword_matches == ()
    assert record.answer_key == AttemptAnswerKey()
    assert (record.round, record.language, record.proposal, record.queued_at) == (None, None, None, None)
