"""The question bank, kept in QuestionsTable (key design in dal/questions.py).

A bank item is a saved question that is its own item (`item_id` == `question_id`). Those that
may be drawn carry `bank_key` = "{category}#{language}", the partition of the sparse GSI
`bank-items` (sort key `difficulty_b`), so a round reads only the items of its category and
language within a window of difficulty. Retiring an item removes its `bank_key`; an item in the
review queue (a reviewer was asked to look: a statistics flag, a learner's report) keeps it but
is filtered out until the reviewer is done, so accepting it brings it back without a write here.

A drawn item is shown as a COPY saved in the learner's session (a new question id, `item_id` =
the original's), so a session's questions, answers and grading stay as they were for generated
ones. Exposure is counted with `ADD`: `draws` on the bank item (every account its key was shown
to), and `rounds` (rounds planned) and `learners` (learners ever drawn for) on one counter record
per bank key in AbilitiesTable, under the reserved partition `user_id` = "#bank" (never a
learner's id: those are UUIDs or OIDC subjects, never "#..."), entry "rounds#{bank_key}" - kept
out of QuestionsTable, where every record is a question. All the writes of one draw are one
transaction: a retried plan finds all of them or none.

A draw may carry a GROUP of accounts to count as one learner over a UTC day (the counter's
`groups#{day}`, an item's `groups#{day}` and `repeat_draws`); the planner passes none since equal
surveys stopped being grouped (a team of new hires writes them too: logic/rounds/bank_draw.py), so
every account counts as a learner in the exposure rate's denominator and as a viewer in an item's
daily count `draws#{day}`. The rate's numerator is `draws`, every account the key was shown to. A
draw for a learner whose behaviour person fit flagged (logic/rounds/bank_draw.py) rests every item
it shows (`farm`). Yesterday's sets are removed in the same writes.

The bank keeps one item per stem and key: a new bank item claims its fingerprint (the digest of
its normalised stem, type and key: security/exposure.py `bank_fingerprint`) in the transaction
that writes it, as the record "item#{fingerprint}" of the same "#bank" partition, holding the
item's id. Both writes are conditional on being new, so two saves of one stem and key, however
concurrent, leave one bank item: the loser learns the winner's id from its failed condition and
is saved as a copy of it (`join`). The record outlives a retirement: a retired item's stem and key
never join the bank again under a new id.

A reviewer's edit that changes a bank item's stem, type or key moves its claim in the edit's own
transaction (`release`, `claim_write`): the old record is deleted if this item holds it, and the new
one is written on condition that it is free (or already this item's), so an edit never gives one
stem and key to two bank items, and the old stem and key may join again as a new item. Items saved
before the record existed get theirs from the operator's backfill (ops/bank_fingerprints.py), one
conditional put each (`claim`).

A window's items are frozen records (BankItem: the question's StoredQuestion, its draws and today's
groups, built by `bank_item`), and a draw's copies are made here (`new_copy`: the item it saves and
its record), so the layers above never read a stored item's attribute names.
"""

import datetime
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from botocore.exceptions import ClientError

from slea.dal.abilities import TABLE_VARIABLE as ABILITIES_VARIABLE
from slea.dal.question_records import StoredQuestion, stored_question
from slea.dal.questions import OPEN, TABLE_VARIABLE, bank_key
from slea.dal.wire_format import batch_get, from_item, to_item
from slea.platform import clock
from slea.platform.aws import dynamodb
from slea.platform.errors import storage_errors
from slea.platform.settings import resource_name

