"""Storage of the stream-fed calibration (slea.logic.jobs.incremental_calibration): the sums each
new answer is folded into, and the item statistics recomputed from them.

Key design: one table, partition key `sums_key` only, four kinds of record:
- `response#{item_id}#{user_id}`: the one answer of this learner to this item that is folded (the
  first to arrive: the guarded refit also keeps a learner's first answer only), with the attempt
  it came from and the score folded. Put with `attribute_not_exists` in the same transaction as
  the sums, so a redelivered record, a retried batch or a learner's second answer fold nothing.
- `item#{item_id}`: the item's sums (slea.measurement.sufficient.ItemSums), its category,
  its compromise CUSUM (`cusum`, and `cusum_b`, `cusum_se`: slea.measurement.compromise.Cusum,
  order-dependent, so a first answer's transaction SETs the state computed from the one it read,
  conditioned on `folds` being what was read) and
  `folds`, a counter of the changes folded into it: the statistics written carry it
  (`calibration_folds` on the bank item) and a write never replaces statistics from more folds,
  so two batches touching one item at once cannot leave the older sums' statistics in place.
- `learner#{user_id}`: the learner's person-fit sums (LearnerSums) and the categories they have
  answered in (a string set).
- `category#{category}`: how many learners have answered in the category (exposure's denominator),
  counted in the transaction that adds the category to a learner's set.

A reviewer's correction moves the sums by the difference of the two answers, conditioned on the
recorded attempt and score, so it applies once. Every write is one TransactWriteItems of 3 or 4
items; reads are by key only (BatchGetItem of the items a batch touched, and of the CUSUMs of
the items a batch has first answers to, before it folds them; GetItem of a learner): nothing here
reads more because the history is longer.
"""

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from botocore.exceptions import ClientError

from slea.dal.calibration_records import (
    CalibrationItem,
    ItemCalibration,
    StreamedAnswer,
    calibration_item,
    calibration_map,
)
from slea.dal.calibration_records import (
    streamed_answer as answer_record,
)
from slea.dal.conditional import applied
from slea.dal.wire_format import batch_get, from_item, to_item
from slea.measurement.compromise import REST_REASON, Cusum
from slea.measurement.sufficient import ItemSums, LearnerSums
from slea.platform.aws import dynamodb
from slea.platform.errors import DataAccessError, storage_errors
from slea.platform.settings import resource_name

SUMS_TABLE = "CALIBRATION_SUMS_TABLE"
QUESTIONS_TABLE = "QUESTIONS_TABLE"
TOOL = "fold_attempts"
BATCH_GET_MAX = 100
# What the recomputation reads of a bank item.
ITEM_FIELDS = ("question_id", "calibration", "difficulty_b", "difficulty_precision", "difficulty", "bank_key")

FoldOutcome = Literal["folded", "already_folded", "not_recorded", "stale"]


def response_key(item_id: str, user_id: str) -> str:
    return f"response#{item_id}#{user_id}"


def item_key(item_id: str) -> str:
    return f"item#{item_id}"


def learner_key(user_id: str) -> str:
    return f"learner#{user_id}"


def category_key(category: str) -> str:
    return f"category#{category}"


@dataclass(frozen=True)
class Fold:
    """One answer's change to the sums: `score` is what the response record holds afterwards
    (None: the record is removed), `expected_score` what it must hold before (None: it must not
    exist yet), `item` and `learner` the amounts to add."""

    item_id: str
    user_id: str
    category: str
    attempt: str  # "{session_id}#{attempt_key}"
    score: float | None
    expected_score: float | None
    item: ItemSums
    learner: LearnerSums
    # A first answer's CUSUM: the state after it, written only if the item's `folds` is still
    # `cusum_folds` (the count read with the state before it). None: the CUSUM is left alone
    # (a correction, or an answer taken out: the CUSUM is a sequence of first answers).
    cusum: Cusum | None = None
    cusum_folds: int = 0


