"""The human review loop's storage.

- The queue: attempts and questions waiting for a reviewer carry `review_state` = "open" and
  `queued_at`, the keys of each table's sparse GSI `review-queue`; a resolution removes both, so
  the index holds exactly the open entries. An attempt is found by its `attempt_id` through the
  attempts table's GSI `attempt-ids` (keys only, then a consistent read of the attempt).
- Every resolution is one TransactWriteItems: the corrected item(s), the audit record and the
  reviewers' counters; a failure anywhere leaves nothing half-done.
- The audit table: partition `target_id` (an attempt or question id), sort `audit_key` =
  "{when, to the millisecond}#{random}", so a target's history is one Query in order. The counters behind
  GET /review/stats are one item of the same table under COUNTERS_KEY ("#" never starts an id).
- Recent reviews across all targets: each audit record carries `feed` = AUDIT_FEED, the key of
  the audit table's sparse GSI `recent-reviews` (sort `audit_key`, i.e. time). One partition:
  reviews are written at a person's pace, far below a partition's 1,000 writes a second.
- Sorting the open attempts by the grader's confidence: their sparse GSI `review-confidence`
  (review_state, confidence); questions have no confidence and are not in it.
- Retiring acts on the bank item a copy was drawn from and on the bank items of the same stem
  in its bank key (`bank_twins`, the `bank-items` index): a retired stem is never drawn again.
  A deactivated template carries `deactivated_by` (the question whose retirement did it), so
  un-retiring reactivates those templates and no other.
- Retiring also withdraws the copies of the retired bank items already drawn into learners'
  rounds and not answered yet (`open_copies`, the questions table's `item-copies` index, keyed by
  item_id): each is marked retired on its own, conditioned on still being unanswered, so an answer
  that wins the race stands and the copy is never served or counted as skipped afterwards.
- A bulk accept is recorded once more under its own `target_id` (the bulk id, kind "bulk"),
  listing the attempts it accepted, so it can be reverted.

The questions these reads return are StoredQuestion records (slea.dal.question_records), the
queue's attempts StoredAttempt records (slea.dal.attempts), each built from the stored item
there, as are the attempts `attempt_by_id` and `group_members` return to the reviewers' actions:
the use cases read attributes, never an item's keys (`queue_key` gives an entry's index key,
where a read of the queue continues).
"""

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from botocore.exceptions import ClientError

from slea.dal.attempts import StoredAttempt, stored_attempt
from slea.dal.conditional import applied
from slea.dal.exemplars import key_of as exemplar_key
from slea.dal.question_records import StoredQuestion, stored_question
from slea.dal.questions import bank_key
from slea.dal.templates import stem_digest, with_search_key
from slea.dal.wire_format import batch_get, dynamo_numbers, from_item, query_all, to_item
from slea.platform.aws import dynamodb
from slea.platform.clock import utc_now
from slea.platform.errors import storage_errors
from slea.platform.settings import resource_name

ATTEMPTS_TABLE = "ATTEMPTS_TABLE"
QUESTIONS_TABLE = "QUESTIONS_TABLE"
AUDIT_TABLE = "REVIEW_AUDIT_TABLE"
TEMPLATES_TABLE = "TEMPLATES_TABLE"
TOOL = "review"
OPEN = "open"
QUEUE_INDEX = "review-queue"
CONFIDENCE_INDEX = "review-confidence"
RECENT_INDEX = "recent-reviews"
GROUPS_INDEX = "review-groups"
BANK_INDEX = "bank-items"
COPIES_INDEX = "item-copies"
AUDIT_FEED = "reviews"
BATCH_GET_MAX = 100  # DynamoDB's limit of keys per BatchGetItem
COUNTERS_KEY = {"target_id": {"S": "#counters"}, "audit_key": {"S": "#counters"}}
MAX_TEMPLATES_DEACTIVATED = 90  # a transaction holds 100 items; the rest are the review's own


class ReviewConflictError(Exception):
    """The item changed (or went) since it was read: nothing was written. `failed`: the positions
    in the transaction of the items whose condition failed."""

    def __init__(self, message: str, failed: frozenset[int] = frozenset()) -> None:
        super().__init__(message)
        self.failed = failed


