"""The rounds started in each session, in the sessions table beside the session itself. Key
design: partition `session_id` = "{session_id}#round#{n}"; session ids never contain "#" (the
API's path pattern), so a round's record can never be read or taken as a session.

A round is claimed with one conditional write before its execution starts: a round that is
RUNNING or SUCCEEDED cannot be claimed again (two requests cannot both start it), a FAILED one can.
"""

from typing import Any

from botocore.exceptions import ClientError

from slea.dal import sessions
from slea.dal.wire_format import batch_get, from_item, to_item
from slea.platform.aws import dynamodb
from slea.platform.errors import DataAccessError, storage_errors
from slea.platform.settings import resource_name

TABLE_VARIABLE = "SESSIONS_TABLE"
TOOL = "api"
RUNNING, FAILED = "RUNNING", "FAILED"


def round_key(session_id: str, round_number: int) -> dict[str, Any]:
    return {"session_id": {"S": f"{session_id}#round#{round_number}"}}


def session_with_rounds(session_id: str, numbers: tuple[int, ...]) -> tuple[dict[str, Any] | None, dict[int, Any]]:
    """The session's own item and its rounds' records, in one BatchGetItem (both live in this
    table): (the session or None, {round number: record} for the rounds ever claimed)."""
    keys = [{"session_id": {"S": session_id}}, *(round_key(session_id, number) for number in numbers)]
    table = resource_name(TABLE_VARIABLE)
    request: dict[str, Any] = {table: {"Keys": keys, "ConsistentRead": True}}
    items, unprocessed = batch_get(dynamodb(TOOL), request, "session and rounds get", rounds=3)
    if unprocessed:
        raise DataAccessError("session and rounds get: keys left unprocessed")
    found = {str(record["session_id"]): record for record in map(from_item, items.get(table, []))}
    keyed = {number: f"{session_id}#round#{number}" for number in numbers}
    return found.get(session_id), {number: _plain(found[key]) for number, key in keyed.items() if key in found}


def sessions_and_rounds(
    session_ids: list[str], numbers: tuple[int, ...], *, with_sessions: bool = True
) -> tuple[dict[str, dict[str, Any]], dict[tuple[str, int], dict[str, Any]]]:
    """The rounds' records of several sessions and (`with_sessions`) the sessions' own records
    (their purpose: the learner's index of sessions holds keys only), in one BatchGetItem (at most
    100 keys: a listing's page is bounded well below that): ({session id: record},
    {(session id, round number): record} for rounds ever claimed)."""
    keys = [round_key(session_id, number) for session_id in session_ids for number in numbers]
    if with_sessions:
        keys += [{"session_id": {"S": session_id}} for session_id in dict.fromkeys(session_ids)]
    if not keys:
        return {}, {}
    table = resource_name(TABLE_VARIABLE)
    request: dict[str, Any] = {table: {"Keys": keys, "ConsistentRead": True}}
    items, unprocessed = batch_get(dynamodb(TOOL), request, "rounds get", rounds=3)
    if unprocessed:
        raise DataAccessError("rounds get: keys left unprocessed")
    found: dict[tuple[str, int], dict[str, Any]] = {}
    own: dict[str, dict[str, Any]] = {}
    for record in map(from_item, items.get(table, [])):
        session_id, marker, number = str(record["session_id"]).rpartition("#round#")
        if marker:
            found[(session_id, int(number))] = _plain(record)
        else:
            own[str(record["session_id"])] = record
    return own, found


def get_round(session_id: str, round_number: int) -> dict[str, Any] | None:
    with storage_errors("rounds get"):
        item = (
            dynamodb(TOOL)
            .get_item(
                TableName=resource_name(TABLE_VARIABLE), Key=round_key(session_id, round_number), ConsistentRead=True
            )
            .get("Item")
        )
    # In the shape `claim` takes: a finished round's outcome is written back under its own key.
    return _plain(from_item(item)) if item else None


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


def _claim_condition(claim_id: str, *, running: bool = True) -> tuple[str, dict[str, Any]]:
    """The condition (and its values) "still our claim", and with `running` "still RUNNING" (not
    yet finished or failed by anyone)."""
    values = {":claim": {"S": claim_id}}
    if not running:
        return "claim_id = :claim", values
    return "claim_id = :claim AND round_status = :running", values | {":running": {"S": RUNNING}}


def _transact(items: list[dict[str, Any]], operation: str) -> list[str] | None:
    """Write all of `items` or none: None when written, else each item's cancellation code
    ("None" for the items whose condition held)."""
    with storage_errors(operation):
        try:
            dynamodb(TOOL).transact_write_items(TransactItems=items)  # type: ignore[arg-type]
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != "TransactionCanceledException":
                raise
            reasons = error.response.get("CancellationReasons", [])
            return [str(reason.get("Code", "None")) for reason in reasons]
    return None