def _sums_update(key: str, sums: ItemSums | LearnerSums, prefix: str, **extra: Any) -> dict[str, Any]:
    """ADD each of the sums (names aliased: several, e.g. `variance`, are DynamoDB reserved words)."""
    clauses = [f"#{prefix}{field.name} :{prefix}{field.name}" for field in fields(sums)]
    names = {f"#{prefix}{field.name}": field.name for field in fields(sums)}
    values = {f":{prefix}{field.name}": getattr(sums, field.name) for field in fields(sums)}
    update: dict[str, Any] = {"TableName": resource_name(SUMS_TABLE), "Key": {"sums_key": {"S": key}}}
    setting = extra.pop("setting", "")
    adding = extra.pop("adding", [])
    values |= extra.pop("values", {})
    names |= extra.pop("names", {})
    update["UpdateExpression"] = (f"SET {setting} " if setting else "") + "ADD " + ", ".join(clauses + adding)
    update["ExpressionAttributeValues"] = to_item(values)
    update["ExpressionAttributeNames"] = names
    update |= extra
    return {"Update": update}


def _response_write(fold: Fold, at: str) -> dict[str, Any]:
    table, key = resource_name(SUMS_TABLE), {"sums_key": {"S": response_key(fold.item_id, fold.user_id)}}
    if fold.expected_score is None:  # a first answer: the record must not exist
        item = {
            "sums_key": response_key(fold.item_id, fold.user_id),
            "attempt": fold.attempt,
            "score": fold.score,
            "item_id": fold.item_id,
            "user_id": fold.user_id,
            "folded_at": at,
        }
        return {
            "Put": {"TableName": table, "Item": to_item(item), "ConditionExpression": "attribute_not_exists(sums_key)"}
        }
    condition = "#attempt = :attempt AND #score = :old"
    names = {"#attempt": "attempt", "#score": "score"}
    values = {":attempt": fold.attempt, ":old": fold.expected_score}
    if fold.score is None:  # the answer is taken out
        return {
            "Delete": {
                "TableName": table,
                "Key": key,
                "ConditionExpression": condition,
                "ExpressionAttributeNames": names,
                "ExpressionAttributeValues": to_item(values),
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",  # absent: it was never folded
            }
        }
    return {
        "Update": {
            "TableName": table,
            "Key": key,
            "UpdateExpression": "SET #score = :new, folded_at = :at",
            "ConditionExpression": condition,
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": to_item(values | {":new": fold.score, ":at": at}),
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",  # absent: it was never folded
        }
    }


def _item_update(fold: Fold) -> dict[str, Any]:
    setting = "item_id = :item_id, #category = :category"
    values: dict[str, Any] = {":item_id": fold.item_id, ":category": fold.category, ":one": 1}
    extra: dict[str, Any] = {}
    if fold.cusum is not None:
        setting += ", cusum = :cusum, cusum_b = :cusum_b, cusum_se = :cusum_se"
        values |= {
            ":cusum": round(fold.cusum.cusum, 6),
            ":cusum_b": round(fold.cusum.b or 0.0, 6),  # read only while the CUSUM is above zero
            ":cusum_se": round(fold.cusum.b_se, 6),
            ":read_folds": fold.cusum_folds,
        }
        extra["ConditionExpression"] = (
            "attribute_not_exists(#folds)" if fold.cusum_folds == 0 else "#folds = :read_folds"
        )
        if fold.cusum_folds == 0:
            values.pop(":read_folds")
    return _sums_update(
        item_key(fold.item_id),
        fold.item,
        "i",
        setting=setting,
        adding=["#folds :one"],
        values=values,
        names={"#category": "category", "#folds": "folds"},
        **extra,
    )


def _transaction(fold: Fold, at: str, new_in_category: bool) -> list[dict[str, Any]]:
    items = [_response_write(fold, at), _item_update(fold)]
    category = {":categories": {fold.category}, ":category": fold.category}
    if fold.expected_score is not None:  # a correction: the learner has been counted already
        items.append(_sums_update(learner_key(fold.user_id), fold.learner, "l"))
    elif new_in_category:
        items.append(
            _sums_update(
                learner_key(fold.user_id),
                fold.learner,
                "l",
                adding=["#categories :categories"],
                values=category,
                names={"#categories": "categories"},
                ConditionExpression="attribute_not_exists(#categories) OR NOT contains(#categories, :category)",
            )
        )
        items.append(
            {
                "Update": {
                    "TableName": resource_name(SUMS_TABLE),
                    "Key": {"sums_key": {"S": category_key(fold.category)}},
                    "UpdateExpression": "ADD learners :one",
                    "ExpressionAttributeValues": {":one": {"N": "1"}},
                }
            }
        )
    else:
        items.append(
            _sums_update(
                learner_key(fold.user_id),
                fold.learner,
                "l",
                values={":category": fold.category},
                names={"#categories": "categories"},
                ConditionExpression="contains(#categories, :category)",
            )
        )
    return items


