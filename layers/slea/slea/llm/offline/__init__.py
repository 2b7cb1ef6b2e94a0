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
        from slea.authoring.offline_generator import generate_offline
        from slea.contracts.generation import DraftBatch
        from slea.security.ids import keyed_random

        # Deterministic per (session, round, attempt) for a retried step, yet not replayable by a
        # learner who knows them and reads this code: the draws are keyed under the secret.
        rng = keyed_random(
            "offline-generator",
            request.session_id,
            request.round,
            request.attempt,
            request.difficulty,
            request.category,
        )
        with llm_call("generate", self.name):
            return DraftBatch(questions=generate_offline(request, count, rng))

    def score_questions(self, items: list[ValidationItem]) -> SemanticScores:
        from slea.contracts.llm import SemanticScores
        from slea.llm.offline.semantic_review import semantic_review

        with llm_call("validate", self.name):
            return SemanticScores(scores=[semantic_review(item) for item in items])

    def grade_short_answer(self, item: GradingItem) -> ShortAnswerGrade:
        from slea.llm.offline.short_answers import grade_offline

        with llm_call("score", self.name):
            return grade_offline(item)

    def explain(self, item: GradingItem) -> Explanation:
        from slea.feedback.offline_explanation import explain_offline

        with llm_call("explain", self.name):
            return explain_offline(item)
