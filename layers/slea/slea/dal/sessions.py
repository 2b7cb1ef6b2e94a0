"""Test sessions and who owns them. Key design: partition `session_id`; the first user to start
a round in a session owns it, and only they may use it afterwards."""

from botocore.exceptions import ClientError

from slea.aws import dynamodb
from slea.contracts.errors import utc_now
from slea.errors import storage_errors
from slea.settings import resource_name

TABLE_VARIABLE = "SESSIONS_TABLE"
TOOL = "api"


def owner_of(session_id: str) -> str | None:
    with storage_errors("sessions get"):
        item = (
            dynamodb(TOOL)
            .get_item(
                TableName=resource_name(TABLE_VARIABLE), Key={"session_id": {"S": session_id}}, ConsistentRead=True
            )
            .get("Item")
        )
    return item["user_id"]["S"] if item else None


def claim(session_id: str, user_id: str) -> str:
    """Create the session for `user_id` unless it exists; returns its owner either way."""
    with storage_errors("sessions put"):
        try:
            dynamodb(TOOL).put_item(
                TableName=resource_name(TABLE_VARIABLE),
                Item={"session_id": {"S": session_id}, "user_id": {"S": user_id}, "created_at": {"S": utc_now()}},
                ConditionExpression="attribute_not_exists(session_id)",
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                raise
            return owner_of(session_id) or user_id
    return user_id