def apply(fold: Fold, at: str) -> FoldOutcome:
    """Fold one answer: "already_folded" when the response record says it is (a redelivery, a
    retried batch, the learner's later answer to the item, a correction already applied);
    "not_recorded" when a correction finds no record at all (its answer was never folded);
    "stale" when the item's sums changed since its CUSUM was read (nothing was written: read the
    state again and retry).
    Whether the learner is new in the category is learnt from the write itself: the common case
    (known) is tried first, and a refusal of that condition alone tries the other shape."""
    new_in_category = False
    for _ in range(3):  # known, new, and known again if another shard added the category meanwhile
        items = _transaction(fold, at, new_in_category)
        with storage_errors("calibration sums transaction"):
            try:
                dynamodb(TOOL).transact_write_items(TransactItems=items)  # type: ignore[arg-type]
            except ClientError as error:
                if error.response.get("Error", {}).get("Code") != "TransactionCanceledException":
                    raise
                reasons = error.response.get("CancellationReasons", [])
                codes = [reason.get("Code") for reason in reasons]
                if codes and codes[0] == "ConditionalCheckFailed":
                    missing = fold.expected_score is not None and not reasons[0].get("Item")
                    return "not_recorded" if missing else "already_folded"
                if len(codes) > 1 and codes[1] == "ConditionalCheckFailed":
                    return "stale"
                if len(codes) > 2 and codes[2] == "ConditionalCheckFailed":
                    new_in_category = not new_in_category
                    continue
                raise
        return "folded"
    raise DataAccessError("calibration sums transaction failed: the learner's categories kept changing")


def streamed_answer(image: dict[str, Any]) -> StreamedAnswer:
    """The answer of an attempt record's stream image (DynamoDB JSON)."""
    return answer_record(from_item(image))


# ---------------------------------------------------------------- reading the sums
@dataclass(frozen=True)
class TouchedItem:
    """What the recomputation of one item reads: its sums, its category's learner count and the
    bank item's stored calibration and difficulty (None: not a stored question)."""

    sums: ItemSums
    category_learners: int
    question: CalibrationItem | None
    folds: int = 0  # changes folded into the sums read
    cusum: Cusum = field(default_factory=Cusum)


def _chunks(keys: list[tuple[str, dict[str, Any]]], size: int) -> Iterator[list[tuple[str, dict[str, Any]]]]:
    for start in range(0, len(keys), size):
        yield keys[start : start + size]


def _projection(names: Iterable[str]) -> dict[str, Any]:
    aliases = {f"#f{number}": name for number, name in enumerate(names)}
    return {"ProjectionExpression": ", ".join(aliases), "ExpressionAttributeNames": aliases}


def touched_items(categories: dict[str, str]) -> dict[str, TouchedItem]:
    """The sums and bank records of the items given ({item_id: category}): BatchGetItem by key,
    the sums table and the questions table in one request (100 keys a call)."""
    sums_table, questions_table = resource_name(SUMS_TABLE), resource_name(QUESTIONS_TABLE)
    keys: list[tuple[str, dict[str, Any]]] = []
    for item_id in sorted(categories):
        keys.append((sums_table, {"sums_key": {"S": item_key(item_id)}}))
        keys.append((questions_table, {"question_id": {"S": item_id}}))
    for category in sorted(set(categories.values())):
        keys.append((sums_table, {"sums_key": {"S": category_key(category)}}))
    found: dict[str, dict[str, Any]] = {}
    for chunk in _chunks(keys, BATCH_GET_MAX):
        request: dict[str, Any] = {}
        for table, key in chunk:
            request.setdefault(table, {"Keys": []})["Keys"].append(key)
        if questions_table in request:
            request[questions_table] |= _projection(ITEM_FIELDS)
        if sums_table in request:  # the sums just written by this batch, not an older copy
            request[sums_table]["ConsistentRead"] = True
        items, _ = batch_get(dynamodb(TOOL), request, "calibration sums get")
        for table, stored in items.items():
            for record in map(from_item, stored):
                name = "sums_key" if table == sums_table else "question_id"
                found[f"{table}|{record[name]}"] = record
    touched = {}
    for item_id, category in categories.items():
        sums = found.get(f"{sums_table}|{item_key(item_id)}") or {}
        learners = found.get(f"{sums_table}|{category_key(category)}") or {}
        touched[item_id] = TouchedItem(
            sums=ItemSums(**{field.name: float(sums.get(field.name) or 0.0) for field in fields(ItemSums)}),
            category_learners=int(learners.get("learners") or 0),
            question=calibration_item(question) if (question := found.get(f"{questions_table}|{item_id}")) else None,
            folds=int(sums.get("folds") or 0),
            cusum=cusum_of(sums),
        )
    return touched


