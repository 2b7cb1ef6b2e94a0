"""An audit record is read as one frozen record by the actions that undo a review
(slea.dal.review.review_record), and the grade a review found as a GradeBefore
(slea.dal.review_writes.grade_before)."""

import dataclasses

import pytest

from slea.dal.review import ReviewRecord, review_record
from slea.dal.review_writes import GradeBefore, grade_before
from slea.dal.wire_format import from_item, to_item


def _read(item: dict) -> ReviewRecord:
    return review_record(from_item(to_item(item)))


def test_a_confirmed_change_reads_with_its_grade_after_and_who_proposed_it():
    record = _read(
        {
            "target_id": "a1",
            "target_kind": "attempt",
            "action": "confirm",
            "who": "r1",
            "at": "t1",
            "before": {"score": 100, "is_correct": True, "needs_review": False},
            "after": {"score": 40, "is_correct": False, "proposed_by": "r2", "proposed_by_name": "Kim"},
            "group_id": "g1",
        }
    )
    assert (record.target_id, record.action, record.at, record.who, record.group_id) == (
        "a1",
        "confirm",
        "t1",
        "r1",
        "g1",
    )
    assert (record.after_score, record.after_correct, record.proposed_by) == (40, False, "r2")
    assert record.after == {"score": 40, "is_correct": False, "proposed_by": "r2", "proposed_by_name": "Kim"}
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.action = "accept"  # type: ignore[misc]


def test_a_bulk_accept_and_a_group_grade_read_with_the_attempts_they_list():
    bulk = _read(
        {
            "target_id": "b1",
            "action": "bulk_accept",
            "who": "r1",
            "at": "t",
            "after": {"accepted": ["a1", "a2"], "provisional": ["a2"]},
        }
    )
    assert (bulk.accepted, bulk.provisional, bulk.reviewed) == (("a1", "a2"), ("a2",), ())
    group = _read({"target_id": "g1", "action": "group_grade", "at": "t", "after": {"score": 80, "reviewed": ["a3"]}})
    assert (group.reviewed, group.accepted, group.who) == (("a3",), (), None)


def test_a_record_without_before_or_after_reads_with_nothing_done():
    record = _read({"target_id": "a1", "action": "accept", "at": "t"})
    assert (record.before, record.after, record.after_score, record.after_correct) == (None, None, None, False)


def test_the_grade_a_review_found_is_its_before_and_an_older_record_counted_what_it_could():
    kept = {"score": 60, "is_correct": False, "needs_review": True, "counted": 55, "had_original_score": False}
    found = grade_before(_read({"target_id": "a1", "action": "override", "at": "t", "before": {**kept, "review": {}}}))
    assert found == GradeBefore(60, False, True, 55, {}, had_original_score=False)
    assert not found.reviewed
    # Written before records kept the counted score: a provisional grade counted 0, a final one its score.
    older = {"score": 60, "is_correct": False, "needs_review": True}
    assert grade_before(_read({"target_id": "a1", "action": "accept", "at": "t", "before": older})).counted == 0
    final = {"score": 60, "is_correct": False, "needs_review": False, "review": {"reviewed": True}}
    found = grade_before(_read({"target_id": "a1", "action": "override", "at": "t", "before": final}))
    assert (found.counted, found.reviewed, found.had_original_score) == (60, True, True)
