"""The prints of the reference answers of a category's short-answer items (grading/reference_prints.py),
kept where the answer path already reads, so that an answer pasting another item's reference is
found without a scan.

Key design: one item per category in the questions table, `question_id` = "refprints#{category}"
(a question id never holds "#": no collision with a question; the item carries none of the
attributes the table's indexes are keyed on, so no round, queue, bank or retirement index lists
it, as the exemplar items). Each print is a top-level attribute `p:{item_id}`, a number set of at
most 16 hashes (about 150 bytes with its name): a category holds about 2,500 items' prints within
DynamoDB's 400 KB.

Written by Tool 5 when a short-answer item with a reference becomes a bank item of its own (one
UpdateItem after the save; a print that cannot be written is logged and counted, the question stays
saved). Read in the answer's BatchGetItem (dal/answer_reads.py): no call of its own. Items saved
before prints existed, and references a reviewer edits later, have no print (or the old one) until
saved again.
"""

from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from slea.platform.aws import dynamodb
from slea.platform.observability import logger, metrics
from slea.platform.settings import resource_name

TABLE_VARIABLE = "QUESTIONS_TABLE"
PREFIX = "refprints#"
ATTRIBUTE_PREFIX = "p:"
SAVE_TOOL = "save_generated_question"


def key_of(category: str) -> str:
    return PREFIX + category


def prints_in(record: dict[str, Any] | None) -> dict[str, list[int]]:
    """item_id -> its print, from the category's record as read (none if never written)."""
    found: dict[str, list[int]] = {}
    for name, value in (record or {}).items():
        if name.startswith(ATTRIBUTE_PREFIX) and isinstance(value, set | frozenset | list):
            found[name[len(ATTRIBUTE_PREFIX) :]] = [int(number) for number in value]
    return found


def add(category: str, item_id: str, hashes: list[int]) -> bool:
    """Store `item_id`'s print in its category's record (creating it). False when it could not be
    written: the question is saved all the same, only unrecognised as another item's reference."""
    if not hashes:
        return False
    try:
        dynamodb(SAVE_TOOL).update_item(
            TableName=resource_name(TABLE_VARIABLE),
            Key={"question_id": {"S": key_of(category)}},
            UpdateExpression="SET #print = :print",
            ExpressionAttributeNames={"#print": ATTRIBUTE_PREFIX + item_id},
            ExpressionAttributeValues={":print": {"NS": [str(value) for value in sorted(set(hashes))]}},
        )
    except (ClientError, BotoCoreError) as error:
        logger.warning("reference print not written", extra={"item_id": item_id, "reason": str(error)})
        metrics.add_metric(name="ReferencePrintsNotWritten", unit="Count", value=1)
        return False
    return True
