"""Ids that reveal nothing, tried as a hostile learner would.

Before: a question id was a UUIDv5 of (round id, type, stem, choices, answer key) and the round id
is `{session}_{round}_{timestamp to the second}`, next to the round's `started_at`; an attempt id
was a UUIDv5 of the session and an attempt key whose digest includes the answer key. Both
namespaces are in the public code, so a learner recomputed the ids for every candidate key and
kept the one that matched. Now ids are random (Mode 1 drafts) or keyed under the deployment's
secret, and idempotency comes from fixing the id once and carrying it through every retry.
"""

import datetime
import hashlib
import json
import re
import uuid
from typing import Any

import boto3
import pytest

from slea_local.runtime import LocalRuntime, QueuePoller
from tests.integration.test_api import ALICE, wait_for_questions
from tests.integration.test_save_generated_question import question, stored

MACHINE = "GenerateRoundStateMachine"
# The namespaces of the old derivations, as anyone could read them in the repository.
OLD_QUESTION_NAMESPACE = uuid.UUID("5d1e55e3-0000-4000-8000-000000000005")
OLD_ATTEMPT_NAMESPACE = uuid.UUID("5d1e55e3-0000-4000-8000-000000000006")
ROUND_WINDOW_SECONDS = (-5, 300)  # the Generate step names the round a few seconds after it starts
KEYED_TYPES = ("multiple_choice", "true_false")
LABEL = re.compile(r"^\(?([A-Za-z])[).:]")


# ---------------------------------------------------------------- what the learner computes
def candidate_keys(item: dict[str, Any]) -> list[str]:
    """Every key the item could have: a choice's label letter (or its text when unlabelled)."""
    keys = []
    for choice in item["choices"]:
        label = LABEL.match(choice)
        keys.append(label.group(1) if label else choice)
    return keys


@pytest.fixture
def http(signed_http):
    """Every request of this file through the signed-token path: the local user pool signs each
    token, and the subject reaches the functions only as API Gateway's authorizer passes it."""
    return signed_http


def candidate_round_ids(session_id: str, round_number: int, started_at: str) -> list[str]:
    started = datetime.datetime.fromisoformat(started_at.replace("Z", "+00:00"))
    return [
        f"{session_id}_{round_number}_"
        + (started + datetime.timedelta(seconds=offset)).isoformat(timespec="seconds").replace("+00:00", "Z")
        for offset in range(*ROUND_WINDOW_SECONDS)
    ]


def keys_from_question_ids(items: list[dict[str, Any]], session_id: str, started_at: str) -> dict[str, str]:
    """question id -> the key whose UUIDv5 (old derivation) is that id."""
    recovered = {}
    for item in items:
        if item["type"] not in KEYED_TYPES:
            continue
        for round_id in candidate_round_ids(session_id, item["round"], started_at):
            for key in candidate_keys(item):
                identity = [round_id, item["type"], item["stem"], *item["choices"], "|", key]
                if str(uuid.uuid5(OLD_QUESTION_NAMESPACE, "\n".join(identity))) == item["question_id"]:
                    recovered[item["question_id"]] = key
    return recovered


def key_from_attempt_id(item: dict[str, Any], session_id: str, user: str, answer: str, attempt_id: str) -> str | None:
    """The key whose old attempt id (UUIDv5 of the session and the attempt key, whose digest
    covers user, answer and key) is `attempt_id`."""
    for key in candidate_keys(item):
        identity = [user, answer, item["type"], key, None, item["choices"], None]
        digest = hashlib.sha256(json.dumps(identity, ensure_ascii=False).encode()).hexdigest()[:24]
        if str(uuid.uuid5(OLD_ATTEMPT_NAMESPACE, f"{session_id}\n{item['question_id']}#{digest}")) == attempt_id:
            return key
    return None


def keyed_round(http: Any, step_functions: Any) -> tuple[str, list[dict[str, Any]], dict[str, Any]]:
    """A learner's round of multiple-choice and true/false items started through the HTTP API,
    with everything the learner sees of it: the questions and the round's status."""
    status, _, created = http("POST", "/sessions", None, ALICE)
    assert status == 201, created
    session_id = created["session_id"]
    request = {"category": "technical", "count": 10, "question_types": list(KEYED_TYPES)}
    status, _, started = http("POST", f"/sessions/{session_id}/rounds", request, ALICE)
    assert status == 202, started
    items = wait_for_questions(http, session_id, ALICE, count=10)
    step_functions.wait_for_running()
    status, _, round_status = http("GET", f"/sessions/{session_id}/rounds/1", None, ALICE)
    assert status == 200, round_status
    assert sorted(round_status["question_ids"]) == sorted(item["question_id"] for item in items)
    assert sum(item["type"] in KEYED_TYPES for item in items) == 10
    return session_id, items, round_status


# ---------------------------------------------------------------- the attacks
def test_question_ids_of_a_round_give_away_no_key(http, step_functions):
    session_id, items, round_status = keyed_round(http, step_functions)
    assert keys_from_question_ids(items, session_id, round_status["started_at"]) == {}


def test_question_ids_over_mcp_give_away_no_key(step_functions):
    from tests.integration.test_mcp import tool_call

    runtime: LocalRuntime = step_functions.runtime
    started = tool_call(
        runtime, "start_round", {"category": "technical", "count": 8, "question_types": list(KEYED_TYPES)}
    )["structuredContent"]
    step_functions.wait_for_running()
    shown = tool_call(runtime, "get_round", {"session_id": started["session_id"]})["structuredContent"]
    assert shown["status"] == "SUCCEEDED", shown
    assert len(shown["questions"]) == 8
    assert keys_from_question_ids(shown["questions"], started["session_id"], shown["started_at"]) == {}


