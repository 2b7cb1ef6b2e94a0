"""Per-user rate limits: what one user may ask of the system per second, whatever the
entry point. Every authenticated request spends from the user's `request` budget as it enters
(slea.http.api for the HTTP API, the MCP function for MCP requests); the costly actions
(answers, round starts, MCP tool calls) also spend from their own, stricter budgets. The HTTP
API's own throttle (ApiThrottlingRateLimit) is for all users together, so without these one user
could spend what is meant for everyone.

Each (user, action) has a token bucket of `burst` requests that refills one request per
`interval` seconds (slea.dal.rate_limits keeps it in DynamoDB). A refused request raises
RateLimited with the seconds to wait (Retry-After in the HTTP API). Limits come from the
environment that template.yaml's parameters set; the defaults suit a human learner.
"""

import math
import os
from dataclasses import dataclass
from typing import Literal

from slea.contracts.profile import normalised_user_id
from slea.dal import rate_limits
from slea.platform import clock, errors
from slea.platform.errors import DataAccessError
from slea.platform.observability import logger, metrics

Action = Literal["request", "answer", "round_start", "mcp_call"]


@dataclass(frozen=True)
class Limit:
    burst: int  # requests allowed at once, after a pause
    interval_seconds: float  # then one request per this many seconds


DEFAULT_LIMITS: dict[Action, Limit] = {
    # Every authenticated request through the HTTP API or MCP, whatever it asks (listings,
    # history, review routes, repeats, unknown ids): the outer budget the others sit inside. A
    # page load of the web app is about ten requests; a person never needs two a second for long.
    "request": Limit(burst=120, interval_seconds=0.5),
    "answer": Limit(burst=10, interval_seconds=3),  # a learner reads and thinks before each answer
    "round_start": Limit(burst=3, interval_seconds=20),  # each round is up to 6 model calls
    "mcp_call": Limit(burst=20, interval_seconds=1),  # an agent's tool calls, any tool
}
_WHAT = {"request": "requests", "answer": "answers", "round_start": "round starts", "mcp_call": "MCP tool calls"}


class RateLimited(errors.RateLimited):
    """The user has sent this kind of request faster than its limit allows."""

    def __init__(self, action: Action, retry_after: int) -> None:
        super().__init__(
            "RATE_LIMITED",
            f"too many {_WHAT[action]} in a short time; retry in {retry_after} s",
            retry_after=retry_after,
        )


def limit(action: Action) -> Limit:
    """The action's limit: RATE_LIMIT_<ACTION>_BURST and _INTERVAL_SECONDS, else the default."""
    default, prefix = DEFAULT_LIMITS[action], f"RATE_LIMIT_{action.upper()}"
    return Limit(
        burst=int(os.environ.get(f"{prefix}_BURST") or default.burst),
        interval_seconds=float(os.environ.get(f"{prefix}_INTERVAL_SECONDS") or default.interval_seconds),
    )


def take(user_id: str, action: Action) -> None:
    """Count one `action` of `user_id`; RateLimited if the user's bucket is empty.

    Fails open: if DynamoDB cannot answer, the request goes ahead (a warning and the
    RateLimiterUnavailable metric say so). The limiter bounds spend, it does not protect data; a
    throttled or unreachable side table must not lock every learner out of answering. While it
    is down, the API's throttle, the functions' reserved concurrency and the daily round quota
    still bound what anyone can spend."""
    bound = limit(action)
    try:
        wait = rate_limits.take_token(
            normalised_user_id(user_id), action, clock.now().timestamp(), bound.interval_seconds, bound.burst
        )
    except DataAccessError as error:
        logger.warning("rate limiter unavailable, request allowed", extra={"action": action, "reason": str(error)})
        metrics.add_metric(name="RateLimiterUnavailable", unit="Count", value=1)
        return
    if wait is not None:
        metrics.add_metric(name="RateLimited", unit="Count", value=1)
        raise RateLimited(action, max(1, math.ceil(wait)))
