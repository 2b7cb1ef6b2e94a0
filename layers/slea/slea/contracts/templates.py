"""Tool 2 `search_question_templates` contracts."""

from typing import Annotated

from pydantic import Field, StringConstraints

from slea.constants import (
    INTEREST_MAX_LENGTH,
    INTEREST_MIN_LENGTH,
    INTERESTS_MAX_ITEMS,
    INTERESTS_MIN_ITEMS,
    QuestionType,
)
from slea.contracts.common import CategoryName, Contract, Difficulty

Interest = Annotated[
    str,
    StringConstraints(
        strict=True, strip_whitespace=True, min_length=INTEREST_MIN_LENGTH, max_length=INTEREST_MAX_LENGTH
    ),
]


class SearchTemplatesInput(Contract):
    interests: list[Interest] = Field(
        strict=True, min_length=INTERESTS_MIN_ITEMS, max_length=INTERESTS_MAX_ITEMS, examples=[["LLM", "RAG"]]
    )
    difficulty: Difficulty
    category: CategoryName


class QuestionTemplate(Contract):
    """A template as Tool 2 returns it: a few-shot example for the generator."""

    id: str
    stem: str
    type: QuestionType
    choices: list[str] = Field(default_factory=list)
    correct_answer: str
    correct_rate: float = Field(ge=0.0, le=1.0)
    usage_count: int = Field(ge=0)
    avg_difficulty_score: float = Field(ge=0.0, le=10.0)


class TemplateRecord(QuestionTemplate):
    """A template as stored and seeded: the returned fields plus what the search filters on."""

    category: CategoryName
    domain: str = Field(min_length=1, max_length=INTEREST_MAX_LENGTH)
    is_active: bool = True
