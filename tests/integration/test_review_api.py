"""Rounds and reviews through the HTTP API: a round's status and its single start, the session
summary, learners' reports, and the reviewers' queue, actions, statistics and audit record."""

import base64
import json
import threading
import time

import boto3
import pytest

from slea_local import REPO_ROOT
from slea_local.template import repository_template
from tests.integration.test_api import (  # noqa: F401 - sessions_table: the autouse fixture own() needs
    ALICE,
    BOB,
    answer_key,
    sessions_table,
    start,
    stored_question,
    wait_for_questions,
)

CAROL = "0b7e3c52-4f5e-4c1c-9d4e-2a6f8b1c3d5e"  # the reviewer


@pytest.fixture
def http(signed_http):
    """Every request of this file through the signed-token path: the local user pool signs each
    token, and roles reach the functions only as API Gateway's authorizer passes them."""
    return signed_http


def token(subject, **claims):
    """A local stand-in JWT (the adapter reads its claims, API Gateway would verify them)."""

    def part(document):
        return base64.urlsafe_b64encode(json.dumps(document).encode()).decode().rstrip("=")

    return f"{part({'alg': 'none', 'typ': 'JWT'})}.{part({'sub': subject, **claims})}."


REVIEWER = token(CAROL, **{"cognito:groups": ["reviewers", "admins"]})  # arrives as "[reviewers admins]"
# Every scope the stack's own web app client allows (template.yaml), Cognito's own, and the old
# review and author scopes: a client's scopes, which any of its users may ask for, never make a reviewer.
EVERY_SCOPE = " ".join(
    [
        *repository_template().resources["UserPoolClientSignIn"]["Properties"]["ClientSettings"]["AllowedOAuthScopes"],
        "aws.cognito.signin.user.admin",
        "slea/review",
        "slea/author",
    ]
)


def table(cloud, logical_id):
    return boto3.resource("dynamodb").Table(cloud.table_name(logical_id))


def round_status(http, session="s1", number=1, user=ALICE):
    return http("GET", f"/sessions/{session}/rounds/{number}", None, user)


def wait_for_status(http, wanted, session="s1", number=1):
    for _ in range(400):
        status, _, body = round_status(http, session, number)
        if status == 200 and body["status"] == wanted:
            return body
        time.sleep(0.05)
    raise AssertionError(f"round {number} of {session} never reached {wanted}")


def answer(http, question_id, user_answer, session="s1", user=ALICE):
    status, _, body = http(
        "POST", f"/sessions/{session}/answers", {"question_id": question_id, "user_answer": user_answer}, user
    )
    assert status == 200, body
    return body


def right_answer(cloud, question_id):
    key = answer_key(cloud, question_id)
    return key.get("correct_key") or " ".join(key.get("correct_keywords", []))


def wrong_answer(cloud, question, session="s1"):
    key = answer_key(cloud, question["question_id"])["correct_key"]
    if question["type"] == "true_false":
        return "False" if key.strip().casefold() in ("true", "참", "o") else "True"
    return next(letter for letter in "ABCD" if letter != key.strip()[:1].upper())


@pytest.fixture
def held_plan(step_functions, monkeypatch):
    """Rounds wait in their PlanRound step until `release.set()`."""
    release = threading.Event()
    runtime = step_functions.runtime
    invoke = runtime.invoke

    def held(name, event):
        if name == "PlanRoundFunction":  # state machine tasks name the function by its logical id
            assert release.wait(30)
        return invoke(name, event)

    monkeypatch.setattr(runtime, "invoke", held)
    yield release
    release.set()


# ---------------------------------------------------------------- round status and single start
def test_round_status_goes_from_running_to_succeeded_with_its_counts(http, step_functions, held_plan):
    assert start(http)[0] == 202
    status, _, running = round_status(http)
    assert status == 200, running
    assert running["status"] == "RUNNING"
    assert (running["requested"], running["saved"], running["generated"], running["finished_at"]) == (3, 0, None, None)
    held_plan.set()
    done = wait_for_status(http, "SUCCEEDED")
    questions = wait_for_questions(http)
    assert done["saved"] == 3
    assert done["question_ids"] == [question["question_id"] for question in questions]
    assert done["generated"] >= done["valid"] >= 3
    assert done["finished_at"] >= done["started_at"]
    assert done["error"] is None


