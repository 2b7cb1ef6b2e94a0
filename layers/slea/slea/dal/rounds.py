"""The rounds started in each session, in the sessions table beside the session itself. Key
design: partition `session_id` = "{session_id}#round#{n}"; session ids never contain "#" (the
API's path pattern), so a round's record can never be read or taken as a session.

A round is claimed with one conditional write before its execution starts: a round that is
RUNNING or SUCCEEDED cannot be claimed again (two requests cannot both start it), a FAILED one can.

A round's record is a frozen StoredRound, built from its item in one place (`stored_round`); a
claim writes one (its fields that are set), and a finished round's outcome (RoundOutcome) is
written back on it, so the layers above never read a stored item's attribute names.
"""

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from botocore.exceptions import ClientError

from slea.dal import sessions
from slea.dal.sessions import StoredSession, stored_session
from slea.dal.wire_format import batch_get, from_item, to_item
from slea.platform.aws import dynamodb
from slea.platform.errors import DataAccessError, storage_errors
from slea.platform.settings import resource_name

TABLE_VARIABLE = "SESSIONS_TABLE"
TOOL = "api"
RUNNING, FAILED = "RUNNING", "FAILED"


@dataclass(frozen=True, slots=True)
class RoundOutcome:
    """How a round ended, written back on its record by the first reader that found it ended
    (None: not known, not written)."""

    round_status: str  # SUCCEEDED or FAILED
    finished_at: str
    generated: int | None = None  # drafts written
    valid: int | None = None  # drafts that passed validation
    delivered: int | None = None  # questions the round has (an output from before it was kept has none)
    from_neighbours: int | None = None
    shortfall_reason: str | None = None
    error: str | None = None  # a FAILED round's


@dataclass(frozen=True, slots=True)
class StoredRound:
    """A round's record: its claim (written whole by `claim`: every field up to `started_at`),
    the quota day noted on it (`take_quota`), its execution's ARN once started, and once it has
    finished its outcome. `session_id` is the round's own session (not the item's key)."""

    session_id: str
    round: int
    round_status: str  # RUNNING, SUCCEEDED or FAILED
    claim_id: str
    user_id: str
    started_at: str
    execution_name: str | None = None  # named before it starts: found even if its ARN was never noted
    requested: int = 0
    category: str | None = None
    quota_day: str | None = None  # the day its quota unit was taken on (None: none taken)
    execution_arn: str | None = None
    finished_at: str | None = None
    generated: int | None = None
    valid: int | None = None
    delivered: int | None = None
    from_neighbours: int | None = None
    shortfall_reason: str | None = None
    error: str | None = None

    def ended(self, outcome: RoundOutcome) -> "StoredRound":
        """The record with `outcome` written back (its unknown parts left as they were)."""
        known = {name: value for name, value in _fields(outcome).items() if value is not None}
        return replace(self, **known)


def _text(item: Mapping[str, Any], name: str) -> str | None:
    value = item.get(name)
    return None if value is None else str(value)


def _whole(item: Mapping[str, Any], name: str) -> int | None:
    value = item.get(name)
    return None if value is None else int(value)


def stored_round(item: Mapping[str, Any]) -> StoredRound:
    """The record of a round's item (a plain dict, wire_format.from_item's; its `session_id` may
    be the item's key or the session's own id)."""
    key = str(item.get("session_id") or "")
    return StoredRound(
        session_id=str(item.get("owner_session") or key.split("#", 1)[0]),
        round=int(item.get("round") or 0),
        round_status=str(item.get("round_status") or ""),
        claim_id=str(item.get("claim_id") or ""),
        user_id=str(item.get("user_id") or ""),
        started_at=str(item.get("started_at") or ""),
        execution_name=_text(item, "execution_name"),
        requested=int(item.get("requested") or 0),
        category=_text(item, "category"),
        quota_day=_text(item, "quota_day"),
        execution_arn=_text(item, "execution_arn"),
        finished_at=_text(item, "finished_at"),
        generated=_whole(item, "generated"),
        valid=_whole(item, "valid"),
        delivered=_whole(item, "delivered"),
        from_neighbours=_whole(item, "from_neighbours"),
        shortfall_reason=_text(item, "shortfall_reason"),
        error=_text(item, "error"),
    )


def _fields(record: StoredRound | RoundOutcome) -> dict[str, Any]:
    return {field.name: getattr(record, field.name) for field in fields(record)}


def _round_item(record: StoredRound) -> dict[str, Any]:
    """The item of `record`: its fields that are set, under the round's key, with its session."""
    document = {name: value for name, value in _fields(record).items() if name != "session_id"}
    item = {**to_item(document), **round_key(record.session_id, record.round)}
    item["owner_session"] = {"S": record.session_id}
    return item


def round_key(session_id: str, round_number: int) -> dict[str, Any]:
    return {"session_id": {"S": f"{session_id}#round#{round_number}"}}


