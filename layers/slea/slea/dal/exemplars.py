"""Reviewed answers of a bank item (its exemplars), kept where the answer path already reads.

Key design: one item per bank item in the questions table, `question_id` = "exemplars#{item_id}"
(a question id never holds "#", so it cannot collide with a question, and the item carries none
of the attributes the table's indexes are keyed on: no round, queue, bank or retirement index
ever lists it). Answering a short answer reads it in the same BatchGetItem as the learner's
ability and the bank item (dal/answer_reads.py): no call of its own.

The exemplars are top-level attributes `x00` ... `x39`, one per slot, each a map
{id, text, correct, score, probability}. A review writes its exemplar into the slot its attempt
id hashes to, with one SET inside the review's own transaction: no read first, the item bounded
(40 answers of at most EXEMPLAR_TEXT_MAX characters, far below DynamoDB's 400 KB), and a newer
review replaces an older one that shared its slot. A learner's answer lives here only as text the
server compares with; nothing learner-facing reads this item.
"""

import hashlib
from typing import Any

from slea.dal.wire_format import to_item
from slea.platform.settings import resource_name

TABLE_VARIABLE = "QUESTIONS_TABLE"
PREFIX = "exemplars#"
SLOTS = 40
EXEMPLAR_TEXT_MAX = 2000  # characters of the answer kept (the grader compares the opening)


def key_of(item_id: str) -> str:
    return PREFIX + item_id


def slot_of(exemplar_id: str) -> str:
    digest = hashlib.sha256(exemplar_id.encode("utf-8")).digest()
    return f"x{int.from_bytes(digest[:4], 'big') % SLOTS:02d}"


def exemplars_in(record: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The exemplars stored on an exemplar item, in slot order (none if it was never written)."""
    if not record:
        return []
    found = []
    for slot in sorted(name for name in record if len(name) == 3 and name[0] == "x" and name[1:].isdigit()):
        value = record[slot]
        if isinstance(value, dict) and isinstance(value.get("text"), str) and "correct" in value:
            found.append(value)
    return found


def exemplar_write(item_id: str, exemplar: dict[str, Any]) -> dict[str, Any]:
    """The transaction item that stores `exemplar` ({id, text, correct, score, probability}) as an
    exemplar of `item_id` (creating the item on its first review)."""
    value = {**exemplar, "text": str(exemplar["text"])[:EXEMPLAR_TEXT_MAX]}
    if value.get("probability") is None:
        value.pop("probability", None)
    return {
        "Update": {
            "TableName": resource_name(TABLE_VARIABLE),
            "Key": to_item({"question_id": key_of(item_id)}),
            "UpdateExpression": "SET #slot = :exemplar, item_id = :item",
            "ExpressionAttributeNames": {"#slot": slot_of(str(exemplar["id"]))},
            "ExpressionAttributeValues": to_item({":exemplar": value, ":item": item_id}),
        }
    }