class QueuePage[EntryT](NamedTuple):
    items: list[EntryT]
    more: bool  # the index may hold entries after these


def _open[EntryT](
    variable: str,
    limit: int,
    after: dict[str, Any] | None,
    record: Callable[[dict[str, Any]], EntryT],
    *,
    index: str = QUEUE_INDEX,
    newest_first: bool = False,
) -> QueuePage[EntryT]:
    """Up to `limit` open entries of one table in `index`'s order (reversed: newest_first), after
    the entry whose index key (its sort attribute and the table's key) is `after`."""
    parameters: dict[str, Any] = {}
    if after:
        parameters["ExclusiveStartKey"] = to_item({"review_state": OPEN, **after})
    with storage_errors("review queue query"):
        response = dynamodb(TOOL).query(
            TableName=resource_name(variable),
            IndexName=index,
            KeyConditionExpression="review_state = :open",
            ExpressionAttributeValues={":open": {"S": OPEN}},
            Limit=limit,
            ScanIndexForward=not newest_first,
            **parameters,
        )
    return QueuePage([record(from_item(item)) for item in response.get("Items", [])], "LastEvaluatedKey" in response)


def open_attempts(
    limit: int, after: dict[str, Any] | None = None, *, newest_first: bool = False, by_confidence: bool = False
) -> QueuePage[StoredAttempt]:
    """`limit` open attempts by queued_at (or by confidence, lowest first), after `after`:
    queued_at (or confidence), session_id, attempt_key."""
    index = CONFIDENCE_INDEX if by_confidence else QUEUE_INDEX
    return _open(ATTEMPTS_TABLE, limit, after, stored_attempt, index=index, newest_first=newest_first)


def open_questions(
    limit: int, after: dict[str, Any] | None = None, *, newest_first: bool = False
) -> QueuePage[StoredQuestion]:
    """`limit` open questions by queued_at, after `after`: queued_at, question_id."""
    return _open(QUESTIONS_TABLE, limit, after, stored_question, newest_first=newest_first)


def queue_key(entry: StoredAttempt | StoredQuestion, *, by_confidence: bool = False) -> dict[str, Any]:
    """The open entry's key in its queue index (the index's sort attribute, `confidence` in the
    attempts' confidence index, and its table's key): `after` for the next read."""
    if isinstance(entry, StoredQuestion):
        return {"queued_at": entry.queued_at, "question_id": entry.question_id}
    sort = {"confidence": dynamo_numbers(entry.confidence)} if by_confidence else {"queued_at": entry.queued_at}
    return sort | {"session_id": entry.session_id, "attempt_key": entry.attempt_key}


def questions_by_id(question_ids: list[str]) -> dict[str, StoredQuestion]:
    """The stored questions among `question_ids`, by id: one BatchGetItem per 100 (a page's join)."""
    table = resource_name(QUESTIONS_TABLE)
    found: dict[str, StoredQuestion] = {}
    ids = sorted(set(question_ids))
    for start in range(0, len(ids), BATCH_GET_MAX):
        keys = [{"question_id": {"S": question_id}} for question_id in ids[start : start + BATCH_GET_MAX]]
        request: dict[str, Any] = {table: {"Keys": keys, "ConsistentRead": True}}
        items, _ = batch_get(dynamodb(TOOL), request, "review questions batch get")
        for stored in map(stored_question, map(from_item, items.get(table, []))):
            found[stored.question_id] = stored
    return found


def group_members(group_id: str) -> list[StoredAttempt]:
    """The open attempts of a review group, oldest first (the attempts table's sparse GSI
    review-groups: a review removes queued_at, so only waiting members are in it)."""
    with storage_errors("review group query"):
        items = query_all(
            dynamodb(TOOL),
            TableName=resource_name(ATTEMPTS_TABLE),
            IndexName=GROUPS_INDEX,
            KeyConditionExpression="review_group = :group",
            ExpressionAttributeValues={":group": {"S": group_id}},
        )
    return [stored_attempt(item) for item in items]


