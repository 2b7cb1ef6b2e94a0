"""A placement test through the HTTP API: one question at a time from the bank, the same question
until it is answered, a result once the stopping rule holds, and generation filling a thin bank."""

import boto3
import pytest

LEARNER = "0f8fad5b-d9cb-469f-a165-70867728950e"  # no survey: the population's prior
OTHER = "7c9e6679-7425-40de-944b-e07fc1f90ae7"


@pytest.fixture
def http(signed_http):
    """Every request of this file through the signed-token path: the local user pool signs each
    token, and who may do what is decided by the claims API Gateway's authorizer passes on."""
    return signed_http


def key_of(runtime, question_id):
    table = boto3.resource("dynamodb").Table(runtime.cloud.table_name("QuestionsTable"))
    schema = table.get_item(Key={"question_id": question_id})["Item"]["answer_schema"]
    return schema.get("correct_key") or " ".join(schema.get("correct_keywords", []))


def bank_items(runtime):
    table = boto3.resource("dynamodb").Table(runtime.cloud.table_name("QuestionsTable"))
    return [item for item in table.scan()["Items"] if item.get("bank_key")]


def placement(http, user, category="technical"):
    status, _, body = http("POST", "/sessions", {"purpose": "placement", "category": category}, user)
    assert status == 201, body
    assert body["purpose"] == "placement"
    return body["session_id"]


def next_step(http, step_functions, session, user):
    """POST .../next, waiting out the first fill of an empty bank (503 NO_QUESTION_YET)."""
    for _ in range(3):
        status, _, body = http("POST", f"/sessions/{session}/next", None, user)
        if status != 503:
            assert status == 200, body
            return body
        assert body["error_code"] == "NO_QUESTION_YET", body
        step_functions.wait_for_running()
    raise AssertionError("the bank was never filled")


def test_placement_asks_one_question_at_a_time_and_stops_with_a_level(http, step_functions, unlimited_rates):
    session = placement(http, LEARNER)
    first = next_step(http, step_functions, session, LEARNER)
    assert first["done"] is False
    question = first["question"]
    assert "correct_answer" not in question
    assert "answer_schema" not in question
    assert first["progress"]["answered"] == 0
    assert first["progress"]["more_expected"] >= 1
    # Asking again before answering gives the same question.
    assert next_step(http, step_functions, session, LEARNER)["question"]["question_id"] == question["question_id"]
    asked = [question["question_id"]]
    body = first
    while not body["done"]:
        current = body["question"]
        key = key_of(step_functions.runtime, current["question_id"])
        answer = {"question_id": current["question_id"], "user_answer": key}
        status, _, graded = http("POST", f"/sessions/{session}/answers", answer, LEARNER)
        assert status == 200, graded
        body = next_step(http, step_functions, session, LEARNER)
        if not body["done"]:
            assert body["question"]["question_id"] not in asked  # never the same item twice
            asked.append(body["question"]["question_id"])
            assert body["progress"]["answered"] == len(asked) - 1
        assert len(asked) <= 25
    result = body["result"]
    assert result["items"] == len(asked)
    assert result["stopped_because"] in {"precise", "max_items", "no_items"}
    if result["stopped_because"] == "precise":
        assert result["se"] <= 0.5
    assert result["range_low"] < result["theta"] < result["range_high"]
    assert result["level"] in {c["level"] for c in result["chances"]}
    assert abs(sum(c["chance"] for c in result["chances"]) - 1) < 0.01
    assert result["theta"] > 0  # every answer right: above the population's middle
    assert result["statement"].startswith(result["level"])
    # The result stands: asking again returns it, and the learner's ability counted the answers.
    again = next_step(http, step_functions, session, LEARNER)
    assert again == body
    status, _, ability = http("GET", "/learners/me/ability?category=technical", None, LEARNER)
    assert status == 200
    assert ability["abilities"][0]["answers"] == len(asked)


def test_a_placement_is_the_owners_alone_and_only_a_placement_has_next(http, step_functions):
    session = placement(http, LEARNER)
    status, _, refused = http("POST", f"/sessions/{session}/next", None, OTHER)
    assert status == 403, refused
    status, _, practice = http("POST", "/sessions", None, LEARNER)
    assert status == 201
    assert practice["purpose"] == "practice"
    status, _, refused = http("POST", f"/sessions/{practice['session_id']}/next", None, LEARNER)
    assert status == 409, refused
    assert refused["error_code"] == "NOT_A_PLACEMENT", refused
    status, _, refused = http("POST", f"/sessions/{session}/rounds", {"category": "technical"}, LEARNER)
    assert status == 409, refused
    assert refused["error_code"] == "PLACEMENT_SESSION", refused


def test_a_placement_needs_its_category(http, step_functions):
    status, _, refused = http("POST", "/sessions", {"purpose": "placement"}, LEARNER)
    assert status == 422, refused
    assert "category" in refused["error"]


def test_a_thin_bank_is_filled_by_generation_and_the_fill_marks_nothing_seen(http, step_functions):
    assert bank_items(step_functions.runtime) == []
    session = placement(http, LEARNER)
    status, _, body = http("POST", f"/sessions/{session}/next", None, LEARNER)
    assert status == 503, body
    assert body["error_code"] == "NO_QUESTION_YET", body
    step_functions.wait_for_running()
    filled = bank_items(step_functions.runtime)
    assert filled, "the fill saved nothing to the bank"
    ability = boto3.resource("dynamodb").Table(step_functions.runtime.cloud.table_name("AbilitiesTable"))
    stored = ability.get_item(Key={"user_id": LEARNER, "entry": "ability#technical"}).get("Item") or {}
    assert not stored.get("seen_items")  # the fill's items are still the learner's to meet
    body = next_step(http, step_functions, session, LEARNER)
    assert body["question"] is not None


@pytest.mark.parametrize(
    "body", [{"purpose": "exam", "category": "technical"}, {"purpose": "placement", "category": ""}]
)
def test_a_bad_session_request_names_the_field(http, step_functions, body):
    status, _, refused = http("POST", "/sessions", body, LEARNER)
    assert status == 422, refused


def test_filling_the_bank_costs_the_learner_a_round_of_their_quota(http, step_functions):
    from slea.dal import usage

    spent = {"user_id": LEARNER, "day": usage.today(), "rounds": usage.daily_round_limit()}
    boto3.resource("dynamodb").Table(step_functions.runtime.cloud.table_name("UsageTable")).put_item(Item=spent)
    session = placement(http, LEARNER)
    status, _, body = http("POST", f"/sessions/{session}/next", None, LEARNER)
    assert status == 503, body
    step_functions.wait_for_running()
    assert bank_items(step_functions.runtime) == []  # no generation was started for the bank