def test_a_round_never_started_is_404_and_another_users_round_is_403(http, step_functions):
    start(http)
    status, _, body = round_status(http, number=2)
    assert (status, body["error_code"]) == (404, "ROUND_NOT_FOUND")
    status, _, body = round_status(http, user=BOB)
    assert (status, body["error_code"]) == (403, "FORBIDDEN")
    assert round_status(http, number=3)[0] == 422


def test_starting_a_round_twice_is_409_takes_no_quota_and_makes_no_second_set(http, step_functions, held_plan):
    assert start(http)[0] == 202
    status, _, body = start(http)
    assert (status, body["error_code"]) == (409, "ROUND_ALREADY_STARTED")
    held_plan.set()
    wait_for_status(http, "SUCCEEDED")
    assert start(http)[0] == 409  # a finished round cannot be generated again either
    step_functions.wait_for_running()
    assert len(wait_for_questions(http)) == 3
    usage = table(step_functions.runtime.cloud, "UsageTable").scan()["Items"]
    assert [item["rounds"] for item in usage] == [1]


def test_a_failed_round_reports_failed_and_may_be_started_again(http, step_functions, monkeypatch):
    runtime = step_functions.runtime
    invoke = runtime.invoke

    def broken(name, event):
        if name == "FinishRoundFunction":
            raise RuntimeError("finish_round crashed")
        return invoke(name, event)

    monkeypatch.setattr(runtime, "invoke", broken)
    assert start(http)[0] == 202
    step_functions.wait_for_running()
    monkeypatch.undo()
    # Started again before anyone looked at the status: the claim finds the execution failed.
    assert start(http)[0] == 202
    done = wait_for_status(http, "SUCCEEDED")
    assert done["error"] is None
    monkeypatch.setattr(runtime, "invoke", broken)
    start(http, session="s2")
    failed = wait_for_status(http, "FAILED", session="s2")
    assert failed["error"]
    assert failed["finished_at"]


def test_a_round_whose_execution_arn_was_not_recorded_is_still_followed(http, step_functions, faults):
    # The quota is taken in a transaction; the one UpdateItem of a start records the ARN.
    with faults.dynamodb("api", "UpdateItem", error="InternalServerError"):
        assert start(http)[0] == 202
    record = table(step_functions.runtime.cloud, "SessionsTable").get_item(Key={"session_id": "s1#round#1"})["Item"]
    assert "execution_arn" not in record
    assert wait_for_status(http, "SUCCEEDED")["saved"] == 3
    assert start(http)[0] == 409