def count_open() -> int:
    total = 0
    with storage_errors("review queue count"):
        for variable in (ATTEMPTS_TABLE, QUESTIONS_TABLE):
            pages = (
                dynamodb(TOOL)
                .get_paginator("query")
                .paginate(
                    TableName=resource_name(variable),
                    IndexName=QUEUE_INDEX,
                    KeyConditionExpression="review_state = :open",
                    ExpressionAttributeValues={":open": {"S": OPEN}},
                    Select="COUNT",
                )
            )
            total += sum(page["Count"] for page in pages)
    return total


def attempt_by_id(attempt_id: str) -> StoredAttempt | None:
    with storage_errors("attempt id query"):
        keys = query_all(
            dynamodb(TOOL),
            TableName=resource_name(ATTEMPTS_TABLE),
            IndexName="attempt-ids",
            KeyConditionExpression="attempt_id = :id",
            ExpressionAttributeValues={":id": {"S": attempt_id}},
        )
        if not keys:
            return None
        item = (
            dynamodb(TOOL)
            .get_item(
                TableName=resource_name(ATTEMPTS_TABLE),
                Key={"session_id": {"S": keys[0]["session_id"]}, "attempt_key": {"S": keys[0]["attempt_key"]}},
                ConsistentRead=True,
            )
            .get("Item")
        )
    return stored_attempt(from_item(item)) if item else None


def _question_item(question_id: str) -> dict[str, Any] | None:
    with storage_errors("review question get"):
        item = (
            dynamodb(TOOL)
            .get_item(
                TableName=resource_name(QUESTIONS_TABLE), Key={"question_id": {"S": question_id}}, ConsistentRead=True
            )
            .get("Item")
        )
    return from_item(item) if item else None


def get_question(question_id: str) -> StoredQuestion | None:
    item = _question_item(question_id)
    return stored_question(item) if item is not None else None


def exemplar_record(item_id: str) -> dict[str, Any] | None:
    """Bank item `item_id`'s exemplar item (slea.dal.exemplars reads its slots), None if none was
    written yet: a consistent read, as a review picks its slot from it."""
    return _question_item(exemplar_key(item_id))


def templates_with_stem(stem: str) -> list[str]:
    """The ids of the templates whose stem is `stem` (spacing and case aside)."""
    with storage_errors("templates stem query"):
        keys = query_all(
            dynamodb(TOOL),
            TableName=resource_name(TEMPLATES_TABLE),
            IndexName="template-stems",
            KeyConditionExpression="stem_digest = :digest",
            ExpressionAttributeValues={":digest": {"S": stem_digest(stem)}},
        )
    return [str(key["id"]) for key in keys][:MAX_TEMPLATES_DEACTIVATED]


def same_stem(one: str, other: str) -> bool:
    """Stems compare as the template index compares them: spacing and case aside."""
    return " ".join(one.split()).casefold() == " ".join(other.split()).casefold()


def bank_twins(category: str, language: str, stem: str) -> list[StoredQuestion]:
    """The drawable bank items of the bank key whose stem is `stem` (spacing and case aside)."""
    with storage_errors("bank twins query"):
        items = query_all(
            dynamodb(TOOL),
            TableName=resource_name(QUESTIONS_TABLE),
            IndexName=BANK_INDEX,
            KeyConditionExpression="bank_key = :key",
            ExpressionAttributeValues={":key": {"S": bank_key(category, language)}},
        )
    twins = [stored_question(item) for item in items]
    return [twin for twin in twins if same_stem(twin.stem, stem)][:MAX_TEMPLATES_DEACTIVATED]


def _copies_of(item_id: str) -> list[dict[str, Any]]:
    """The bank item's drawn copies as the copies index holds them (its keys, `answered_at`,
    `skipped_at` and `status` only); the bank item itself is left out."""
    with storage_errors("item copies query"):
        found = query_all(
            dynamodb(TOOL),
            TableName=resource_name(QUESTIONS_TABLE),
            IndexName=COPIES_INDEX,
            KeyConditionExpression="item_id = :item",
            ExpressionAttributeValues={":item": {"S": item_id}},
        )
    return [copy for copy in found if copy["question_id"] != item_id]