def item_cusums(item_ids: Iterable[str]) -> dict[str, tuple[Cusum, int]]:
    """The items' compromise CUSUMs and `folds` counts (strongly consistent; BatchGetItem, 100
    keys a call; an item with no sums yet is (Cusum(), 0))."""
    table = resource_name(SUMS_TABLE)
    wanted = sorted(set(item_ids))
    found: dict[str, tuple[Cusum, int]] = dict.fromkeys(wanted, (Cusum(), 0))
    keys = [(table, {"sums_key": {"S": item_key(item_id)}}) for item_id in wanted]
    for chunk in _chunks(keys, BATCH_GET_MAX):
        request = {
            table: {
                "Keys": [key for _, key in chunk],
                "ConsistentRead": True,
                **_projection(("item_id", "cusum", "cusum_b", "cusum_se", "folds")),
            }
        }
        items, _ = batch_get(dynamodb(TOOL), request, "calibration sums get")
        for record in (from_item(item) for stored in items.values() for item in stored):
            found[str(record["item_id"])] = (cusum_of(record), int(record.get("folds") or 0))
    return found


def cusum_of(stored: dict[str, Any]) -> Cusum:
    """The CUSUM kept on an item's sums record."""
    b = stored.get("cusum_b")
    return Cusum(
        float(stored.get("cusum") or 0.0), None if b is None else float(b), float(stored.get("cusum_se") or 0.0)
    )


def learner_sums(user_id: str) -> LearnerSums | None:
    """The learner's person-fit sums (None: none of their answers has been folded)."""
    with storage_errors("calibration sums get"):
        response = dynamodb(TOOL).get_item(
            TableName=resource_name(SUMS_TABLE), Key={"sums_key": {"S": learner_key(user_id)}}
        )
    stored = from_item(response["Item"]) if "Item" in response else None
    if stored is None:
        return None
    return LearnerSums(**{field.name: float(stored.get(field.name) or 0.0) for field in fields(LearnerSums)})


def write_statistics(item_id: str, calibration: ItemCalibration, folds: int, rest_at: str | None = None) -> bool:
    """Set the bank item's `calibration` map (the reviewers' item analysis reads it) computed
    from sums of `folds` changes; never creates an item, never replaces statistics from more
    folds. `rest_at`: also rest the item as compromised, as an over-exposed item is rested (out
    of the bank's index, `rested_at`), with `rest_reason`. False if the item is gone or already
    holds statistics as recent."""
    setting = "SET calibration = :calibration, calibration_folds = :folds"
    values: dict[str, Any] = {":calibration": calibration_map(calibration), ":folds": folds}
    if rest_at is not None:
        setting += ", rested_at = if_not_exists(rested_at, :at), rest_reason = if_not_exists(rest_reason, :reason)"
        setting += " REMOVE bank_key"
        values |= {":at": rest_at, ":reason": REST_REASON}
    with storage_errors("calibration statistics write"):
        return applied(
            dynamodb(TOOL).update_item,
            TableName=resource_name(QUESTIONS_TABLE),
            Key={"question_id": {"S": item_id}},
            UpdateExpression=setting,
            ConditionExpression=(
                "attribute_exists(question_id) AND "
                "(attribute_not_exists(calibration_folds) OR calibration_folds < :folds)"
            ),
            ExpressionAttributeValues=to_item(values),
        )
