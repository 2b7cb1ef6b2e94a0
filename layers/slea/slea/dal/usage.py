"""Per-user daily usage, to bound what one user can spend (each round is up to 6 LLM calls).
Key design: partition `user_id` (normalised: slea.contracts.profile.normalised_user_id), sort
`day` (UTC date); `expires_at` is the table's TTL attribute, so a day's counter deletes itself
two days later.

Taking and giving back a round are transaction items: each is written together with the round's
own record (slea.dal.rounds), so the record always says whether its unit is taken."""

import datetime
import os
from typing import Any

from slea.contracts.profile import normalised_user_id
from slea.dal.conditional import applied
from slea.platform import clock
from slea.platform.aws import dynamodb
from slea.platform.errors import storage_errors
from slea.platform.settings import resource_name

TABLE_VARIABLE = "USAGE_TABLE"
LIMIT_VARIABLE = "DAILY_ROUNDS_PER_USER"
DEFAULT_DAILY_ROUNDS = 30
KEEP_FOR = datetime.timedelta(days=2)


def daily_round_limit() -> int:
    return int(os.environ.get(LIMIT_VARIABLE, DEFAULT_DAILY_ROUNDS))


def _now() -> datetime.datetime:
    return clock.now()


def today() -> str:
    """The UTC day a round taken now counts against."""
    return _now().date().isoformat()


def seconds_until_tomorrow() -> int:
    """Seconds until the next UTC day, when the daily quota starts again."""
    now = _now()
    tomorrow = datetime.datetime.combine(now.date() + datetime.timedelta(days=1), datetime.time(), datetime.UTC)
    return max(1, int((tomorrow - now).total_seconds()))


def _key(user_id: str, day: str) -> dict[str, Any]:
    return {"user_id": {"S": normalised_user_id(user_id)}, "day": {"S": day}}


def take_round(user_id: str, day: str) -> dict[str, Any]:
    """Count one round for `user_id` on `day`, unless the daily limit is reached (the item's
    condition fails). Conditional: concurrent requests cannot both take the last round."""
    return {
        "Update": {
            "TableName": resource_name(TABLE_VARIABLE),
            "Key": _key(user_id, day),
            "UpdateExpression": "ADD rounds :one SET expires_at = :expires",
            "ConditionExpression": "attribute_not_exists(rounds) OR rounds < :limit",
            "ExpressionAttributeValues": {
                ":one": {"N": "1"},
                ":limit": {"N": str(daily_round_limit())},
                ":expires": {"N": str(int((_now() + KEEP_FOR).timestamp()))},
            },
        }
    }


def give_back_round(user_id: str, day: str) -> dict[str, Any]:
    """Undo `take_round` for a round that never started (it cost nothing). The condition fails
    when the day's counter has already expired: there is nothing left to give back."""
    return {
        "Update": {
            "TableName": resource_name(TABLE_VARIABLE),
            "Key": _key(user_id, day),
            "UpdateExpression": "ADD rounds :minus_one",
            "ConditionExpression": "rounds > :zero",
            "ExpressionAttributeValues": {":minus_one": {"N": "-1"}, ":zero": {"N": "0"}},
        }
    }


def spend_round(user_id: str, day: str, *, give_back: bool = False) -> bool:
    """`take_round` (or, with `give_back`, its undo) on its own, outside a round's transaction: a
    placement test's request for more bank items costs its learner a round. False when the limit
    is reached (or, giving back, when the day's counter has expired)."""
    update = (give_back_round if give_back else take_round)(user_id, day)["Update"]
    with storage_errors("usage update"):
        return applied(dynamodb("api").update_item, **update)
