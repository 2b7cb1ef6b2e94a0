"""Everything answering a question reads, in one BatchGetItem across the tables that hold it: the
session (its owner), this very attempt (a retry finds its grading), the learner's ability in the
question's category, the bank item a drawn copy stands for, the reviewed answers of the bank item
(its exemplars, dal/exemplars.py), the reference prints of the category's short-answer items
(dal/reference_prints.py) and the cached explanation of the outcome. Each table's key
design is its own module's (sessions, attempts, abilities, questions, explanations, exemplars);
this module only gathers the keys into one round trip.

DynamoDB answers a throttled table's keys as UnprocessedKeys: they are asked again a few times
(wire_format.batch_get), and a table still unanswered is reported, not guessed at.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from slea.dal import abilities, attempts, exemplars, explanations, questions, reference_prints, sessions
from slea.dal.question_records import StoredQuestion, stored_question
from slea.dal.sessions import StoredSession, stored_session
from slea.dal.wire_format import batch_get, from_item
from slea.platform.aws import dynamodb
from slea.platform.settings import resource_name

TOOL = "score_and_explain"
UNPROCESSED_ROUNDS = 3


@dataclass(frozen=True)
class AnswerReads:
    """What to read: None leaves a part out."""

    session_id: str | None = None  # the session's owner (HTTP API and MCP)
    attempt_key: tuple[str, str] | None = None  # (session_id, attempt_key): the grading, if recorded
    ability: tuple[str, str] | None = None  # (user_id, category)
    bank_item_id: str | None = None  # the bank item of a drawn copy
    explanation: tuple[str, str] | None = None  # (question_id, variant)
    exemplars_of: str | None = None  # the bank item whose reviewed answers a short answer is compared with
    prints_of: str | None = None  # the category whose items' reference prints a short answer is compared with


@dataclass
class AnswerRecords:
    session: StoredSession | None = None
    attempt: dict[str, Any] | None = None
    ability: abilities.StoredAbility | None = None
    bank_item: StoredQuestion | None = None
    explanation: dict[str, Any] | None = None
    exemplars: dict[str, Any] | None = None
    reference_prints: dict[str, Any] | None = None
    unanswered: set[str] = field(default_factory=set)  # the parts DynamoDB left unprocessed


# The parts read as a record of their own module's (the others as plain dicts).
RECORDS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "session": stored_session,
    "ability": abilities.stored_ability,
    "bank_item": stored_question,
}


def _record(part: str, item: dict[str, Any]) -> Any:
    build = RECORDS.get(part)
    return build(item) if build is not None else item


def _requests(reads: AnswerReads) -> dict[str, tuple[str, dict[str, Any]]]:
    """part -> (table name, key)."""
    parts: dict[str, tuple[str, dict[str, Any]]] = {}
    if reads.session_id:
        parts["session"] = (resource_name(sessions.TABLE_VARIABLE), {"session_id": {"S": reads.session_id}})
    if reads.attempt_key:
        session_id, key = reads.attempt_key
        parts["attempt"] = (
            resource_name(attempts.TABLE_VARIABLE),
            {"session_id": {"S": session_id}, "attempt_key": {"S": key}},
        )
    if reads.ability:
        user_id, category = reads.ability
        parts["ability"] = (
            resource_name(abilities.TABLE_VARIABLE),
            {"user_id": {"S": user_id}, "entry": {"S": abilities.ability_entry(category)}},
        )
    if reads.bank_item_id:
        parts["bank_item"] = (resource_name(questions.TABLE_VARIABLE), {"question_id": {"S": reads.bank_item_id}})
    if reads.exemplars_of:
        parts["exemplars"] = (
            resource_name(exemplars.TABLE_VARIABLE),
            {"question_id": {"S": exemplars.key_of(reads.exemplars_of)}},
        )
    if reads.prints_of:
        parts["reference_prints"] = (
            resource_name(reference_prints.TABLE_VARIABLE),
            {"question_id": {"S": reference_prints.key_of(reads.prints_of)}},
        )
    if reads.explanation:
        question_id, variant = reads.explanation
        parts["explanation"] = (
            resource_name(explanations.TABLE_VARIABLE),
            {"question_id": {"S": question_id}, "variant": {"S": variant}},
        )
    return parts


def _part_of(parts: dict[str, tuple[str, dict[str, Any]]], table: str, item: dict[str, Any]) -> str | None:
    for part, (name, key) in parts.items():
        if name == table and all(item.get(attribute) == value for attribute, value in key.items()):
            return part
    return None


def read(reads: AnswerReads) -> AnswerRecords:
    """One BatchGetItem, strongly consistent (an update is conditioned on what it read). Raises
    DataAccessError when DynamoDB fails the call."""
    parts = _requests(reads)
    records = AnswerRecords()
    if not parts:
        return records
    request: dict[str, Any] = {}
    for table, key in parts.values():
        request.setdefault(table, {"Keys": [], "ConsistentRead": True})["Keys"].append(key)
    found, unprocessed = batch_get(dynamodb(TOOL), request, "answer reads", rounds=UNPROCESSED_ROUNDS)
    for table, items in found.items():
        for item in items:
            if (part := _part_of(parts, table, item)) is not None:
                setattr(records, part, _record(part, from_item(item)))
    for table, pending in unprocessed.items():
        for key in pending.get("Keys", []):
            if (part := _part_of(parts, table, key)) is not None:
                records.unanswered.add(part)
    return records
