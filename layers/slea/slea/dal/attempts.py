"""Graded answers (written by Mode 2). Key design: partition `session_id`, sort `attempt_key` =
"{question_id}#{digest of the user, the answer and the answer key}", so one request is one item
however often its grading is retried, and a session's attempts are one Query.

A grading is recorded all-or-nothing in one transaction: the attempt, the question's statistics
(usage and correct counts) and, for the HTTP API's one-answer-per-question rule, the question's
"answered" marker (refused for a retired question), and the learner's ability with its
history point and the bank item's difficulty step. A retry after any failure either finds
nothing recorded (and records) or finds the whole record (and returns it); it never counts twice.
The attempt keeps what the ability update used (`item_id`, `item_b`, `item_b_se`, `guess_floor`,
`ability_category`), so a reviewer's override can undo exactly that response.

The `user-attempts` index (`user_id` + `graded_at`, every attribute) lists a learner's answers
across all their sessions, newest first, a page at a time (the history).

A StoredAttempt is an attempt as a reader above dal/ reads it, built from the item in one place
(`stored_attempt`). It holds what its readers need so far (the review queue, and the reviewers'
actions: the review fields, what the ability counted, a pending proposal, the exemplar's bank
item); fields are added as more readers move to it.

A review's fields on the attempt (slea.dal.review_writes): `reviewed`, `reviewed_by`,
`reviewed_by_name`, `reviewed_at`, `review_action`, `review_note` (the learner's), the first
grade kept as `original_score`; `ability_score` the score its ability counts and `ability_pending`
whether it is counted in its ability's pending_review; `proposal` ({score, by, by_name, at, note})
a change to a final grade waiting for a second reviewer.
"""

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal, NamedTuple

from botocore.exceptions import ClientError

from slea.dal import explanations, questions
from slea.dal.wire_format import from_item, query_all, to_item
from slea.platform.aws import dynamodb
from slea.platform.errors import storage_errors
from slea.platform.settings import resource_name

TABLE_VARIABLE = "ATTEMPTS_TABLE"
QUESTIONS_TABLE_VARIABLE = "QUESTIONS_TABLE"
TOOL = "score_and_explain"

RecordOutcome = Literal["recorded", "already_recorded", "answered_differently", "retired", "skipped", "ability_changed"]
SKIPPED_SUFFIX = "skipped"


@dataclass(frozen=True, slots=True)
class AttemptAnswerKey:
    """The answer key the attempt was graded against, as it kept it (`answer_key`): a question
    graded by direct invocation may never have been saved, so this is all there is of its key."""

    correct_answer: str | None = None
    correct_keywords: tuple[str, ...] | None = None
    reference_answer: str | None = None


@dataclass(frozen=True, slots=True)
class AttemptProposal:
    """A reviewer's change to the attempt's final grade, kept on it until a second reviewer
    confirms or rejects it (`proposal` as stored: who proposed it, when, and why)."""

    score: int
    by: str | None
    by_name: str | None
    at: str
    note: str = ""


