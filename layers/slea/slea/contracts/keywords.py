"""Tool 3 `get_difficulty_keywords` contracts (spec 000 Tool 3)."""

from typing import ClassVar

from pydantic import Field

from slea.constants import CONCEPTS_MAX, EXAMPLE_QUESTIONS_MAX, KEYWORDS_MAX, Language, QuestionType
from slea.contracts.common import CategoryName, Contract, Difficulty, OptionalExtras


class GetKeywordsInput(Contract):
    difficulty: Difficulty
    category: CategoryName

    def cache_key(self) -> str:
        return f"{self.difficulty}_{self.category}"


class Concept(OptionalExtras):
    OMIT_WHEN_UNSET: ClassVar[tuple[str, ...]] = ("domain", "language")

    name: str = Field(min_length=1)
    acronym: str
    definition: str = Field(min_length=1)
    key_points: list[str] = Field(min_length=1, max_length=5)
    domain: str | None = Field(
        default=None,
        description="the interest it belongs to (e.g. RAG), matched like Tool 2's domains: case and spaces ignored",
    )
    language: Language | None = Field(default=None, description="en or ko; absent: read from the text")


class ExampleQuestion(Contract):
    stem: str = Field(min_length=1)
    type: QuestionType
    difficulty_score: float = Field(ge=1.0, le=10.0)
    answer_summary: str


class DifficultyKeywords(Contract):
    """One record per (difficulty, category): Tool 3's output and the stored item alike."""

    difficulty: Difficulty
    category: CategoryName
    keywords: list[str] = Field(max_length=KEYWORDS_MAX)
    concepts: list[Concept] = Field(max_length=CONCEPTS_MAX)
    example_questions: list[ExampleQuestion] = Field(max_length=EXAMPLE_QUESTIONS_MAX)
