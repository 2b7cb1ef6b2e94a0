"""The offline provider: deterministic, no network, real work (item generation from concepts,
heuristic semantic scores). The default when no Gemini key is configured.

Each method imports its own module when first called: a function that only explains answers never
compiles the item writer or the grader, and with Gemini configured the item writer is loaded only
if the model fails (bench/cold_import.py)."""

from __future__ import annotations

# ruff: noqa: PLC0415 - the lazy imports are the point of this module
from typing import TYPE_CHECKING

from slea.llm.provider import llm_call

if TYPE_CHECKING:
    from slea.contracts.generation import DraftBatch, GenerateQuestionsInput
    from slea.contracts.llm import Explanation, GradingItem, SemanticScores, ShortAnswerGrade, ValidationItem


class OfflineProvider:
    name = "offline"

    def generate_questions(self, request: GenerateQuestionsInput, count: int) -> DraftBatch:
        from slea.llm.offline.drafts import draft_batch

        return draft_batch(request, count, self.name)

    def score_questions(self, items: list[ValidationItem]) -> SemanticScores:
        from slea.llm.offline.semantic_review import semantic_scores

        with llm_call("validate", self.name):
            return semantic_scores(items)

    def grade_short_answer(self, item: GradingItem) -> ShortAnswerGrade:
        from slea.llm.offline.short_answers import grade_offline

        with llm_call("score", self.name):
            return grade_offline(item)

    def explain(self, item: GradingItem) -> Explanation:
        from slea.feedback.offline_explanation import explain_offline

        with llm_call("explain", self.name):
            return explain_offline(item)
