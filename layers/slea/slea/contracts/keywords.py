"""Tool 3 `get_difficulty_keywords` contracts."""

from typing import Annotated, ClassVar
from urllib.parse import urlsplit

from pydantic import AfterValidator, Field
from pydantic_core import PydanticCustomError

from slea.constants import (
    CHOICE_MAX_LENGTH,
    CONCEPTS_MAX,
    EXAMPLE_QUESTIONS_MAX,
    KEYWORDS_MAX,
    SOURCE_TITLE_MAX_LENGTH,
    SOURCE_URL_MAX_LENGTH,
    SOURCES_MAX,
    Language,
    QuestionType,
)
from slea.contracts.common import CategoryName, Contract, Difficulty, NonBlankStr, OptionalExtras


def _https_url(value: str) -> str:
    # Only https links to a named host: what a learner opens from feedback must not be a
    # javascript:, data: or plain-http address, nor text that merely looks like a link.
    parts = urlsplit(value)
    if parts.scheme != "https" or not parts.hostname or "." not in parts.hostname or value != value.strip():
        raise PydanticCustomError("url", "url must be an https:// address")
    return value


class SourceLink(Contract):
    """A real source a concept was written from: explanations cite these and nothing else."""

    title: Annotated[NonBlankStr, Field(max_length=SOURCE_TITLE_MAX_LENGTH)]
    url: Annotated[str, Field(strict=True, max_length=SOURCE_URL_MAX_LENGTH), AfterValidator(_https_url)]


CHOICE_NOTE_DEFINITION_MAX = 2 * CHOICE_MAX_LENGTH


class ChoiceNote(Contract):
    """What one option of a generated choice item describes: the concept it was taken from, so the
    explanation can say why a wrong pick is wrong. Kept with the answer key, never shown before
    the learner answers. `option` is the option's text (its label left out): a note whose option
    a reviewer has since edited matches nothing and is not used."""

    option: Annotated[str, Field(strict=True, max_length=CHOICE_MAX_LENGTH)]
    concept: Annotated[str, Field(strict=True, max_length=CHOICE_MAX_LENGTH)]
    definition: Annotated[str, Field(strict=True, max_length=CHOICE_NOTE_DEFINITION_MAX)]


class GetKeywordsInput(Contract):
    difficulty: Difficulty
    category: CategoryName

    def cache_key(self) -> str:
        return f"{self.difficulty}_{self.category}"


class Concept(OptionalExtras):
    OMIT_WHEN_UNSET: ClassVar[tuple[str, ...]] = ("domain", "language", "sources")

    name: str = Field(min_length=1)
    acronym: str
    definition: str = Field(min_length=1)
    key_points: list[str] = Field(min_length=1, max_length=5)
    domain: str | None = Field(
        default=None,
        description="the interest it belongs to (e.g. RAG), matched like Tool 2's domains: case and spaces ignored",
    )
    language: Language | None = Field(default=None, description="en or ko; absent: read from the text")
    sources: list[SourceLink] | None = Field(
        default=None,
        max_length=SOURCES_MAX,
        description="real sources on the concept (https), the only references its questions' explanations cite",
    )


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
