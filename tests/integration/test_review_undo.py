"""Undoing a review through the HTTP API: a single override (or a confirmed change to a final
grade), a group grade and an item edit each go back to what they were, the learner's ability
and the item's exemplars with them, with the undo audited and refused if the target changed."""

import pytest

from tests.integration.test_api import (  # noqa: F401 - sessions_table: the autouse fixture own() needs
    ALICE,
    answer_key,
    sessions_table,
    start,
    wait_for_questions,
)
from tests.integration.test_review_api import (
    CAROL,
    REVIEWER,
    answer,
    audit,
    entry_for,
    flagged_attempt,  # noqa: F401 - a fixture the tests below take
    queue,
    stats,
    token,
    wrong_answer,
)
from tests.integration.test_review_exemplars import answered_alike, exemplar_item, groups_page, sure_but_unsure_grades
from tests.integration.test_review_trail import COLLUDER, MALLORY

THIRD = token("7c6b5a49-3827-4615-9504-a3b2c1d0e9f8", **{"cognito:groups": ["reviewers"]})


@pytest.fixture
def http(signed_http):
    """Every request of this file through the signed-token path: the local user pool signs each
    token, and who may do what is decided by the claims API Gateway's authorizer passes on."""
    return signed_http


def theta(http):
    return http("GET", "/sessions/s1/summary", None, ALICE)[2]["ability"]["theta"]


def test_an_override_is_undone_with_a_reason_back_to_the_queue_and_audited(http, step_functions, flagged_attempt):  # noqa: F811 - the fixture
    attempt_id = flagged_attempt["attempt_id"]
    before = theta(http)
    path = f"/review/attempts/{attempt_id}"
    status, _, body = http("POST", path, {"action": "override", "score": 95, "note": "names every concept"}, REVIEWER)
    assert (status, body["score"]) == (200, 95), body
    assert theta(http) != pytest.approx(before)
    assert entry_for(queue(http), attempt_id) is None

    status, _, error = http("POST", f"{path}/undo", {}, REVIEWER)
    assert (status, error["error"].split(":")[0]) == (422, "note")
    status, _, body = http("POST", f"{path}/undo", {"note": "misread the answer"}, REVIEWER)
    assert (status, body["status"], body["score"], body["previous_score"]) == (200, "undone", 65, 95), body
    (seen,) = http("GET", "/sessions/s1/attempts", None, ALICE)[2]["attempts"]
    assert (seen["score"], seen["is_correct"], seen["reviewed"], seen["needs_review"]) == (65, False, False, True)
    assert seen["review_note"] is None  # the undone reason is no longer shown as the grade's
    assert entry_for(queue(http), attempt_id) is not None
    assert theta(http) == pytest.approx(before, abs=1e-6)
    records = audit(http, attempt_id)
    assert [r["action"] for r in records] == ["override", "undo_review"]
    assert (records[1]["note"], records[1]["before"]["score"], records[1]["after"]["score"]) == (
        "misread the answer",
        95,
        65,
    )
    assert (stats(http)["overridden"], stats(http)["reviewed"]) == (0, 0)
    status, _, error = http("POST", f"{path}/undo", {"note": "twice"}, REVIEWER)
    assert (status, error["error_code"]) == (409, "NOTHING_TO_UNDO")
    # Reviewed again after the undo: that review is the one an undo would take back.
    assert http("POST", path, {"action": "override", "score": 40, "note": "partly right"}, REVIEWER)[0] == 200
    assert http("POST", f"{path}/undo", {"note": "again"}, REVIEWER)[2]["score"] == 65


