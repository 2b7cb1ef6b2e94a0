"""Undoing a reviewer's action restores everything the action changed, through the HTTP API: a
retired question comes back to the queue with its learners' reports, its twins to their places in
the queue, and the copies the retirement withdrew from open rounds to their learners; an undone
edit puts the question back in the queue. A reviewer's accept that returns a rested item to the
bank needs a reason and is audited as a change (and an edit's undo rests it again)."""

from decimal import Decimal
from typing import Any

from tests.integration.test_review_api import REVIEWER, audit, entry_for, queue, stats
from tests.integration.test_review_queue_views import _table

QUEUED_AT = "2026-11-24T09:00:00.000Z"
CHOICES = ["A) retrieval", "B) generation", "C) ranking", "D) tokenising"]
REPORTS = [
    {"reason": "two choices are right", "at": QUEUED_AT},
    {"reason": "typo in B", "at": "2026-11-24T09:05:00.000Z"},
]


def _bank_item(cloud: Any, question_id: str, **fields: Any) -> None:
    """A multiple-choice bank item of the technical English bank (its own item)."""
    _table(cloud, "QuestionsTable").put_item(
        Item={
            "question_id": question_id,
            "item_id": question_id,
            "session_id": f"bank#{question_id}",
            "item_type": "multiple_choice",
            "stem": "Which step of RAG comes first?",
            "choices": CHOICES,
            "answer_schema": {"correct_key": "A"},
            "difficulty": 5,
            "difficulty_b": Decimal(0),
            "category": "technical",
            "language": "en",
            "created_at": "2026-11-20T09:00:00.000Z",
            **fields,
        }
    )


def _queued_item(cloud: Any, question_id: str, reasons: set[str] | None = None, **fields: Any) -> None:
    """A bank item waiting in the review queue since QUEUED_AT, for `reasons` (default: reported)."""
    _bank_item(
        cloud, question_id, review_state="open", queued_at=QUEUED_AT, review_reasons=reasons or {"reported"}, **fields
    )


def _drawn_copy(cloud: Any, question_id: str, session_id: str, created_at: str) -> None:
    """A copy of the bank item rq-item drawn into round 1 of a learner's session."""
    _table(cloud, "QuestionsTable").put_item(
        Item={
            "question_id": question_id,
            "item_id": "rq-item",
            "session_id": session_id,
            "round": 1,
            "item_type": "multiple_choice",
            "stem": "Which step of RAG comes first?",
            "choices": CHOICES,
            "answer_schema": {"correct_key": "A"},
            "category": "technical",
            "language": "en",
            "created_at": created_at,
        }
    )


def _stored(cloud: Any, question_id: str) -> dict[str, Any]:
    return _table(cloud, "QuestionsTable").get_item(Key={"question_id": question_id})["Item"]


def test_undoing_a_retirement_brings_the_reported_question_back_to_the_queue_with_every_report(http, step_functions):
    cloud = step_functions.runtime.cloud
    _queued_item(cloud, "rq-item", bank_key="technical#en", reports=REPORTS)
    # Its twin (the same stem in the same bank) waits in the queue for its statistics.
    _queued_item(cloud, "rq-twin", reasons={"too_easy"}, bank_key="technical#en")
    # A copy drawn into a learner's open round, not answered yet.
    _drawn_copy(cloud, "rq-copy", "sess-open", "2026-11-24T08:00:00.000Z")
    # Its learner's round is still open (a round of another session, left, keeps its copy withdrawn).
    learner = "5d7c1e2a-3b4f-4a6d-8e9f-0a1b2c3d4e5f"
    _table(cloud, "SessionsTable").put_item(
        Item={
            "session_id": "sess-open",
            "user_id": learner,
            "open_for": learner,
            "created_at": "2026-11-24T07:59:00.000Z",
            "round_started_at": "2026-11-24T07:59:30.000Z",
        }
    )
    _drawn_copy(cloud, "rq-copy-left", "sess-left", "2026-11-24T08:01:00.000Z")
    _table(cloud, "SessionsTable").put_item(
        Item={"session_id": "sess-left", "user_id": "2d4e9f10-6b3a-4c2d-8e1f-7a9b0c1d2e3f", "closed_at": QUEUED_AT}
    )
    before = entry_for(queue(http), "rq-item")
    assert [report["reason"] for report in before["question"]["reports"]] == ["two choices are right", "typo in B"]
    open_before = stats(http)["open"]

    status, _, body = http("POST", "/review/questions/rq-item", {"action": "retire", "note": "key is wrong"}, REVIEWER)
    assert (status, body["status"]) == (200, "retired"), body
    assert entry_for(queue(http), "rq-item") is None
    assert entry_for(queue(http), "rq-twin") is None  # retired with it
    assert _stored(cloud, "rq-copy")["status"] == "retired"  # withdrawn from the open round
    assert stats(http)["open"] == open_before - 2

    status, _, body = http("POST", "/review/questions/rq-item/unretire", {"note": "retired by mistake"}, REVIEWER)
    assert (status, body["status"]) == (200, "active"), body
    after = queue(http)
    entry = entry_for(after, "rq-item")
    assert entry is not None, "the reported question is back in the queue"
    assert [report["reason"] for report in entry["question"]["reports"]] == ["two choices are right", "typo in B"]
    assert (entry["reasons"], entry["source"], entry["queued_at"]) == (["reported"], "report", QUEUED_AT)
    assert entry_for(after, "rq-twin")["reasons"] == ["too_easy"]
    assert after["open"] == stats(http)["open"] == open_before
    copy = _stored(cloud, "rq-copy")
    assert copy["status"] == "active"
    assert "withdrawn_at" not in copy
    assert "retired_with" not in copy
    assert _stored(cloud, "rq-copy-left")["status"] == "retired"  # its learner has left that round
    (_, unretire) = audit(http, "rq-item")
    assert sorted(unretire["after"]["requeued"]) == ["rq-item", "rq-twin"]