def open_copies(item_id: str) -> list[str]:
    """The ids of the copies of bank item `item_id` drawn into sessions, not answered, skipped or
    retired yet."""
    return [
        str(copy["question_id"])
        for copy in _copies_of(item_id)
        if not copy.get("answered_at") and not copy.get("skipped_at") and copy.get("status") != "retired"
    ]


def withdraw_copy(question_id: str, by_question: str, at: str) -> bool:
    """Mark a drawn copy retired because `by_question`'s retirement retired its bank item, unless
    it was answered (or counted skipped) meanwhile: False then, and it stays as it is. The copy
    gets no `retired_category`: it joins no list of retired stems (its bank item is there)."""
    with storage_errors("copy withdrawal"):
        return applied(
            dynamodb(TOOL).update_item,
            TableName=resource_name(QUESTIONS_TABLE),
            Key={"question_id": {"S": question_id}},
            UpdateExpression="SET #status = :retired, retired_with = :by, withdrawn_at = :at",
            ConditionExpression="attribute_exists(question_id) AND attribute_not_exists(answered_at) "
            "AND attribute_not_exists(skipped_at)",
            ExpressionAttributeNames={"#status": "status"},
            ExpressionAttributeValues=to_item({":retired": "retired", ":by": by_question, ":at": at}),
        )


def withdrawn_copies(item_id: str) -> list[str]:
    """The ids of the copies of bank item `item_id` a retirement withdrew (marked retired, not
    answered or skipped since); which retirement withdrew each is on the copy (`retired_with`)."""
    return [
        str(copy["question_id"])
        for copy in _copies_of(item_id)
        if copy.get("status") == "retired" and not copy.get("answered_at") and not copy.get("skipped_at")
    ]


def restore_copy(question_id: str, by_question: str) -> bool:
    """Undo `withdraw_copy`: the copy `by_question`'s retirement withdrew is active again in its
    learner's round, unless it was answered or skipped meanwhile, or another retirement withdrew
    it (False then: it stays as it is)."""
    with storage_errors("copy restore"):
        return applied(
            dynamodb(TOOL).update_item,
            TableName=resource_name(QUESTIONS_TABLE),
            Key={"question_id": {"S": question_id}},
            UpdateExpression="SET #status = :active REMOVE retired_with, withdrawn_at",
            ConditionExpression="attribute_exists(withdrawn_at) AND retired_with = :by "
            "AND attribute_not_exists(answered_at) AND attribute_not_exists(skipped_at)",
            ExpressionAttributeNames={"#status": "status"},
            ExpressionAttributeValues=to_item({":active": "active", ":by": by_question}),
        )


@dataclass(frozen=True, slots=True)
class DeactivatedTemplate:
    """A template as undoing a retirement reads it: which question's retirement deactivated it
    (`deactivated_by`), and its key in Tool 2's search index once active again (`search_key`,
    slea.dal.templates; None: it belongs in none)."""

    template_id: str
    deactivated_by: str | None = None
    search_key: str | None = None


def deactivated_template(item: Mapping[str, Any]) -> DeactivatedTemplate:
    """The record of a stored template item (as `wire_format.from_item` gives it)."""
    active = with_search_key({**item, "is_active": True})
    return DeactivatedTemplate(
        template_id=str(item.get("id") or ""),
        deactivated_by=_text(item.get("deactivated_by")),
        search_key=_text(active.get("search_key")),
    )


def template(template_id: str) -> DeactivatedTemplate | None:
    with storage_errors("template get"):
        item = (
            dynamodb(TOOL)
            .get_item(TableName=resource_name(TEMPLATES_TABLE), Key={"id": {"S": template_id}}, ConsistentRead=True)
            .get("Item")
        )
    return deactivated_template(from_item(item)) if item else None