# ---------------------------------------------------------------- summary
def test_the_summary_scores_each_round_lists_what_to_review_and_plans_round_two(http, step_functions):
    from slea.contracts.profile import UserProfile
    from slea.logic.rounds.target import from_ability, from_prior, success_rate
    from slea.measurement.learner import prior_from_profile

    cloud = step_functions.runtime.cloud
    start(http, question_types=["multiple_choice"])
    questions = wait_for_questions(http)
    status, _, before = http("GET", "/sessions/s1/summary", None, ALICE)
    assert status == 200, before
    assert before["rounds"] == [
        {"round": 1, "questions": 3, "answered": 0, "correct": 0, "score": None, "pending_review": 0, "skipped": 0}
    ]
    assert (before["next_round"], before["to_review"]) == (2, [])
    graded = [answer(http, questions[0]["question_id"], right_answer(cloud, questions[0]["question_id"]))]
    graded += [answer(http, q["question_id"], wrong_answer(cloud, q)) for q in questions[1:]]
    summary = http("GET", "/sessions/s1/summary", None, ALICE)[2]
    assert summary["rounds"][0] == {
        "round": 1,
        "questions": 3,
        "answered": 3,
        "correct": 1,
        "score": round(100 / 3, 1),
        "pending_review": 0,
        "skipped": 0,
    }
    assert [entry["question_id"] for entry in summary["to_review"]] == [q["question_id"] for q in questions[1:]]
    assert summary["to_review"][0]["stem"] == questions[1]["stem"]
    # Before any answer the survey's prior plans round 2 (as PlanRound aims a first round); once
    # answers are measured, the ability does: the label nearest the difficulty Alice answers 70% of the time.
    profile = UserProfile.model_validate(step_functions.runtime.invoke("get_user_profile", {"user_id": ALICE}))
    prior = prior_from_profile(profile.self_level, profile.years_experience, profile.previous_score)
    # Round 1's questions are open: round 2's difficulty is not announced yet (the answers to come move it).
    assert (before["next_difficulty"], before["next_level"]) == (None, None)
    assert from_prior(*prior, success_rate(), None).label  # what it would have said: the prior's label
    assert summary["ability"]["answers"] == 3
    expected = from_ability(summary["ability"]["theta"], 0.0, success_rate(), None).label
    assert summary["next_difficulty"] == expected
    assert start(http, round=2)[0] == 202
    wait_for_questions(http, count=6)
    after = http("GET", "/sessions/s1/summary", None, ALICE)[2]
    assert (after["next_round"], after["next_difficulty"]) == (None, None)
    assert [entry["round"] for entry in after["rounds"]] == [1, 2]
    assert http("GET", "/sessions/s1/summary", None, BOB)[0] == 403


# ---------------------------------------------------------------- the queue's sources
def queue(http, who=REVIEWER):
    status, _, body = http("GET", "/review/queue", None, who)
    assert status == 200, body
    return body


def entry_for(body, entry_id):
    return next((entry for entry in body["entries"] if entry["entry_id"] == entry_id), None)


def test_a_report_puts_the_question_in_the_queue(http, step_functions):
    start(http, question_types=["multiple_choice"])
    question = wait_for_questions(http)[0]
    path = f"/sessions/s1/questions/{question['question_id']}/reports"
    status, _, body = http("POST", path, {"reason": "two choices are correct"}, ALICE)
    assert (status, body) == (202, {"question_id": question["question_id"], "reported": True})
    entry = entry_for(queue(http), question["question_id"])
    assert (entry["kind"], entry["reasons"], entry["attempt"]) == ("question", ["reported"], None)
    assert [report["reason"] for report in entry["question"]["reports"]] == ["two choices are correct"]
    key = answer_key(step_functions.runtime.cloud, question["question_id"])["correct_key"]
    assert entry["question"]["correct_answer"] == key
    status, _, error = http("POST", path, {"reason": "  "}, ALICE)
    assert (status, error["error"].split(":")[0]) == (422, "reason")
    assert http("POST", path, {"reason": "x"}, BOB)[0] == 403
    status, _, error = http("POST", "/sessions/s1/questions/nope/reports", {"reason": "x"}, ALICE)
    assert (status, error["error_code"]) == (404, "QUESTION_NOT_FOUND")


def unsure_grades(monkeypatch, score, reasoning):
    """The grader gives every short answer `score`, unsure of it: each grade waits for a reviewer."""
    from slea.contracts.llm import ShortAnswerGrade
    from slea.llm.offline import OfflineProvider

    grade = ShortAnswerGrade(score=score, confidence=0.4, reasoning=reasoning)
    monkeypatch.setattr(OfflineProvider, "grade_short_answer", lambda self, item: grade)


def low_confidence_grades(monkeypatch):
    unsure_grades(monkeypatch, 65, "the answer is in the grader's uncertain middle")