def test_undoing_an_edit_puts_the_question_back_in_the_queue(http, step_functions):
    cloud = step_functions.runtime.cloud
    _queued_item(cloud, "rq-edit", bank_key="technical#en", reports=REPORTS[:1])
    edit = {"action": "edit", "stem": "Which step of RAG happens first?", "note": "clearer wording"}
    status, _, body = http("POST", "/review/questions/rq-edit", edit, REVIEWER)
    assert (status, body["action"]) == (200, "edit"), body
    assert entry_for(queue(http), "rq-edit") is None
    status, _, body = http(
        "POST", "/review/questions/rq-edit/revert-edit", {"note": "the old wording was right"}, REVIEWER
    )
    assert (status, body["action"]) == (200, "revert_edit"), body
    entry = entry_for(queue(http), "rq-edit")
    assert entry is not None
    assert entry["question"]["stem"] == "Which step of RAG comes first?"
    assert [report["reason"] for report in entry["question"]["reports"]] == ["two choices are right"]


def test_returning_a_rested_item_to_the_bank_needs_a_reason_and_is_audited_as_a_change(http, step_functions):
    cloud = step_functions.runtime.cloud
    rested = {"rested_at": "2026-11-23T10:00:00.000Z", "rest_reason": "farm"}
    _queued_item(cloud, "rq-rested", reports=REPORTS[:1], **rested)
    entry = entry_for(queue(http), "rq-rested")
    assert (entry["question"]["rested_at"], entry["question"]["rest_reason"]) == (rested["rested_at"], "farm")

    # A plain accept (no reason) is refused and changes nothing: the item stays rested, out of the bank.
    status, _, error = http("POST", "/review/questions/rq-rested", {"action": "accept"}, REVIEWER)
    assert (status, error["error"].split(":")[0]) == (422, "note"), error
    assert "account farm" in error["error"]
    item = _stored(cloud, "rq-rested")
    assert ("bank_key" in item, item["rested_at"]) == (False, rested["rested_at"])
    assert audit(http, "rq-rested") == []

    accept = {"action": "accept", "note": "the farm's accounts are closed; the key is safe again"}
    status, _, body = http("POST", "/review/questions/rq-rested", accept, REVIEWER)
    assert (status, body["action"], body["status"]) == (200, "accept", "active"), body
    item = _stored(cloud, "rq-rested")
    assert item["bank_key"] == "technical#en"  # drawable again
    assert "rested_at" not in item
    assert "rest_reason" not in item
    (record,) = audit(http, "rq-rested")
    assert record["changed"] is True  # not "kept as it was"
    assert (record["before"]["drawable"], record["after"]["drawable"]) == (False, True)
    assert (record["before"]["rested_at"], record["before"]["rest_reason"]) == (rested["rested_at"], "farm")
    assert record["note"] == accept["note"]


def test_an_accept_of_an_item_that_was_never_rested_needs_no_reason(http, step_functions):
    _queued_item(step_functions.runtime.cloud, "rq-plain", reports=REPORTS[:1])
    status, _, body = http("POST", "/review/questions/rq-plain", {"action": "accept"}, REVIEWER)
    assert (status, body["action"]) == (200, "accept"), body
    (record,) = audit(http, "rq-plain")
    assert record["changed"] is False
    assert "drawable" not in record["before"]


def test_undoing_an_edit_that_returned_a_rested_item_rests_it_again(http, step_functions):
    cloud = step_functions.runtime.cloud
    _queued_item(cloud, "rq-rested-edit", rested_at="2026-11-23T10:00:00.000Z", rest_reason="farm")
    edit = {"action": "edit", "stem": "Which RAG step runs first?", "note": "reworded, so the farm's key is stale"}
    status, _, body = http("POST", "/review/questions/rq-rested-edit", edit, REVIEWER)
    assert status == 200, body
    assert _stored(cloud, "rq-rested-edit")["bank_key"] == "technical#en"
    status, _, body = http("POST", "/review/questions/rq-rested-edit/revert-edit", {"note": "undo"}, REVIEWER)
    assert status == 200, body
    item = _stored(cloud, "rq-rested-edit")
    assert "bank_key" not in item
    assert (item["rested_at"], item["rest_reason"]) == ("2026-11-23T10:00:00.000Z", "farm")
    assert item["stem"] == "Which step of RAG comes first?"
