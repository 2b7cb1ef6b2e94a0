"""slea_local.fast_transactions: TransactWriteItems without whole-table copies keeps moto's
semantics. Each case runs the same requests on a fresh moto twice, with moto's own method and with
the patch, and compares what a client sees (the error, its CancellationReasons, every table)."""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import boto3
import moto
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from slea_local.cloud import OFFLINE_ENVIRONMENT, REGION, LocalCloud
from slea_local.fast_transactions import REVIEWED_MOTO_VERSION, FastTransactions

pytestmark = pytest.mark.aws  # moto, built here rather than from the cloud fixture

PLAIN, RANGED = "plain", "ranged"  # a table keyed by pk; one keyed by pk and sk


def _s(value: str) -> dict[str, str]:
    return {"S": value}


def _n(value: int) -> dict[str, str]:
    return {"N": str(value)}


@contextmanager
def _moto(fast: bool, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, FastTransactions | None]]:
    for name, value in OFFLINE_ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        patch = FastTransactions() if fast else None
        if patch:
            patch.start()
        try:
            client = boto3.client("dynamodb", region_name=REGION)
            _create_tables(client)
            yield client, patch
        finally:
            if patch:
                patch.stop()


def _create_tables(client: Any, plain_items: int = 0) -> None:
    client.create_table(
        TableName=PLAIN,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    client.create_table(
        TableName=RANGED,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "N"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    client.put_item(TableName=PLAIN, Item={"pk": _s("a1"), "count": _n(1), "tags": {"SS": ["x"]}})
    client.put_item(TableName=PLAIN, Item={"pk": _s("a2"), "note": _s("keep")})
    for sk in (1, 2):
        client.put_item(TableName=RANGED, Item={"pk": _s("b"), "sk": _n(sk), "count": _n(sk)})


def _state(client: Any) -> dict[str, list[dict[str, Any]]]:
    return {
        table: sorted(client.scan(TableName=table)["Items"], key=repr) for table in client.list_tables()["TableNames"]
    }


# Writes to both tables (a put, updates, a delete, a new item in a ranged table) before a last entry.
EARLIER_WRITES: list[dict[str, Any]] = [
    {"Put": {"TableName": PLAIN, "Item": {"pk": _s("a3"), "count": _n(3)}}},
    {
        "Update": {
            "TableName": PLAIN,
            "Key": {"pk": _s("a1")},
            "UpdateExpression": "SET #c = #c + :one ADD tags :tag",
            "ExpressionAttributeNames": {"#c": "count"},
            "ExpressionAttributeValues": {":one": _n(1), ":tag": {"SS": ["y"]}},
        }
    },
    {"Delete": {"TableName": PLAIN, "Key": {"pk": _s("a2")}}},
    {"Delete": {"TableName": RANGED, "Key": {"pk": _s("b"), "sk": _n(1)}}},
    {"Put": {"TableName": RANGED, "Item": {"pk": _s("b"), "sk": _n(3)}}},
    {
        "Update": {
            "TableName": RANGED,
            "Key": {"pk": _s("c"), "sk": _n(1)},
            "UpdateExpression": "SET made = :t",
            "ExpressionAttributeValues": {":t": {"BOOL": True}},
        }
    },
]
FAILING_LAST = {
    "Update": {
        "TableName": RANGED,
        "Key": {"pk": _s("b"), "sk": _n(2)},
        "UpdateExpression": "SET #c = :zero",
        "ConditionExpression": "attribute_not_exists(pk)",
        "ExpressionAttributeNames": {"#c": "count"},
        "ExpressionAttributeValues": {":zero": _n(0)},
        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
    }
}
FAILING_FIRST = {
    "ConditionCheck": {
        "TableName": PLAIN,
        "Key": {"pk": _s("a2")},
        "ConditionExpression": "note = :other",
        "ExpressionAttributeValues": {":other": _s("other")},
    }
}
CASES: dict[str, list[dict[str, Any]]] = {
    "last condition fails": [*EARLIER_WRITES, FAILING_LAST],
    "first condition fails, later writes applied then undone": [FAILING_FIRST, *EARLIER_WRITES],
    "one item twice": [*EARLIER_WRITES, {"Delete": {"TableName": PLAIN, "Key": {"pk": _s("a1")}}}],
    "a missing table": [*EARLIER_WRITES, {"Put": {"TableName": "nowhere", "Item": {"pk": _s("z")}}}],
    "an update that cannot apply": [
        *EARLIER_WRITES,
        {
            "Update": {
                "TableName": PLAIN,
                "Key": {"pk": _s("a9")},
                "UpdateExpression": "SET n = n + :one",
                "ExpressionAttributeValues": {":one": _n(1)},
            }
        },
    ],
    "a key without its range key (moto's own copies)": [
        *EARLIER_WRITES,
        {"Delete": {"TableName": RANGED, "Key": {"pk": _s("b")}}},
    ],
    "all succeed": [
        *EARLIER_WRITES,
        {
            "ConditionCheck": {
                "TableName": RANGED,
                "Key": {"pk": _s("b"), "sk": _n(2)},
                "ConditionExpression": "attribute_exists(pk)",
            }
        },
    ],
}


def _outcome(client: Any, items: list[dict[str, Any]]) -> dict[str, Any]:
    try:
        client.transact_write_items(TransactItems=items)
        error: dict[str, Any] = {}
    except ClientError as failure:
        error = {
            "code": failure.response["Error"]["Code"],
            "message": failure.response["Error"]["Message"],
            "reasons": failure.response.get("CancellationReasons"),
        }
    return {"error": error, "state": _state(client)}


@pytest.mark.parametrize("case", list(CASES))
def test_a_client_sees_what_unpatched_moto_shows(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given the same tables, once under moto's own method and once under the patch
    with _moto(False, monkeypatch) as (client, _):
        before = _state(client)
        expected = _outcome(client, CASES[case])
    with _moto(True, monkeypatch) as (client, patch):
        # When the same transaction runs
        seen = _outcome(client, CASES[case])
        assert patch is not None
        assert (patch.tables_copied > 0) == case.endswith("(moto's own copies)")
    # Then the error, its reasons and every table are the same
    assert seen == expected
    if case == "all succeed":
        assert not seen["error"]
        assert seen["state"] != before
    else:
        assert seen["error"]
        assert seen["state"] == before


def test_a_failed_last_condition_leaves_every_table_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    with _moto(True, monkeypatch) as (client, _):
        before = _state(client)
        with pytest.raises(ClientError) as failure:
            client.transact_write_items(TransactItems=[*EARLIER_WRITES, FAILING_LAST])
        assert failure.value.response["Error"]["Code"] == "TransactionCanceledException"
        reasons = failure.value.response["CancellationReasons"]
        assert [reason["Code"] for reason in reasons] == ["None"] * len(EARLIER_WRITES) + ["ConditionalCheckFailed"]
        assert reasons[-1]["Item"] == {"pk": _s("b"), "sk": _n(2), "count": _n(2)}  # ALL_OLD, as it was
        assert _state(client) == before
        # and the tables still take writes
        client.transact_write_items(TransactItems=EARLIER_WRITES)
        assert client.get_item(TableName=PLAIN, Key={"pk": _s("a1")})["Item"]["count"] == _n(2)


def test_one_item_twice_keeps_moto_validation_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with _moto(True, monkeypatch) as (client, _):
        before = _state(client)
        twice = [EARLIER_WRITES[1], {"Delete": {"TableName": PLAIN, "Key": {"pk": _s("a1")}}}]
        with pytest.raises(ClientError) as failure:
            client.transact_write_items(TransactItems=twice)
        assert failure.value.response["Error"]["Code"] == "ValidationException"
        assert "multiple operations on one item" in failure.value.response["Error"]["Message"]
        assert _state(client) == before


def test_a_success_applies_every_item(monkeypatch: pytest.MonkeyPatch) -> None:
    with _moto(True, monkeypatch) as (client, _):
        client.transact_write_items(TransactItems=EARLIER_WRITES)
        state = _state(client)
    assert {item["pk"]["S"] for item in state[PLAIN]} == {"a1", "a3"}
    assert next(item for item in state[PLAIN] if item["pk"] == _s("a1"))["tags"] == {"SS": ["x", "y"]}
    assert [(item["pk"]["S"], item["sk"]["N"]) for item in state[RANGED]] == [("b", "2"), ("b", "3"), ("c", "1")]


@pytest.mark.parametrize("stored", [10, 2_000])
def test_the_copies_follow_the_transaction_not_the_tables(stored: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given tables holding few or many items
    with _moto(True, monkeypatch) as (client, patch):
        assert patch is not None
        for number in range(stored):
            client.put_item(TableName=PLAIN, Item={"pk": _s(f"filler-{number}")})
        copied_before = patch.items_copied
        # When a transaction writes three stored items and adds one, and fails on the last; then
        # the same without the last succeeds
        writes = [EARLIER_WRITES[0], EARLIER_WRITES[1], EARLIER_WRITES[3]]
        with pytest.raises(ClientError):
            client.transact_write_items(TransactItems=[*writes, FAILING_LAST])
        client.transact_write_items(TransactItems=writes)
        # Then each run copied the stored items it writes, whatever the tables hold, and no table
        assert patch.items_copied - copied_before == 3 + 2
        # nor for a table it only checks
        key = {"pk": _s("b"), "sk": _n(2)}
        check = {"ConditionCheck": {"TableName": RANGED, "Key": key, "ConditionExpression": "attribute_exists(pk)"}}
        client.transact_write_items(TransactItems=[check, {"Put": {"TableName": PLAIN, "Item": {"pk": _s("new")}}}])
        assert patch.tables_copied == 0
        assert client.describe_table(TableName=PLAIN)["Table"]["ItemCount"] == stored + 4


def test_the_local_cloud_uses_it_and_can_go_without() -> None:
    with LocalCloud() as cloud:
        assert cloud.fast_transactions is not None
        assert cloud.fast_transactions.active
    with LocalCloud(fast_transactions=False) as cloud:
        assert cloud.fast_transactions is None


def test_it_was_read_against_the_installed_moto() -> None:
    # A moto upgrade leaves whole-table copies in place (with a warning) until this module is
    # checked against the new transact_write_items and REVIEWED_MOTO_VERSION is moved.
    assert moto.__version__ == REVIEWED_MOTO_VERSION


def test_an_entry_with_two_operations_leaves_nothing_written_unlike_moto(monkeypatch: pytest.MonkeyPatch) -> None:
    # moto raises on such an entry where it finds it, after the entries before it were applied,
    # and keeps them; DynamoDB rejects the request whole, and so does the patch.
    two_operations = {
        "Put": {"TableName": PLAIN, "Item": {"pk": _s("a8")}},
        "Delete": {"TableName": PLAIN, "Key": {"pk": _s("a7")}},
    }
    with _moto(False, monkeypatch) as (client, _):
        before = _state(client)
        unpatched = _outcome(client, [EARLIER_WRITES[0], two_operations])
    with _moto(True, monkeypatch) as (client, _):
        patched = _outcome(client, [EARLIER_WRITES[0], two_operations])
    assert patched["error"] == unpatched["error"]
    assert patched["error"]["code"] == "ValidationException"
    assert unpatched["state"] != before  # moto kept the first entry
    assert patched["state"] == before
