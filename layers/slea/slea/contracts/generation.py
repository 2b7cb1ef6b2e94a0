"""The generation step's contracts: its input (Tools 1-3's outputs plus the round's context) and
the draft questions it returns. `DraftBatch` is also the JSON schema the LLM must answer in."""

from typing import Annotated

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from slea.constants import MAX_CHOICES, MAX_QUESTIONS_PER_ROUND, Language, QuestionType
from slea.contracts.common import CategoryName, Contract, Difficulty, NonBlankStr
from slea.contracts.exposure import SessionExposure
from slea.contracts.keywords import ChoiceNote, Concept, DifficultyKeywords
from slea.contracts.profile import UserProfile
from slea.contracts.questions import QuestionId
from slea.contracts.templates import QuestionTemplate

DEFAULT_QUESTION_TYPES: tuple[QuestionType, ...] = ("multiple_choice", "true_false", "short_answer", "multiple_choice")


class DraftQuestion(Contract):
    """One generated question, before validation. MC: `choices` labelled "A) ...", `correct_answer`
    the letter. TF: choices ["True", "False"], `correct_answer` "True"/"False". SA: no choices,
    `correct_keywords` the terms a good answer mentions, `reference_answer` a model answer."""

    type: QuestionType
    stem: str = Field(min_length=1)
    choices: list[str] = Field(default_factory=list)
    correct_answer: str | None = None
    correct_keywords: list[str] = Field(default_factory=list)
    explanation: str = ""
    reference_answer: str = Field(default="", description="short_answer: a model answer of 1-3 sentences")
    difficulty: int = Field(ge=1, le=10)
    categories: list[str] = Field(default_factory=list)
    language: Language | None = Field(default=None, description="the language the item is written in")
    source: Concept | None = Field(
        default=None, description="the concept record the item was written from (Tool 4 checks the item against it)"
    )
    # Left out of the model's response schema: only the offline generator knows which concept each
    # option came from (a model's draft keeps none, like its `source`).
    choice_notes: SkipJsonSchema[list[ChoiceNote]] = Field(
        default_factory=list, max_length=MAX_CHOICES, description="the concept each option was taken from"
    )


class DraftBatch(Contract):
    questions: list[DraftQuestion]


class IdentifiedDraft(DraftQuestion):
    """A draft with the id it will be saved under: random, given once by the generation step and
    carried through validation, collection and every retry of the save (Step Functions', the retry
    queue's, a redelivered message), so each writes the same item. Not in `DraftBatch`: the model
    never sees or writes ids."""

    question_id: QuestionId


class GenerateQuestionsInput(Contract):
    profile: UserProfile
    templates: list[QuestionTemplate] = Field(default_factory=list)
    keywords: DifficultyKeywords
    session_id: NonBlankStr
    round: int = Field(default=1, ge=1, le=2)
    difficulty: Difficulty
    category: CategoryName
    count: int = Field(default=5, ge=1, le=MAX_QUESTIONS_PER_ROUND)
    question_types: list[QuestionType] | None = Field(
        default=None, min_length=1, description="the mix to cycle through, e.g. [multiple_choice, true_false]"
    )
    feedback: list[str] = Field(default_factory=list, description="Tool 4's issues on the previous attempt")
    avoid_stems: list[str] = Field(default_factory=list, description="stems already used this round")
    attempt: int = Field(default=0, ge=0, description="regeneration attempt, varies the offline generator")
    language: Language | None = Field(default=None, description="overrides the profile's language for this round")
    exposure: SessionExposure = Field(
        default_factory=SessionExposure,
        description="what the session has shown and the round holds: concepts and definitions to keep out",
    )
    fill_difficulties: list[Difficulty] = Field(
        default_factory=list,
        description="neighbouring difficulties whose concept records write what this one's cannot, in order; each "
        "such draft keeps its record's difficulty",
    )

    def resolved_language(self) -> Language:
        """The round's language: the request's, else the learner's, else English."""
        return self.language or self.profile.language or "en"

    def type_sequence(self, count: int) -> list[QuestionType]:
        """The question type of each of `count` questions: the requested mix (or the default one)
        repeated; a regeneration attempt starts further along it, to try other types first."""
        cycle = self.question_types or list(DEFAULT_QUESTION_TYPES)
        offset = self.attempt * len(cycle) // 2
        return [cycle[(offset + index) % len(cycle)] for index in range(count)]


class GenerateQuestionsOutput(Contract):
    questions: Annotated[list[IdentifiedDraft], Field(description="exactly `count` drafts")]
    round_id: str
    provider: str
    template_stems: list[str] = Field(
        default_factory=list, description="the few-shot stems the model saw, for Tool 4's near-duplicate check"
    )
