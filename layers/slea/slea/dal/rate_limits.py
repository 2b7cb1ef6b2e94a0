"""Per-user rate limits: one item per (user, action) holding the bucket's state.

Key design: partition `user_id`, sort `action`. The bucket is GCRA's (the generic cell rate
algorithm, a token bucket kept as one number): `tat`, the "theoretical arrival time" in epoch
seconds, is when the bucket would be full again. A request at `now` is allowed when, after it,
`tat` is at most `burst` intervals ahead of `now`; it then moves `tat` one interval on. Each
decision is one conditional UpdateItem (no read first), so concurrent requests cannot both take
the last token. `expires_at` is the table's TTL attribute: past it the bucket is full anyway.
"""

import math

from botocore.exceptions import ClientError

from slea.platform.aws import dynamodb
from slea.platform.errors import storage_errors
from slea.platform.settings import resource_name

TABLE_VARIABLE = "RATE_LIMIT_TABLE"
TOOL = "rate_limits"
CONDITION_FAILED = "ConditionalCheckFailedException"


def _number(value: float) -> dict[str, str]:
    return {"N": f"{value:.3f}"}


def take_token(user_id: str, action: str, now: float, interval: float, burst: int) -> float | None:
    """Take one request from the bucket of (`user_id`, `action`) at `now` (epoch seconds): None if
    allowed, else the seconds until a request would be. `interval`: seconds per request once the
    `burst` is spent. Raises DataAccessError if DynamoDB failed."""
    latest = now + (burst - 1) * interval  # the latest `tat` that leaves room for one more request
    common = {
        "TableName": resource_name(TABLE_VARIABLE),
        "Key": {"user_id": {"S": user_id}, "action": {"S": action}},
        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
    }
    # An idle bucket (empty, or full again): the request starts a new run.
    expires = {":expires": {"N": str(math.ceil(now + burst * interval) + 1)}}
    with storage_errors("rate limit update"):
        try:
            dynamodb(TOOL).update_item(
                **common,  # type: ignore[arg-type]
                UpdateExpression="SET tat = :next, expires_at = :expires",
                ConditionExpression="attribute_not_exists(tat) OR tat < :now",
                ExpressionAttributeValues={":next": _number(now + interval), ":now": _number(now), **expires},
            )
            return None
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != CONDITION_FAILED:
                raise
            tat = _tat(error, now)
        if tat > latest:  # no room: the failed write already told us, no second write
            return tat - latest
        # A bucket in use with room left: one more interval on, unless others took it meanwhile.
        try:
            dynamodb(TOOL).update_item(
                **common,  # type: ignore[arg-type]
                UpdateExpression="SET tat = tat + :interval, expires_at = :expires",
                ConditionExpression="tat >= :now AND tat <= :latest",
                ExpressionAttributeValues={
                    ":interval": _number(interval),
                    ":now": _number(now),
                    ":latest": _number(latest),
                    **expires,
                },
            )
            return None
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != CONDITION_FAILED:
                raise
            return max(_tat(error, now) - latest, 0.0)


def _tat(error: ClientError, now: float) -> float:
    """The bucket's `tat` from a failed conditional write (ALL_OLD); `now` if it has none."""
    item: dict[str, dict[str, str]] = error.response.get("Item") or {}  # type: ignore[assignment]
    stored = item.get("tat", {}).get("N")
    return float(stored) if stored is not None else now