@dataclass(frozen=True, slots=True)
class StoredAttempt:
    """A graded answer as stored. Every grading writes its key, answer and grade; the rest may be
    missing from an older attempt (or one graded by direct invocation): None, empty or the
    grader's default. `queued_at` and `review_group` exist while it waits for a reviewer,
    `proposal` while a proposed change to a final grade waits for a second one."""

    session_id: str
    attempt_key: str
    attempt_id: str | None
    question_id: str | None
    user_answer: str
    score: int
    is_correct: bool
    graded_at: str
    user_id: str | None = None
    confidence: float = 1.0  # the grader's (1.0: a keyed answer, or none recorded)
    question_type: str | None = None
    round: int | None = None
    difficulty: int | None = None
    language: str | None = None  # the grading's language (its `details`)
    grader_reasoning: str | None = None
    keyword_matches: tuple[str, ...] = ()
    feedback: str | None = None
    answer_key: AttemptAnswerKey = AttemptAnswerKey()
    queued_at: str | None = None
    review_group: str | None = None
    proposal: Mapping[str, Any] | None = None  # contracts' OverrideProposal, as stored
    proposed_change: AttemptProposal | None = None  # `proposal` as the reviewers' actions read it
    # Review: None where the attempt has no such field (never reviewed, or recorded before it).
    needs_review: bool | None = None
    reviewed: bool | None = None
    reviewed_by: str | None = None
    reviewed_by_name: str | None = None
    reviewed_at: str | None = None
    review_action: str | None = None
    review_note: str | None = None
    original_score: int | None = None  # the first grade, kept by the first review that applied
    # What the learner's ability counted (slea.logic.answering.ability_update); None: not kept.
    ability_score: int | None = None
    ability_pending: bool | None = None
    ability_category: str | None = None
    item_b: float | None = None
    item_b_se: float | None = None
    guess_floor: float | None = None
    question_stem: str | None = None  # the stem the learner saw
    exemplar_item: str | None = None  # the bank item a reviewed short answer is an exemplar of
    grader_probability: float | None = None


def _optional_text(item: Mapping[str, Any], name: str) -> str | None:
    value = item.get(name)
    return None if value is None else str(value)


def _optional_int(item: Mapping[str, Any], name: str) -> int | None:
    value = item.get(name)
    return int(value) if isinstance(value, int | Decimal) and not isinstance(value, bool) else None


def _optional_float(item: Mapping[str, Any], name: str) -> float | None:
    value = item.get(name)
    return float(value) if isinstance(value, int | float | Decimal) and not isinstance(value, bool) else None


def _optional_bool(item: Mapping[str, Any], name: str) -> bool | None:
    value = item.get(name)
    return None if value is None else bool(value)


def _proposal(value: Any) -> AttemptProposal | None:
    if not isinstance(value, Mapping):
        return None
    return AttemptProposal(
        score=int(value.get("score") or 0),
        by=_optional_text(value, "by"),
        by_name=_optional_text(value, "by_name"),
        at=str(value.get("at") or ""),
        note=str(value.get("note") or ""),
    )


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def stored_attempt(item: Mapping[str, Any]) -> StoredAttempt:
    """The record of a stored attempt item (as `wire_format.from_item` gives it)."""
    key = _mapping(item.get("answer_key"))
    details = _mapping(item.get("details"))
    keywords = key.get("correct_keywords")
    proposal = item.get("proposal")
    return StoredAttempt(
        session_id=str(item.get("session_id") or ""),
        attempt_key=str(item.get("attempt_key") or ""),
        attempt_id=_optional_text(item, "attempt_id"),
        question_id=_optional_text(item, "question_id"),
        user_answer=str(item.get("user_answer") or ""),
        score=int(item.get("score") or 0),
        is_correct=bool(item.get("is_correct")),
        graded_at=str(item.get("graded_at") or ""),
        user_id=_optional_text(item, "user_id"),
        confidence=float(item.get("confidence", 1.0)),
        question_type=_optional_text(item, "question_type"),
        round=_optional_int(item, "round"),
        difficulty=_optional_int(item, "difficulty"),
        language=_optional_text(details, "language"),
        grader_reasoning=_optional_text(item, "grader_reasoning"),
        keyword_matches=tuple(str(match) for match in item.get("keyword_matches") or ()),
        feedback=_optional_text(item, "feedback"),
        answer_key=AttemptAnswerKey(
            correct_answer=_optional_text(key, "correct_answer"),
            correct_keywords=None if keywords is None else tuple(str(keyword) for keyword in keywords),
            reference_answer=_optional_text(key, "reference_answer"),
        ),
        queued_at=_optional_text(item, "queued_at"),
        review_group=_optional_text(item, "review_group"),
        proposal=dict(proposal) if isinstance(proposal, Mapping) else None,
        proposed_change=_proposal(proposal),
        needs_review=_optional_bool(item, "needs_review"),
        reviewed=_optional_bool(item, "reviewed"),
        reviewed_by=_optional_text(item, "reviewed_by"),
        reviewed_by_name=_optional_text(item, "reviewed_by_name"),
        reviewed_at=_optional_text(item, "reviewed_at"),
        review_action=_optional_text(item, "review_action"),
        review_note=_optional_text(item, "review_note"),
        original_score=_optional_int(item, "original_score"),
        ability_score=_optional_int(item, "ability_score"),
        ability_pending=_optional_bool(item, "ability_pending"),
        ability_category=_optional_text(item, "ability_category"),
        item_b=_optional_float(item, "item_b"),
        item_b_se=_optional_float(item, "item_b_se"),
        guess_floor=_optional_float(item, "guess_floor"),
        question_stem=_optional_text(item, "question_stem"),
        exemplar_item=_optional_text(item, "exemplar_item"),
        grader_probability=_optional_float(item, "grader_probability"),
    )