def test_an_accept_is_undone_in_place_back_to_the_queue(http, step_functions, flagged_attempt):  # noqa: F811 - the fixture
    attempt_id = flagged_attempt["attempt_id"]
    path = f"/review/attempts/{attempt_id}"
    assert http("POST", path, {"action": "accept"}, REVIEWER)[0] == 200
    assert entry_for(queue(http), attempt_id) is None
    status, _, body = http("POST", f"{path}/undo", {"note": "accepted the wrong entry"}, REVIEWER)
    assert (status, body["status"], body["score"]) == (200, "undone", 65), body
    (seen,) = http("GET", "/sessions/s1/attempts", None, ALICE)[2]["attempts"]
    assert (seen["reviewed"], seen["needs_review"]) == (False, True)
    assert entry_for(queue(http), attempt_id) is not None
    assert [r["action"] for r in audit(http, attempt_id)] == ["accept", "undo_review"]
    assert stats(http)["reviewed"] == 0


def test_an_undo_is_refused_when_the_attempt_changed_since(http, step_functions, flagged_attempt):  # noqa: F811 - the fixture
    attempt_id = flagged_attempt["attempt_id"]
    path = f"/review/attempts/{attempt_id}"
    assert http("POST", path, {"action": "override", "score": 95, "note": "right"}, REVIEWER)[0] == 200
    # The grade is final now: another reviewer proposes a change to it.
    status, _, body = http("POST", path, {"action": "override", "score": 10, "note": "wrong"}, COLLUDER)
    assert (status, body["status"]) == (200, "proposed"), body
    status, _, error = http("POST", f"{path}/undo", {"note": "undo mine"}, REVIEWER)
    assert (status, error["error_code"]) == (409, "ATTEMPT_CHANGED")
    (seen,) = http("GET", "/sessions/s1/attempts", None, ALICE)[2]["attempts"]
    assert seen["score"] == 95  # no silent overwrite


def test_a_confirmed_change_to_a_final_grade_is_undone_only_by_its_reviewers(http, step_functions):
    cloud = step_functions.runtime.cloud
    start(http, count=1, question_types=["multiple_choice"])
    (question,) = wait_for_questions(http, count=1)
    graded = answer(http, question["question_id"], wrong_answer(cloud, question))
    assert graded["needs_review"] is False
    before = theta(http)
    path = f"/review/attempts/{graded['attempt_id']}"
    assert http("POST", path, {"action": "override", "score": 100, "note": "fine"}, COLLUDER)[0] == 200
    status, _, body = http("POST", path, {"action": "confirm"}, REVIEWER)
    assert (status, body["score"]) == (200, 100), body
    # A third reviewer alone cannot change the final grade back (nor forth).
    status, _, error = http("POST", f"{path}/undo", {"note": "not mine"}, THIRD)
    assert (status, error["error_code"]) == (403, "NOT_YOUR_CHANGE")
    status, _, error = http("POST", f"{path}/undo", {"note": "own"}, token(ALICE, **{"cognito:groups": ["reviewers"]}))
    assert (status, error["error_code"]) == (403, "OWN_ATTEMPT")
    status, _, body = http("POST", f"{path}/undo", {"note": "I was wrong"}, COLLUDER)  # the proposer
    assert (status, body["score"]) == (200, 0), body
    (seen,) = http("GET", "/sessions/s1/attempts", None, ALICE)[2]["attempts"]
    assert (seen["score"], seen["is_correct"], seen["needs_review"], seen["review_note"]) == (0, False, False, None)
    assert entry_for(queue(http), graded["attempt_id"]) is None  # a final grade again, not queued
    assert theta(http) == pytest.approx(before, abs=1e-6)
    assert [r["action"] for r in audit(http, graded["attempt_id"])] == ["propose_override", "confirm", "undo_review"]
    assert audit(http, graded["attempt_id"])[2]["who"] == MALLORY
    assert CAROL != MALLORY


