"""Rules reviewers and learners rely on, tried as a hostile learner or reviewer would: a retired
question cannot be answered, no reviewer grades their own attempt or keys their own items."""

import pytest

from tests.integration.test_api import (  # noqa: F401 - sessions_table: the autouse fixture own() needs
    ALICE,
    own,
    sessions_table,
    start,
    wait_for_questions,
)
from tests.integration.test_review_api import answer, low_confidence_grades, right_answer, table, token

CAROL = "0b7e3c52-4f5e-4c1c-9d4e-2a6f8b1c3d5e"
REVIEWER = token(CAROL, **{"cognito:groups": ["reviewers"]})
ALICE_AS_REVIEWER = token(ALICE, **{"cognito:groups": ["reviewers"]})


@pytest.fixture
def http(signed_http):
    """Every request of this file through the signed-token path: the local user pool signs each
    token, and roles reach the functions only as API Gateway's authorizer passes them."""
    return signed_http


def retire(http, question_id):
    status, _, body = http("POST", f"/review/questions/{question_id}", {"action": "retire", "note": "wrong"}, REVIEWER)
    assert status == 200, body


def test_a_retired_question_cannot_be_answered(http, step_functions):
    cloud = step_functions.runtime.cloud
    start(http)
    question = wait_for_questions(http)[0]
    retire(http, question["question_id"])
    status, _, body = http(
        "POST",
        "/sessions/s1/answers",
        {"question_id": question["question_id"], "user_answer": right_answer(cloud, question["question_id"])},
        ALICE,
    )
    assert (status, body["error_code"]) == (409, "QUESTION_RETIRED")
    stored = table(cloud, "QuestionsTable").get_item(Key={"question_id": question["question_id"]})["Item"]
    assert "answered_at" not in stored
    assert int(stored.get("usage_count", 0)) == 0


def test_a_question_retired_while_its_answer_is_graded_is_not_recorded(http, step_functions, monkeypatch):
    """The retirement lands between the API's check and the record: the record's transaction
    refuses it, so the grade is never counted."""
    from slea.logic.answering import grading

    cloud = step_functions.runtime.cloud
    start(http)
    question = wait_for_questions(http)[0]
    grade = grading.grade

    def retired_meanwhile(*args, **kwargs):
        graded = grade(*args, **kwargs)
        retire(http, question["question_id"])
        return graded

    monkeypatch.setattr(grading, "grade", retired_meanwhile)
    status, _, body = http(
        "POST", "/sessions/s1/answers", {"question_id": question["question_id"], "user_answer": "A"}, ALICE
    )
    assert (status, body["error_code"]) == (409, "QUESTION_RETIRED")
    attempts = table(cloud, "AttemptsTable").query(
        KeyConditionExpression="session_id = :s", ExpressionAttributeValues={":s": "s1"}
    )["Items"]
    assert attempts == []


def test_an_answer_recorded_before_retirement_is_still_returned_on_retry(http, step_functions):
    cloud = step_functions.runtime.cloud
    start(http)
    question = wait_for_questions(http)[0]
    first = answer(http, question["question_id"], right_answer(cloud, question["question_id"]))
    retire(http, question["question_id"])
    again = answer(http, question["question_id"], right_answer(cloud, question["question_id"]))
    assert again["attempt_id"] == first["attempt_id"]


def test_a_reviewer_cannot_accept_or_override_their_own_attempt(http, step_functions, monkeypatch):
    start(http, question_types=["short_answer"])
    question = wait_for_questions(http)[0]
    low_confidence_grades(monkeypatch)
    graded = answer(http, question["question_id"], "It looks things up first and then writes the reply.")
    for body in ({"action": "accept"}, {"action": "override", "score": 100, "note": "mine"}):
        status, _, refused = http("POST", f"/review/attempts/{graded['attempt_id']}", body, ALICE_AS_REVIEWER)
        assert (status, refused["error_code"]) == (403, "OWN_ATTEMPT")
    # The same subject in capitals is the same person.
    shouting = token(ALICE.upper(), **{"cognito:groups": ["reviewers"]})
    status, _, _ = http("POST", f"/review/attempts/{graded['attempt_id']}", {"action": "accept"}, shouting)
    assert status == 403
    status, _, reviewed = http(
        "POST", f"/review/attempts/{graded['attempt_id']}", {"action": "override", "score": 90, "note": "n"}, REVIEWER
    )
    assert (status, reviewed["score"]) == (200, 90)


def test_a_reviewer_cannot_edit_the_key_of_an_item_in_their_own_session(http, step_functions):
    start(http, question_types=["multiple_choice"])
    question = wait_for_questions(http)[0]
    edit = {"action": "edit", "correct_answer": "A", "note": "key"}
    status, _, refused = http("POST", f"/review/questions/{question['question_id']}", edit, ALICE_AS_REVIEWER)
    assert (status, refused["error_code"]) == (403, "OWN_QUESTION")


def test_a_reviewer_cannot_approve_an_item_they_authored(http, step_functions):
    from slea.dal import questions

    author = token(CAROL, **{"cognito:groups": ["reviewers", "authors"]})
    questions_table = table(step_functions.runtime.cloud, "QuestionsTable")
    questions_table.put_item(
        Item={
            "question_id": "7d0b2f0e-3c1a-4b8e-9f2d-1a2b3c4d5e6f",
            "session_id": f"authored#{CAROL}",
            "authored_by": CAROL,
            "origin": "author",
            "item_type": "true_false",
            "stem": "A hash index answers range queries.",
            "answer_schema": {"correct_key": "False"},
            "difficulty": 3,
            "category": "technical",
            **questions.queue_fields("authored", "2026-11-24T00:00:00Z"),
        }
    )
    path = "/review/questions/7d0b2f0e-3c1a-4b8e-9f2d-1a2b3c4d5e6f"
    status, _, refused = http("POST", path, {"action": "accept"}, author)
    assert (status, refused["error_code"]) == (403, "OWN_QUESTION")
    another_reviewer = token("3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f", **{"cognito:groups": ["reviewers"]})
    assert http("POST", path, {"action": "accept"}, another_reviewer)[0] == 200


def test_a_reviewer_never_sees_their_own_unanswered_items_in_the_queue(http, step_functions):
    """A learner in the reviewers group reports their own unanswered question: the queue entry
    holds its key, so it is shown only to other reviewers."""
    start(http)
    question = wait_for_questions(http)[0]
    status, _, _ = http(
        "POST", f"/sessions/s1/questions/{question['question_id']}/reports", {"reason": "unclear"}, ALICE
    )
    assert status == 202

    def queued_ids(who):
        status, _, body = http("GET", "/review/queue", None, who)
        assert status == 200, body
        return {entry["entry_id"] for entry in body["entries"]}

    assert question["question_id"] not in queued_ids(ALICE_AS_REVIEWER)
    assert question["question_id"] in queued_ids(REVIEWER)
