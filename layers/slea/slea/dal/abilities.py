"""What each learner knows. Key design: partition `user_id` (the normalised user id),
sort `entry`:
- "ability#{category}": the ability posterior (`posterior`, log-weights on the grid of
  slea.measurement.learner), its estimate (`theta`, `se`), `answers`, `skipped` (items left
  unanswered when their round was over, counted in the posterior as wrong), `updated_at`, a `version`
  for optimistic locking, `seen_items` (a string set of the bank items the learner was shown,
  so a round never draws one again) and `seen_recent` (a list of at most 200 fingerprints, stem
  and concept with key, of the items of the learner's recent rounds, newest last: a practice
  round avoids them whatever their ids, security/exposure.py), `pending_review` (how many of the
  answers counted are provisional grades waiting for a reviewer: added by the answer's Update,
  taken off by the review's, so the panel reads it with the estimate at no cost of its own);
- "history#{category}#{graded_at}#{attempt_key}": one point {theta, se, at} per answer, for the
  learner's chart.

An answer's (or a reviewer's correction's) ability update is written as transaction items
(`answer_items`) in the transaction that records the grade (slea.dal.attempts): the ability item
conditioned on the version read (or on none, before the first answer: mark_seen may have created
the item with its seen items only), and the history point, new under its attempt's key.
"""

from dataclasses import dataclass
from typing import Any

from slea.dal.wire_format import from_item, query_all, to_item
from slea.platform.aws import dynamodb
from slea.platform.errors import storage_errors
from slea.platform.settings import resource_name

TABLE_VARIABLE = "ABILITIES_TABLE"
TOOL = "learner_model"
REPORTED = ("category", "theta", "se", "answers", "skipped", "updated_at", "pending_review")


def ability_entry(category: str) -> str:
    return f"ability#{category}"


def history_entry(category: str, graded_at: str, attempt_key: str) -> str:
    return f"history#{category}#{graded_at}#{attempt_key}"


def get_ability(user_id: str, category: str, *, consistent: bool = True) -> dict[str, Any] | None:
    """The learner's stored ability in `category`, or None before their first graded answer.
    Consistent by default: an update is conditioned on the version read."""
    with storage_errors("abilities get"):
        response = dynamodb(TOOL).get_item(
            TableName=resource_name(TABLE_VARIABLE),
            Key={"user_id": {"S": user_id}, "entry": {"S": ability_entry(category)}},
            ConsistentRead=consistent,
        )
    item = response.get("Item")
    return from_item(item) if item else None


def mark_seen(user_id: str, category: str, item_ids: list[str], recent: list[str] | None = None) -> None:
    """Remember that the learner was shown these bank items (an atomic ADD to a string set) and,
    with `recent`, their recent fingerprints (the bounded list, newest last, replaced whole: two
    rounds of one learner finishing at once keep one of the two rounds' additions)."""
    if not item_ids and recent is None:
        return
    with storage_errors("abilities mark seen"):
        dynamodb(TOOL).update_item(**seen_write(user_id, category, item_ids, recent)["Update"])


def seen_write(user_id: str, category: str, item_ids: list[str], recent: list[str] | None = None) -> dict[str, Any]:
    """mark_seen's write, for a transaction of its own caller's (a placement's next question)."""
    updates: list[str] = []
    values: dict[str, Any] = {}
    if item_ids:
        updates.append("ADD seen_items :items")
        values[":items"] = {"SS": sorted(set(item_ids))}
    if recent is not None:
        updates.append("SET seen_recent = :recent")
        values[":recent"] = {"L": [{"S": fingerprint} for fingerprint in recent]}
    return {
        "Update": {
            "TableName": resource_name(TABLE_VARIABLE),
            "Key": {"user_id": {"S": user_id}, "entry": {"S": ability_entry(category)}},
            "UpdateExpression": " ".join(updates),
            "ExpressionAttributeValues": values,
        }
    }


@dataclass(frozen=True)
class AbilityChange:
    """A learner's ability after one answer (or a reviewer's correction of one)."""

    user_id: str
    category: str
    posterior: list[float]
    theta: float
    se: float
    answers: int
    read_version: int | None  # the version the change was computed from; None: no estimate stored
    at: str
    point_suffix: str  # the attempt's key: one history point per answer, however often retried
    seen_item: str | None = None
    skipped: int = 0  # items left unanswered when their round was over, counted as wrong here
    pending: int = 0  # added to pending_review: 1 for a provisional grade, -1 for its review