def test_a_group_grade_is_reverted_member_by_member(http, step_functions, monkeypatch):
    cloud = step_functions.runtime.cloud
    question_id, _, (first, second, third) = answered_alike(
        http, step_functions.runtime, sure_but_unsure_grades, monkeypatch
    )
    (group,) = [g for g in groups_page(http)["groups"] if first["attempt_id"] in {e["entry_id"] for e in g["entries"]}]
    members = {first["attempt_id"], second["attempt_id"], third["attempt_id"]}
    assert {e["entry_id"] for e in group["entries"]} == members
    status, _, body = http("POST", f"/review/groups/{group['group_id']}", {"score": 40, "note": "vague"}, REVIEWER)
    assert (status, body["reviewed"]) == (200, 3), body
    assert [n for n in exemplar_item(cloud, question_id) if n.startswith("x")]
    # One member's review is undone on its own first: the group revert keeps it and says so.
    status, _, body = http("POST", f"/review/attempts/{third['attempt_id']}/undo", {"note": "this one"}, REVIEWER)
    assert status == 200, body

    revert = f"/review/groups/{group['group_id']}/revert"
    status, _, error = http("POST", revert, {}, REVIEWER)
    assert (status, error["error"].split(":")[0]) == (422, "note")
    status, _, body = http("POST", revert, {"note": "graded too fast"}, REVIEWER)
    assert status == 200, body
    assert (sorted(body["reverted"]), body["kept"]) == (
        sorted([first["attempt_id"], second["attempt_id"]]),
        [third["attempt_id"]],
    )
    again = groups_page(http)
    assert {e["entry_id"] for g in again["groups"] for e in g["entries"]} >= members  # all waiting again
    (seen,) = http("GET", "/sessions/s1/attempts", None, ALICE)[2]["attempts"]
    assert (seen["score"], seen["reviewed"], seen["needs_review"]) == (90, False, True)
    assert not [n for n in exemplar_item(cloud, question_id) if n.startswith("x")]
    for attempt_id in (first["attempt_id"], second["attempt_id"]):
        records = audit(http, attempt_id)
        assert [r["action"] for r in records] == ["override", "undo_review"]
        assert records[1]["group_id"] == group["group_id"]
    assert [r["action"] for r in audit(http, group["group_id"])] == ["group_grade", "revert_group"]
    assert stats(http)["reviewed"] == 0
    status, _, error = http("POST", revert, {"note": "twice"}, REVIEWER)
    assert (status, error["error_code"]) == (409, "GROUP_REVERTED")
    status, _, error = http("POST", "/review/groups/gnothing/revert", {"note": "x"}, REVIEWER)
    assert (status, error["error_code"]) == (404, "GROUP_GRADE_NOT_FOUND")


def test_an_edit_is_undone_back_to_the_text_and_key_it_replaced(http, step_functions):
    cloud = step_functions.runtime.cloud
    start(http, question_types=["multiple_choice"])
    question = wait_for_questions(http)[0]
    question_id = question["question_id"]
    key = answer_key(cloud, question_id)["correct_key"]
    other = next(letter for letter in "ABCD" if letter != key.strip()[:1].upper())
    path = f"/review/questions/{question_id}"
    choices = ["A) one", "B) two", "C) three", "D) four"]
    edit = {"action": "edit", "stem": "Which number is two?", "choices": choices, "correct_answer": other}
    assert http("POST", path, edit | {"note": "the key was wrong"}, REVIEWER)[0] == 200
    assert answer_key(cloud, question_id)["correct_key"] == other

    status, _, error = http("POST", f"{path}/revert-edit", {}, REVIEWER)
    assert (status, error["error"].split(":")[0]) == (422, "note")
    status, _, body = http("POST", f"{path}/revert-edit", {"note": "the key was right"}, REVIEWER)
    assert (status, body["action"]) == (200, "revert_edit"), body
    shown = http("GET", "/sessions/s1/questions", None, ALICE)[2]["questions"][0]
    assert (shown["stem"], shown["choices"]) == (question["stem"], question["choices"])
    assert answer_key(cloud, question_id)["correct_key"] == key
    assert [r["action"] for r in audit(http, question_id)] == ["edit", "revert_edit"]
    assert stats(http)["questions_edited"] == 0
    status, _, error = http("POST", f"{path}/revert-edit", {"note": "twice"}, REVIEWER)
    assert (status, error["error_code"]) == (409, "NOTHING_TO_UNDO")