def test_every_source_of_the_queue_appears(http, step_functions, monkeypatch):
    from tests.integration.test_save_generated_question import question as tool5_question

    runtime, cloud = step_functions.runtime, step_functions.runtime.cloud
    # 1. an attempt graded with needs_review
    start(http, question_types=["short_answer"])
    short = wait_for_questions(http)[0]
    low_confidence_grades(monkeypatch)
    graded = answer(http, short["question_id"], "It looks things up first and then writes the reply.")
    assert graded["needs_review"] is True
    # 2. a question whose statistics are flagged (the 20th answer, all correct: too easy)
    start(http, session="s2", question_types=["multiple_choice"])
    easy = wait_for_questions(http, session="s2")[0]
    table(cloud, "QuestionsTable").update_item(
        Key={"question_id": easy["question_id"]},
        UpdateExpression="SET usage_count = :n, correct_count = :n",
        ExpressionAttributeValues={":n": 19},
    )
    answer(http, easy["question_id"], right_answer(cloud, easy["question_id"]), session="s2")
    # 3. a question saved with a Tool 4 "revise" score
    revise = runtime.invoke("save_generated_question", tool5_question(validation_score=0.75))
    # 4. a reported question
    reported = wait_for_questions(http, session="s2")[1]
    http("POST", f"/sessions/s2/questions/{reported['question_id']}/reports", {"reason": "unclear"}, ALICE)

    body = queue(http)
    attempt_entry = entry_for(body, graded["attempt_id"])
    assert (attempt_entry["kind"], attempt_entry["reasons"]) == ("attempt", ["needs_review"])
    assert attempt_entry["attempt"]["score"] == 65
    assert attempt_entry["attempt"]["confidence"] == 0.4
    assert attempt_entry["attempt"]["reasoning"] == "the answer is in the grader's uncertain middle"
    assert attempt_entry["question"]["correct_keywords"]
    assert entry_for(body, easy["question_id"])["reasons"] == ["too_easy"]
    revise_entry = entry_for(body, revise["question_id"])
    assert (revise_entry["reasons"], revise_entry["question"]["validation_score"]) == (["revise"], 0.75)
    assert entry_for(body, reported["question_id"])["reasons"] == ["reported"]
    assert body["open"] == 4
    queued = [entry["queued_at"] for entry in body["entries"]]
    assert queued == sorted(queued)
    assert len(http("GET", "/review/queue?limit=2", None, REVIEWER)[2]["entries"]) == 2


# ---------------------------------------------------------------- resolutions
@pytest.fixture
def flagged_attempt(http, step_functions, monkeypatch):
    """A short answer graded 65 with low confidence: in the queue, not correct."""
    start(http, question_types=["short_answer"])
    question = wait_for_questions(http)[0]
    low_confidence_grades(monkeypatch)
    graded = answer(http, question["question_id"], "It looks things up first and then writes the reply.")
    monkeypatch.undo()
    return graded


def stats(http):
    status, _, body = http("GET", "/review/stats", None, REVIEWER)
    assert status == 200, body
    return body


def audit(http, target_id):
    status, _, body = http("GET", f"/review/audit?target_id={target_id}", None, REVIEWER)
    assert status == 200, body
    return body["records"]


def test_accepting_a_grade_keeps_it_and_leaves_the_queue(http, step_functions, flagged_attempt):
    attempt_id = flagged_attempt["attempt_id"]
    status, _, body = http("POST", f"/review/attempts/{attempt_id}", {"action": "accept", "note": "fair"}, REVIEWER)
    assert status == 200, body
    assert (body["score"], body["previous_score"], body["is_correct"], body["reviewed_by"]) == (65, 65, False, CAROL)
    assert entry_for(queue(http), attempt_id) is None
    (seen,) = http("GET", "/sessions/s1/attempts", None, ALICE)[2]["attempts"]
    assert (seen["attempt_id"], seen["score"], seen["reviewed"], seen["needs_review"]) == (attempt_id, 65, True, False)
    assert stats(http) | {"open": 0} == {
        "reviewed": 1,
        "accepted": 1,
        "overridden": 0,
        "agreement": 1.0,
        "questions_retired": 0,
        "questions_edited": 0,
        "questions_accepted": 0,
        "open": 0,
        "proposals": 0,
        "correct_from": 80,  # the pass mark, for the page to show beside every score
    }
    (record,) = audit(http, attempt_id)
    assert (record["who"], record["action"], record["note"]) == (CAROL, "accept", "fair")
    assert record["before"]["score"] == record["after"]["score"] == 65