# ---------------------------------------------------------------- transaction items
def update(
    variable: str,
    key: dict[str, Any],
    expression: str,
    condition: str,
    values: dict[str, Any],
    *,
    names: dict[str, str] | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "TableName": resource_name(variable),
        "Key": to_item(key),
        "UpdateExpression": expression,
        "ConditionExpression": condition,
    }
    if values:
        body["ExpressionAttributeValues"] = to_item(values)
    if names:
        body["ExpressionAttributeNames"] = names
    return {"Update": body}


def deactivate_template(template_id: str, question_id: str = "") -> dict[str, Any]:
    """Tool 2 searches only templates carrying `search_key` (slea.dal.templates)."""
    return update(
        TEMPLATES_TABLE,
        {"id": template_id},
        "SET is_active = :false, deactivated_by = if_not_exists(deactivated_by, :by) REMOVE search_key",
        "attribute_exists(id)",
        {":false": False, ":by": question_id or "-"},
    )


def reactivate_template(stored: DeactivatedTemplate, question_id: str) -> dict[str, Any]:
    """The template active again (in Tool 2's index if it belongs there), if `question_id`'s
    retirement is what deactivated it."""
    expression, values = "SET is_active = :true REMOVE deactivated_by", {":true": True, ":by": question_id}
    if stored.search_key is not None:
        expression = "SET is_active = :true, search_key = :key REMOVE deactivated_by"
        values[":key"] = stored.search_key
    return update(TEMPLATES_TABLE, {"id": stored.template_id}, expression, "deactivated_by = :by", values)


def feed_fields() -> dict[str, str]:
    """What puts an audit record in the recent-reviews index (the counters under COUNTERS_KEY
    never carry it)."""
    return {"feed": AUDIT_FEED}


def audit_record(record: dict[str, Any]) -> dict[str, Any]:
    # Milliseconds in the key: actions within one second still list in the order they were taken.
    item = {**record, "audit_key": f"{utc_now('milliseconds')}#{uuid.uuid4().hex[:12]}", **feed_fields()}
    return {
        "Put": {
            "TableName": resource_name(AUDIT_TABLE),
            "Item": to_item(item),
            "ConditionExpression": "attribute_not_exists(audit_key)",
        }
    }


def count(*counters: str, by: int = 1) -> dict[str, Any]:
    """Add `by` (one, or minus one when an action is undone) to each of `counters` (GET /review/stats)."""
    return adjust(dict.fromkeys(counters, by))


def adjust(changes: dict[str, int]) -> dict[str, Any]:
    """Add each change to its counter, in one update (a transaction may touch the counters once)."""
    names = list(changes)
    return {
        "Update": {
            "TableName": resource_name(AUDIT_TABLE),
            "Key": COUNTERS_KEY,
            "UpdateExpression": "ADD " + ", ".join(f"{name} :c{n}" for n, name in enumerate(names)),
            "ExpressionAttributeValues": {f":c{n}": {"N": str(changes[name])} for n, name in enumerate(names)},
        }
    }


def commit(items: list[dict[str, Any]]) -> None:
    """All of `items` or none; ReviewConflictError if a condition failed (the item changed)."""
    with storage_errors("review transaction"):
        try:
            dynamodb(TOOL).transact_write_items(TransactItems=items)  # type: ignore[arg-type]
        except ClientError as error:
            reasons = [reason.get("Code") for reason in error.response.get("CancellationReasons", [])]
            if error.response.get("Error", {}).get("Code") == "TransactionCanceledException" and (
                "ConditionalCheckFailed" in reasons
            ):
                failed = frozenset(n for n, code in enumerate(reasons) if code == "ConditionalCheckFailed")
                raise ReviewConflictError(str(error), failed) from error
            raise


# ---------------------------------------------------------------- reading the record
@dataclass(frozen=True, slots=True)
class ReviewCounters:
    """The reviewers' counters behind GET /review/stats (0: never counted)."""

    accepted: int = 0
    overridden: int = 0
    questions_retired: int = 0
    questions_edited: int = 0
    questions_accepted: int = 0
    proposals: int = 0


def _counter(item: Mapping[str, Any], name: str) -> int:
    value = item.get(name)
    return int(value) if isinstance(value, int) else 0