def test_attempt_ids_give_away_no_key(http, step_functions):
    """Answered with a guess, an item's attempt id (in the grading and the attempt list) must not
    tell the learner which choice was right."""
    session_id, items, _ = keyed_round(http, step_functions)
    recovered = {}
    for item in items:
        answer = candidate_keys(item)[0]
        body = {"question_id": item["question_id"], "user_answer": answer}
        status, _, graded = http("POST", f"/sessions/{session_id}/answers", body, ALICE)
        assert status == 200, graded
        key = key_from_attempt_id(item, session_id, ALICE, answer, graded["attempt_id"])
        if key is not None:
            recovered[item["question_id"]] = key
    assert recovered == {}
    status, _, listed = http("GET", f"/sessions/{session_id}/attempts", None, ALICE)
    assert status == 200
    assert not any("attempt_key" in attempt for attempt in listed["attempts"])


# ---------------------------------------------------------------- idempotency stays
def generated_ids(execution: Any) -> list[str]:
    """The ids the Generate step gave the round's drafts (its output in the execution history)."""
    ids = []
    for event in execution.events:
        details = event.get("stateExitedEventDetails") or {}
        if event["type"] == "TaskStateExited" and details.get("name") == "Generate":
            ids += [draft["question_id"] for draft in json.loads(details["output"])["generated"]["questions"]]
    return ids


def run_round(step_functions: Any, session_id: str, count: int = 4) -> Any:
    execution_input = {"user_id": ALICE, "session_id": session_id, "round": 1, "category": "technical", "count": count}
    return step_functions.run(MACHINE, execution_input, name=f"ids-{session_id}")


def test_a_retried_save_step_writes_each_question_once_under_its_generated_id(step_functions, faults):
    """The save step writes one question, fails on the second and cannot queue it: Step Functions
    retries the whole step, which finds the first already saved under the same id."""
    cloud = step_functions.runtime.cloud
    puts = iter(range(1000))
    second_put_fails = faults.dynamodb(
        "save_generated_question", "TransactWriteItems", error="InternalServerError", when=lambda: next(puts) == 1
    )
    with second_put_fails, faults.sqs("save_generated_question", "SendMessage"):
        execution = run_round(step_functions, "sess_save_retry")
    assert execution.status == "SUCCEEDED", execution.cause
    assert step_functions.retry_waits, "the save step was not retried"
    ids = generated_ids(execution)
    assert len(ids) == 4
    assert [q["question_id"] for q in execution.output["questions"]] == ids
    assert sorted(stored(cloud)) == sorted(ids)


def test_a_redelivered_retry_message_saves_under_the_generated_id(step_functions, faults):
    cloud = step_functions.runtime.cloud
    with faults.dynamodb("save_generated_question", "TransactWriteItems", error="InternalServerError"):
        execution = run_round(step_functions, "sess_redelivered")
    assert execution.status == "SUCCEEDED", execution.cause
    assert all(q["queued_for_retry"] for q in execution.output["questions"])
    assert stored(cloud) == {}
    report = QueuePoller(step_functions.runtime, "RetryQueue").drain(redeliver=lambda message: True)
    assert report.deleted == 4
    assert sorted(stored(cloud)) == sorted(generated_ids(execution))


def test_a_direct_save_without_an_id_gets_the_same_keyed_id_twice(cloud, runtime):
    first = runtime.invoke("save_generated_question", question())
    second = runtime.invoke("save_generated_question", question())
    assert first["question_id"] == second["question_id"]
    assert uuid.UUID(first["question_id"]).version == 8  # keyed, not the old UUIDv5
    assert len(stored(cloud)) == 1


def test_another_secret_gives_a_direct_save_another_id(cloud, runtime):
    first = runtime.invoke("save_generated_question", question())["question_id"]
    rotate_id_secret(cloud)
    again = LocalRuntime(cloud).invoke("save_generated_question", question())  # a cold start reads the new secret
    assert again["question_id"] != first


def rotate_id_secret(cloud: Any, value: str | None = None) -> None:
    """A new value of the deployment's secret (random unless given: a test that counts positions
    fixes it, so its outcome does not depend on the draw). Functions read it on a cold start."""
    client = boto3.client("secretsmanager")
    value = value or client.get_random_password(PasswordLength=64, ExcludePunctuation=True)["RandomPassword"]
    client.put_secret_value(SecretId=cloud.physical_names["IdSecret"], SecretString=value)


@pytest.mark.parametrize("question_id", ["not-a-uuid", "q_001", " 11111111-1111-4111-8111-111111111111", ""])
def test_a_malformed_question_id_is_refused_naming_the_field(cloud, runtime, question_id):
    with pytest.raises(ValueError, match="question_id"):
        runtime.invoke("save_generated_question", question(question_id=question_id))
    with pytest.raises(ValueError, match=r"questions\[0\]\.question_id"):
        runtime.invoke("save_generated_question", {"questions": [question(question_id=question_id)]})
    assert stored(cloud) == {}


def test_a_well_formed_question_id_is_kept_in_canonical_form(cloud, runtime):
    saved = runtime.invoke("save_generated_question", question(question_id="0F8E4C6A-2B7D-4F1E-9A3C-5D6B7E8F9A01"))
    assert saved["question_id"] == "0f8e4c6a-2b7d-4f1e-9a3c-5d6b7e8f9a01"
    assert list(stored(cloud)) == [saved["question_id"]]