def queue_fields(graded_at: str) -> dict[str, str]:
    """What puts a provisional grade in the review queue (the sparse GSI `review-queue`): it waits
    from when it was graded."""
    return {"review_state": questions.OPEN, "queued_at": graded_at}


def skip_key(question_id: str) -> str:
    """The attempt key of a question left unanswered: one per question, so counting it again
    (a retry, a race between two requests that both settle the round) writes nothing."""
    return f"{question_id}#{SKIPPED_SUFFIX}"


def attempt_key(question_id: str, request_identity: list[Any]) -> str:
    """`request_identity`: what makes two gradings the same (user, answer, answer key): a retry
    of the same request maps to the same item, any other request to another one."""
    digest = hashlib.sha256(json.dumps(request_identity, ensure_ascii=False).encode()).hexdigest()[:24]
    return f"{question_id}#{digest}"


def session_attempts(session_id: str, *, consistent: bool = False) -> list[dict[str, Any]]:
    """A session's attempts in the order they were graded (`consistent`: including one recorded
    just before, as a placement's next question must)."""
    with storage_errors("attempts query"):
        items = query_all(
            dynamodb(TOOL),
            TableName=resource_name(TABLE_VARIABLE),
            KeyConditionExpression="session_id = :session",
            ExpressionAttributeValues={":session": {"S": session_id}},
            ConsistentRead=consistent,
        )
    return sorted(items, key=lambda item: str(item.get("graded_at", "")))


def stored_session_attempts(session_id: str, *, consistent: bool = False) -> list[StoredAttempt]:
    """`session_attempts` as records."""
    return [stored_attempt(item) for item in session_attempts(session_id, consistent=consistent)]


USER_INDEX = "user-attempts"
PAGE_KEYS = ("session_id", "attempt_key", "user_id", "graded_at")  # where a page of the index ends


def user_attempts(
    user_id: str, limit: int, start: dict[str, str] | None = None
) -> tuple[list[dict[str, Any]], dict[str, str] | None]:
    """Up to `limit` of the user's attempts, newest first, and where the next page starts (None
    at the end; one more is read so that a last full page says so). `start`: a page's end."""
    params: dict[str, Any] = {
        "TableName": resource_name(TABLE_VARIABLE),
        "IndexName": USER_INDEX,
        "KeyConditionExpression": "user_id = :user_id",
        "ExpressionAttributeValues": {":user_id": {"S": user_id}},
        "ScanIndexForward": False,
        "Limit": limit + 1,
    }
    if start:
        params["ExclusiveStartKey"] = {name: {"S": start[name]} for name in PAGE_KEYS}
    with storage_errors("attempts query"):
        response = dynamodb(TOOL).query(**params)
    items = [from_item(item) for item in response.get("Items", [])]
    if len(items) > limit:
        items = items[:limit]
        return items, {name: str(items[-1][name]) for name in PAGE_KEYS}
    last = response.get("LastEvaluatedKey")  # a page cut short by DynamoDB's 1 MB
    return items, ({name: last[name]["S"] for name in PAGE_KEYS} if last else None)