def counters() -> ReviewCounters:
    with storage_errors("review counters get"):
        item = (
            dynamodb(TOOL)
            .get_item(TableName=resource_name(AUDIT_TABLE), Key=COUNTERS_KEY, ConsistentRead=True)
            .get("Item")
        )
    stored = from_item(item) if item else {}
    return ReviewCounters(
        accepted=_counter(stored, "accepted"),
        overridden=_counter(stored, "overridden"),
        questions_retired=_counter(stored, "questions_retired"),
        questions_edited=_counter(stored, "questions_edited"),
        questions_accepted=_counter(stored, "questions_accepted"),
        proposals=_counter(stored, "proposals"),
    )


def audit_records(target_id: str) -> list[dict[str, Any]]:
    with storage_errors("audit query"):
        return query_all(
            dynamodb(TOOL),
            TableName=resource_name(AUDIT_TABLE),
            KeyConditionExpression="target_id = :target",
            ExpressionAttributeValues={":target": {"S": target_id}},
        )


@dataclass(frozen=True, slots=True)
class QueuePlace:
    """Where a question waited in the review queue (since when, and why), as an action that took
    it out keeps it in its audit record, so that undoing the action puts it back."""

    queued_at: str
    review_reasons: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Rest:
    """A rested bank item's rest (since when, why) as an action that returned it to the bank
    keeps it in its audit record, so that undoing the action rests it again."""

    rested_at: str
    rest_reason: str | None = None


@dataclass(frozen=True, slots=True)
class QuestionSnapshot:
    """A question as an action found it (its audit record's `before`, or an edit's
    `edited_with_before` entry), as an undo puts it back: its stem, choices, key and keywords
    (None: not kept), where it waited in the queue (None: it did not), and its rest if the action
    drew a rested item again (None: it did not)."""

    stem: str | None = None
    choices: tuple[str, ...] | None = None
    correct_answer: str | None = None
    correct_keywords: tuple[str, ...] | None = None
    queue_place: QueuePlace | None = None
    rest: Rest | None = None


@dataclass(frozen=True, slots=True)
class ReviewRecord:
    """An audit record as the actions that undo a review read it. `before` and `after` are kept
    as stored; what the undoing actions read of them is typed here: an attempt's grade after its
    review (`after_score`, `after_correct`, and `proposed_by`, who proposed a confirmed change),
    the attempts a bulk accept `accepted` (the `provisional` ones among them) and those a group
    grade `reviewed`; a question as the action found it (`question_before`), the bank items an
    edit edited too as it found them (`edited_with_before`), and the bank items and templates a
    retirement took with it (`retired_with`, the twins' places in the queue `retired_with_queued`,
    `template_ids`). The trail shows the record as stored (`as_stored`, under `audit_key`)."""

    target_id: str
    action: str
    at: str
    who: str | None = None
    group_id: str | None = None
    before: Mapping[str, Any] | None = None
    after: Mapping[str, Any] | None = None
    after_score: int | None = None
    after_correct: bool = False
    proposed_by: str | None = None
    accepted: tuple[str, ...] = ()
    provisional: tuple[str, ...] = ()
    reviewed: tuple[str, ...] = ()
    question_before: QuestionSnapshot = QuestionSnapshot()
    edited_with_before: Mapping[str, QuestionSnapshot] = field(default_factory=dict)
    retired_with: tuple[str, ...] = ()
    retired_with_queued: Mapping[str, QueuePlace] = field(default_factory=dict)
    template_ids: tuple[str, ...] = ()
    audit_key: str = ""
    as_stored: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _ids(value: Any) -> tuple[str, ...]:
    return tuple(str(one) for one in value) if isinstance(value, list | tuple) else ()


def _texts(value: Any) -> tuple[str, ...] | None:
    """A kept list of texts (choices, keywords); None: none kept."""
    return tuple(str(one) for one in value) if isinstance(value, list | tuple) else None


