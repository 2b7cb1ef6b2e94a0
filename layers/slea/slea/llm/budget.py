"""The time left in this invocation, so that a model call never outlives the function.

A handler that may call the model calls `start(context)`; before each call, `call_fits()` says
whether the provider's worst case (every attempt timing out, plus the backoff between them)
still fits with RESERVE_SECONDS to spare for recording the result. When it does not, the caller
uses its offline fallback instead: a provisional grade that is recorded beats a grade lost to a
killed invocation.
"""

import time
from contextvars import ContextVar
from typing import Protocol

from slea.llm.model_settings import LLMSettings

RESERVE_SECONDS = 3.0  # DynamoDB writes and the response after the last model call

_deadline: ContextVar[float | None] = ContextVar("llm_deadline", default=None)


class HasRemainingTime(Protocol):
    def get_remaining_time_in_millis(self) -> int: ...


def start(context: HasRemainingTime) -> None:
    _deadline.set(time.monotonic() + context.get_remaining_time_in_millis() / 1000)


def reset() -> None:
    """No deadline: for code that runs outside a handler (a CLI, a benchmark) in a process where a
    handler ran before and left its deadline in this context."""
    _deadline.set(None)


def worst_case_seconds(settings: LLMSettings) -> float:
    backoff = sum(
        min(settings.retry_initial_delay * 2**attempt, settings.retry_initial_delay * 8) * 1.5
        for attempt in range(settings.retry_attempts - 1)
    )
    return float(settings.timeout_seconds * settings.retry_attempts + backoff)


def call_fits(settings: LLMSettings) -> bool:
    deadline = _deadline.get()
    if deadline is None:  # not inside a handler that set one (tests, CLIs)
        return True
    return deadline - time.monotonic() - RESERVE_SECONDS >= worst_case_seconds(settings)