def _condition_failed(codes: list[str] | None, position: int) -> bool:
    return codes is not None and len(codes) > position and codes[position] == "ConditionalCheckFailed"


def take_quota(record: dict[str, Any], day: str, quota: dict[str, Any]) -> bool:
    """Take the round's quota unit (`quota`, a slea.dal.usage item for `day`) and note `day` on
    our claim as `quota_day`, in one transaction: the record says a unit was taken exactly when
    it was; the session joins `open-sessions` (slea.dal.sessions.opened: its round's items are
    to be answered or counted) in the same write. False if the daily limit is reached;
    DataAccessError if our claim or the session went meanwhile."""
    condition, values = _claim_condition(record["claim_id"])
    mark = {
        "Update": {
            "TableName": resource_name(TABLE_VARIABLE),
            "Key": round_key(record["session_id"], record["round"]),
            "UpdateExpression": "SET quota_day = :day",
            "ConditionExpression": condition,
            "ExpressionAttributeValues": values | {":day": {"S": day}},
        }
    }
    opened = sessions.opened(record["session_id"], str(record["user_id"]), str(record["started_at"]))
    codes = _transact([mark, quota, opened], "rounds quota")
    if _condition_failed(codes, 0) or _condition_failed(codes, 2):
        raise DataAccessError("rounds quota failed: the round's claim or its session changed")
    return codes is None


def release(record: dict[str, Any], previous: dict[str, Any] | None, give_back: dict[str, Any] | None = None) -> None:
    """Undo our claim (the round was not started): put back what it replaced, or remove it, and
    with `give_back` (a slea.dal.usage item) return its quota unit in the same transaction. Only
    our own claim, still RUNNING, is undone, so a unit is never given back twice."""
    condition, values = _claim_condition(record["claim_id"])
    target: dict[str, Any] = {
        "TableName": resource_name(TABLE_VARIABLE),
        "ConditionExpression": condition,
        "ExpressionAttributeValues": values,
    }
    key = round_key(record["session_id"], record["round"])
    if previous is None:
        undo: dict[str, Any] = {"Delete": {**target, "Key": key}}
    else:
        restored = {**to_item({k: v for k, v in previous.items() if k != "session_id"}), **key}
        restored["owner_session"] = {"S": previous["session_id"]}
        undo = {"Put": {**target, "Item": restored}}
    codes = _transact([undo, give_back] if give_back else [undo], "rounds release")
    if _condition_failed(codes, 1) and not _condition_failed(codes, 0):  # the day's counter expired
        _transact([undo], "rounds release")


def finish_unstarted(record: dict[str, Any], changes: dict[str, Any], give_back: dict[str, Any] | None) -> bool:
    """Record `changes` (FAILED: the execution never started) on our claim if it is still
    RUNNING, and with `give_back` (a slea.dal.usage item) return its quota unit in the same
    transaction: the unit comes back exactly once, however many requests find the claim
    abandoned. False if the claim was no longer ours or no longer RUNNING."""
    update = _update_item(record["session_id"], int(record["round"]), changes, str(record["claim_id"]), running=True)
    codes = _transact([update, give_back] if give_back else [update], "rounds finish")
    if _condition_failed(codes, 1) and not _condition_failed(codes, 0):  # the day's counter expired
        codes = _transact([update], "rounds finish")
    return codes is None


def _update_item(
    session_id: str, round_number: int, changes: dict[str, Any], claim_id: str, *, running: bool = False
) -> dict[str, Any]:
    """The Update that sets `changes` on the round if it is still the claim `claim_id` (and, with
    `running`, still RUNNING)."""
    changes = {name: value for name, value in changes.items() if value is not None}
    values = {f":v{i}": value for i, value in enumerate(changes.values())}
    condition, claim_values = _claim_condition(claim_id, running=running)
    return {
        "Update": {
            "TableName": resource_name(TABLE_VARIABLE),
            "Key": round_key(session_id, round_number),
            "UpdateExpression": "SET " + ", ".join(f"#f{i} = :v{i}" for i in range(len(changes))),
            "ExpressionAttributeNames": {f"#f{i}": name for i, name in enumerate(changes)},
            "ConditionExpression": condition,
            "ExpressionAttributeValues": to_item(values) | claim_values,
        }
    }


def update(session_id: str, round_number: int, changes: dict[str, Any], expected_claim: str) -> bool:
    """Set `changes` on the round if it is still the claim `expected_claim`; False if not."""
    with storage_errors("rounds update"):
        try:
            dynamodb(TOOL).update_item(**_update_item(session_id, round_number, changes, expected_claim)["Update"])
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                raise
            return False
    return True