def get_attempt(session_id: str, key: str) -> dict[str, Any] | None:
    with storage_errors("attempts get"):
        response = dynamodb(TOOL).get_item(
            TableName=resource_name(TABLE_VARIABLE),
            Key={"session_id": {"S": session_id}, "attempt_key": {"S": key}},
            ConsistentRead=True,
        )
    item = response.get("Item")
    return from_item(item) if item else None


@dataclass(frozen=True)
class DifficultyStep:
    """The online step of a bank item's difficulty after one answer (slea.measurement.items):
    applied as `if_not_exists(x, prior) + delta`, which DynamoDB evaluates on the stored value,
    so concurrent answers to one item never lose a step."""

    item_id: str
    delta_b: float
    delta_precision: float
    prior_b: float
    prior_precision: float


def _difficulty_parts(step: DifficultyStep) -> tuple[str, str, dict[str, Any]]:
    """The SET and ADD clauses and values of a difficulty step (merged into the question's own
    update when the question is its bank item: one item is one operation in a transaction)."""
    values = {
        ":delta_b": {"N": str(step.delta_b)},
        ":delta_precision": {"N": str(step.delta_precision)},
        ":prior_b": {"N": str(step.prior_b)},
        ":prior_precision": {"N": str(step.prior_precision)},
        ":answered": {"N": "1"},
    }
    setting = (
        "difficulty_b = if_not_exists(difficulty_b, :prior_b) + :delta_b, "
        "difficulty_precision = if_not_exists(difficulty_precision, :prior_precision) + :delta_precision"
    )
    return setting, "item_answers :answered", values


@dataclass(frozen=True)
class StatsFlagChange:
    """The question's statistics flag after this answer (None: no flag), when it changes. A new
    flag also puts the question in the review queue (as dal/questions.py's set_stats_flag)."""

    flag: str | None
    at: str


def _question_update(
    question_id: str,
    attempt: dict[str, Any],
    claim: bool,
    step: DifficultyStep | None,
    stats_flag: StatsFlagChange | None = None,
) -> dict[str, Any]:
    """Count the answer on the question; with `claim`, also mark it answered (once only); with a
    `step` for this very record (a question that is its own bank item), move its difficulty; with
    a `stats_flag` change, set or clear the flag."""
    values: dict[str, Any] = {":one": {"N": "1"}, ":correct": {"N": "1" if attempt["is_correct"] else "0"}}
    setting, adding, removing = [], ["usage_count :one", "correct_count :correct"], []
    condition = "attribute_exists(question_id)"
    names: dict[str, str] = {}
    if stats_flag is not None and stats_flag.flag:
        setting.append("stats_flag = :flag, review_state = :open, queued_at = if_not_exists(queued_at, :flagged_at)")
        adding.append("review_reasons :reason")
        values |= {
            ":flag": {"S": stats_flag.flag},
            ":open": {"S": questions.OPEN},
            ":flagged_at": {"S": stats_flag.at},
            ":reason": {"SS": [stats_flag.flag]},
        }
    elif stats_flag is not None:
        removing.append("stats_flag")
    if claim:  # a learner's answer: once per question, and never to a retired one
        setting.append("answered_at = :at, answered_attempt_key = :key")
        condition += " AND attribute_not_exists(answered_at) AND (attribute_not_exists(#status) OR #status <> :retired)"
        values |= {
            ":at": {"S": attempt["graded_at"]},
            ":key": {"S": attempt["attempt_key"]},
            ":retired": {"S": "retired"},
        }
        names = {"#status": "status"}  # a DynamoDB reserved word
    if step is not None:
        step_setting, step_adding, step_values = _difficulty_parts(step)
        setting.append(step_setting)
        adding.append(step_adding)
        values |= step_values
    expression = ("SET " + ", ".join(setting) + " " if setting else "") + "ADD " + ", ".join(adding)
    if removing:
        expression += " REMOVE " + ", ".join(removing)
    return {
        "Update": {
            "TableName": resource_name(QUESTIONS_TABLE_VARIABLE),
            "Key": {"question_id": {"S": question_id}},
            "UpdateExpression": expression,
            "ConditionExpression": condition,
            "ExpressionAttributeValues": values,
            **({"ExpressionAttributeNames": names} if names else {}),
            # Which condition failed: the question as it is tells answered from retired.
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }
    }


