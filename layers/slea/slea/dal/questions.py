"""Saved questions. Key design: partition `question_id`; GSI `session-questions` on
(`session_id`, `created_at`) lists a session's questions in generation order.

Review: a question waiting for a reviewer carries `review_state` = "open" and
`queued_at`, the keys of the sparse GSI `review-queue` (only open questions are in it), and
`review_reasons` (a string set: a statistics flag, "reported", "revise"). A retired question
carries `retired_category` and `retired_at`, the keys of the sparse GSI `retired-questions`,
from which later rounds learn the stems to avoid.

Question bank: every saved question is a bank item (`item_id` = its own id) with its
difficulty on the logit scale (`difficulty_b`, `difficulty_precision`, `item_answers`), its
`language` and `topics`; one that may be drawn carries `bank_key`, the key of the sparse GSI
`bank-items` (dal/bank.py). A question drawn for a session is a copy: a new id, `item_id` = the
original's.

Writes are conditional on the id being new, so a question is never overwritten; since ids are
fixed before the first attempt, "already there" means an earlier attempt of the same save won.

The reads give each question as a `StoredQuestion` (dal/question_records.py builds it).
"""

from typing import Any

from botocore.exceptions import ClientError

from slea.dal.question_records import StoredQuestion, stored_question
from slea.dal.wire_format import from_item, query_all, to_item
from slea.measurement import scale
from slea.platform.aws import dynamodb
from slea.platform.clock import utc_now
from slea.platform.errors import storage_errors
from slea.platform.settings import resource_name

TABLE_VARIABLE = "QUESTIONS_TABLE"
TOOL = "save_generated_question"
OPEN = "open"
MAX_REPORTS = 50  # per question: enough for a reviewer, and an item stays far below 400 KB
RETIRED_STEMS_READ = 200  # the newest retired stems of a category that a round avoids


def queue_fields(reason: str, at: str) -> dict[str, Any]:
    """What puts a new question in the review queue (Tool 5 saves a `revise` question so)."""
    return {"review_state": OPEN, "queued_at": at, "review_reasons": {reason}}


def bank_key(category: str, language: str) -> str:
    """The partition of the `bank-items` index: the items a round of this category and language may draw."""
    return f"{category}#{language}"


def bank_fields(question_id: str, difficulty: int, language: str, topics: list[str] | None) -> dict[str, Any]:
    """A new question is its own bank item, its difficulty's prior read from its label."""
    return {
        "item_id": question_id,
        "difficulty_b": scale.label_to_b(difficulty),
        "difficulty_precision": 1 / scale.LABEL_B_SD**2,
        "item_answers": 0,
        "language": language,
        "topics": topics or None,
    }


def put_new_question(item: dict[str, Any]) -> dict[str, Any] | None:
    """Write the question unless its id is taken. Returns None when written, else the item already
    stored under that id. The failed write itself returns that item
    (ReturnValuesOnConditionCheckFailure=ALL_OLD), so the check needs no GetItem - the saving
    functions are granted dynamodb:PutItem only."""
    with storage_errors("questions put"):
        try:
            dynamodb(TOOL).put_item(
                TableName=resource_name(TABLE_VARIABLE),
                Item=to_item(item),
                ConditionExpression="attribute_not_exists(question_id)",
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                existing: dict[str, Any] = error.response.get("Item") or {}  # type: ignore[assignment]
                return from_item(existing) if existing else {}
            raise
    return None


def get_question(question_id: str) -> StoredQuestion | None:
    with storage_errors("questions get"):
        response = dynamodb(TOOL).get_item(
            TableName=resource_name(TABLE_VARIABLE), Key={"question_id": {"S": question_id}}, ConsistentRead=True
        )
    item = response.get("Item")
    return stored_question(from_item(item)) if item else None


def session_questions(session_id: str) -> list[StoredQuestion]:
    """A session's questions in the order they were generated (the session-questions index)."""
    with storage_errors("questions query"):
        found = query_all(
            dynamodb(TOOL),
            TableName=resource_name(TABLE_VARIABLE),
            IndexName="session-questions",
            KeyConditionExpression="session_id = :session",
            ExpressionAttributeValues={":session": {"S": session_id}},
        )
    return [stored_question(item) for item in found]


def set_stats_flag(question_id: str, flag: str | None, at: str = "") -> None:
    """Store the statistics flag; a new flag also puts the question in the review queue."""
    expression = "SET stats_flag = :flag" if flag else "REMOVE stats_flag"
    values: dict[str, Any] = {"ExpressionAttributeValues": {":flag": {"S": flag}}} if flag else {}
    if flag:
        expression += ", review_state = :open, queued_at = if_not_exists(queued_at, :at) ADD review_reasons :reason"
        values["ExpressionAttributeValues"] |= {
            ":open": {"S": OPEN},
            ":at": {"S": at or utc_now()},
            ":reason": {"SS": [flag]},
        }
    with storage_errors("questions flag"):
        dynamodb(TOOL).update_item(
            TableName=resource_name(TABLE_VARIABLE),
            Key={"question_id": {"S": question_id}},
            UpdateExpression=expression,
            **values,
        )


def report_question(question_id: str, report: dict[str, str]) -> None:
    """Keep a learner's report on the question and put it in the review queue (a question with
    MAX_REPORTS reports already stays queued without keeping more)."""
    table, key = resource_name(TABLE_VARIABLE), {"question_id": {"S": question_id}}
    values = {
        ":open": {"S": OPEN},
        ":at": {"S": report["at"]},
        ":reason": {"SS": ["reported"]},
        ":report": {"L": [{"M": {name: {"S": value} for name, value in report.items()}}]},
        ":none": {"L": []},
        ":max": {"N": str(MAX_REPORTS)},
    }
    with storage_errors("questions report"):
        try:
            dynamodb(TOOL).update_item(
                TableName=table,
                Key=key,
                UpdateExpression="SET review_state = :open, queued_at = if_not_exists(queued_at, :at), "
                "reports = list_append(if_not_exists(reports, :none), :report) ADD review_reasons :reason",
                ConditionExpression="attribute_exists(question_id) AND "
                "(attribute_not_exists(reports) OR size(reports) < :max)",
                ExpressionAttributeValues=values,  # type: ignore[arg-type]
            )
        except ClientError as error:
            # Full (or gone): the question is queued already, or there is nothing to review.
            if error.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                raise


def retired_stems(category: str) -> list[str]:
    """The stems of the newest retired questions of `category`, for a new round to avoid."""
    with storage_errors("questions retired query"):
        response = dynamodb(TOOL).query(
            TableName=resource_name(TABLE_VARIABLE),
            IndexName="retired-questions",
            KeyConditionExpression="retired_category = :category",
            ExpressionAttributeValues={":category": {"S": category}},
            ScanIndexForward=False,
            Limit=RETIRED_STEMS_READ,
        )
    return [str(from_item(item).get("stem", "")) for item in response.get("Items", [])]