def _queue_place(kept: Mapping[str, Any]) -> QueuePlace | None:
    """The place in the queue `kept` (queued_at, review_reasons: a list, or a set as a question's
    own reasons are stored) names, if it names one."""
    if not kept.get("queued_at"):
        return None
    reasons = kept.get("review_reasons")
    found = tuple(str(one) for one in reasons) if isinstance(reasons, list | tuple | set | frozenset) else ()
    return QueuePlace(queued_at=str(kept["queued_at"]), review_reasons=found)


def question_snapshot(kept: Mapping[str, Any]) -> QuestionSnapshot:
    """The question as an audit record kept it (its `before`, or an `edited_with_before` entry):
    rested again on undo only if the action returned it to the bank (`drawable` False then)."""
    rested = kept.get("drawable") is False and bool(kept.get("rested_at"))
    return QuestionSnapshot(
        stem=_text(kept.get("stem")),
        choices=_texts(kept.get("choices")),
        correct_answer=_text(kept.get("correct_answer")),
        correct_keywords=_texts(kept.get("correct_keywords")),
        queue_place=_queue_place(kept),
        rest=Rest(str(kept["rested_at"]), _text(kept.get("rest_reason") or None)) if rested else None,
    )


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _snapshots(value: Any) -> dict[str, QuestionSnapshot]:
    """An edit's `edited_with_before`: each bank item it edited too, as it found it."""
    kept = _mapping(value)
    return {str(item_id): question_snapshot(one) for item_id, one in kept.items() if isinstance(one, Mapping)}


def _places(value: Any) -> dict[str, QueuePlace]:
    """A retirement's `retired_with_queued`: each twin's place in the queue it took it out of."""
    kept = _mapping(value)
    places = {str(item_id): _queue_place(one) for item_id, one in kept.items() if isinstance(one, Mapping)}
    return {item_id: place for item_id, place in places.items() if place is not None}


def review_record(item: Mapping[str, Any]) -> ReviewRecord:
    """The record of a stored audit record (as `wire_format.from_item` gives it)."""
    before, after = item.get("before"), item.get("after")
    done: Mapping[str, Any] = after if isinstance(after, Mapping) else {}
    score = done.get("score")
    return ReviewRecord(
        target_id=str(item.get("target_id") or ""),
        action=str(item.get("action") or ""),
        at=str(item.get("at") or ""),
        who=_text(item.get("who")),
        group_id=_text(item.get("group_id")),
        before=before if isinstance(before, Mapping) else None,
        after=after if isinstance(after, Mapping) else None,
        after_score=int(score) if isinstance(score, int | float) and not isinstance(score, bool) else None,
        after_correct=bool(done.get("is_correct")),
        proposed_by=_text(done.get("proposed_by")),
        accepted=_ids(done.get("accepted")),
        provisional=_ids(done.get("provisional")),
        reviewed=_ids(done.get("reviewed")),
        question_before=question_snapshot(_mapping(before)),
        edited_with_before=_snapshots(done.get("edited_with_before")),
        retired_with=_ids(done.get("retired_with")),
        retired_with_queued=_places(done.get("retired_with_queued")),
        template_ids=_ids(done.get("template_ids")),
        audit_key=str(item.get("audit_key") or ""),
        as_stored=item,
    )


def review_records(target_id: str) -> list[ReviewRecord]:
    """The target's audit records, oldest first, as records."""
    return [review_record(item) for item in audit_records(target_id)]


def recent_audit_records(limit: int) -> list[dict[str, Any]]:
    """The newest `limit` audit records of every target, newest first (records written before
    the `recent-reviews` index existed are here once `python -m ops.backfill` gave them `feed`)."""
    with storage_errors("recent audit query"):
        response = dynamodb(TOOL).query(
            TableName=resource_name(AUDIT_TABLE),
            IndexName=RECENT_INDEX,
            KeyConditionExpression="feed = :feed",
            ExpressionAttributeValues={":feed": {"S": AUDIT_FEED}},
            ScanIndexForward=False,
            Limit=limit,
        )
    return [from_item(item) for item in response.get("Items", [])]


def recent_review_records(limit: int) -> list[ReviewRecord]:
    """`recent_audit_records` as records."""
    return [review_record(item) for item in recent_audit_records(limit)]
