"""Test sessions and who owns them. Key design: partition `session_id`. The server creates every
session (a random id, `POST /sessions`) for the caller, who alone may use it afterwards. A session
is closed (`closed_at`) once its learner moves on (a new session, a round in another one): it
takes no more answers.

Sparse index `open-sessions` (`open_for` + `created_at`, with `round_started_at`): a session is in
it from the start of a round there (`open_for` = its owner, set in the round's quota transaction,
slea.dal.rounds.take_quota) until everything its rounds showed is answered or counted as skipped
(logic/rounds/skips.py), so the sessions a learner may have left items open in are one Query
away, however many sessions they have.

`get_session`, `open_sessions` and `user_sessions` return frozen records (StoredSession,
OpenSession, ListedSession, and a page's end as SessionPage), each built from its item here;
`record` still gives the plain item to the callers not moved to the record yet.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from slea.dal.wire_format import from_item
from slea.platform.aws import dynamodb
from slea.platform.clock import utc_now
from slea.platform.errors import storage_errors
from slea.platform.settings import resource_name

TABLE_VARIABLE = "SESSIONS_TABLE"
TOOL = "api"


@dataclass(frozen=True, slots=True)
class StoredSession:
    """A session as stored. A placement test (`purpose` "placement") keeps where it began
    (`category`, `language`, `prior`: JSON [mean, sd]) and, once done, its result (JSON)."""

    session_id: str
    user_id: str
    created_at: str | None = None
    user_name: str | None = None
    purpose: str | None = None  # None: a practice session (sessions from before purposes were kept too)
    category: str | None = None
    language: str | None = None
    prior: str | None = None
    placement_result: str | None = None
    closed_at: str | None = None  # the learner moved on: it takes no more answers
    # In `open-sessions` (its owner) from the start of a round there, and when that round started.
    open_for: str | None = None
    round_started_at: str | None = None


@dataclass(frozen=True, slots=True)
class OpenSession:
    """A session in `open-sessions`: a round started there may have left items open."""

    session_id: str
    created_at: str | None = None
    round_started_at: str | None = None


@dataclass(frozen=True, slots=True)
class SessionPage:
    """Where a page of the `user-sessions` index ends (its keys)."""

    session_id: str
    user_id: str
    created_at: str


@dataclass(frozen=True, slots=True)
class ListedSession:
    """A session as the `user-sessions` index lists it (its keys: the index holds no more)."""

    session_id: str
    created_at: str


def _text(item: Mapping[str, Any], name: str) -> str | None:
    value = item.get(name)
    return None if value is None else str(value)


def stored_session(item: Mapping[str, Any]) -> StoredSession:
    """The record of a session item (a plain dict, wire_format.from_item's)."""
    return StoredSession(
        session_id=str(item.get("session_id") or ""),
        user_id=str(item.get("user_id") or ""),
        created_at=_text(item, "created_at"),
        user_name=_text(item, "user_name"),
        purpose=_text(item, "purpose"),
        category=_text(item, "category"),
        language=_text(item, "language"),
        prior=_text(item, "prior"),
        placement_result=_text(item, "placement_result"),
        closed_at=_text(item, "closed_at"),
        open_for=_text(item, "open_for"),
        round_started_at=_text(item, "round_started_at"),
    )


def open_session(item: Mapping[str, Any]) -> OpenSession:
    """The record of an `open-sessions` index item (its strings)."""
    return OpenSession(
        session_id=str(item.get("session_id") or ""),
        created_at=_text(item, "created_at"),
        round_started_at=_text(item, "round_started_at"),
    )


def listed_session(item: Mapping[str, Any]) -> ListedSession:
    """The record of a `user-sessions` index item (its strings)."""
    return ListedSession(session_id=str(item.get("session_id") or ""), created_at=str(item.get("created_at") or ""))


def owner_of(session_id: str) -> str | None:
    found = record(session_id)
    return str(found["user_id"]) if found else None


def get_session(session_id: str) -> StoredSession | None:
    """The session's record (owner, creation, closing, a placement's state), or None."""
    found = record(session_id)
    return stored_session(found) if found else None


def record(session_id: str) -> dict[str, Any] | None:
    """The session's record (owner, creation, closing), or None."""
    with storage_errors("sessions get"):
        item = (
            dynamodb(TOOL)
            .get_item(
                TableName=resource_name(TABLE_VARIABLE), Key={"session_id": {"S": session_id}}, ConsistentRead=True
            )
            .get("Item")
        )
    return from_item(item) if item else None


def close_session(session_id: str, at: str) -> None:
    """Mark the session closed (the first closing stands); nothing if it no longer exists."""
    with storage_errors("sessions update"):
        try:
            dynamodb(TOOL).update_item(
                TableName=resource_name(TABLE_VARIABLE),
                Key={"session_id": {"S": session_id}},
                UpdateExpression="SET closed_at = if_not_exists(closed_at, :at)",
                ConditionExpression="attribute_exists(session_id)",
                ExpressionAttributeValues={":at": {"S": at}},
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                raise


def owner_name(session_id: str) -> str | None:
    """The display name the session's learner had when they created it (None: not recorded)."""
    name = (record(session_id) or {}).get("user_name")
    return name if isinstance(name, str) else None


def create(
    session_id: str, user_id: str, user_name: str | None = None, placement: dict[str, str] | None = None
) -> bool:
    """Store a new session owned by `user_id` (and their display name, which reviewers see in the
    review record); False if the id is taken (never overwritten). `placement`: the session is a
    placement test, with its `category`, `language` and `prior` (strings: the user-sessions index's
    readers take every attribute as one)."""
    item = {"session_id": {"S": session_id}, "user_id": {"S": user_id}, "created_at": {"S": utc_now("milliseconds")}}
    if user_name:
        item["user_name"] = {"S": user_name}
    if placement:
        item["purpose"] = {"S": "placement"}
        item |= {name: {"S": value} for name, value in placement.items()}
    with storage_errors("sessions put"):
        try:
            dynamodb(TOOL).put_item(
                TableName=resource_name(TABLE_VARIABLE),
                # Milliseconds (created_at): the user-sessions index orders a learner's sessions by
                # it, and two may be created within a second (the newest is the one a page resumes).
                Item=item,
                ConditionExpression="attribute_not_exists(session_id)",
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                raise
            return False
    return True


def delete(session_id: str, user_id: str) -> None:
    """Remove a session the caller just created and never used (its first round was refused);
    only the owner's, so no one else's session can be removed by a forged id."""
    with storage_errors("sessions delete"):
        try:
            dynamodb(TOOL).delete_item(
                TableName=resource_name(TABLE_VARIABLE),
                Key={"session_id": {"S": session_id}},
                ConditionExpression="user_id = :user",
                ExpressionAttributeValues={":user": {"S": user_id}},
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                raise


USER_INDEX = "user-sessions"


def user_sessions(
    user_id: str, limit: int, start: SessionPage | None = None
) -> tuple[list[ListedSession], SessionPage | None]:
    """Up to `limit` of the user's sessions, newest first, from the `user-sessions` index, and
    where the next page starts (None at the end). `start` is a previous page's end."""
    params: dict[str, Any] = {
        "TableName": resource_name(TABLE_VARIABLE),
        "IndexName": USER_INDEX,
        "KeyConditionExpression": "user_id = :user_id",
        "ExpressionAttributeValues": {":user_id": {"S": user_id}},
        "ScanIndexForward": False,
        "Limit": limit,
    }
    if start:
        params["ExclusiveStartKey"] = {
            "session_id": {"S": start.session_id},
            "user_id": {"S": start.user_id},
            "created_at": {"S": start.created_at},
        }
    with storage_errors("sessions query"):
        response = dynamodb(TOOL).query(**params)
    found = [listed_session({name: value["S"] for name, value in item.items()}) for item in response.get("Items", [])]
    last = response.get("LastEvaluatedKey")
    if not last:
        return found, None
    return found, SessionPage(
        session_id=last["session_id"]["S"], user_id=last["user_id"]["S"], created_at=last["created_at"]["S"]
    )


OPEN_INDEX = "open-sessions"


def opened(session_id: str, user_id: str, at: str) -> dict[str, Any]:
    """A transaction's write that puts the session in `open-sessions` (a round started `at`)."""
    return {
        "Update": {
            "TableName": resource_name(TABLE_VARIABLE),
            "Key": {"session_id": {"S": session_id}},
            "UpdateExpression": "SET open_for = :user, round_started_at = :at",
            "ConditionExpression": "attribute_exists(session_id)",
            "ExpressionAttributeValues": {":user": {"S": user_id}, ":at": {"S": at}},
        }
    }


def open_sessions(user_id: str) -> list[OpenSession]:
    """The user's sessions in `open-sessions` (session_id, created_at, round_started_at), oldest
    first: in practice one or two (moving on settles them), so one page."""
    params: dict[str, Any] = {
        "TableName": resource_name(TABLE_VARIABLE),
        "IndexName": OPEN_INDEX,
        "KeyConditionExpression": "open_for = :user_id",
        "ExpressionAttributeValues": {":user_id": {"S": user_id}},
    }
    found: list[OpenSession] = []
    with storage_errors("sessions open query"):
        while True:
            response = dynamodb(TOOL).query(**params)
            items = response.get("Items", [])
            found += [open_session({name: value["S"] for name, value in item.items()}) for item in items]
            if not response.get("LastEvaluatedKey"):
                return found
            params["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def settled(session_id: str, round_started_at: str, at: str, *, close: bool) -> bool:
    """Take the session out of `open-sessions` (and with `close`, close it), unless a round has
    started there since `round_started_at` (its items are not counted yet: it stays). False when
    it stayed (a closing still closes)."""
    update = "REMOVE open_for"
    values: dict[str, Any] = {":seen": {"S": round_started_at}}
    if close:
        update = "SET closed_at = if_not_exists(closed_at, :at) " + update
        values[":at"] = {"S": at}
    with storage_errors("sessions update"):
        try:
            dynamodb(TOOL).update_item(
                TableName=resource_name(TABLE_VARIABLE),
                Key={"session_id": {"S": session_id}},
                UpdateExpression=update,
                ConditionExpression="attribute_exists(session_id) AND round_started_at = :seen",
                ExpressionAttributeValues=values,
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                raise
        else:
            return True
    if close:
        close_session(session_id, at)
    return False


def finish_placement(session_id: str, result: str, at: str) -> None:
    """Keep a placement's result (JSON) on its session; the first result stands (a concurrent
    `next` that finished it too computed the same one from the same answers)."""
    with storage_errors("sessions update"):
        try:
            dynamodb(TOOL).update_item(
                TableName=resource_name(TABLE_VARIABLE),
                Key={"session_id": {"S": session_id}},
                UpdateExpression="SET placement_result = :result, finished_at = :at",
                ConditionExpression="attribute_exists(session_id) AND attribute_not_exists(placement_result)",
                ExpressionAttributeValues={":result": {"S": result}, ":at": {"S": at}},
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                raise