TOOL = "plan_round"
INDEX = "bank-items"
COUNTER_PARTITION = "#bank"
# One page of the window is plenty: a round draws at most 20 items from the best few per slot.
QUERY_LIMIT = 200
__all__ = [
    "COPIED_FIELDS",
    "FARM_REST_REASON",
    "BankItem",
    "Claim",
    "Counter",
    "DrawnCopy",
    "Joined",
    "bank_item",
    "bank_key",
    "claim",
    "claim_write",
    "count_round",
    "drawn_for",
    "holder",
    "join",
    "new_copy",
    "record_draw",
    "release",
    "rest_repeated_for_farm",
    "stored_copy",
    "window",
    "withdrawn",
    "withdrawn_among",
]
SAVE_TOOL = "save_generated_question"  # joining the bank is a save: the saving functions' budget
FINGERPRINT_ENTRY = "item#"
# A transaction that meets another on the same fingerprint record is cancelled (TransactionConflict)
# rather than queued behind it; tried again, it finds the record the other one wrote.
JOIN_ATTEMPTS = 3
_DRAWABLE = "attribute_not_exists(stats_flag) AND (attribute_not_exists(review_state) OR review_state <> :open)"
# An item whose key was shown to this many accounts is rested (left out of drawing; the round's
# shortfall is generated in its place, which refreshes the bank): past it, its key has gone round
# too widely to measure anyone who may have met it. Accounts, not groups: look-alike accounts are
# one group for the exposure budget, but each of them holds the key. The draw that reaches it also
# takes the item out of the bank's index (`rested_at`), so rested items never fill a window's page.
# And no item is drawn for more than DAILY_DRAW_CAP groups a UTC day, however many accounts ask:
# harvesting an item's key takes at least a day per DAILY_DRAW_CAP.
REST_AFTER_DRAWS = 300
DAILY_DRAW_CAP = 40
# Groups remembered per bank key and day on the counter record (16 characters each: about 80 KB of
# its 400 KB). Past it a first draw counts its learner whatever its group (the old rule).
GROUP_SET_MAX = 5_000
# Why a draw rested an item at once: drawn for a learner whose answers person fit flagged (answers
# that fit no ability, or right mostly on items whose keys many accounts were shown), who may be
# passing on what they are shown. (The value predates the behavioural rule: it once named a
# look-alike group of five accounts, a rule that rested every item a team of new hires was shown.)
FARM_REST_REASON = "farm"
_NOT_OVEREXPOSED = "(attribute_not_exists(draws) OR draws < :rest) AND (attribute_not_exists(#today) OR #today < :cap)"


def day_attribute(day: str) -> str:
    """The attribute counting an item's draws on the UTC `day` (YYYY-MM-DD)."""
    return f"draws#{day}"


def _today() -> str:
    return clock.now().date().isoformat()


def _yesterday() -> str:
    return (clock.now().date() - datetime.timedelta(days=1)).isoformat()


def groups_attribute(day: str) -> str:
    """The attribute holding the groups an item (or a bank key's counter) was drawn for on `day`."""
    return f"groups#{day}"


def members_attribute(day: str) -> str:
    """The accounts a bank key's counter was drawn for on `day`, by group, which the counter kept
    for the look-alike farm rule; no longer written, yesterday's are removed."""
    return f"members#{day}"


def groups_today(item: Mapping[str, Any]) -> set[str]:
    """The groups a stored item (or counter) was drawn for today."""
    return {str(group) for group in item.get(groups_attribute(_today())) or ()}


# What a copy takes from its bank item: the question itself, not its review or statistics state.
COPIED_FIELDS = ("item_type", "stem", "choices", "answer_schema", "difficulty", "category", "categories", "language")


@dataclass(frozen=True, slots=True)
class BankItem:
    """A drawable bank item as a window read it: the question (with `fields`, only those; the rest
    are the record's defaults), how many accounts its key was shown to, and the look-alike groups
    it was drawn for today."""

    question: StoredQuestion
    draws: int = 0  # written by its first draw
    groups_today: frozenset[str] = frozenset()
    # What a copy takes (COPIED_FIELDS), as stored: a copy saves it unchanged (`new_copy`).
    content: Mapping[str, Any] = field(default_factory=dict)


def bank_item(item: Mapping[str, Any]) -> BankItem:
    """The record of a bank item (a plain dict, wire_format.from_item's)."""
    return BankItem(
        question=stored_question(item),
        draws=int(item.get("draws") or 0),
        groups_today=frozenset(groups_today(item)),
        content={name: item[name] for name in COPIED_FIELDS if item.get(name) is not None},
    )