def test_overriding_a_grade_corrects_the_attempt_the_statistics_and_the_learners_view(
    http, step_functions, flagged_attempt
):
    cloud = step_functions.runtime.cloud
    attempt_id, question_id = flagged_attempt["attempt_id"], flagged_attempt["question_id"]
    assert stored_question(cloud, question_id).get("correct_count", 0) == 0
    status, _, body = http(
        "POST", f"/review/attempts/{attempt_id}", {"action": "override", "score": 90, "note": "all concepts"}, REVIEWER
    )
    assert status == 200, body
    assert (body["score"], body["is_correct"], body["previous_score"]) == (90, True, 65)
    (seen,) = http("GET", "/sessions/s1/attempts", None, ALICE)[2]["attempts"]
    assert (seen["score"], seen["is_correct"], seen["reviewed"], seen["original_score"]) == (90, True, True, 65)
    assert stored_question(cloud, question_id)["correct_count"] == 1
    assert http("GET", "/sessions/s1/summary", None, ALICE)[2]["rounds"][0]["correct"] == 1
    assert entry_for(queue(http), attempt_id) is None
    counted = stats(http)
    assert (counted["reviewed"], counted["overridden"], counted["agreement"]) == (1, 1, 0.0)
    (record,) = audit(http, attempt_id)
    assert (record["before"]["score"], record["after"]["score"], record["after"]["is_correct"]) == (65, 90, True)
    # Overridden back below the pass mark: the grade is final now, so a first reviewer's change is a
    # proposal and a second reviewer's confirmation applies it; then the count comes back down.
    path = f"/review/attempts/{attempt_id}"
    proposed = http("POST", path, {"action": "override", "score": 40, "note": "misses one"}, REVIEWER)[2]
    assert (proposed["status"], proposed["score"]) == ("proposed", 90)
    assert stored_question(cloud, question_id)["correct_count"] == 1
    second = token("5d2f0a9e-7b1c-4e3d-8f6a-0c9b8a7d6e5f", **{"cognito:groups": ["reviewers"]})
    assert http("POST", path, {"action": "confirm"}, second)[2]["score"] == 40
    assert stored_question(cloud, question_id)["correct_count"] == 0
    assert [r["action"] for r in audit(http, attempt_id)] == ["override", "propose_override", "confirm"]


def test_a_fault_in_the_middle_of_an_override_leaves_nothing_half_done(http, step_functions, flagged_attempt, faults):
    cloud = step_functions.runtime.cloud
    attempt_id, question_id = flagged_attempt["attempt_id"], flagged_attempt["question_id"]
    with faults.dynamodb("review", "TransactWriteItems", error="InternalServerError"):
        status, _, body = http(
            "POST", f"/review/attempts/{attempt_id}", {"action": "override", "score": 95, "note": "n"}, REVIEWER
        )
    assert (status, body["error_code"]) == (503, "SERVICE_UNAVAILABLE")
    (seen,) = http("GET", "/sessions/s1/attempts", None, ALICE)[2]["attempts"]
    assert (seen["score"], seen["is_correct"], seen["reviewed"]) == (65, False, False)
    assert stored_question(cloud, question_id).get("correct_count", 0) == 0
    assert entry_for(queue(http), attempt_id) is not None
    assert audit(http, attempt_id) == []
    assert stats(http)["reviewed"] == 0
    override = {"action": "override", "score": 95, "note": "n"}
    assert http("POST", f"/review/attempts/{attempt_id}", override, REVIEWER)[0] == 200


