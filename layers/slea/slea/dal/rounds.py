"""The rounds started in each session, in the sessions table beside the session itself. Key
design: partition `session_id` = "{session_id}#round#{n}"; session ids never contain "#" (the
API's path pattern), so a round's record can never be read or taken as a session.

A round is claimed with one conditional write before its execution starts: a round that is
RUNNING or SUCCEEDED cannot be claimed again (two requests cannot both start it), a FAILED one can.
"""

from typing import Any

from botocore.exceptions import ClientError

from slea.aws import dynamodb
from slea.dal.items import from_item, to_item
from slea.errors import storage_errors
from slea.settings import resource_name

TABLE_VARIABLE = "SESSIONS_TABLE"
TOOL = "api"
FAILED = "FAILED"


def round_key(session_id: str, round_number: int) -> dict[str, Any]:
    return {"session_id": {"S": f"{session_id}#round#{round_number}"}}


def get_round(session_id: str, round_number: int) -> dict[str, Any] | None:
    with storage_errors("rounds get"):
        item = (
            dynamodb(TOOL)
            .get_item(
                TableName=resource_name(TABLE_VARIABLE), Key=round_key(session_id, round_number), ConsistentRead=True
            )
            .get("Item")
        )
    return from_item(item) if item else None


def claim(record: dict[str, Any]) -> tuple[bool, dict[str, Any] | None]:
    """Store `record` (session_id, round, round_status RUNNING, claim_id, ...) unless the round is
    RUNNING or SUCCEEDED. Returns (claimed, the record it replaced or that stopped it)."""
    key = round_key(record["session_id"], record["round"])
    item = {**to_item({name: value for name, value in record.items() if name != "session_id"}), **key}
    item["owner_session"] = {"S": record["session_id"]}
    with storage_errors("rounds claim"):
        try:
            replaced = dynamodb(TOOL).put_item(
                TableName=resource_name(TABLE_VARIABLE),
                Item=item,
                ConditionExpression="attribute_not_exists(session_id) OR round_status = :failed",
                ExpressionAttributeValues={":failed": {"S": FAILED}},
                ReturnValues="ALL_OLD",
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                raise
            existing: dict[str, Any] = error.response.get("Item") or {}  # type: ignore[assignment]
            return False, _plain(from_item(existing)) if existing else None
    old = replaced.get("Attributes")
    return True, _plain(from_item(old)) if old else None


def _plain(record: dict[str, Any]) -> dict[str, Any]:
    """A stored record in the shape `claim` takes (its own session id, not the item key)."""
    return {**record, "session_id": record.get("owner_session", record["session_id"].split("#", 1)[0])}


def release(record: dict[str, Any], previous: dict[str, Any] | None) -> None:
    """Undo our claim (the round was not started): put back what it replaced, or remove it. Only
    our own claim is undone, never a later one."""
    table, key = resource_name(TABLE_VARIABLE), round_key(record["session_id"], record["round"])
    condition = {
        "ConditionExpression": "claim_id = :claim",
        "ExpressionAttributeValues": {":claim": {"S": record["claim_id"]}},
    }
    with storage_errors("rounds release"):
        try:
            if previous is None:
                dynamodb(TOOL).delete_item(TableName=table, Key=key, **condition)  # type: ignore[arg-type]
            else:
                restored = {**to_item({k: v for k, v in previous.items() if k != "session_id"}), **key}
                restored["owner_session"] = {"S": previous["session_id"]}
                dynamodb(TOOL).put_item(TableName=table, Item=restored, **condition)  # type: ignore[arg-type]
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                raise


def update(session_id: str, round_number: int, changes: dict[str, Any], expected_claim: str) -> bool:
    """Set `changes` on the round if it is still the claim `expected_claim`; False if not."""
    changes = {name: value for name, value in changes.items() if value is not None}
    names = {f"#f{i}": name for i, name in enumerate(changes)}
    values = {f":v{i}": value for i, value in enumerate(changes.values())}
    expression = "SET " + ", ".join(f"#f{i} = :v{i}" for i in range(len(changes)))
    with storage_errors("rounds update"):
        try:
            dynamodb(TOOL).update_item(
                TableName=resource_name(TABLE_VARIABLE),
                Key=round_key(session_id, round_number),
                UpdateExpression=expression,
                ConditionExpression="claim_id = :claim",
                ExpressionAttributeNames=names,
                ExpressionAttributeValues={**to_item(values), ":claim": {"S": expected_claim}},
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                raise
            return False
    return True
