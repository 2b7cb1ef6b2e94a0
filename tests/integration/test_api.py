"""The Mode 2 HTTP API through its HTTP API v2 events (the local adapter stands in for API
Gateway and its JWT authorizer)."""

import json
import re
import time

import boto3
import pytest

ALICE = "550e8400-e29b-41d4-a716-446655440000"
BOB = "7c9e6679-7425-40de-944b-e07fc1f90ae7"


SESSIONS = {}


@pytest.fixture
def http(signed_http):
    """Every request of this file through the signed-token path: the local user pool signs each
    token, and the subject reaches the functions only as API Gateway's authorizer passes it."""
    return signed_http


@pytest.fixture(autouse=True)
def sessions_table(step_functions):
    SESSIONS["table"] = boto3.resource("dynamodb").Table(step_functions.runtime.cloud.table_name("SessionsTable"))


def own(session, user):
    """`session` as `POST /sessions` would have made it for `user` (these tests name their
    sessions; the server's ids are random). An existing session keeps its owner."""
    try:
        SESSIONS["table"].put_item(
            Item={"session_id": session, "user_id": user, "created_at": "2026-11-23T00:00:00Z"},
            ConditionExpression="attribute_not_exists(session_id)",
        )
    except SESSIONS["table"].meta.client.exceptions.ConditionalCheckFailedException:
        pass


def start(http, session="s1", user=ALICE, **changes):
    own(session, user)
    return http("POST", f"/sessions/{session}/rounds", {"category": "technical", "count": 3, **changes}, user)


def wait_for_questions(http, session="s1", user=ALICE, count=3, polls=200):
    for _ in range(polls):
        status, _, body = http("GET", f"/sessions/{session}/questions", None, user)
        if status == 200 and len(body["questions"]) >= count:
            return body["questions"]
        time.sleep(0.05)
    raise AssertionError("the round did not produce its questions")


def answer_key(cloud, question_id):
    item = (
        boto3.resource("dynamodb").Table(cloud.table_name("QuestionsTable")).get_item(Key={"question_id": question_id})
    )
    return item["Item"]["answer_schema"]


def test_a_round_then_answers_then_attempts(http, step_functions):
    status, _, started = start(http)
    assert status == 202
    assert started["execution_arn"]
    assert started["status"] == "RUNNING"
    questions = wait_for_questions(http)
    cloud = step_functions.runtime.cloud
    graded = []
    for question in questions:
        key = answer_key(cloud, question["question_id"])
        right = key.get("correct_key") or " ".join(key.get("correct_keywords", []))
        status, _, result = http(
            "POST", "/sessions/s1/answers", {"question_id": question["question_id"], "user_answer": right}, ALICE
        )
        assert status == 200, result
        graded.append(result)
    assert all(result["user_id"] == ALICE and len(result["explanation"]) >= 500 for result in graded)
    keyed = [r for q, r in zip(questions, graded, strict=True) if q["type"] != "short_answer"]
    assert all(result["is_correct"] for result in keyed)  # MC/TF answered with their own key
    status, _, listed = http("GET", "/sessions/s1/attempts", None, ALICE)
    assert status == 200
    assert [a["attempt_id"] for a in listed["attempts"]] == [r["attempt_id"] for r in graded]


def test_a_placement_round_reaches_the_plan_and_an_unknown_purpose_is_422(http, step_functions):
    status, _, started = start(http, purpose="placement")
    assert status == 202
    wait_for_questions(http)
    execution = boto3.client("stepfunctions").describe_execution(executionArn=started["execution_arn"])
    assert json.loads(execution["input"])["purpose"] == "placement"
    status, _, body = start(http, session="s2", purpose="exam")
    assert status == 422
    assert body["error"].startswith("purpose")


def test_the_answer_key_never_leaves_the_server_before_answering(http, step_functions):
    start(http)
    questions = wait_for_questions(http)
    text = json.dumps(questions)
    for question in questions:
        key = answer_key(step_functions.runtime.cloud, question["question_id"])
        shown = {"question_id", "round", "type", "stem", "choices", "difficulty", "category", "answered", "skipped"}
        shown |= {"difficulty_level"}  # the difficulty on its scale: "4 of 10: beginner"
        assert set(question) == shown
        if key.get("correct_keywords"):
            assert json.dumps(key["correct_keywords"]) not in text
    assert "answer_schema" not in text
    assert not any(field.startswith("correct") for question in questions for field in question)


