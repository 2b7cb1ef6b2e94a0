"""Per-user daily usage, to bound what one user can spend (each round is up to 6 LLM calls).
Key design: partition `user_id`, sort `day` (UTC date); `expires_at` is the table's TTL
attribute, so a day's counter deletes itself two days later."""

import datetime
import os

from botocore.exceptions import ClientError

from slea.aws import dynamodb
from slea.errors import storage_errors
from slea.settings import resource_name

TABLE_VARIABLE = "USAGE_TABLE"
LIMIT_VARIABLE = "DAILY_ROUNDS_PER_USER"
DEFAULT_DAILY_ROUNDS = 30
KEEP_FOR = datetime.timedelta(days=2)
TOOL = "api"


def daily_round_limit() -> int:
    return int(os.environ.get(LIMIT_VARIABLE, DEFAULT_DAILY_ROUNDS))


def _today() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def take_round(user_id: str) -> bool:
    """Count one round for `user_id` today, unless the daily limit is reached (then False).
    One conditional update: concurrent requests cannot both take the last round."""
    now = _today()
    with storage_errors("usage update"):
        try:
            dynamodb(TOOL).update_item(
                TableName=resource_name(TABLE_VARIABLE),
                Key={"user_id": {"S": user_id}, "day": {"S": now.date().isoformat()}},
                UpdateExpression="ADD rounds :one SET expires_at = :expires",
                ConditionExpression="attribute_not_exists(rounds) OR rounds < :limit",
                ExpressionAttributeValues={
                    ":one": {"N": "1"},
                    ":limit": {"N": str(daily_round_limit())},
                    ":expires": {"N": str(int((now + KEEP_FOR).timestamp()))},
                },
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                return False
            raise
    return True


def give_back_round(user_id: str) -> None:
    """Undo `take_round` when the round could not be started (it cost nothing)."""
    with storage_errors("usage update"):
        try:
            dynamodb(TOOL).update_item(
                TableName=resource_name(TABLE_VARIABLE),
                Key={"user_id": {"S": user_id}, "day": {"S": _today().date().isoformat()}},
                UpdateExpression="ADD rounds :minus_one",
                ConditionExpression="rounds > :zero",
                ExpressionAttributeValues={":minus_one": {"N": "-1"}, ":zero": {"N": "0"}},
            )
        except ClientError as error:
            # Nothing to give back (the UTC day turned in between): the new day starts at zero.
            if error.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                raise