@dataclass(frozen=True, slots=True)
class DrawnCopy:
    """A bank item's copy for a learner's session, as `record_draw` saves it: its item, and the
    record of that item (what the session reads of it)."""

    item: Mapping[str, Any]
    question: StoredQuestion


def new_copy(
    original: BankItem,
    question_id: str,
    *,
    session_id: str,
    round_id: str,
    round_number: int,
    at: str,
    order: tuple[list[str], str] | None = None,
) -> DrawnCopy:
    """`original` as a question of a session under `question_id`; `order`: its choices in a new
    order with the key naming the same choice (a multiple-choice item's)."""
    item = dict(original.content) | {
        "question_id": question_id,
        "item_id": original.question.question_id,
        "session_id": session_id,
        "round": round_number,
        "round_id": round_id,
        "created_at": at,
    }
    if order is not None:
        item["choices"] = order[0]
        item["answer_schema"] = {**(original.content.get("answer_schema") or {}), "correct_key": order[1]}
    return DrawnCopy(item=item, question=stored_question(item))


def window(key: str, low: float, high: float, fields: tuple[str, ...] = ()) -> list[BankItem]:
    """The drawable items of `key` with difficulty_b in [low, high], easiest first; with
    `fields`, only those attributes of each (a smaller read and response)."""
    names = {"#today": day_attribute(_today())}
    projection: dict[str, Any] = {}
    if fields:
        names |= {f"#p{index}": name for index, name in enumerate(fields)}
        projection["ProjectionExpression"] = ", ".join(f"#p{index}" for index in range(len(fields)))
    with storage_errors("bank query"):
        response = dynamodb(TOOL).query(
            TableName=resource_name(TABLE_VARIABLE),
            IndexName=INDEX,
            KeyConditionExpression="bank_key = :key AND difficulty_b BETWEEN :low AND :high",
            FilterExpression=f"{_DRAWABLE} AND {_NOT_OVEREXPOSED}",
            ExpressionAttributeNames=names,
            ExpressionAttributeValues={
                ":key": {"S": key},
                ":low": {"N": repr(round(low, 6))},
                ":high": {"N": repr(round(high, 6))},
                ":open": {"S": OPEN},
                ":rest": {"N": str(REST_AFTER_DRAWS)},
                ":cap": {"N": str(DAILY_DRAW_CAP)},
            },
            Limit=QUERY_LIMIT,
            **projection,
        )
    return [bank_item(from_item(item)) for item in response.get("Items", [])]


@dataclass(frozen=True)
class Counter:
    """A bank key's counter: learners ever drawn for (each look-alike group once a day), and the
    groups first drawn for today."""

    learners: int
    groups: frozenset[str]

    def new_learner(self, group: str, first_draw: bool) -> bool:
        """Whether a learner's first draw adds one to `learners`: not when a look-alike account
        was first drawn for today (the group is then in `groups`)."""
        return first_draw and (not group or group not in self.groups)


def drawn_for(key: str) -> Counter:
    """Learners ever drawn for from `key` (the denominator of an item's exposure rate: the share
    of them shown the item), and today's groups. Not rounds: a round costs an account nothing to
    start, and each learner is shown an item at most once."""
    with storage_errors("bank counter get"):
        item = (
            dynamodb(TOOL)
            .get_item(
                TableName=resource_name(ABILITIES_VARIABLE),
                Key=_counter_key(key),
                ProjectionExpression="learners, #groups",
                ExpressionAttributeNames={"#groups": groups_attribute(_today())},
            )
            .get("Item")
        )
    return _counter(from_item(item) if item else {})


def _counter(stored: dict[str, Any]) -> Counter:
    return Counter(int(stored.get("learners", 0)), frozenset(groups_today(stored)))


def stored_copy(question_id: str) -> StoredQuestion | None:
    """A copy saved by an earlier attempt of the same plan (strongly consistent)."""
    with storage_errors("bank copy get"):
        item = (
            dynamodb(TOOL)
            .get_item(
                TableName=resource_name(TABLE_VARIABLE), Key={"question_id": {"S": question_id}}, ConsistentRead=True
            )
            .get("Item")
        )
    return stored_question(from_item(item)) if item else None