def test_retiring_a_question_hides_it_deactivates_its_template_and_later_rounds_avoid_it(http, step_functions):
    from slea.dal.templates import with_search_key

    runtime, cloud = step_functions.runtime, step_functions.runtime.cloud
    start(http)
    first, second, _ = wait_for_questions(http)
    answer(http, first["question_id"], "A")
    templates = table(cloud, "TemplatesTable")
    templates.put_item(
        Item=with_search_key(
            {
                "id": "tmpl-retired",
                "stem": f"  {second['stem'].upper()} ",  # the same stem, spacing and case aside
                "category": "technical",
                "domain": "LLM",
                "is_active": True,
                "usage_count": 3,
                "avg_difficulty_score": 5,
            }
        )
    )
    assert "search_key" in templates.get_item(Key={"id": "tmpl-retired"})["Item"]
    for question in (first, second):
        status, _, body = http(
            "POST", f"/review/questions/{question['question_id']}", {"action": "retire", "note": "ambiguous"}, REVIEWER
        )
        assert (status, body["status"], body["action"]) == (200, "retired", "retire"), body
    shown = [q["question_id"] for q in http("GET", "/sessions/s1/questions", None, ALICE)[2]["questions"]]
    assert first["question_id"] in shown  # answered before it was retired: the learner keeps it
    assert second["question_id"] not in shown
    template = templates.get_item(Key={"id": "tmpl-retired"})["Item"]
    assert template["is_active"] is False
    assert "search_key" not in template  # Tool 2 searches only templates carrying it
    event = json.loads((REPO_ROOT / "events/plan_round/valid.json").read_text())
    event["request"] |= {"session_id": "another", "category": "technical"}
    plan = runtime.invoke("plan_round", event)
    assert second["stem"] in plan["progress"]["used_stems"]  # generation's avoid list
    again = {"action": "retire", "note": "again"}
    status, _, body = http("POST", f"/review/questions/{second['question_id']}", again, REVIEWER)
    assert (status, body["error_code"]) == (409, "QUESTION_RETIRED")
    assert stats(http)["questions_retired"] == 2
    (record,) = audit(http, second["question_id"])
    assert (record["before"]["status"], record["after"]["status"]) == ("active", "retired")
    assert record["after"]["templates_deactivated"] == 1


def test_editing_a_question_is_validated_like_tool_5_and_shown_to_learners(http, step_functions):
    cloud = step_functions.runtime.cloud
    start(http, question_types=["multiple_choice"])
    question = wait_for_questions(http)[0]
    path = f"/review/questions/{question['question_id']}"
    why = {"note": "the key was wrong"}
    status, _, error = http("POST", path, {"action": "edit", "correct_answer": "Z"} | why, REVIEWER)
    assert (status, error["error_code"], error["error"].split(":")[0]) == (422, "VALIDATION_ERROR", "correct_answer")
    status, _, error = http("POST", path, {"action": "edit", "choices": ["only", "two"]} | why, REVIEWER)
    assert (status, error["error"].split(":")[0]) == (422, "choices")
    status, _, error = http("POST", path, {"action": "edit"} | why, REVIEWER)
    assert (status, error["error"].split(":")[0]) == (422, "stem")
    choices = ["A) one", "B) two", "C) three", "D) four"]
    edit = {"action": "edit", "stem": "Which number is two?", "choices": choices, "correct_answer": "B"} | why
    status, _, body = http("POST", path, edit, REVIEWER)
    assert (status, body["status"]) == (200, "active"), body
    shown = http("GET", "/sessions/s1/questions", None, ALICE)[2]["questions"][0]
    assert (shown["stem"], shown["choices"]) == ("Which number is two?", choices)
    assert answer_key(cloud, question["question_id"])["correct_key"] == "B"
    assert answer(http, question["question_id"], "B")["is_correct"] is True
    (record,) = audit(http, question["question_id"])
    assert (record["before"]["stem"], record["after"]["stem"]) == (question["stem"], "Which number is two?")
    assert stats(http)["questions_edited"] == 1


