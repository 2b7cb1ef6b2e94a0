"""Graded answers (written by Mode 2). Key design: partition `session_id`, sort `attempt_key` =
"{question_id}#{digest of the user, the answer and the answer key}", so one request is one item
however often its grading is retried, and a session's attempts are one Query.

A grading is recorded all-or-nothing in one transaction: the attempt, the question's statistics
(usage and correct counts) and, for the HTTP API's one-answer-per-question rule, the question's
"answered" marker (refused for a retired question). A retry after any failure either finds
nothing recorded (and records) or finds the whole record (and returns it); it never counts twice.
"""

import hashlib
import json
from typing import Any, Literal

from botocore.exceptions import ClientError

from slea.aws import dynamodb
from slea.dal.items import from_item, query_all, to_item
from slea.errors import storage_errors
from slea.settings import resource_name

TABLE_VARIABLE = "ATTEMPTS_TABLE"
QUESTIONS_TABLE_VARIABLE = "QUESTIONS_TABLE"
TOOL = "score_and_explain"

RecordOutcome = Literal["recorded", "already_recorded", "answered_differently", "retired"]


def attempt_key(question_id: str, request_identity: list[Any]) -> str:
    """`request_identity`: what makes two gradings the same (user, answer, answer key): a retry
    of the same request maps to the same item, any other request to another one."""
    digest = hashlib.sha256(json.dumps(request_identity, ensure_ascii=False).encode()).hexdigest()[:24]
    return f"{question_id}#{digest}"


def session_attempts(session_id: str) -> list[dict[str, Any]]:
    """A session's attempts in the order they were graded."""
    with storage_errors("attempts query"):
        items = query_all(
            dynamodb(TOOL),
            TableName=resource_name(TABLE_VARIABLE),
            KeyConditionExpression="session_id = :session",
            ExpressionAttributeValues={":session": {"S": session_id}},
        )
    return sorted(items, key=lambda item: str(item.get("graded_at", "")))


def get_attempt(session_id: str, key: str) -> dict[str, Any] | None:
    with storage_errors("attempts get"):
        response = dynamodb(TOOL).get_item(
            TableName=resource_name(TABLE_VARIABLE),
            Key={"session_id": {"S": session_id}, "attempt_key": {"S": key}},
            ConsistentRead=True,
        )
    item = response.get("Item")
    return from_item(item) if item else None


def _question_update(question_id: str, attempt: dict[str, Any], claim: bool) -> dict[str, Any]:
    """Count the answer on the question; with `claim`, also mark it answered (once only)."""
    values: dict[str, Any] = {":one": {"N": "1"}, ":correct": {"N": "1" if attempt["is_correct"] else "0"}}
    expression, condition = "ADD usage_count :one, correct_count :correct", "attribute_exists(question_id)"
    names: dict[str, str] = {}
    if claim:  # a learner's answer: once per question, and never to a retired one
        expression = "SET answered_at = :at, answered_attempt_key = :key " + expression
        condition += " AND attribute_not_exists(answered_at) AND (attribute_not_exists(#status) OR #status <> :retired)"
        values |= {
            ":at": {"S": attempt["graded_at"]},
            ":key": {"S": attempt["attempt_key"]},
            ":retired": {"S": "retired"},
        }
        names = {"#status": "status"}  # a DynamoDB reserved word
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


def record_graded_answer(attempt: dict[str, Any], count_on_question: bool, claim_question: bool) -> RecordOutcome:
    """Write the attempt and, if the question is stored, its statistics (and with
    `claim_question`, its answered marker) in one transaction.

    "already_recorded": this very attempt (same question, user and answer) is stored already;
    "answered_differently": the question was answered before with another answer. Either way
    nothing was written."""
    put = {
        "Put": {
            "TableName": resource_name(TABLE_VARIABLE),
            "Item": to_item(attempt),
            "ConditionExpression": "attribute_not_exists(attempt_key)",
        }
    }
    items = [put]
    if count_on_question:
        items.append(_question_update(attempt["question_id"], attempt, claim_question))
    with storage_errors("attempt transaction"):
        try:
            dynamodb(TOOL).transact_write_items(TransactItems=items)  # type: ignore[arg-type]
        except ClientError as error:
            reasons = [reason.get("Code") for reason in error.response.get("CancellationReasons", [])]
            if error.response.get("Error", {}).get("Code") != "TransactionCanceledException":
                raise
            if reasons and reasons[0] == "ConditionalCheckFailed":
                return "already_recorded"
            if len(reasons) > 1 and reasons[1] == "ConditionalCheckFailed":
                question: dict[str, Any] = dict(error.response["CancellationReasons"][1].get("Item") or {})
                status = from_item(question).get("status") if question else None
                retired = status == "retired" and "answered_at" not in question
                return "retired" if retired else "answered_differently"
            raise
    return "recorded"
