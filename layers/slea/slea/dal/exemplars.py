"""Reviewed answers of a bank item (its exemplars), kept where the answer path already reads.

Key design: one item per bank item in the questions table, `question_id` = "exemplars#{item_id}"
(a question id never holds "#", so it cannot collide with a question, and the item carries none
of the attributes the table's indexes are keyed on: no round, queue, bank or retirement index
ever lists it). Answering a short answer reads it in the same BatchGetItem as the learner's
ability and the bank item (dal/answer_reads.py): no call of its own.

The exemplars are top-level attributes `x00` ... `x39`, one per slot, each a map
{id, text, correct, score, probability}. A review reads the item and writes its exemplar with one
SET inside the review's own transaction: into the slot that holds its attempt already (a second
review of it), else the first free slot from the one its attempt id hashes to, else (all 40 taken)
that hashed slot, replacing an older exemplar. The item stays bounded (40 answers of at most
EXEMPLAR_TEXT_MAX characters, far below DynamoDB's 400 KB). Why the read: written blind into its
hashed slot, two of an item's first exemplars collided one time in forty and the older was lost,
and it takes two agreeing exemplars to grade an answer. Two reviews racing for one free slot
leave the later one's exemplar, as a full item does. A learner's answer lives here only as text
the server compares with; nothing learner-facing reads this item.

The same item holds the faces of the item's review groups, `g00` ... `g15`: {group_id, text,
probability, flagged}, the first answer of each group. A short answer sent to a reviewer joins the
group whose face it is close to (slea.grading.answer_groups.assign) or opens one, whose face the
answer's own transaction writes into the slot its group id hashes to. The attempts of a group are
found through the attempts table's sparse GSI `review-groups` (review_group + queued_at): only
attempts waiting for a reviewer carry queued_at, so the index holds a group's open members.
"""

import hashlib
from dataclasses import dataclass
from typing import Any

from slea.dal.wire_format import to_item
from slea.platform.settings import resource_name

TABLE_VARIABLE = "QUESTIONS_TABLE"
PREFIX = "exemplars#"
SLOTS = 40
FACE_SLOTS = 16
EXEMPLAR_TEXT_MAX = 2000  # characters of the answer kept (the grader compares the opening)


def key_of(item_id: str) -> str:
    return PREFIX + item_id


def slot_of(exemplar_id: str, prefix: str = "x", slots: int = SLOTS) -> str:
    digest = hashlib.sha256(exemplar_id.encode("utf-8")).digest()
    return f"{prefix}{int.from_bytes(digest[:4], 'big') % slots:02d}"


def _slot_names(record: dict[str, Any] | None, prefix: str) -> list[str]:
    return sorted(name for name in record or {} if len(name) == 3 and name[0] == prefix and name[1:].isdigit())


def _slots(record: dict[str, Any] | None, prefix: str) -> list[dict[str, Any]]:
    found = record or {}
    return [found[name] for name in _slot_names(record, prefix) if isinstance(found[name], dict)]


@dataclass(frozen=True, slots=True)
class StoredExemplar:
    """A reviewed answer as its slot keeps it: its verdict and score (the verdict's 100 or 0 when
    none was kept) and the grader's probability that it is correct, if one was kept."""

    exemplar_id: str
    text: str
    correct: bool
    score: int
    probability: float | None


@dataclass(frozen=True, slots=True)
class StoredFace:
    """A review group's face: the first answer of the group, as its slot keeps it."""

    group_id: str
    text: str
    probability: float | None
    flagged: bool