def test_accepting_a_question_leaves_the_queue_and_a_new_report_brings_it_back(http, step_functions):
    start(http)
    question = wait_for_questions(http)[0]
    report = f"/sessions/s1/questions/{question['question_id']}/reports"
    http("POST", report, {"reason": "typo"}, ALICE)
    path = f"/review/questions/{question['question_id']}"
    status, _, body = http("POST", path, {"action": "accept"}, REVIEWER)
    assert (status, body["status"]) == (200, "active"), body
    assert entry_for(queue(http), question["question_id"]) is None
    assert stats(http)["questions_accepted"] == 1
    http("POST", report, {"reason": "still a typo"}, ALICE)
    entry = entry_for(queue(http), question["question_id"])
    assert [r["reason"] for r in entry["question"]["reports"]] == ["typo", "still a typo"]


def test_unknown_attempts_and_questions_are_404_and_bad_review_bodies_name_the_field(http, step_functions):
    status, _, body = http("POST", "/review/attempts/nope", {"action": "accept"}, REVIEWER)
    assert (status, body["error_code"]) == (404, "ATTEMPT_NOT_FOUND")
    status, _, body = http("POST", "/review/questions/nope", {"action": "accept"}, REVIEWER)
    assert (status, body["error_code"]) == (404, "QUESTION_NOT_FOUND")
    for path, request, field in (
        ("/review/attempts/a1", {"action": "override"}, "score"),
        ("/review/attempts/a1", {"action": "override", "score": 101}, "score"),
        ("/review/attempts/a1", {"action": "regrade"}, "action"),
        ("/review/questions/q1", {"action": "retire", "stem": ""}, "stem"),
    ):
        status, _, body = http("POST", path, request, REVIEWER)
        assert (status, body["error"].split(":")[0]) == (422, field), (request, body)
    assert http("GET", "/review/queue?limit=0", None, REVIEWER)[0] == 422
    assert http("GET", "/review/audit", None, REVIEWER)[0] == 422


# ---------------------------------------------------------------- who may review
REVIEW_ROUTES = [
    ("GET", "/review/queue", None),
    ("GET", "/review/stats", None),
    ("GET", "/review/audit?target_id=x", None),
    ("POST", "/review/attempts/a1", {"action": "accept"}),
    ("POST", "/review/questions/q1", {"action": "accept"}),
    ("GET", "/review/groups", None),
    ("POST", "/review/groups/g1", {"score": 90, "note": "right"}),
    ("POST", "/review/questions/q1", {"action": "retire", "stem": ""}),  # refused before validation
]


@pytest.mark.parametrize(("method", "path", "body"), REVIEW_ROUTES)
@pytest.mark.parametrize(
    "who",
    [
        ALICE,
        token(ALICE, **{"cognito:groups": ["admins"]}),
        token(ALICE, scope="openid profile"),
        token(ALICE, scope=EVERY_SCOPE),
        token(ALICE, scope=EVERY_SCOPE, **{"cognito:groups": ["authors"]}),
    ],
    ids=["learner", "other-group", "other-scope", "every-scope", "author-with-every-scope"],
)
def test_everyone_but_a_reviewer_gets_403_on_every_review_route(http, step_functions, method, path, body, who):
    status, _, response = http(method, path, body, who)
    assert (status, response["error_code"]) == (403, "FORBIDDEN")


def test_the_openapi_document_has_every_new_route():
    document = json.loads((REPO_ROOT / "docs/openapi.json").read_text())
    assert {
        "/sessions/{session_id}/rounds/{round}",
        "/sessions/{session_id}/summary",
        "/sessions/{session_id}/questions/{question_id}/reports",
        "/review/queue",
        "/review/attempts/{attempt_id}",
        "/review/questions/{question_id}",
        "/review/stats",
        "/review/audit",
    } <= set(document["paths"])