def test_another_users_session_is_forbidden(http, step_functions):
    start(http)
    questions = wait_for_questions(http)
    assert start(http, user=BOB)[0] == 403
    assert http("GET", "/sessions/s1/questions", None, BOB)[0] == 403
    assert http("GET", "/sessions/s1/attempts", None, BOB)[0] == 403
    status, _, body = http(
        "POST", "/sessions/s1/answers", {"question_id": questions[0]["question_id"], "user_answer": "A"}, BOB
    )
    assert (status, body["error_code"]) == (403, "FORBIDDEN")


def test_without_a_token_api_gateway_refuses(http, step_functions):
    assert http("GET", "/sessions/s1/attempts")[0] == 401


def test_unknown_session_and_question_are_404(http, step_functions):
    status, _, body = http("GET", "/sessions/nobody/attempts", None, ALICE)
    assert (status, body["error_code"]) == (404, "SESSION_NOT_FOUND")
    start(http)
    wait_for_questions(http)
    start(http, session="s2")
    other = wait_for_questions(http, session="s2")
    status, _, body = http("POST", "/sessions/s1/answers", {"question_id": "missing", "user_answer": "A"}, ALICE)
    assert (status, body["error_code"]) == (404, "QUESTION_NOT_FOUND")
    status, _, _ = http(
        "POST", "/sessions/s1/answers", {"question_id": other[0]["question_id"], "user_answer": "A"}, ALICE
    )
    assert status == 404  # a question of another session


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/sessions/s1/answers", {"question_id": "q"}, "user_answer"),
        ("/sessions/s1/answers", {"question_id": "", "user_answer": "A"}, "question_id"),
        ("/sessions/s1/answers", "{not json", "body"),
        ("/sessions/s1/answers", [1, 2], "body"),
        ("/sessions/s1/rounds", {"category": "sports"}, "category"),
        ("/sessions/s1/rounds", {"category": "technical", "count": 99}, "count"),
        ("/sessions/bad%20id/rounds", {"category": "technical"}, "session_id"),
    ],
)
def test_bad_input_is_422_in_the_error_shape_naming_the_field(http, step_functions, path, body, field):
    status, _, response = http("POST", path, body, ALICE)
    assert status == 422
    assert set(response) == {"error", "error_code", "detail", "timestamp"}
    assert response["error_code"] == "VALIDATION_ERROR"
    assert response["error"].startswith(field)


def test_unknown_route_is_404_from_api_gateway_before_any_function(http, step_functions):
    """Routes come from template.yaml's HttpApi events, as in AWS: no function runs."""
    assert http("GET", "/nowhere", None, ALICE)[::2] == (404, {"message": "Not Found"})
    assert http("DELETE", "/sessions", None, ALICE)[::2] == (404, {"message": "Not Found"})


def test_a_request_the_api_function_cannot_route_is_404_in_the_error_shape(step_functions):
    from slea_local.http import http_api_event

    event = http_api_event("GET", "/nowhere", "", {}, body="", claims={"sub": ALICE})
    response = step_functions.runtime.invoke("ApiFunction", event)
    assert (response["statusCode"], json.loads(response["body"])["error_code"]) == (404, "NOT_FOUND")


def test_the_web_app_needs_no_token_and_the_api_still_does(http, step_functions):
    for path in ("/", "/review", "/assets/common.js", "/config.json"):
        assert http("GET", path)[0] == 200, path
    config = http("GET", "/config.json")[2]
    # Signed tokens: the pages sign in through the local pool, as in AWS, and are offered no seeded
    # learner to act as (the development sign-in's list: tests/unit/web/test_local_learners.py).
    assert config["mode"] == "oauth"
    assert config["token_url"].endswith("/oauth2/token")
    assert "learners" not in config
    assert http("POST", "/sessions")[0] == 401
    assert http("GET", "/sessions/s1/questions")[0] == 401


