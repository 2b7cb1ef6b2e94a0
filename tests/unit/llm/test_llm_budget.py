"""slea.llm.budget: a model call is made only if its worst case fits in the invocation's time."""

from dataclasses import dataclass

import pytest

from slea.llm import budget
from slea.llm.model_settings import LLMSettings


@dataclass
class Context:
    remaining_ms: int

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining_ms


SETTINGS = LLMSettings(timeout_seconds=10, retry_attempts=1)


def test_worst_case_counts_every_attempt_and_the_backoff_between_them():
    assert budget.worst_case_seconds(SETTINGS) == 10
    three = LLMSettings(timeout_seconds=30, retry_attempts=3, retry_initial_delay=1.0)
    assert budget.worst_case_seconds(three) == pytest.approx(90 + 1.5 + 3.0)


@pytest.mark.parametrize(("remaining_ms", "fits"), [(29_000, True), (13_100, True), (12_900, False), (1_000, False)])
def test_a_call_fits_only_with_its_worst_case_and_the_reserve_left(remaining_ms, fits):
    budget.start(Context(remaining_ms))
    assert budget.call_fits(SETTINGS) is fits


def test_outside_a_handler_there_is_no_deadline():
    import contextvars

    assert contextvars.copy_context().run(lambda: budget._deadline.set(None) or budget.call_fits(SETTINGS))