def _bank_item_update(step: DifficultyStep) -> dict[str, Any]:
    """The step on a bank item other than the answered question (a copy drawn from the bank)."""
    setting, adding, values = _difficulty_parts(step)
    return {
        "Update": {
            "TableName": resource_name(QUESTIONS_TABLE_VARIABLE),
            "Key": {"question_id": {"S": step.item_id}},
            "UpdateExpression": f"SET {setting} ADD {adding}",
            # Never creates an item: a bank item deleted since it was read fails the transaction,
            # and the retry reads it absent.
            "ConditionExpression": "attribute_exists(question_id)",
            "ExpressionAttributeValues": values,
        }
    }


def record_graded_answer(  # noqa: PLR0917 - the answer's writes, each optional
    attempt: dict[str, Any],
    count_on_question: bool,
    claim_question: bool,
    learner: list[dict[str, Any]] | None = None,
    difficulty: DifficultyStep | None = None,
    stats_flag: StatsFlagChange | None = None,
    explanation: tuple[str, dict[str, Any]] | None = None,
    extra: list[dict[str, Any]] | None = None,
) -> RecordOutcome:
    """Write the attempt and, if the question is stored, its statistics (and with
    `claim_question`, its answered marker) in one transaction; with them, the learner's ability
    (`learner`: the transaction items of slea.dal.abilities.answer_items) and the bank item's
    difficulty step, so a grade and what it teaches the model are recorded all or nothing; with
    `stats_flag`, the question's flag; with `explanation` ((variant, text) of the question), the
    explanation cache's new entry (last writer wins: any grader's text for the variant will do).

    "already_recorded": this very attempt (same question, user and answer) is stored already;
    "answered_differently": the question was answered before with another answer;
    "ability_changed": another answer of the learner updated the ability since it was read
    (re-read it and try again). Whatever the outcome but "recorded", nothing was written."""
    named: list[tuple[str, dict[str, Any]]] = [
        (
            "attempt",
            {
                "Put": {
                    "TableName": resource_name(TABLE_VARIABLE),
                    "Item": to_item(attempt),
                    "ConditionExpression": "attribute_not_exists(attempt_key)",
                }
            },
        )
    ]
    own_item = difficulty is not None and difficulty.item_id == attempt["question_id"]
    if count_on_question:
        step = difficulty if own_item else None
        update = _question_update(attempt["question_id"], attempt, claim_question, step, stats_flag)
        named.append(("question", update))
    if difficulty is not None and not (own_item and count_on_question):
        named.append(("bank_item", _bank_item_update(difficulty)))
    named += [("learner", item) for item in learner or []]
    if explanation is not None:
        variant, text = explanation
        named.append(("explanation", explanations.cache_put(attempt["question_id"], variant, text)))
    named += [("extra", item) for item in extra or []]  # e.g. a new review group's face
    with storage_errors("attempt transaction"):
        try:
            dynamodb(TOOL).transact_write_items(TransactItems=[item for _, item in named])  # type: ignore[misc]
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != "TransactionCanceledException":
                raise
            reasons = error.response.get("CancellationReasons", [])
            failed = {
                name: reason
                for (name, _), reason in zip(named, reasons, strict=False)
                if reason.get("Code") == "ConditionalCheckFailed"
            }
            if "attempt" in failed:
                return "already_recorded"
            if "question" in failed:
                question: dict[str, Any] = dict(failed["question"].get("Item") or {})
                status = from_item(question).get("status") if question else None
                retired = status == "retired" and "answered_at" not in question
                if "skipped_at" in question:  # its round was over: counted as skipped
                    return "skipped"
                return "retired" if retired else "answered_differently"
            if "learner" in failed or "bank_item" in failed:
                return "ability_changed"
            raise
    return "recorded"


