"""Structured-output schemas of the LLM operations: each call asks for JSON matching one of these
models and parses the answer into it (no free-text parsing)."""

from pydantic import BaseModel, Field

from slea.constants import QuestionType


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
