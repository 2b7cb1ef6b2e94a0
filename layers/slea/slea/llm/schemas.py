"""Structured-output schemas of the LLM operations: each call asks for JSON matching one of these
models and parses the answer into it (no free-text parsing)."""

from pydantic import BaseModel, Field

from slea.constants import QuestionType
from slea.contracts.scoring import ReferenceLink


class ValidationItem(BaseModel):
    """A question as the semantic validator sees it."""

    index: int
    stem: str
    question_type: QuestionType
    choices: list[str] = Field(default_factory=list)
    correct_answer: str | None = None


class ItemScore(BaseModel):
    index: int = Field(description="the question's index in the request")
    score: float = Field(ge=0.0, le=1.0, description="clarity, appropriateness, correctness, bias, format")


class SemanticScores(BaseModel):
    scores: list[ItemScore]


class ShortAnswerGrade(BaseModel):
    """Spec 000 Tool 6 rubric: keywords/concepts 40, semantic correctness 40, clarity 20."""

    score: int = Field(ge=0, le=100)
    reasoning: str = ""


class Explanation(BaseModel):
    explanation: str
    reference_links: list[ReferenceLink] = Field(default_factory=list)


class GradingItem(BaseModel):
    """What the grader and the explainer know about one answer."""

    question_type: QuestionType
    user_answer: str
    stem: str | None = None
    choices: list[str] = Field(default_factory=list)
    correct_answer: str | None = None
    correct_keywords: list[str] = Field(default_factory=list)
    keyword_matches: list[str] = Field(default_factory=list)
    reference_explanation: str | None = Field(default=None, description="the explanation stored with the question")
    difficulty: int | None = None
    category: str | None = None
    is_correct: bool | None = None
