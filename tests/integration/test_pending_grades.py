"""Grades waiting for review through the HTTP API (moto from template.yaml, offline grader): a
learner who answers short answers with their reference text is not measured down before review,
their level panel says how many answers wait, and the review re-scores what the pending rule
counted (accept, override, undo) with the count following; junk raises nothing
(logic/answering/ability_update.py)."""

import boto3
import pytest

from tests.integration.test_api import ALICE, BOB, answer_key, sessions_table, start, wait_for_questions  # noqa: F401
from tests.integration.test_review_api import REVIEWER
from tests.security.test_question_ids import rotate_id_secret

COUNT = 4


@pytest.fixture
def http(http, step_functions, repeatable):
    """The same run every time: which items a round writes (keyed on the deployment's secret, the
    session and the functions' ids and clock) decides which answers the offline grader leaves
    pending and how far the level moves, so the secret is fixed here and the ids and the clock by
    `repeatable` (tests/repeatable.py)."""
    rotate_id_secret(step_functions.runtime.cloud, "a-fixed-secret-for-pending-grades")
    return repeatable.requests(http)


def _table(cloud, logical_id):
    return boto3.resource("dynamodb").Table(cloud.table_name(logical_id))


def _prior_mean(cloud, user):
    from slea.logic.answering.ability_update import profile_prior

    with cloud.environment(cloud.environment_of("ApiFunction")):
        return profile_prior(user)[0]


def _answered(http, cloud, session, user, answer_of):
    assert start(http, session, user, count=COUNT, question_types=["short_answer"])[0] == 202
    graded = []
    for shown in wait_for_questions(http, session, user, count=COUNT):
        body = {"question_id": shown["question_id"], "user_answer": answer_of(answer_key(cloud, shown["question_id"]))}
        status, _, grade = http("POST", f"/sessions/{session}/answers", body, user)
        assert status == 200, grade
        graded.append(grade)
    return graded


def _panel(http, user):
    status, _, seen = http("GET", "/learners/me/ability", None, user)
    assert status == 200, seen
    (technical,) = seen["abilities"]
    return technical


def _attempt(cloud, attempt_id):
    (found,) = [a for a in _table(cloud, "AttemptsTable").scan()["Items"] if a["attempt_id"] == attempt_id]
    return found


def test_reference_text_answers_do_not_lower_the_level_and_the_review_settles_them(
    http, step_functions, unlimited_rates
):
    cloud = step_functions.runtime.cloud
    graded = _answered(http, cloud, "s_pending", ALICE, lambda key: key["reference_answer"])
    provisional = [grade for grade in graded if grade["needs_review"]]
    assert provisional, "the offline grader finalises almost no short answer"
    assert all(grade["is_correct"] for grade in graded)

    before = _panel(http, ALICE)
    assert before["theta"] > _prior_mean(cloud, ALICE)  # right answers: up, not "down 0.9"
    assert before["pending_review"] == len(provisional)
    for grade in provisional:
        stored = _attempt(cloud, grade["attempt_id"])
        assert stored["ability_pending"] is True
        assert 90 <= int(stored["ability_score"]) < int(stored["score"]) == 100  # p, about 0.95
    step_functions.wait_for_running()
    status, _, summary = http("GET", "/sessions/s_pending/summary", None, ALICE)
    assert status == 200, summary
    assert summary["ability"]["pending_review"] == len(provisional)

    for grade in provisional:
        status, _, body = http("POST", f"/review/attempts/{grade['attempt_id']}", {"action": "accept"}, REVIEWER)
        assert status == 200, body
    after = _panel(http, ALICE)
    assert after["pending_review"] == 0
    assert after["theta"] >= before["theta"]
    assert abs(after["theta"] - before["theta"]) <= 0.3
    for grade in provisional:
        stored = _attempt(cloud, grade["attempt_id"])
        assert (int(stored["ability_score"]), stored["ability_pending"]) == (100, False)


def test_an_override_and_its_undo_move_the_ability_and_the_count_back_and_forth(http, step_functions, unlimited_rates):
    cloud = step_functions.runtime.cloud
    graded = _answered(http, cloud, "s_undo", ALICE, lambda key: key["reference_answer"])
    provisional = [grade for grade in graded if grade["needs_review"]]
    waiting = _panel(http, ALICE)
    target = provisional[0]["attempt_id"]

    status, _, body = http(
        "POST", f"/review/attempts/{target}", {"action": "override", "score": 20, "note": "off topic"}, REVIEWER
    )
    assert status == 200, body
    overridden = _panel(http, ALICE)
    assert overridden["pending_review"] == waiting["pending_review"] - 1
    assert overridden["theta"] < waiting["theta"]

    status, _, body = http("POST", f"/review/attempts/{target}/undo", {"note": "my mistake"}, REVIEWER)
    assert status == 200, body
    undone = _panel(http, ALICE)
    assert undone["pending_review"] == waiting["pending_review"]
    assert undone["theta"] == pytest.approx(waiting["theta"], abs=2e-3)  # the pending count exactly again
    assert _attempt(cloud, target)["ability_pending"] is True

    # A bulk accept settles it; reverting the bulk puts it back in the queue and in the count.
    status, _, bulk = http("POST", "/review/attempts/accept", {"attempt_ids": [target], "note": "fine"}, REVIEWER)
    assert status == 200, bulk
    assert bulk["accepted"] == 1
    assert _panel(http, ALICE)["pending_review"] == waiting["pending_review"] - 1
    status, _, body = http("POST", f"/review/bulk/{bulk['bulk_id']}/revert", {"note": "too fast"}, REVIEWER)
    assert status == 200, body
    assert body["reverted"] == [target]
    assert _panel(http, ALICE)["pending_review"] == waiting["pending_review"]
    assert _attempt(cloud, target)["ability_pending"] is True


def test_junk_short_answers_raise_nothing(http, step_functions, unlimited_rates):
    cloud = step_functions.runtime.cloud
    _answered(http, cloud, "s_junk", BOB, lambda key: "asdf qwer zxcv")
    junk = _panel(http, BOB)
    assert junk["theta"] < _prior_mean(cloud, BOB)
    _answered(http, cloud, "s_keywords", BOB, lambda key: ", ".join(key.get("correct_keywords") or []))
    keywords = _panel(http, BOB)
    assert keywords["theta"] < junk["theta"]  # a keyword list is flagged: counted 0 until reviewed
    assert keywords["pending_review"] >= 1
