"""A stored attempt is read as one frozen record (slea.dal.attempts.stored_attempt)."""

import dataclasses
from decimal import Decimal

import pytest

from slea.dal.attempts import (
    PAGE_KEYS,
    AttemptAnswerKey,
    AttemptFeedback,
    AttemptPage,
    AttemptProposal,
    stored_attempt,
)
from slea.dal.review_writes import REVIEW_FIELDS, propose_grade, review_fields
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


def test_a_reviewed_attempt_reads_with_its_review_its_ability_and_its_proposal():
    item = {
        "session_id": "s1",
        "attempt_key": "q1#abc",
        "attempt_id": "a1",
        "user_answer": "an answer",
        "score": 90,
        "is_correct": True,
        "graded_at": "t",
        "needs_review": False,
        "reviewed": True,
        "reviewed_by": "r1",
        "reviewed_by_name": "Sam",
        "reviewed_at": "t2",
        "review_action": "override",
        "review_note": "why",
        "original_score": 40,
        "ability_score": 90,
        "ability_pending": False,
        "ability_category": "technical",
        "item_b": Decimal("0.25"),
        "item_b_se": Decimal("0.5"),
        "guess_floor": 0,
        "question_stem": "What?",
        "exemplar_item": "bank1",
        "grader_probability": Decimal("0.83"),
        "proposal": {"score": 60, "by": "r2", "by_name": "Kim", "at": "t3", "note": "too high"},
    }
    record = stored_attempt(from_item(to_item(item)))
    assert (record.needs_review, record.reviewed, record.reviewed_by, record.reviewed_by_name) == (
        False,
        True,
        "r1",
        "Sam",
    )
    assert (record.reviewed_at, record.review_action, record.review_note, record.original_score) == (
        "t2",
        "override",
        "why",
        40,
    )
    assert (record.ability_score, record.ability_pending, record.ability_category) == (90, False, "technical")
    assert (record.item_b, record.item_b_se, record.guess_floor) == (0.25, 0.5, 0.0)
    assert (record.question_stem, record.exemplar_item, record.grader_probability) == ("What?", "bank1", 0.83)
    assert record.proposed_change == AttemptProposal(score=60, by="r2", by_name="Kim", at="t3", note="too high")
    assert record.proposal == item["proposal"]  # as stored, for the queue's contract


def test_an_unreviewed_attempt_has_no_review_fields_and_its_ability_fields_only_if_kept():
    record = stored_attempt({"session_id": "s1", "attempt_key": "k", "score": 60, "is_correct": False})
    assert (record.needs_review, record.reviewed, record.reviewed_at, record.review_action) == (None,) * 4
    assert (record.original_score, record.ability_score, record.ability_pending) == (None, None, None)
    assert (record.item_b, record.guess_floor, record.exemplar_item, record.proposed_change) == (None,) * 4
    assert review_fields(record) == dict.fromkeys(REVIEW_FIELDS)


def test_a_proposal_is_written_as_the_map_it_is_read_from(monkeypatch):
    monkeypatch.setenv("ATTEMPTS_TABLE", "attempts")
    attempt = stored_attempt({"session_id": "s1", "attempt_key": "k", "score": 100, "is_correct": True})
    proposal = AttemptProposal(score=60, by="r2", by_name="Kim", at="t3", note="too high")
    update = propose_grade(attempt, proposal)["Update"]
    assert update["Key"] == {"session_id": {"S": "s1"}, "attempt_key": {"S": "k"}}
    stored = from_item({"proposal": update["ExpressionAttributeValues"][":proposal"]})
    assert stored_attempt({**stored, "session_id": "s1"}).proposed_change == proposal
    assert update["ExpressionAttributeValues"][":at"] == {"S": "t3"}  # back in the queue from then


DETAILS = {"language": "en", "your_answer": "Paris", "why_correct": "shown", "next_steps": ["read"]}


def test_what_a_grading_showed_and_what_it_held_back_read_as_the_attempts_feedback():
    item = {
        "session_id": "s1",
        "attempt_key": "q1#abc",
        "explanation": "shown at answer time",
        "feedback": "fb",
        "details": DETAILS,
        "reference_links": [{"title": "t", "url": "https://example.com"}],
        "held_back_note": "held back until the round is answered",
        "question_choices": ["Paris", "Rome"],
        "skipped": False,
        "withheld_for": ["q2"],
        "unguarded": {"explanation": "whole", "details": {**DETAILS, "why_correct": "whole"}, "held_back_note": None},
    }
    record = stored_attempt(from_item(to_item(item)))
    assert record.shown == AttemptFeedback(
        explanation="shown at answer time",
        feedback="fb",
        reference_links=({"title": "t", "url": "https://example.com"},),
        details=DETAILS,
        held_back_note="held back until the round is answered",
    )
    # What was held back replaces the fields it names; the others stay as shown.
    assert record.unguarded == AttemptFeedback(
        explanation="whole",
        feedback="fb",
        reference_links=({"title": "t", "url": "https://example.com"},),
        details={**DETAILS, "why_correct": "whole"},
        held_back_note=None,
    )
    assert (record.withheld_for, record.question_choices, record.skipped) == (("q2",), ("Paris", "Rome"), False)


def test_an_attempt_that_held_nothing_back_has_no_unguarded_output():
    for unguarded in ({}, None):
        record = stored_attempt({"session_id": "s1", "attempt_key": "k", "unguarded": unguarded})
        assert (record.unguarded, record.withheld_for) == (None, ())
    bare = stored_attempt({"session_id": "s1", "attempt_key": "k"})
    assert (bare.shown, bare.question_choices, bare.skipped) == (AttemptFeedback(), None, None)


def test_a_page_of_a_learners_attempts_ends_at_the_index_keys():
    assert [field.name for field in dataclasses.fields(AttemptPage)] == list(PAGE_KEYS)