def test_routes_carry_their_route_key_and_path_parameters():
    from slea_local.http import http_api_routes
    from slea_local.template import repository_template

    routes = http_api_routes(repository_template())
    matched = [(route.key, route.match("GET", "/sessions/abc/questions")) for route in routes]
    assert [(key, found) for key, found in matched if found is not None] == [
        ("GET /sessions/{session_id}/questions", {"session_id": "abc"})
    ]
    assert [route.key for route in routes if route.match("GET", "/") is not None] == ["GET /"]
    assert [
        (route.key, route.match("GET", "/assets/app.css")) for route in routes if route.match("GET", "/assets/app.css")
    ] == [("GET /assets/{file}", {"file": "app.css"})]
    assert not any(route.match("GET", "/assets/a/b.css") for route in routes)  # {file} is one segment


def test_committed_openapi_document_is_current():
    from slea.http.api import openapi_document
    from slea_local.http import OPENAPI_PATH
    from slea_local.runtime import load_function_module

    generated = openapi_document(load_function_module("api").with_every_route())
    assert json.loads(OPENAPI_PATH.read_text(encoding="utf-8")) == generated, "run: python -m slea_local openapi"
    responses = generated["paths"]["/sessions/{session_id}/answers"]["post"]["responses"]
    assert {"200", "401", "403", "404", "422"} <= set(responses)
    assert generated["components"]["schemas"]["HTTPValidationError"] == {"$ref": "#/components/schemas/ErrorResponse"}


def test_a_question_can_be_answered_once_and_a_retry_gets_the_recorded_grading(http, step_functions):
    start(http)
    question = wait_for_questions(http)[0]
    body = {"question_id": question["question_id"], "user_answer": "A"}
    status, _, first = http("POST", "/sessions/s1/answers", body, ALICE)
    assert status == 200
    status, _, again = http("POST", "/sessions/s1/answers", body, ALICE)
    assert (status, again) == (200, first)
    status, _, error = http("POST", "/sessions/s1/answers", {**body, "user_answer": "B"}, ALICE)
    assert (status, error["error_code"]) == (409, "ALREADY_ANSWERED")
    assert len(http("GET", "/sessions/s1/attempts", None, ALICE)[2]["attempts"]) == 1
    assert answer_key(step_functions.runtime.cloud, question["question_id"]) is not None
    stored = stored_question(step_functions.runtime.cloud, question["question_id"])
    assert stored["usage_count"] == 1


def stored_question(cloud, question_id):
    table = boto3.resource("dynamodb").Table(cloud.table_name("QuestionsTable"))
    return table.get_item(Key={"question_id": question_id})["Item"]


def test_a_failure_before_the_record_loses_nothing_and_the_retry_records(http, step_functions, faults):
    """The attempt, the answered marker and the statistics are one transaction: when it fails
    (after botocore's retries), nothing is recorded, the answer gets a 503, and a retry works."""
    start(http)
    question = wait_for_questions(http)[0]
    body = {"question_id": question["question_id"], "user_answer": "A"}
    cloud = step_functions.runtime.cloud
    with faults.dynamodb("score_and_explain", "TransactWriteItems", error="InternalServerError"):
        status, _, failed = http("POST", "/sessions/s1/answers", body, ALICE)
    assert (status, failed["error_code"]) == (503, "ANSWER_NOT_RECORDED")
    assert "usage_count" not in stored_question(cloud, question["question_id"])
    assert http("GET", "/sessions/s1/attempts", None, ALICE)[2]["attempts"] == []
    assert step_functions.runtime.metric_total("AttemptsNotRecorded") == 1
    status, _, retried = http("POST", "/sessions/s1/answers", body, ALICE)
    assert status == 200
    listed = http("GET", "/sessions/s1/attempts", None, ALICE)[2]["attempts"]
    assert [attempt["attempt_id"] for attempt in listed] == [retried["attempt_id"]]
    assert stored_question(cloud, question["question_id"])["usage_count"] == 1


