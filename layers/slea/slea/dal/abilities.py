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

What the reads return are frozen records (StoredAbility, AbilityEstimate, HistoryPoint), each
built from its item by one function here: callers read attributes, never the item's keys.
"""

from dataclasses import dataclass
from typing import Any, Literal

from slea.dal.wire_format import from_item, query_all, to_item
from slea.platform.aws import dynamodb
from slea.platform.errors import storage_errors
from slea.platform.settings import resource_name

TABLE_VARIABLE = "ABILITIES_TABLE"
TOOL = "learner_model"
REPORTED = ("category", "theta", "se", "answers", "skipped", "updated_at", "pending_review")
ABILITY_PREFIX = "ability#"

# What made a history point: contracts.ability.PointEvent's values (its key says which: history_point).
HistoryEvent = Literal["answer", "review", "skipped"]


@dataclass(frozen=True, slots=True)
class AbilityEstimate:
    """The estimate an ability item holds once an answer (or items left unanswered) updated it:
    the fields the learner's report reads (REPORTED). An answer's update sets them together."""

    category: str
    theta: float
    se: float
    answers: int
    updated_at: str
    skipped: int = 0  # added by the first count of items left unanswered
    pending_review: int = 0  # added by the first provisional grade (taken off by its review)


@dataclass(frozen=True, slots=True)
class StoredAbility:
    """A learner's ability item in one category, as stored."""

    category: str
    estimate: AbilityEstimate | None = None  # None: mark_seen created the item with the items shown only
    posterior: tuple[float, ...] = ()  # log-weights on slea.measurement.learner's grid; set with the estimate
    version: int | None = None  # for optimistic locking; set with the estimate
    seen_items: frozenset[str] = frozenset()  # the bank items the learner was shown
    seen_recent: tuple[str, ...] = ()  # fingerprints of the learner's recent rounds' items, newest last
    flagged: bool = False  # person fit's `review` mark is on the record (dal/person_review.py)


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    """One point of the learner's chart: the estimate just after an answer, a reviewer's
    correction of one, or a batch of items left unanswered counted as wrong (`event`)."""

    category: str
    at: str
    theta: float
    se: float
    event: HistoryEvent


def _estimate(item: dict[str, Any], category: str) -> AbilityEstimate | None:
    """The item's estimate (None before its first answer). `answers` and `updated_at` are written
    with it; an item put by hand without them reads as no answer and no time, as it always did."""
    if item.get("theta") is None or item.get("se") is None:
        return None
    return AbilityEstimate(
        category=category,
        theta=float(item["theta"]),
        se=float(item["se"]),
        answers=int(item.get("answers") or 0),
        updated_at=str(item.get("updated_at", "")),
        skipped=int(item.get("skipped") or 0),
        pending_review=int(item.get("pending_review") or 0),
    )


def stored_ability(item: dict[str, Any]) -> StoredAbility:
    """The record of an ability item (a plain dict, wire_format.from_item's), read in full."""
    category = str(item["entry"]).removeprefix(ABILITY_PREFIX)
    return StoredAbility(
        category=category,
        estimate=_estimate(item, category),
        posterior=tuple(float(weight) for weight in item.get("posterior") or ()),
        version=int(item["version"]) if item.get("version") is not None else None,
        seen_items=frozenset(str(seen) for seen in item.get("seen_items") or ()),
        seen_recent=tuple(str(fingerprint) for fingerprint in item.get("seen_recent") or ()),
        flagged=bool(item.get("review")),
    )


def history_point(item: dict[str, Any]) -> HistoryPoint:
    """The record of a history item; its event from its key's suffix (review_point, skipped_point)."""
    entry = str(item.get("entry", ""))
    event: HistoryEvent = "review" if entry.endswith("#review") else "skipped" if "#skipped#" in entry else "answer"
    return HistoryPoint(
        category=str(item["category"]),
        at=str(item["at"]),
        theta=float(item["theta"]),
        se=float(item["se"]),
        event=event,
    )


def ability_entry(category: str) -> str:
    return f"{ABILITY_PREFIX}{category}"


def history_entry(category: str, graded_at: str, attempt_key: str) -> str:
    return f"history#{category}#{graded_at}#{attempt_key}"


def review_point(attempt_key: str) -> str:
    """The history key suffix of a reviewer's correction of the answer `attempt_key`."""
    return f"{attempt_key}#review"


def skipped_point(session_id: str, question_id: str) -> str:
    """The history key suffix of a batch of items left unanswered, named by its first item."""
    return f"{session_id}#skipped#{question_id}"


def get_ability(user_id: str, category: str, *, consistent: bool = True) -> StoredAbility | None:
    """The learner's stored ability in `category`, or None before their first graded answer.
    Consistent by default: an update is conditioned on the version read."""
    with storage_errors("abilities get"):
        response = dynamodb(TOOL).get_item(
            TableName=resource_name(TABLE_VARIABLE),
            Key={"user_id": {"S": user_id}, "entry": {"S": ability_entry(category)}},
            ConsistentRead=consistent,
        )
    item = response.get("Item")
    return stored_ability(from_item(item)) if item else None


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
    point_suffix: str  # the attempt's key (review_point, skipped_point): one history point per answer
    seen_item: str | None = None
    skipped: int = 0  # items left unanswered when their round was over, counted as wrong here
    pending: int = 0  # added to pending_review: 1 for a provisional grade, -1 for its review


def applied(change: AbilityChange, before: StoredAbility | None) -> StoredAbility:
    """The ability as `answer_items(change)` leaves it once committed on `before`, without a read."""
    earlier = before or StoredAbility(category=change.category)
    skipped, pending = (earlier.estimate.skipped, earlier.estimate.pending_review) if earlier.estimate else (0, 0)
    return StoredAbility(
        category=change.category,
        estimate=AbilityEstimate(
            category=change.category,
            theta=change.theta,
            se=change.se,
            answers=change.answers,
            updated_at=change.at,
            skipped=skipped + change.skipped,
            pending_review=pending + change.pending,
        ),
        posterior=tuple(change.posterior),
        version=(change.read_version or 0) + 1,
        seen_items=earlier.seen_items | ({change.seen_item} if change.seen_item else set()),
        seen_recent=earlier.seen_recent,
        flagged=earlier.flagged,
    )


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


def abilities_of(user_id: str) -> list[AbilityEstimate]:
    """The learner's estimates, one per category they have one in (an item mark_seen created
    before any answer holds none)."""
    with storage_errors("abilities query"):
        items = query_all(
            dynamodb(TOOL),
            TableName=resource_name(TABLE_VARIABLE),
            KeyConditionExpression="user_id = :user AND begins_with(entry, :prefix)",
            ExpressionAttributeValues={":user": {"S": user_id}, ":prefix": {"S": "ability#"}},
            # Not the posterior nor the seen items: the report needs the estimate only.
            ProjectionExpression=", ".join(f"#{name}" for name in REPORTED),
            ExpressionAttributeNames={f"#{name}": name for name in REPORTED},
        )
    estimates = [_estimate(item, str(item.get("category", ""))) for item in items]
    return [estimate for estimate in estimates if estimate is not None]


def history_of(user_id: str, categories: list[str], limit: int) -> list[HistoryPoint]:
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
    return [history_point(point) for point in newest]