def _counter_key(key: str) -> dict[str, Any]:
    return {"user_id": {"S": COUNTER_PARTITION}, "entry": {"S": f"rounds#{key}"}}


def _counter_update(
    key: str, new_learner: bool = False, group: str = "", counter: Counter | None = None
) -> dict[str, Any]:
    names = {"#yesterday": groups_attribute(_yesterday()), "#ymembers": members_attribute(_yesterday())}
    values: dict[str, Any] = {":one": {"N": "1"}, ":learner": {"N": "1" if new_learner else "0"}}
    adding = "ADD rounds :one, learners :learner"
    if new_learner and group and (counter is None or len(counter.groups) < GROUP_SET_MAX):
        adding += ", #groups :group"
        names["#groups"] = groups_attribute(_today())
        values[":group"] = {"SS": [group]}
    return {
        "Update": {
            "TableName": resource_name(ABILITIES_VARIABLE),
            "Key": _counter_key(key),
            "UpdateExpression": f"{adding} REMOVE #yesterday, #ymembers",
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
        }
    }


def _original_update(
    item_id: str, original: BankItem | None, group: str, at: str, farm: bool = False
) -> dict[str, Any]:
    """One drawn original's counts: a group new to it today counts in `draws#{day}` and joins
    `groups#{day}`; a look-alike account of a group it was drawn for today adds a repeat. Every
    draw adds to `draws` (one more account holds the key), and the draw that reaches
    REST_AFTER_DRAWS rests the item: out of the bank's index, with the time it rested. A draw for
    an account farm (`farm`) rests it too, with the reason."""
    today, yesterday = day_attribute(_today()), day_attribute(_yesterday())
    names = {"#today": today, "#yesterday": yesterday, "#ygroups": groups_attribute(_yesterday())}
    values: dict[str, Any] = {
        ":one": {"N": "1"},
        ":rest": {"N": str(REST_AFTER_DRAWS)},
        ":cap": {"N": str(DAILY_DRAW_CAP)},
    }
    if group and original is not None and group in original.groups_today:
        adding = "ADD draws :one, repeat_draws :one"
    else:
        adding = "ADD draws :one, #today :one"
        if group:
            adding += ", #groups :group"
            names["#groups"] = groups_attribute(_today())
            values[":group"] = {"SS": [group]}
    removing = "REMOVE #yesterday, #ygroups"
    setting = ""
    if farm or (original.draws if original is not None else 0) + 1 >= REST_AFTER_DRAWS:
        removing += ", bank_key"
        setting = " SET rested_at = :at"
        values[":at"] = {"S": at}
    if farm:
        setting += ", rest_reason = :reason"
        values[":reason"] = {"S": FARM_REST_REASON}
    return {
        "Update": {
            "TableName": resource_name(TABLE_VARIABLE),
            "Key": {"question_id": {"S": item_id}},
            "UpdateExpression": f"{adding}{setting} {removing}",
            "ConditionExpression": f"attribute_exists(bank_key) AND {_NOT_OVEREXPOSED}",
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
        }
    }


def record_draw(
    key: str,
    copies: list[DrawnCopy],
    new_learner: bool = False,
    *,
    originals: Mapping[str, BankItem] | None = None,
    group: str = "",
    counter: Counter | None = None,
    farm: bool = False,
    also: tuple[dict[str, Any], ...] = (),
) -> bool:
    """Save the copies, count each original's draw (see _original_update; `originals` are the
    items as the window read them, by id) and one round (and, for a learner's first draw, one
    learner) on the counter, and the writes `also` given (a placement's session joins the open
    sessions), all or nothing; `farm`: the learner's behaviour flagged them, and
    every original drawn rests. False if a condition
    failed: a copy exists already (an earlier attempt won), an original left the bank meanwhile
    (retired or rested) or reached a draw limit since the window was read."""
    table = resource_name(TABLE_VARIABLE)
    at = clock.now().isoformat()
    items: list[dict[str, Any]] = [_counter_update(key, new_learner, group, counter), *also]
    for copy in copies:
        items.append(
            {
                "Put": {
                    "TableName": table,
                    "Item": to_item(dict(copy.item)),
                    "ConditionExpression": "attribute_not_exists(question_id)",
                }
            }
        )
        item_id = copy.question.bank_item_id
        items.append(_original_update(item_id, (originals or {}).get(item_id), group, at, farm))
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