def test_a_crash_after_the_record_loses_nothing_and_the_retry_returns_the_grading(http, step_functions, monkeypatch):
    """The function dies after committing (a timeout, say): the learner never saw the grading;
    the retry returns the recorded one, never 409, and the answer is counted once."""
    from slea.dal import attempts

    start(http)
    question = wait_for_questions(http)[0]
    body = {"question_id": question["question_id"], "user_answer": "A"}
    commit = attempts.record_graded_answer

    def crash(*args, **kwargs):
        commit(*args, **kwargs)
        raise RuntimeError("Task timed out")

    monkeypatch.setattr(attempts, "record_graded_answer", crash)
    assert http("POST", "/sessions/s1/answers", body, ALICE)[0] >= 500  # API Gateway's answer to a dead function
    monkeypatch.undo()
    status, _, retried = http("POST", "/sessions/s1/answers", body, ALICE)
    assert status == 200
    (recorded,) = http("GET", "/sessions/s1/attempts", None, ALICE)[2]["attempts"]
    assert (recorded["attempt_id"], recorded["score"]) == (retried["attempt_id"], retried["score"])
    assert stored_question(step_functions.runtime.cloud, question["question_id"])["usage_count"] == 1


def test_concurrent_identical_answers_are_recorded_once(http, step_functions):
    from concurrent.futures import ThreadPoolExecutor

    start(http)
    question = wait_for_questions(http)[0]
    body = {"question_id": question["question_id"], "user_answer": "A"}
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: http("POST", "/sessions/s1/answers", body, ALICE), range(4)))
    assert {status for status, _, _ in results} == {200}
    assert len({result["attempt_id"] for _, _, result in results}) == 1
    assert stored_question(step_functions.runtime.cloud, question["question_id"])["usage_count"] == 1


def test_a_subject_that_is_not_a_uuid_cannot_create_a_session(http, step_functions):
    status, _, body = http("POST", "/sessions", None, "not-a-uuid")
    assert (status, body["error_code"]) == (403, "UNSUPPORTED_SUBJECT")
    assert SESSIONS["table"].scan()["Items"] == []  # nothing was created


def test_storage_outage_is_a_503_in_the_error_shape(http, step_functions, faults):
    start(http)
    wait_for_questions(http)
    with faults.dynamodb("api", "GetItem", error="InternalServerError"):
        status, _, body = http("GET", "/sessions/s1/attempts", None, ALICE)
    assert (status, body["error_code"]) == (503, "SERVICE_UNAVAILABLE")


# ---------------------------------------------------------------- hardening: bodies, quotas, failed starts
@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ("[" * 30_000 + "]" * 30_000, 422, "VALIDATION_ERROR"),  # within 64 KiB, past any recursion limit
        ('{"category": "technical", "count": ' + "9" * 5000 + "}", 422, "VALIDATION_ERROR"),
        ('{"category": "technical", "note": "' + "x" * 70_000 + '"}', 413, "BODY_TOO_LARGE"),
        ('{"category": ', 422, "VALIDATION_ERROR"),
    ],
)
def test_bodies_no_route_could_read_are_refused_without_a_5xx(http, body, status, code):
    answered, _, error = http("POST", "/sessions/s1/rounds", body, ALICE)
    assert (answered, error["error_code"]) == (status, code)
    assert error["error"].startswith("body: ")


def _usage_table(step_functions):
    return boto3.resource("dynamodb").Table(step_functions.runtime.cloud.table_name("UsageTable"))


def test_a_user_past_the_daily_round_limit_gets_429_and_others_do_not(http, step_functions, midday):
    from slea.dal import usage

    today = usage.today()  # the day the functions count the round on (their clock: midday, never midnight)
    _usage_table(step_functions).put_item(Item={"user_id": ALICE, "day": today, "rounds": 30})
    status, _, body = start(http)
    assert (status, body["error_code"]) == (429, "QUOTA_EXCEEDED")
    assert "30 rounds today" in body["error"]
    assert start(http, session="s-bob", user=BOB)[0] == 202
    counted = _usage_table(step_functions).get_item(Key={"user_id": BOB, "day": today})["Item"]
    assert counted["rounds"] == 1
    assert counted["expires_at"] > midday.now().timestamp() + 86_400  # the table's TTL removes it after two days