def session_with_rounds(
    session_id: str, numbers: tuple[int, ...]
) -> tuple[StoredSession | None, dict[int, StoredRound]]:
    """The session's own record and its rounds' records, in one BatchGetItem (both live in this
    table): (the session or None, {round number: record} for the rounds ever claimed)."""
    keys = [{"session_id": {"S": session_id}}, *(round_key(session_id, number) for number in numbers)]
    table = resource_name(TABLE_VARIABLE)
    request: dict[str, Any] = {table: {"Keys": keys, "ConsistentRead": True}}
    items, unprocessed = batch_get(dynamodb(TOOL), request, "session and rounds get", rounds=3)
    if unprocessed:
        raise DataAccessError("session and rounds get: keys left unprocessed")
    found = {str(record["session_id"]): record for record in map(from_item, items.get(table, []))}
    keyed = {number: f"{session_id}#round#{number}" for number in numbers}
    own = found.get(session_id)
    claimed = {number: stored_round(found[key]) for number, key in keyed.items() if key in found}
    return (stored_session(own) if own else None), claimed


def sessions_and_rounds(
    session_ids: list[str], numbers: tuple[int, ...], *, with_sessions: bool = True
) -> tuple[dict[str, StoredSession], dict[tuple[str, int], StoredRound]]:
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
    found: dict[tuple[str, int], StoredRound] = {}
    own: dict[str, StoredSession] = {}
    for record in map(from_item, items.get(table, [])):
        session_id, marker, number = str(record["session_id"]).rpartition("#round#")
        if marker:
            found[(session_id, int(number))] = stored_round(record)
        else:
            own[str(record["session_id"])] = stored_session(record)
    return own, found


def get_round(session_id: str, round_number: int) -> StoredRound | None:
    with storage_errors("rounds get"):
        item = (
            dynamodb(TOOL)
            .get_item(
                TableName=resource_name(TABLE_VARIABLE), Key=round_key(session_id, round_number), ConsistentRead=True
            )
            .get("Item")
        )
    return stored_round(from_item(item)) if item else None


def claim(record: StoredRound) -> tuple[bool, StoredRound | None]:
    """Store `record` (round_status RUNNING: a new claim) unless the round is RUNNING or
    SUCCEEDED. Returns (claimed, the record it replaced or that stopped it)."""
    item = _round_item(record)
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
            return False, stored_round(from_item(existing)) if existing else None
    old = replaced.get("Attributes")
    return True, stored_round(from_item(old)) if old else None


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


def take_quota(record: StoredRound, day: str, quota: dict[str, Any]) -> bool:
    """Take the round's quota unit (`quota`, a slea.dal.usage item for `day`) and note `day` on
    our claim as `quota_day`, in one transaction: the record says a unit was taken exactly when
    it was; the session joins `open-sessions` (slea.dal.sessions.opened: its round's items are
    to be answered or counted) in the same write. False if the daily limit is reached;
    DataAccessError if our claim or the session went meanwhile."""
    condition, values = _claim_condition(record.claim_id)
    mark = {
        "Update": {
            "TableName": resource_name(TABLE_VARIABLE),
            "Key": round_key(record.session_id, record.round),
            "UpdateExpression": "SET quota_day = :day",
            "ConditionExpression": condition,
            "ExpressionAttributeValues": values | {":day": {"S": day}},
        }
    }
    opened = sessions.opened(record.session_id, record.user_id, record.started_at)
    codes = _transact([mark, quota, opened], "rounds quota")
    if _condition_failed(codes, 0) or _condition_failed(codes, 2):
        raise DataAccessError("rounds quota failed: the round's claim or its session changed")
    return codes is None


def release(record: StoredRound, previous: StoredRound | None, give_back: dict[str, Any] | None = None) -> None:
    """Undo our claim (the round was not started): put back what it replaced, or remove it, and
    with `give_back` (a slea.dal.usage item) return its quota unit in the same transaction. Only
    our own claim, still RUNNING, is undone, so a unit is never given back twice."""
    condition, values = _claim_condition(record.claim_id)
    target: dict[str, Any] = {
        "TableName": resource_name(TABLE_VARIABLE),
        "ConditionExpression": condition,
        "ExpressionAttributeValues": values,
    }
    if previous is None:
        undo: dict[str, Any] = {"Delete": {**target, "Key": round_key(record.session_id, record.round)}}
    else:
        undo = {"Put": {**target, "Item": _round_item(previous)}}
    codes = _transact([undo, give_back] if give_back else [undo], "rounds release")
    if _condition_failed(codes, 1) and not _condition_failed(codes, 0):  # the day's counter expired
        _transact([undo], "rounds release")


def finish_unstarted(record: StoredRound, outcome: RoundOutcome, give_back: dict[str, Any] | None) -> bool:
    """Record `outcome` (FAILED: the execution never started) on our claim if it is still
    RUNNING, and with `give_back` (a slea.dal.usage item) return its quota unit in the same
    transaction: the unit comes back exactly once, however many requests find the claim
    abandoned. False if the claim was no longer ours or no longer RUNNING."""
    update = _update_item(record.session_id, record.round, _fields(outcome), record.claim_id, running=True)
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


def note_execution(record: StoredRound, execution_arn: str) -> bool:
    """Note the started execution's ARN on our claim; False if the claim is no longer ours."""
    return update(record.session_id, record.round, {"execution_arn": execution_arn}, record.claim_id)


def record_outcome(record: StoredRound, outcome: RoundOutcome) -> bool:
    """Write back how the round ended (its known parts) if it is still our claim; False if not."""
    return update(record.session_id, record.round, _fields(outcome), record.claim_id)


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