def count_round(key: str, new_learner: bool = False, group: str = "", counter: Counter | None = None) -> None:
    """A round planned with nothing drawn still counts (and its learner, the first time)."""
    update = _counter_update(key, new_learner, group, counter)["Update"]
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


def _claim_record(fingerprint: str, item_id: str, at: str) -> dict[str, Any]:
    return {"user_id": COUNTER_PARTITION, "entry": FINGERPRINT_ENTRY + fingerprint, "item_id": item_id, "joined_at": at}


def holder(fingerprint: str, tool: str = SAVE_TOOL) -> str | None:
    """The id of the bank item holding `fingerprint`, None if none does (strongly consistent)."""
    with storage_errors("bank fingerprint get"):
        item = (
            dynamodb(tool)
            .get_item(
                TableName=resource_name(ABILITIES_VARIABLE),
                Key=fingerprint_key(fingerprint),
                ConsistentRead=True,
                ProjectionExpression="item_id",
            )
            .get("Item")
        )
    return str(from_item(item).get("item_id")) if item else None


def claim_write(fingerprint: str, item_id: str, at: str) -> dict[str, Any]:
    """The transaction item claiming `fingerprint` for the bank item `item_id`: its condition
    fails if another item holds it (the failure returns the record: who holds it)."""
    return {
        "Put": {
            "TableName": resource_name(ABILITIES_VARIABLE),
            "Item": to_item(_claim_record(fingerprint, item_id, at)),
            "ConditionExpression": "attribute_not_exists(entry) OR item_id = :item",
            "ExpressionAttributeValues": {":item": {"S": item_id}},
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }
    }


def release(fingerprint: str, item_id: str) -> dict[str, Any]:
    """The transaction item releasing `fingerprint`, on condition that `item_id` holds it (read
    first with `holder`: a claim another item holds is never released by this one's edit)."""
    return {
        "Delete": {
            "TableName": resource_name(ABILITIES_VARIABLE),
            "Key": fingerprint_key(fingerprint),
            "ConditionExpression": "item_id = :item",
            "ExpressionAttributeValues": {":item": {"S": item_id}},
        }
    }


@dataclass(frozen=True)
class Claim:
    """What `claim` found: the bank item holding the fingerprint after it, and whether this call
    wrote the record (False: it was held already, by this item or another)."""

    holder: str
    written: bool


