"""The local DynamoDB writes its item operations' answers with json.dumps (slea_local.fast_responses):
here every answer is written both ways (CheckedFastResponses) along a learner's and a reviewer's
path through the HTTP API, and what the fast way leaves to moto (binary values, refusals, tables)
still reaches boto3 as moto writes it."""

import datetime
import math

import boto3
import pytest
from botocore.exceptions import ClientError

from slea_local.cloud import LocalCloud
from slea_local.fast_responses import ITEM_OPERATIONS, CheckedFastResponses, FastResponses, fast_body, plain_json
from tests.integration.test_api import ALICE, answer_key, wait_for_questions
from tests.integration.test_review_api import REVIEWER


@pytest.fixture
def cloud():
    with LocalCloud(fast_responses=CheckedFastResponses()) as local_cloud:
        yield local_cloud


def test_a_learners_and_a_reviewers_path_gets_the_same_answers_both_ways(http, step_functions, unlimited_rates):
    cloud = step_functions.runtime.cloud
    checked = cloud.fast_responses
    assert isinstance(checked, CheckedFastResponses)
    status, _, created = http("POST", "/sessions", None, ALICE)
    assert status == 201, created
    session = created["session_id"]
    round_one = {"category": "technical", "count": 3, "question_types": ["short_answer"]}
    assert http("POST", f"/sessions/{session}/rounds", round_one, ALICE)[0] == 202
    graded = []
    for shown in wait_for_questions(http, session, ALICE, count=3):
        reference = answer_key(cloud, shown["question_id"])["reference_answer"]
        body = {"question_id": shown["question_id"], "user_answer": reference}
        status, _, grade = http("POST", f"/sessions/{session}/answers", body, ALICE)
        assert status == 200, grade
        graded.append(grade)
    step_functions.wait_for_running()
    for path in (f"/sessions/{session}/summary", f"/sessions/{session}/attempts", "/learners/me/ability"):
        status, _, body = http("GET", path, None, ALICE)
        assert status == 200, (path, body)
    status, _, queue = http("GET", "/review/queue", None, REVIEWER)
    assert status == 200, queue
    for grade in [grade for grade in graded if grade["needs_review"]][:1]:
        status, _, body = http("POST", f"/review/attempts/{grade['attempt_id']}", {"action": "accept"}, REVIEWER)
        assert status == 200, body

    # Every item operation the path used was compared (AssertionError inside the call otherwise).
    assert {"GetItem", "Query", "UpdateItem", "PutItem", "TransactWriteItems", "BatchGetItem"} <= checked.compared


def test_what_the_fast_way_leaves_to_moto_still_arrives_as_moto_writes_it(cloud):
    checked = cloud.fast_responses
    client = boto3.client("dynamodb")
    table = cloud.table_name("ProfilesTable")
    key = {"user_id": {"S": "u1"}, "submitted_at": {"S": "2026-01-01T00:00:00Z"}}
    client.put_item(TableName=table, Item={**key, "blob": {"B": b"\x00\xff"}})
    passed_on = checked.passed_on
    assert client.get_item(TableName=table, Key=key)["Item"]["blob"] == {"B": b"\x00\xff"}
    assert checked.passed_on == passed_on + 1  # bytes: base64-encoded by moto's serializer
    with pytest.raises(ClientError) as refused:
        client.put_item(TableName=table, Item=key, ConditionExpression="attribute_not_exists(user_id)")
    assert refused.value.response["Error"]["Code"] == "ConditionalCheckFailedException"
    with pytest.raises(ClientError) as cancelled:
        client.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": table, "Item": key, "ConditionExpression": "attribute_not_exists(user_id)"}}
            ]
        )
    assert cancelled.value.response["Error"]["Code"] == "TransactionCanceledException"
    assert [reason["Code"] for reason in cancelled.value.response["CancellationReasons"]] == ["ConditionalCheckFailed"]
    assert client.describe_table(TableName=table)["Table"]["TableName"] == table


def test_only_json_native_results_of_item_operations_are_written_directly():
    item = {"Item": {"name": {"S": "x"}, "count": {"N": "3"}, "tags": {"L": [{"BOOL": True}, {"NULL": True}]}}}
    assert fast_body("GetItem", item) is not None
    assert fast_body("Query", {"Count": 1, "ScannedCount": 2, "Items": [item["Item"]]}) is not None
    assert fast_body("UpdateItem", {"ConsumedCapacity": {"CapacityUnits": 0.5}}) is not None
    assert fast_body("DescribeTable", {"Table": {"TableName": "t"}}) is None  # not an item operation
    assert fast_body("GetItem", {"Item": {"blob": {"B": b"\x00"}}}) is None  # bytes: base64 by moto
    assert fast_body("GetItem", ValueError("refused")) is None
    assert not plain_json({"at": datetime.datetime(2026, 1, 1)})
    assert not plain_json({"units": math.inf})
    assert not plain_json({1: "a key that is not a string"})
    assert "PutItem" in ITEM_OPERATIONS
    assert "CreateTable" not in ITEM_OPERATIONS


def test_another_moto_release_keeps_motos_serializer_with_a_warning(monkeypatch):
    import moto

    monkeypatch.setattr(moto, "__version__", "0.0.0")
    responses = FastResponses()
    with pytest.warns(UserWarning, match="fast_responses was written against moto"):
        responses.start()
    assert not responses.active