def _probability(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def stored_exemplar(value: dict[str, Any]) -> StoredExemplar:
    """The record of an exemplar slot's map."""
    correct = bool(value["correct"])
    return StoredExemplar(
        exemplar_id=str(value.get("id", "")),
        text=str(value["text"]),
        correct=correct,
        score=int(value.get("score", 100 if correct else 0)),
        probability=_probability(value.get("probability")),
    )


def stored_face(value: dict[str, Any]) -> StoredFace:
    """The record of a face slot's map."""
    return StoredFace(
        group_id=str(value["group_id"]),
        text=str(value["text"]),
        probability=_probability(value.get("probability")),
        flagged=bool(value.get("flagged")),
    )


def faces_in(record: dict[str, Any] | None) -> list[StoredFace]:
    """The faces of the item's review groups."""
    return [
        stored_face(face) for face in _slots(record, "g") if isinstance(face.get("group_id"), str) and "text" in face
    ]


def exemplars_in(record: dict[str, Any] | None) -> list[StoredExemplar]:
    """The exemplars stored on an exemplar item, in slot order (none if it was never written)."""
    return [
        stored_exemplar(value)
        for value in _slots(record, "x")
        if isinstance(value.get("text"), str) and "correct" in value
    ]


def _slot_write(item_id: str, slot: str, value: dict[str, Any], placeholder: str) -> dict[str, Any]:
    """The transaction item that stores `value` (its text cut to EXEMPLAR_TEXT_MAX) in `slot` of
    `item_id`'s exemplar item, creating the item on its first write."""
    stored = {**value, "text": str(value["text"])[:EXEMPLAR_TEXT_MAX]}
    if stored.get("probability") is None:
        stored.pop("probability", None)
    return {
        "Update": {
            "TableName": resource_name(TABLE_VARIABLE),
            "Key": to_item({"question_id": key_of(item_id)}),
            "UpdateExpression": f"SET #slot = {placeholder}, item_id = :item",
            "ExpressionAttributeNames": {"#slot": slot},
            "ExpressionAttributeValues": to_item({placeholder: stored, ":item": item_id}),
        }
    }


def slot_holding(record: dict[str, Any] | None, exemplar_id: str) -> str | None:
    """The slot of the exemplar item `record` that holds `exemplar_id`'s exemplar, if any."""
    for name in _slot_names(record, "x"):
        value = (record or {})[name]
        if isinstance(value, dict) and value.get("id") == exemplar_id:
            return name
    return None


def slot_for(record: dict[str, Any] | None, exemplar_id: str) -> str:
    """Where `exemplar_id`'s exemplar goes in the exemplar item `record`: the slot holding it,
    else the first free one from its hashed slot on, else the hashed slot (replacing)."""
    held = slot_holding(record, exemplar_id)
    if held is not None:
        return held
    start = int(slot_of(exemplar_id)[1:])
    taken = record or {}
    for step in range(SLOTS):
        slot = f"x{(start + step) % SLOTS:02d}"
        if slot not in taken:
            return slot
    return slot_of(exemplar_id)


def exemplar_write(item_id: str, exemplar: dict[str, Any], record: dict[str, Any] | None = None) -> dict[str, Any]:
    """The transaction item that stores `exemplar` ({id, text, correct, score, probability}) as an
    exemplar of `item_id` (creating the item on its first review), in the slot `slot_for` gives
    in `record`, the exemplar item as read (None: not written yet)."""
    return _slot_write(item_id, slot_for(record, str(exemplar["id"])), exemplar, ":exemplar")


def face_write(item_id: str, face: dict[str, Any]) -> dict[str, Any]:
    """The transaction item that stores a new group's face ({group_id, text, probability, flagged})."""
    return _slot_write(item_id, slot_of(str(face["group_id"]), "g", FACE_SLOTS), face, ":face")


def holds(record: dict[str, Any] | None, exemplar_id: str) -> bool:
    """The exemplar item `record` still holds `exemplar_id`'s exemplar (a later review of another
    answer may have replaced it in its slot)."""
    return slot_holding(record, exemplar_id) is not None


def exemplar_removal(item_id: str, exemplar_id: str, slot: str) -> dict[str, Any]:
    """The transaction item that removes `exemplar_id`'s exemplar from `slot` of `item_id`'s
    exemplar item, if it still holds it (an undone review no longer grades anyone's answer)."""
    return {
        "Update": {
            "TableName": resource_name(TABLE_VARIABLE),
            "Key": to_item({"question_id": key_of(item_id)}),
            "UpdateExpression": "REMOVE #slot",
            "ConditionExpression": "#slot.id = :id",
            "ExpressionAttributeNames": {"#slot": slot},
            "ExpressionAttributeValues": to_item({":id": exemplar_id}),
        }
    }


def exemplar_replace(item_id: str, exemplar: dict[str, Any], slot: str) -> dict[str, Any]:
    """The transaction item that rewrites `slot` if it still holds `exemplar` (an undone review's
    attempt keeps the verdict an earlier review gave it)."""
    write = _slot_write(item_id, slot, exemplar, ":exemplar")
    write["Update"]["ConditionExpression"] = "#slot.id = :id"
    write["Update"]["ExpressionAttributeValues"] |= to_item({":id": str(exemplar["id"])})
    return write