def test_a_failed_start_answers_503_releases_the_session_and_does_not_count(http, step_functions, monkeypatch):
    from botocore.exceptions import ClientError

    import slea.logic.sessions.progress as session_logic

    class Unavailable:
        def start_execution(self, **_):
            raise ClientError({"Error": {"Code": "ServiceUnavailable", "Message": "down"}}, "StartExecution")

    monkeypatch.setattr(session_logic, "stepfunctions", lambda tool: Unavailable())
    status, _, body = start(http, session="s-new")
    assert (status, body["error_code"]) == (503, "ROUND_NOT_STARTED")
    assert _usage_table(step_functions).scan()["Items"][0]["rounds"] == 0
    assert http("GET", "/sessions/s-new/questions", None, ALICE)[2]["questions"] == []
    monkeypatch.undo()
    assert start(http, session="s-new")[0] == 202  # the same round starts once the service is back
    assert _usage_table(step_functions).scan()["Items"][0]["rounds"] == 1


def test_sessions_are_created_by_the_server_and_cannot_be_claimed(http, step_functions):
    status, _, created = http("POST", "/sessions", None, ALICE)
    assert status == 201
    session = created["session_id"]
    assert re.fullmatch(r"[0-9a-f\-]{36}", session)
    assert http("POST", "/sessions", None, ALICE)[2]["session_id"] != session
    request = {"category": "technical", "count": 2}
    assert http("POST", f"/sessions/{session}/rounds", request, ALICE)[0] == 202
    assert http("POST", f"/sessions/{session}/rounds", request, BOB)[0] == 403
    # An id nobody created cannot be taken by naming it: there is no session to start a round in.
    status, _, body = http("POST", "/sessions/exam-2026/rounds", request, BOB)
    assert (status, body["error_code"]) == (404, "SESSION_NOT_FOUND")
    assert http("POST", "/sessions", None, "not-a-uuid")[0] == 403
    assert http("POST", "/sessions", None, None)[0] == 401


def test_request_lists_are_bounded(http, step_functions):
    status, _, body = start(http, question_types=["multiple_choice"] * 21)
    assert (status, body["error"].split(":")[0]) == (422, "question_types")


def test_giving_back_a_round_whose_days_counter_is_gone_is_no_error(step_functions):
    from slea.dal import rounds, usage
    from slea.dal.rounds import StoredRound

    cloud = step_functions.runtime.cloud
    record = StoredRound(
        session_id="s-gone",
        round=1,
        round_status="RUNNING",
        claim_id="c1",
        user_id=BOB,
        started_at="2026-01-01T00:00:00Z",
    )
    with cloud.environment(cloud.environment_of("ApiFunction")):
        claimed, previous = rounds.claim(record)
        assert claimed
        # No counter for that day (expired): nothing to give back, nothing raised, the claim released.
        rounds.release(record, previous, give_back=usage.give_back_round(BOB, "2026-01-01"))
        assert rounds.get_round("s-gone", 1) is None
    assert _usage_table(step_functions).scan()["Items"] == []


def test_an_abandoned_claim_whose_days_counter_has_expired_still_fails_cleanly(step_functions):
    import datetime

    from slea.dal.rounds import stored_round
    from slea.logic.rounds import lifecycle as round_logic

    cloud = step_functions.runtime.cloud
    stale = (datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=3)).isoformat()
    record = {
        "session_id": "s-old",
        "round": 1,
        "round_status": "RUNNING",
        "claim_id": "c1",
        "execution_name": "s-old-r1-c1",
        "user_id": ALICE,
        "requested": 3,
        "category": "technical",
        "started_at": stale,
        "quota_day": stale[:10],
    }
    sessions = boto3.resource("dynamodb").Table(cloud.table_name("SessionsTable"))
    sessions.put_item(Item={**record, "session_id": "s-old#round#1", "owner_session": "s-old"})
    with cloud.environment(cloud.environment_of("ApiFunction")):
        assert round_logic.refreshed(stored_round(record)).round_status == "FAILED"
    stored = sessions.get_item(Key={"session_id": "s-old#round#1"})["Item"]
    assert stored["round_status"] == "FAILED"
    assert _usage_table(step_functions).scan()["Items"] == []  # nothing to give back, nothing made up
