"""The interface every LLM provider implements, the choice of provider, and the per-call metrics.

Operations are task-shaped (generate a batch, score a batch, ...) rather than "send a prompt",
so the offline provider can do the same work without a model."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from aws_lambda_powertools.metrics import EphemeralMetrics, MetricUnit

if TYPE_CHECKING:  # only annotations: a function that grades answers need not load the generation contracts
    from slea.contracts.generation import DraftBatch, GenerateQuestionsInput
    from slea.contracts.llm import Explanation, GradingItem, SemanticScores, ShortAnswerGrade, ValidationItem

Operation = Literal["generate", "validate", "score", "explain"]


class LLMError(Exception):
    """The model could not be reached or answered unusably; callers fall back as the spec says."""


class LLMProvider(Protocol):
    name: str

    def generate_questions(self, request: GenerateQuestionsInput, count: int) -> DraftBatch: ...

    def score_questions(self, items: list[ValidationItem]) -> SemanticScores: ...

    def grade_short_answer(self, item: GradingItem) -> ShortAnswerGrade: ...

    def explain(self, item: GradingItem) -> Explanation: ...


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0


@contextmanager
def llm_call(operation: Operation, provider: str) -> Iterator[Usage]:
    """Time one model call and emit LLMCalls, LLMErrors, LLMInputTokens, LLMOutputTokens and
    LLMLatencyMs with dimensions Operation and Provider (EMF, flushed at once so each call is one
    record). LLMErrors is 1 when the block raised and 0 otherwise, so its Average is the error rate
    (the LLM error alarm in template.yaml)."""
    usage = Usage()
    started = time.perf_counter()
    failed = True
    try:
        yield usage
        failed = False
    finally:
        metrics = EphemeralMetrics()
        metrics.add_dimension(name="Operation", value=operation)
        metrics.add_dimension(name="Provider", value=provider)
        metrics.add_metric(name="LLMCalls", unit=MetricUnit.Count, value=1)
        metrics.add_metric(name="LLMErrors", unit=MetricUnit.Count, value=1 if failed else 0)
        metrics.add_metric(name="LLMInputTokens", unit=MetricUnit.Count, value=usage.input_tokens)
        metrics.add_metric(name="LLMOutputTokens", unit=MetricUnit.Count, value=usage.output_tokens)
        metrics.add_metric(
            name="LLMLatencyMs", unit=MetricUnit.Milliseconds, value=(time.perf_counter() - started) * 1000
        )
        metrics.flush_metrics()
