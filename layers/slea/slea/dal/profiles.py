"""Survey records. Key design: partition `user_id` (lower-case UUID), sort `submitted_at`
(ISO 8601 UTC, which sorts chronologically), so the latest survey is one Query, newest first."""

from typing import Any

from slea.dal.wire_format import from_item
from slea.platform.aws import dynamodb
from slea.platform.errors import storage_errors
from slea.platform.settings import resource_name

TABLE_VARIABLE = "PROFILES_TABLE"


def latest_survey(user_id: str) -> dict[str, Any] | None:
    """The user's most recent survey as a plain dict, or None if they never submitted one."""
    with storage_errors("profiles query"):
        response = dynamodb("get_user_profile").query(
            TableName=resource_name(TABLE_VARIABLE),
            KeyConditionExpression="user_id = :user_id",
            ExpressionAttributeValues={":user_id": {"S": user_id.lower()}},
            ScanIndexForward=False,
            Limit=1,
        )
    items = response.get("Items", [])
    return from_item(items[0]) if items else None