def answer_items(change: AbilityChange) -> list[dict[str, Any]]:
    """The ability Update (conditioned on the version read) and the history point Put."""
    table = resource_name(TABLE_VARIABLE)
    values: dict[str, Any] = {
        ":posterior": change.posterior,
        ":theta": change.theta,
        ":se": change.se,
        ":answers": change.answers,
        ":at": change.at,
        ":next": (change.read_version or 0) + 1,
        ":category": change.category,
    }
    expression = (
        "SET posterior = :posterior, theta = :theta, se = :se, answers = :answers, updated_at = :at, "
        "#version = :next, category = :category"
    )
    adding = []
    if change.seen_item:
        adding.append("seen_items :seen")
        values[":seen"] = {change.seen_item}
    if change.skipped:
        adding.append("skipped :skipped")
        values[":skipped"] = change.skipped
    if change.pending:
        adding.append("pending_review :pending")
        values[":pending"] = change.pending
    if adding:
        expression += " ADD " + ", ".join(adding)
    condition = "attribute_not_exists(#version)"
    if change.read_version is not None:
        condition, values[":read"] = "#version = :read", change.read_version
    point = {
        "user_id": change.user_id,
        "entry": history_entry(change.category, change.at, change.point_suffix),
        "at": change.at,
        "category": change.category,
        "theta": change.theta,
        "se": change.se,
    }
    return [
        {
            "Update": {
                "TableName": table,
                "Key": {"user_id": {"S": change.user_id}, "entry": {"S": ability_entry(change.category)}},
                "UpdateExpression": expression,
                "ConditionExpression": condition,
                "ExpressionAttributeNames": {"#version": "version"},
                "ExpressionAttributeValues": to_item(values),
            }
        },
        {"Put": {"TableName": table, "Item": to_item(point), "ConditionExpression": "attribute_not_exists(entry)"}},
    ]


def pending_item(user_id: str, category: str, change: int) -> dict[str, Any]:
    """A review that leaves the estimate as it is but settles (-1) or reopens (+1) a provisional
    grade: only its pending_review moves. Not conditioned on the version: an ADD commutes with
    an answer's update, and the estimate it does not touch stays as that answer left it."""
    return {
        "Update": {
            "TableName": resource_name(TABLE_VARIABLE),
            "Key": {"user_id": {"S": user_id}, "entry": {"S": ability_entry(category)}},
            "UpdateExpression": "ADD pending_review :pending",
            "ExpressionAttributeValues": to_item({":pending": change}),
        }
    }


def abilities_of(user_id: str) -> list[dict[str, Any]]:
    """The learner's ability items, one per category they have an entry in."""
    with storage_errors("abilities query"):
        return query_all(
            dynamodb(TOOL),
            TableName=resource_name(TABLE_VARIABLE),
            KeyConditionExpression="user_id = :user AND begins_with(entry, :prefix)",
            ExpressionAttributeValues={":user": {"S": user_id}, ":prefix": {"S": "ability#"}},
            # Not the posterior nor the seen items: the report needs the estimate only.
            ProjectionExpression=", ".join(f"#{name}" for name in REPORTED),
            ExpressionAttributeNames={f"#{name}": name for name in REPORTED},
        )


def history_of(user_id: str, categories: list[str], limit: int) -> list[dict[str, Any]]:
    """The newest `limit` history points of the learner in `categories`, oldest first: one
    bounded Query per category (newest first), merged."""
    points: list[dict[str, Any]] = []
    with storage_errors("abilities history query"):
        for category in categories:
            response = dynamodb(TOOL).query(
                TableName=resource_name(TABLE_VARIABLE),
                KeyConditionExpression="user_id = :user AND begins_with(entry, :prefix)",
                ExpressionAttributeValues={":user": {"S": user_id}, ":prefix": {"S": f"history#{category}#"}},
                ScanIndexForward=False,
                Limit=limit,
            )
            points += [from_item(item) for item in response.get("Items", [])]
    newest = sorted(points, key=lambda point: (str(point.get("at", "")), str(point["entry"])))[-limit:]
    return newest
