"""Graded answers (written by Mode 2). Key design: partition `session_id`, sort `attempt_key` =
"{recorded at, microseconds}#{attempt_id}", so a session's attempts are one Query in order."""

from datetime import UTC, datetime
from typing import Any

from slea.aws import dynamodb
from slea.dal.items import query_all, to_item
from slea.errors import storage_errors
from slea.settings import resource_name

TABLE_VARIABLE = "ATTEMPTS_TABLE"
TOOL = "plan_round"


def session_attempts(session_id: str) -> list[dict[str, Any]]:
    with storage_errors("attempts query"):
        return query_all(
            dynamodb(TOOL),
            TableName=resource_name(TABLE_VARIABLE),
            KeyConditionExpression="session_id = :session",
            ExpressionAttributeValues={":session": {"S": session_id}},
        )


def put_attempt(attempt: dict[str, Any]) -> None:
    """Store one grading; `attempt_key` (microsecond time, then id) orders a session's attempts."""
    recorded = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    item = {**attempt, "attempt_key": f"{recorded}#{attempt['attempt_id']}"}
    with storage_errors("attempts put"):
        dynamodb(TOOL).put_item(TableName=resource_name(TABLE_VARIABLE), Item=to_item(item))
