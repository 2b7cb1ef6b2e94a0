"""The question bank, kept in QuestionsTable (key design in dal/questions.py).

A bank item is a saved question that is its own item (`item_id` == `question_id`). Those that
may be drawn carry `bank_key` = "{category}#{language}", the partition of the sparse GSI
`bank-items` (sort key `difficulty_b`), so a round reads only the items of its category and
language within a window of difficulty. Retiring an item removes its `bank_key`; an item in the
review queue (a reviewer was asked to look: a statistics flag, a learner's report) keeps it but
is filtered out until the reviewer is done, so accepting it brings it back without a write here.

A drawn item is shown as a COPY saved in the learner's session (a new question id, `item_id` =
the original's), so a session's questions, answers and grading stay as they were for generated
ones. Exposure is counted with `ADD`: `draws` on the bank item (and `draws#{day}`, its draws that
UTC day, the previous day's removed in the same write), and `rounds` (rounds planned) and
`learners` (learners ever drawn for) on one counter record per bank key in AbilitiesTable, under the reserved partition
`user_id` = "#bank" (never a learner's id: those are UUIDs or OIDC subjects, never "#..."), entry
"rounds#{bank_key}" - kept out of QuestionsTable, where every record is a question. All the
writes of one draw are one transaction: a retried plan finds all of them or none.

The bank keeps one item per stem and key: a new bank item claims its fingerprint (the digest of
its normalised stem, type and key: security/exposure.py `bank_fingerprint`) in the transaction
that writes it, as the record "item#{fingerprint}" of the same "#bank" partition, holding the
item's id. Both writes are conditional on being new, so two saves of one stem and key, however
concurrent, leave one bank item: the loser learns the winner's id from its failed condition and
is saved as a copy of it (`join`). The record outlives a retirement: a retired item's stem and key
never join the bank again under a new id.
"""

import datetime
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from slea.dal.abilities import TABLE_VARIABLE as ABILITIES_VARIABLE
from slea.dal.questions import OPEN, TABLE_VARIABLE, bank_key
from slea.dal.wire_format import from_item, to_item
from slea.platform.aws import dynamodb
from slea.platform.errors import storage_errors
from slea.platform.settings import resource_name

TOOL = "plan_round"
INDEX = "bank-items"
COUNTER_PARTITION = "#bank"
# One page of the window is plenty: a round draws at most 20 items from the best few per slot.
QUERY_LIMIT = 200
__all__ = ["Joined", "bank_key", "count_round", "join", "learners_drawn_for", "record_draw", "stored_copy", "window"]
SAVE_TOOL = "save_generated_question"  # joining the bank is a save: the saving functions' budget
FINGERPRINT_ENTRY = "item#"
# A transaction that meets another on the same fingerprint record is cancelled (TransactionConflict)
# rather than queued behind it; tried again, it finds the record the other one wrote.
JOIN_ATTEMPTS = 3
_DRAWABLE = "attribute_not_exists(stats_flag) AND (attribute_not_exists(review_state) OR review_state <> :open)"
# An item shown to this many learners is rested (left out of drawing; the round's shortfall is
# generated in its place, which refreshes the bank): past it, its key has gone round too widely to
# measure anyone who may have met it. And no item is drawn more than this many times a UTC day,
# however many accounts ask: harvesting an item's key takes at least a day per DAILY_DRAW_CAP.
REST_AFTER_DRAWS = 300
DAILY_DRAW_CAP = 40
_NOT_OVEREXPOSED = "(attribute_not_exists(draws) OR draws < :rest) AND (attribute_not_exists(#today) OR #today < :cap)"


def day_attribute(day: str) -> str:
    """The attribute counting an item's draws on the UTC `day` (YYYY-MM-DD)."""
    return f"draws#{day}"


def _today() -> str:
    return datetime.datetime.now(datetime.UTC).date().isoformat()


def _yesterday() -> str:
    return (datetime.datetime.now(datetime.UTC).date() - datetime.timedelta(days=1)).isoformat()


def window(key: str, low: float, high: float) -> list[dict[str, Any]]:
    """The drawable items of `key` with difficulty_b in [low, high], easiest first."""
    with storage_errors("bank query"):
        response = dynamodb(TOOL).query(
            TableName=resource_name(TABLE_VARIABLE),
            IndexName=INDEX,
            KeyConditionExpression="bank_key = :key AND difficulty_b BETWEEN :low AND :high",
            FilterExpression=f"{_DRAWABLE} AND {_NOT_OVEREXPOSED}",
            ExpressionAttributeNames={"#today": day_attribute(_today())},
            ExpressionAttributeValues={
                ":key": {"S": key},
                ":low": {"N": repr(round(low, 6))},
                ":high": {"N": repr(round(high, 6))},
                ":open": {"S": OPEN},
                ":rest": {"N": str(REST_AFTER_DRAWS)},
                ":cap": {"N": str(DAILY_DRAW_CAP)},
            },
            Limit=QUERY_LIMIT,
        )
    return [from_item(item) for item in response.get("Items", [])]


def learners_drawn_for(key: str) -> int:
    """Learners ever drawn for from `key` (the denominator of an item's exposure rate: the share
    of them shown the item). Not rounds: a round costs an account nothing to start, and each
    learner is shown an item at most once."""
    with storage_errors("bank counter get"):
        item = (
            dynamodb(TOOL)
            .get_item(
                TableName=resource_name(ABILITIES_VARIABLE),
                Key=_counter_key(key),
                ProjectionExpression="learners",
            )
            .get("Item")
        )
    return int(from_item(item).get("learners", 0)) if item else 0