def claim(fingerprint: str, item_id: str, at: str, tool: str = SAVE_TOOL) -> Claim:
    """Claim `fingerprint` for the bank item `item_id` unless an item holds it already: one
    conditional put, so running it again changes nothing."""
    put = claim_write(fingerprint, item_id, at)["Put"]
    with storage_errors("bank fingerprint put"):
        try:
            dynamodb(tool).put_item(
                TableName=put["TableName"],
                Item=put["Item"],
                ConditionExpression="attribute_not_exists(entry)",
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                raise
            held: dict[str, Any] = error.response.get("Item") or {}  # type: ignore[assignment]
            return Claim(holder=str(from_item(held).get("item_id") or ""), written=False)
    return Claim(holder=item_id, written=True)


def rest_repeated_for_farm(item_id: str, at: str) -> None:
    """Rest the bank item `item_id` because an account farm's round was given a question with its
    stem and key (generated again, saved as its copy): the farm holds its key now, as if it had
    been drawn for it. Its first rest stays (time and reason); an item gone is left alone."""
    with storage_errors("questions update"):
        try:
            dynamodb(SAVE_TOOL).update_item(
                TableName=resource_name(TABLE_VARIABLE),
                Key={"question_id": {"S": item_id}},
                UpdateExpression="REMOVE bank_key SET rested_at = if_not_exists(rested_at, :at), "
                "rest_reason = if_not_exists(rest_reason, :reason)",
                ConditionExpression="attribute_exists(question_id)",
                ExpressionAttributeValues={":at": {"S": at}, ":reason": {"S": FARM_REST_REASON}},
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                raise


# Set on a bank item withdrawn from the bank: retired by a reviewer, or rested.
WITHDRAWN_FIELDS = ("retired_at", "rested_at")


def _is_withdrawn(item: dict[str, Any]) -> bool:
    return any(field in item for field in WITHDRAWN_FIELDS)


def withdrawn(item_id: str) -> bool:
    """Whether the bank item `item_id` was withdrawn from the bank: retired by a reviewer
    (`retired_at`) or rested (`rested_at`: exposure, an account farm, a compromised key). Read only
    when a new question's stem and key are found to be its (strongly consistent: a retirement just
    made counts). An item gone is not withdrawn."""
    with storage_errors("questions get"):
        item = (
            dynamodb(SAVE_TOOL)
            .get_item(
                TableName=resource_name(TABLE_VARIABLE),
                Key={"question_id": {"S": item_id}},
                ConsistentRead=True,
                ProjectionExpression=", ".join(WITHDRAWN_FIELDS),
            )
            .get("Item")
        ) or {}
    return _is_withdrawn(item)


COLLECT_TOOL = "collect_round"
# A round's drafts per pass are at most a round's length (20): one request of each read is plenty.
BATCH_KEYS_MAX = 100
UNPROCESSED_ROUNDS = 3


def withdrawn_among(fingerprints: list[str], tool: str = COLLECT_TOOL) -> set[str]:
    """Those of `fingerprints` (bank fingerprints of a round's drafts) that a bank item withdrawn
    from the bank holds (retired, or rested): two BatchGetItems at most, the claims and then their
    holders (none when no draft repeats a bank item). A draft found here is written again before
    it is saved; keys DynamoDB leaves unprocessed count as not withdrawn, since Tool 5 refuses such
    a repeat anyway (`withdrawn`), at the cost of a shorter round."""
    wanted = list(dict.fromkeys(fingerprints))[:BATCH_KEYS_MAX]
    if not wanted:
        return set()
    claims_table = resource_name(ABILITIES_VARIABLE)
    claims_request = {
        claims_table: {"Keys": [fingerprint_key(fingerprint) for fingerprint in wanted], "ConsistentRead": True}
    }
    found, _ = batch_get(dynamodb(tool), claims_request, "bank fingerprints get", rounds=UNPROCESSED_ROUNDS)
    holders = {
        str(record["entry"]).removeprefix(FINGERPRINT_ENTRY): str(record["item_id"])
        for record in map(from_item, found.get(claims_table, []))
        if record.get("item_id")
    }
    if not holders:
        return set()
    table = resource_name(TABLE_VARIABLE)
    holders_request = {
        table: {
            "Keys": [{"question_id": {"S": item_id}} for item_id in sorted(set(holders.values()))],
            "ConsistentRead": True,
            "ProjectionExpression": ", ".join(("question_id", *WITHDRAWN_FIELDS)),
        }
    }
    found, _ = batch_get(dynamodb(tool), holders_request, "bank holders get", rounds=UNPROCESSED_ROUNDS)
    gone = {str(item["question_id"]) for item in map(from_item, found.get(table, [])) if _is_withdrawn(item)}
    return {fingerprint for fingerprint, item_id in holders.items() if item_id in gone}


def join(question: dict[str, Any], fingerprint: str) -> Joined:
    """Write `question` (its own bank item) and claim `fingerprint` for it, all or nothing."""
    question_id = str(question["question_id"])
    record = _claim_record(fingerprint, question_id, str(question.get("created_at") or ""))
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
                "Item": to_item(record),
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
