"""Storage of the calibration refit's fit (slea.logic.jobs.calibration) and of the reviewers'
item analysis (slea.logic.review.item_analysis).

- Reading: the answers come from the attempts table's export (slea.dal.attempt_export), never
  from the table itself. Bank items are read by BatchGetItem, 100 keys a call.
- Writing: one UpdateItem per bank item sets `difficulty_b`, `difficulty_precision` and the
  `calibration` map. A flag also puts the item in the review queue (`review_state`, `queued_at`,
  `review_reasons`) as the statistics flag does, and remembers in `calibration_flags` ({reason:
  answers when raised}) that it did.
- The reviewers' listing reads the bank (the sparse GSI `bank-items`, projection ALL, one
  partition per category and language) and keeps the calibrated items: no index of its own,
  because CloudFormation adds at most one GSI to an existing table per update and the bank's
  arrives in the same release.
"""

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from slea.dal.calibration_records import CalibrationItem, ItemCalibration, calibration_item, calibration_map
from slea.dal.conditional import applied
from slea.dal.wire_format import batch_get, from_item, query_all, to_item
from slea.platform.aws import dynamodb
from slea.platform.errors import storage_errors
from slea.platform.settings import resource_name

QUESTIONS_TABLE = "QUESTIONS_TABLE"
TOOL = "calibrate_items"
OPEN = "open"
BATCH_GET_MAX = 100  # DynamoDB's limit of keys per BatchGetItem

# What the job reads of a bank item.
ITEM_FIELDS = (
    "question_id",
    "item_type",
    "choices",
    "difficulty",
    "category",
    "status",
    "calibration",
    "calibration_flags",
    "draws",  # accounts its key was shown to: person fit's exposure covariate
)


def _projection(fields: Iterable[str]) -> dict[str, Any]:
    """A ProjectionExpression with every name aliased: some are DynamoDB reserved words."""
    names = {f"#f{number}": field for number, field in enumerate(fields)}
    return {"ProjectionExpression": ", ".join(names), "ExpressionAttributeNames": names}


def _chunks(ids: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


def bank_items(item_ids: Iterable[str]) -> dict[str, CalibrationItem]:
    """The stored bank items among `item_ids` (absent ids are left out), by id."""
    table = resource_name(QUESTIONS_TABLE)
    found: dict[str, CalibrationItem] = {}
    for chunk in _chunks(sorted(set(item_ids)), BATCH_GET_MAX):
        request: dict[str, Any] = {
            table: {"Keys": [{"question_id": {"S": item_id}} for item_id in chunk], **_projection(ITEM_FIELDS)}
        }
        items, _ = batch_get(dynamodb(TOOL), request, "bank items get")
        for stored in map(calibration_item, map(from_item, items.get(table, []))):
            found[stored.question_id] = stored
    return found


def write_calibration(
    item_id: str,
    *,
    difficulty_b: float | None,
    precision: float,
    calibration: ItemCalibration,
    raised: Mapping[str, float],
    new_reasons: list[str],
    at: str,
) -> bool:
    """Store an item's calibration; `new_reasons` (if any) put it in the review queue, and
    `raised` is the item's whole record of reasons raised ({reason: answers when raised}).
    False if the item is gone."""
    expression = (
        "SET difficulty_b = :b, difficulty_precision = :precision, calibration = :calibration, "
        "calibration_flags = :raised"
    )
    values: dict[str, Any] = {
        ":b": difficulty_b,
        ":precision": precision,
        ":calibration": calibration_map(calibration),
        ":raised": dict(raised),
    }
    if new_reasons:
        expression += ", review_state = :open, queued_at = if_not_exists(queued_at, :at) ADD review_reasons :reasons"
        values |= {":open": OPEN, ":at": at, ":reasons": set(new_reasons)}
    with storage_errors("calibration write"):
        return applied(
            dynamodb(TOOL).update_item,
            TableName=resource_name(QUESTIONS_TABLE),
            Key={"question_id": {"S": item_id}},
            UpdateExpression=expression,
            ConditionExpression="attribute_exists(question_id)",  # never create an item that went
            ExpressionAttributeValues=to_item(values),
        )


# ---------------------------------------------------------------- the reviewers' listing
BANK_INDEX = "bank-items"


def calibrated_bank_items(category: str, language: str) -> list[CalibrationItem]:
    """The calibrated items of one bank partition ("{category}#{language}")."""
    with storage_errors("item analysis query"):
        found = query_all(
            dynamodb("review"),
            TableName=resource_name(QUESTIONS_TABLE),
            IndexName=BANK_INDEX,
            KeyConditionExpression="bank_key = :key",
            FilterExpression="attribute_exists(calibration)",
            ExpressionAttributeValues={":key": {"S": f"{category}#{language}"}},
        )
    return [calibration_item(stored) for stored in found]