def stored_copy(question_id: str) -> dict[str, Any] | None:
    """A copy saved by an earlier attempt of the same plan (strongly consistent)."""
    with storage_errors("bank copy get"):
        item = (
            dynamodb(TOOL)
            .get_item(
                TableName=resource_name(TABLE_VARIABLE), Key={"question_id": {"S": question_id}}, ConsistentRead=True
            )
            .get("Item")
        )
    return from_item(item) if item else None


def _counter_key(key: str) -> dict[str, Any]:
    return {"user_id": {"S": COUNTER_PARTITION}, "entry": {"S": f"rounds#{key}"}}


def _counter_update(key: str, new_learner: bool = False) -> dict[str, Any]:
    return {
        "Update": {
            "TableName": resource_name(ABILITIES_VARIABLE),
            "Key": _counter_key(key),
            "UpdateExpression": "ADD rounds :one, learners :learner",
            "ExpressionAttributeValues": {":one": {"N": "1"}, ":learner": {"N": "1" if new_learner else "0"}},
        }
    }


def record_draw(key: str, copies: list[dict[str, Any]], new_learner: bool = False) -> bool:
    """Save the copies, add one to each original's `draws` (and to today's) and one round (and,
    for a learner's first draw, one learner) to the counter, all or nothing. False if a condition
    failed: a copy exists already (an earlier attempt won), an original left the bank meanwhile
    (retired) or reached a draw limit since the window was read."""
    table = resource_name(TABLE_VARIABLE)
    today, yesterday = day_attribute(_today()), day_attribute(_yesterday())
    items: list[dict[str, Any]] = [_counter_update(key, new_learner)]
    for copy in copies:
        items.append(
            {
                "Put": {
                    "TableName": table,
                    "Item": to_item(copy),
                    "ConditionExpression": "attribute_not_exists(question_id)",
                }
            }
        )
        items.append(
            {
                "Update": {
                    "TableName": table,
                    "Key": {"question_id": {"S": copy["item_id"]}},
                    "UpdateExpression": "ADD draws :one, #today :one REMOVE #yesterday",
                    "ConditionExpression": f"attribute_exists(bank_key) AND {_NOT_OVEREXPOSED}",
                    "ExpressionAttributeNames": {"#today": today, "#yesterday": yesterday},
                    "ExpressionAttributeValues": {
                        ":one": {"N": "1"},
                        ":rest": {"N": str(REST_AFTER_DRAWS)},
                        ":cap": {"N": str(DAILY_DRAW_CAP)},
                    },
                }
            }
        )
    with storage_errors("bank draw"):
        try:
            dynamodb(TOOL).transact_write_items(TransactItems=items)  # type: ignore[arg-type]
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") == "TransactionCanceledException":
                reasons = error.response.get("CancellationReasons") or []
                if any(reason.get("Code") == "ConditionalCheckFailed" for reason in reasons):
                    return False
            raise
    return True


def count_round(key: str, new_learner: bool = False) -> None:
    """A round planned with nothing drawn still counts (and its learner, the first time)."""
    update = _counter_update(key, new_learner)["Update"]
    with storage_errors("bank counter add"):
        dynamodb(TOOL).update_item(**update)


@dataclass(frozen=True)
class Joined:
    """What `join` found: nothing (the item was written with its fingerprint), the question already
    stored under its id (`existing`: an earlier attempt of the same save, or another question), or
    the bank item that holds its fingerprint (`owner`: nothing was written)."""

    existing: dict[str, Any] | None = None
    owner: str | None = None


def fingerprint_key(fingerprint: str) -> dict[str, Any]:
    return {"user_id": {"S": COUNTER_PARTITION}, "entry": {"S": FINGERPRINT_ENTRY + fingerprint}}


def join(question: dict[str, Any], fingerprint: str) -> Joined:
    """Write `question` (its own bank item) and claim `fingerprint` for it, all or nothing."""
    question_id = str(question["question_id"])
    claim = {
        "user_id": COUNTER_PARTITION,
        "entry": FINGERPRINT_ENTRY + fingerprint,
        "item_id": question_id,
        "joined_at": str(question.get("created_at") or ""),
    }
    items = [
        {
            "Put": {
                "TableName": resource_name(TABLE_VARIABLE),
                "Item": to_item(question),
                "ConditionExpression": "attribute_not_exists(question_id)",
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            }
        },
        {
            "Put": {
                "TableName": resource_name(ABILITIES_VARIABLE),
                "Item": to_item(claim),
                "ConditionExpression": "attribute_not_exists(entry)",
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            }
        },
    ]
    attempt = 1
    while True:
        with storage_errors("questions put"):
            try:
                dynamodb(SAVE_TOOL).transact_write_items(TransactItems=items)  # type: ignore[arg-type]
            except ClientError as error:
                if error.response.get("Error", {}).get("Code") != "TransactionCanceledException":
                    raise
                reasons: list[dict[str, Any]] = error.response.get("CancellationReasons") or []  # type: ignore[assignment]
                codes = [reason.get("Code") for reason in reasons]
                if codes[:1] == ["ConditionalCheckFailed"]:  # the id is taken: the caller compares
                    return Joined(existing=from_item(reasons[0].get("Item") or {}))
                if codes[1:2] == ["ConditionalCheckFailed"]:  # another bank item has this stem and key
                    owner = from_item(reasons[1].get("Item") or {}).get("item_id")
                    return Joined(owner=str(owner or question_id))
                if "TransactionConflict" not in codes or attempt >= JOIN_ATTEMPTS:
                    raise
                attempt += 1
                continue
        return Joined()