def _skip_question_update(question_id: str, key: str, at: str) -> dict[str, Any]:
    """Mark a question answered by its skip, once: never one answered meanwhile (the learner's
    answer won the race) nor one already counted."""
    return {
        "Update": {
            "TableName": resource_name(QUESTIONS_TABLE_VARIABLE),
            "Key": {"question_id": {"S": question_id}},
            "UpdateExpression": "SET answered_at = :at, answered_attempt_key = :key, skipped_at = :at",
            "ConditionExpression": "attribute_exists(question_id) AND attribute_not_exists(answered_at)",
            "ExpressionAttributeValues": {":at": {"S": at}, ":key": {"S": key}},
        }
    }


class SkipsRefused(NamedTuple):
    """record_skips wrote nothing: `retired` holds the bank items found retired (their copies are
    withdrawn, never skips); empty when something else changed (an answer, the ability)."""

    retired: frozenset[str]


def _bank_item_not_retired(item_id: str) -> dict[str, Any]:
    return {
        "ConditionCheck": {
            "TableName": resource_name(QUESTIONS_TABLE_VARIABLE),
            "Key": {"question_id": {"S": item_id}},
            "ConditionExpression": "attribute_not_exists(#status) OR #status <> :retired",
            "ExpressionAttributeNames": {"#status": "status"},
            "ExpressionAttributeValues": {":retired": {"S": "retired"}},
        }
    }


def record_skips(
    skips: list[dict[str, Any]], learner: list[dict[str, Any]], bank_items: list[str] | None = None
) -> SkipsRefused | None:
    """Record questions left unanswered as skipped, in one transaction: per question a skip
    attempt (a score of 0, new under `skip_key`) and its answered marker, with the learner's
    ability (`learner`: slea.dal.abilities.answer_items, conditioned on the version read), and a
    check that none of `bank_items` (the bank items the skipped copies were drawn from) is retired:
    a copy its retirement failed to withdraw is never counted, at no call of its own. None when
    recorded; SkipsRefused when a condition failed (nothing was written; read again and retry)."""
    items: list[dict[str, Any]] = []
    for skip in skips:
        items.append(
            {
                "Put": {
                    "TableName": resource_name(TABLE_VARIABLE),
                    "Item": to_item(skip),
                    "ConditionExpression": "attribute_not_exists(attempt_key)",
                }
            }
        )
        items.append(_skip_question_update(skip["question_id"], skip["attempt_key"], skip["graded_at"]))
    # A transaction touches an item once: a bank item skipped in the same batch is updated there.
    checked = sorted(set(bank_items or []) - {str(skip["question_id"]) for skip in skips})
    items += [_bank_item_not_retired(item_id) for item_id in checked]
    with storage_errors("skips transaction"):
        try:
            dynamodb(TOOL).transact_write_items(TransactItems=items + learner)  # type: ignore[arg-type]
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != "TransactionCanceledException":
                raise
            reasons = error.response.get("CancellationReasons", [])
            if not any(reason.get("Code") == "ConditionalCheckFailed" for reason in reasons):
                raise
            first_check = 2 * len(skips)  # the checks follow the skips' two items each
            failed = {
                checked[n - first_check]
                for n, reason in enumerate(reasons)
                if reason.get("Code") == "ConditionalCheckFailed" and first_check <= n < first_check + len(checked)
            }
            return SkipsRefused(frozenset(failed))
    return None
