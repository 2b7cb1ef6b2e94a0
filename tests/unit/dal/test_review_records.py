"""An audit record is read as one frozen record by the actions that undo a review
(slea.dal.review.review_record), and the grade a review found as a GradeBefore
(slea.dal.review_writes.grade_before); a question's, with what undoing the action puts back;
and a template as undoing a retirement reads it."""

import dataclasses

import pytest

from slea.dal.review import (
    DeactivatedTemplate,
    QuestionSnapshot,
    QueuePlace,
    Rest,
    ReviewRecord,
    deactivated_template,
    review_record,
)
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


def test_an_edit_reads_with_the_question_and_the_bank_item_as_it_found_them():
    before = {
        "status": "active",
        "stem": "Old stem",
        "choices": ["A", "B"],
        "correct_answer": "A",
        "correct_keywords": None,
        "review_reasons": ["reported"],
        "queued_at": "q1",
        "drawable": False,
        "rested_at": "r1",
        "rest_reason": "farm",
    }
    after = {
        "stem": "New stem",
        "edited_with": ["b1"],
        "edited_with_before": {"b1": {"stem": "Bank stem", "choices": None, "correct_keywords": ["k"]}, "b2": "?"},
    }
    record = _read({"target_id": "q", "action": "edit", "at": "t", "audit_key": "k1", "before": before, "after": after})
    assert record.question_before == QuestionSnapshot(
        stem="Old stem",
        choices=("A", "B"),
        correct_answer="A",
        correct_keywords=None,
        queue_place=QueuePlace("q1", ("reported",)),
        rest=Rest("r1", "farm"),
    )
    assert record.edited_with_before == {"b1": QuestionSnapshot(stem="Bank stem", correct_keywords=("k",))}
    assert record.audit_key == "k1"
    assert record.as_stored["after"]["edited_with"] == ["b1"]  # the trail shows it as stored


def test_a_question_is_rested_again_or_requeued_only_as_its_record_says():
    # Not queued (no queued_at), and not drawn out of rest (drawable not False): neither.
    kept = {"stem": "S", "review_reasons": {"reported"}, "queued_at": None, "rested_at": "r1"}
    record = _read({"target_id": "q", "action": "edit", "at": "t", "before": kept})
    assert (record.question_before.queue_place, record.question_before.rest) == (None, None)
    # A question's own reasons are stored as a set; no reason kept reads as none.
    queued = _read(
        {"target_id": "q", "action": "edit", "at": "t", "before": {"queued_at": "q", "review_reasons": {"x"}}}
    )
    assert queued.question_before.queue_place == QueuePlace("q", ("x",))
    rested = {"queued_at": "q", "drawable": False, "rested_at": "r1", "rest_reason": ""}
    record = _read({"target_id": "q", "action": "accept", "at": "t", "before": rested})
    assert record.question_before == QuestionSnapshot(queue_place=QueuePlace("q"), rest=Rest("r1"))


def test_a_retirement_reads_with_the_items_templates_and_queue_places_it_took():
    after = {
        "status": "retired",
        "template_ids": ["t1", "t2"],
        "retired_with": ["b1", "b2"],
        "retired_with_queued": {"b1": {"queued_at": "q1", "review_reasons": ["stats"]}, "b2": {}},
    }
    record = _read({"target_id": "q", "action": "retire", "at": "t", "before": {"status": "active"}, "after": after})
    assert (record.retired_with, record.template_ids) == (("b1", "b2"), ("t1", "t2"))
    assert record.retired_with_queued == {"b1": QueuePlace("q1", ("stats",))}
    assert record.question_before == QuestionSnapshot()
    # An attempt's record reads with none of these.
    attempt = _read({"target_id": "a1", "action": "accept", "at": "t", "before": {"score": 1}})
    assert (attempt.retired_with, attempt.template_ids, dict(attempt.edited_with_before)) == ((), (), {})


def test_a_template_reads_with_who_deactivated_it_and_its_search_key_once_active():
    used = {"id": "t1", "category": "ai", "domain": "rag", "usage_count": 2, "deactivated_by": "q1", "is_active": False}
    assert deactivated_template(used) == DeactivatedTemplate("t1", "q1", "ai#rag")
    assert deactivated_template(
        {"id": "t2", "category": "ai", "domain": "rag", "is_active": False}
    ) == DeactivatedTemplate("t2")
