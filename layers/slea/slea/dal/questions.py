"""Saved questions. Key design: partition `question_id`; GSI `session-questions` on
(`session_id`, `created_at`) lists a session's questions in generation order.

Writes are conditional on the id being new, so a question is never overwritten; since ids are
fixed before the first attempt, "already there" means an earlier attempt of the same save won.
"""

from typing import Any

from botocore.exceptions import ClientError

from slea.aws import dynamodb
from slea.dal.items import from_item, query_all, to_item
from slea.errors import storage_errors
from slea.settings import resource_name

TABLE_VARIABLE = "QUESTIONS_TABLE"
TOOL = "save_generated_question"


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


def get_question(question_id: str) -> dict[str, Any] | None:
    with storage_errors("questions get"):
        response = dynamodb(TOOL).get_item(
            TableName=resource_name(TABLE_VARIABLE), Key={"question_id": {"S": question_id}}, ConsistentRead=True
        )
    item = response.get("Item")
    return from_item(item) if item else None


def session_questions(session_id: str) -> list[dict[str, Any]]:
    """A session's questions in the order they were generated (the session-questions index)."""
    with storage_errors("questions query"):
        return query_all(
            dynamodb(TOOL),
            TableName=resource_name(TABLE_VARIABLE),
            IndexName="session-questions",
            KeyConditionExpression="session_id = :session",
            ExpressionAttributeValues={":session": {"S": session_id}},
        )


def set_stats_flag(question_id: str, flag: str | None) -> None:
    expression = "SET stats_flag = :flag" if flag else "REMOVE stats_flag"
    values = {"ExpressionAttributeValues": {":flag": {"S": flag}}} if flag else {}
    with storage_errors("questions flag"):
        dynamodb(TOOL).update_item(
            TableName=resource_name(TABLE_VARIABLE),
            Key={"question_id": {"S": question_id}},
            UpdateExpression=expression,
            **values,  # type: ignore[arg-type]
        )
