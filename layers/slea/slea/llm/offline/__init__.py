"""The offline provider: deterministic, no network, real work (item generation from concepts,
heuristic semantic scores). The default when no Gemini key is configured."""

from slea.contracts.generation import DraftBatch, GenerateQuestionsInput
from slea.llm.offline.generator import generate_offline
from slea.llm.offline.grading import explain_offline, grade_offline
from slea.llm.offline.semantic import semantic_review
from slea.llm.provider import llm_call
from slea.llm.schemas import Explanation, GradingItem, SemanticScores, ShortAnswerGrade, ValidationItem


class OfflineProvider:
    name = "offline"

    def generate_questions(self, request: GenerateQuestionsInput, count: int) -> DraftBatch:
        with llm_call("generate", self.name):
            return DraftBatch(questions=generate_offline(request, count))

    def score_questions(self, items: list[ValidationItem]) -> SemanticScores:
        with llm_call("validate", self.name):
            return SemanticScores(scores=[semantic_review(item) for item in items])

    def grade_short_answer(self, item: GradingItem) -> ShortAnswerGrade:
        with llm_call("score", self.name):
            return grade_offline(item)

    def explain(self, item: GradingItem) -> Explanation:
        with llm_call("explain", self.name):
            return explain_offline(item)
