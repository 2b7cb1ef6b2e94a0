"""Per-user rate limits: one item per (user, action) holding the bucket's state.

Key design: partition `user_id`, sort `action`. The bucket is GCRA's (the generic cell rate
algorithm, a token bucket kept as one number): `tat`, the "theoretical arrival time" in epoch
seconds, is when the bucket would be full again. A request at `now` is allowed when, after it,
`tat` is at most `burst` intervals ahead of `now`; it then moves `tat` one interval on. Each
decision is a conditional UpdateItem (no read first), so concurrent requests cannot both take
the last token. `expires_at` is the table's TTL attribute: past it the bucket is full anyway.

GCRA's step is `tat = max(tat, now) + interval`, and an update expression has no max: an idle
bucket (`tat` past) and a bucket in use need different writes, each conditioned on its case. The
case the bucket was in at this container's last decision is remembered (a hint, never trusted:
the condition decides), so a user's next request usually takes one write, not two; that keeps a
request that passes two buckets (the per-user request budget, then an answer's) within the
answer path's budget of AWS calls.
"""

import math
from collections import OrderedDict
from typing import Any

from botocore.exceptions import ClientError

from slea.platform.aws import dynamodb
from slea.platform.errors import storage_errors
from slea.platform.settings import resource_name

TABLE_VARIABLE = "RATE_LIMIT_TABLE"
TOOL = "rate_limits"
CONDITION_FAILED = "ConditionalCheckFailedException"
HINTS_KEPT = 4096  # (user, action) pairs whose last `tat` this container remembers
_last_tat: OrderedDict[tuple[str, str], float] = OrderedDict()


def _number(value: float) -> dict[str, str]:
    return {"N": f"{value:.3f}"}


def _remember(user_id: str, action: str, tat: float) -> None:
    _last_tat[(user_id, action)] = tat
    _last_tat.move_to_end((user_id, action))
    while len(_last_tat) > HINTS_KEPT:
        _last_tat.popitem(last=False)


def take_token(user_id: str, action: str, now: float, interval: float, burst: int) -> float | None:
    """Take one request from the bucket of (`user_id`, `action`) at `now` (epoch seconds): None if
    allowed, else the seconds until a request would be. `interval`: seconds per request once the
    `burst` is spent. Raises DataAccessError if DynamoDB failed."""
    latest = now + (burst - 1) * interval  # the latest `tat` that leaves room for one more request
    common: dict[str, Any] = {
        "TableName": resource_name(TABLE_VARIABLE),
        "Key": {"user_id": {"S": user_id}, "action": {"S": action}},
        "ReturnValues": "UPDATED_NEW",
        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
    }
    expires = {":expires": {"N": str(math.ceil(now + burst * interval) + 1)}}
    # An idle bucket (empty, or full again): the request starts a new run.
    idle: dict[str, Any] = {
        "UpdateExpression": "SET tat = :next, expires_at = :expires",
        "ConditionExpression": "attribute_not_exists(tat) OR tat < :now",
        "ExpressionAttributeValues": {":next": _number(now + interval), ":now": _number(now), **expires},
    }
    # A bucket in use with room left: one more interval on, unless others took it meanwhile.
    in_use: dict[str, Any] = {
        "UpdateExpression": "SET tat = tat + :interval, expires_at = :expires",
        "ConditionExpression": "tat >= :now AND tat <= :latest",
        "ExpressionAttributeValues": {
            ":interval": _number(interval),
            ":now": _number(now),
            ":latest": _number(latest),
            **expires,
        },
    }
    hint = _last_tat.get((user_id, action))
    order = (in_use, idle) if hint is not None and hint >= now else (idle, in_use)
    tat = now
    with storage_errors("rate limit update"):
        for write in order:
            try:
                response = dynamodb(TOOL).update_item(**common, **write)
            except ClientError as error:
                if error.response.get("Error", {}).get("Code") != CONDITION_FAILED:
                    raise
                tat = _tat(error, now)
                _remember(user_id, action, tat)
                if tat > latest:  # no room: the failed write already told us, no second write
                    return tat - latest
                continue
            _remember(user_id, action, float(response["Attributes"]["tat"]["N"]))
            return None
    # Both cases failed: others moved the bucket between the two writes; it is busy now.
    return max(tat - latest, 0.0)


def _tat(error: ClientError, now: float) -> float:
    """The bucket's `tat` from a failed conditional write (ALL_OLD); `now` if it has none."""
    item: dict[str, dict[str, str]] = error.response.get("Item") or {}  # type: ignore[assignment]
    stored = item.get("tat", {}).get("N")
    return float(stored) if stored is not None else now
