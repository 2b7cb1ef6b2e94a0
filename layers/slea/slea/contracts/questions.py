"""Tool 5 `save_generated_question` contracts with their validation rules, the batch form
the state machine uses, and the message that carries a failed write on the retry queue."""

import re
from typing import Annotated, Literal, NamedTuple

from pydantic import AfterValidator, Field, model_validator
from pydantic_core import PydanticCustomError

from slea.constants import (
    CATEGORIES_MAX,
    CORRECT_KEY_MAX_LENGTH,
    CORRECT_KEYWORDS_MAX,
    EXPLANATION_MAX_LENGTH,
    MAX_CHOICES,
    MIN_CHOICES,
    QUESTION_STEM_MAX,
    REFERENCE_ANSWER_MAX,
    ROUND_ID_MAX_LENGTH,
    SOURCES_MAX,
    Language,
    QuestionType,
)
from slea.contracts.answers import choice_index, is_true_false_key
from slea.contracts.common import (
    CategoryText,
    ChoiceText,
    Contract,
    Difficulty,
    KeywordText,
    NonBlankStr,
)
from slea.contracts.keywords import ChoiceNote, SourceLink
from slea.contracts.profile import is_uuid

TOPICS_MAX = 10  # a profile's interests are few; an item keeps the ones it was written for


def normalised_topic(topic: str) -> str:
    """Topics match interests as Tool 2 matches domains: case and surrounding spaces ignored."""
    return topic.strip().casefold()


def _well_formed_question_id(value: str) -> str:
    # Only a UUID: an id of the caller's own shape could be anything, including a value derived
    # from the answer key, and it names a DynamoDB item that reviewers must be able to act on.
    if not is_uuid(value) or value != value.strip():
        raise PydanticCustomError("question_id", "question_id must be a UUID (8-4-4-4-12 hexadecimal digits)")
    return value.lower()


QuestionId = Annotated[
    str,
    Field(strict=True, json_schema_extra={"format": "uuid"}, examples=["0f8e4c6a-2b7d-4f1e-9a3c-5d6b7e8f9a01"]),
    AfterValidator(_well_formed_question_id),
]


class SaveQuestionInput(Contract):
    item_type: QuestionType
    stem: str = Field(strict=True, min_length=1, max_length=QUESTION_STEM_MAX)
    choices: list[ChoiceText] | None = Field(default=None, max_length=MAX_CHOICES)
    correct_key: str | None = Field(default=None, strict=True, max_length=CORRECT_KEY_MAX_LENGTH)
    correct_keywords: list[KeywordText] | None = Field(default=None, max_length=CORRECT_KEYWORDS_MAX)
    difficulty: Difficulty = 5
    categories: list[CategoryText] = Field(default_factory=lambda: ["general"], min_length=1, max_length=CATEGORIES_MAX)
    round_id: NonBlankStr = Field(max_length=ROUND_ID_MAX_LENGTH, examples=["sess_123_1_2025-11-09T10:30:00Z"])
    validation_score: float | None = Field(default=None, ge=0.0, le=1.0)
    explanation: str | None = Field(default=None, strict=True, max_length=EXPLANATION_MAX_LENGTH)
    reference_answer: str | None = Field(
        default=None,
        strict=True,
        max_length=REFERENCE_ANSWER_MAX,
        description="short answer: a model answer that Tool 6 grades against (else it uses the explanation)",
    )
    language: Language | None = Field(
        default=None, description="the language the question is written in (the round's); absent: en"
    )
    topics: list[KeywordText] | None = Field(
        default=None,
        max_length=TOPICS_MAX,
        description="the interests the question was written for (its concept's domain, else the round's "
        "interests): the question bank offers it to learners who share one",
    )
    rest_reason: Literal["farm"] | None = Field(
        default=None,
        description="saved rested for this reason (out of the bank's index from the start): an account farm's round",
    )
    sources: list[SourceLink] | None = Field(
        default=None,
        max_length=SOURCES_MAX,
        description="real sources on the question's concept (https): the only references its explanation cites",
    )
    choice_notes: list[ChoiceNote] | None = Field(
        default=None,
        max_length=MAX_CHOICES,
        description="choice items: the concept each option was taken from, kept with the answer key (never shown "
        "before the answer) so the explanation can say why a wrong pick is wrong",
    )
    question_id: QuestionId | None = Field(
        default=None,
        description="optional UUID, fixed before the first save so every retry writes the same item; by default "
        "a keyed id of the question (HMAC under the deployment's secret: the same save gives the same id, and "
        "no one without the secret can compute it)",
    )

    @model_validator(mode="after")
    def _type_specific_answer(self) -> "SaveQuestionInput":
        if not self.stem.strip():
            raise PydanticCustomError("stem", "stem cannot be empty")
        if not self.round_id.strip():
            raise PydanticCustomError("round_id", "round_id cannot be empty")
        if self.item_type == "multiple_choice":
            if not self.choices:
                raise PydanticCustomError("choices", "choices required for multiple_choice")
            if not MIN_CHOICES <= len(self.choices) <= MAX_CHOICES:
                raise PydanticCustomError("choices", "choices must have 4-5 items for multiple_choice")
            if self.correct_key is None or choice_index(self.correct_key, self.choices) is None:
                raise PydanticCustomError("correct_key", "correct_key must name one of the choices")
        elif self.item_type == "true_false":
            if self.correct_key is None or not is_true_false_key(self.correct_key):
                raise PydanticCustomError("correct_key", "correct_key must be True or False for true_false")
        elif not self.correct_keywords:
            raise PydanticCustomError("correct_keywords", "correct_keywords required for short_answer")
        return self

    def identity(self) -> list[str]:
        """What makes two saves the same question: round, type, stem, choices and answer key."""
        answer = self.correct_keywords if self.item_type == "short_answer" else [self.correct_key or ""]
        return [self.round_id, self.item_type, self.stem, *(self.choices or []), "|", *(answer or [])]


_ROUND_ID = re.compile(r"^(?P<session>.+?)(?:_(?P<round>\d+))?_(?P<timestamp>\d{4}-\d{2}-\d{2}[T ][^_]*)$")
_ROUND_ID_WITHOUT_TIMESTAMP = re.compile(r"^(?P<session>.+)_(?P<round>\d+)$")
VALID_ROUNDS = (1, 2)


class RoundRef(NamedTuple):
    session_id: str
    round: int


def parse_round_id(round_id: str) -> RoundRef:
    """`{session_id}_{round}_{timestamp}` -> (session_id, round). Session ids may contain
    underscores (and digits); a missing or invalid round (not 1 or 2) counts as round 1."""
    match = _ROUND_ID.match(round_id) or _ROUND_ID_WITHOUT_TIMESTAMP.match(round_id)
    if not match:
        return RoundRef(round_id, 1)
    round_text = match.group("round")
    round_number = int(round_text) if round_text else 1
    return RoundRef(match.group("session"), round_number if round_number in VALID_ROUNDS else 1)


class SaveQuestionSaved(Contract):
    question_id: str
    round_id: str
    saved_at: str
    success: Literal[True] = True


class SaveQuestionQueued(Contract):
    """The write failed; the whole question is on the retry queue under its question id."""

    question_id: None = None
    round_id: str
    saved_at: str
    success: Literal[False] = False
    error: str
    queued_for_retry: Literal[True] = True


class SaveQuestionWithdrawn(Contract):
    """Nothing was written and nothing is queued: the question's stem and key are those of a bank
    item withdrawn from the bank (retired by a reviewer, or rested), which it would show again."""

    question_id: None = None
    round_id: str
    saved_at: str = Field(description="when the save was refused")
    success: Literal[False] = False
    error: str
    queued_for_retry: Literal[False] = False


SaveQuestionResult = SaveQuestionSaved | SaveQuestionQueued | SaveQuestionWithdrawn

MAX_BATCH_QUESTIONS = 50


class SaveQuestionsBatchInput(Contract):
    """Several validated questions saved in one invocation (one state transition per round)."""

    questions: list[SaveQuestionInput] = Field(strict=True, min_length=1, max_length=MAX_BATCH_QUESTIONS)


class SaveQuestionsBatchResult(Contract):
    results: list[SaveQuestionResult] = Field(description="one per input question, in order")
    saved: int
    queued_for_retry: int
    withdrawn: int = Field(default=0, description="refused: they repeat a question withdrawn from the bank")


class RetryMessage(Contract):
    """Body of a retry-queue message: the whole question, under the id it will be saved as."""

    question_id: QuestionId
    question: SaveQuestionInput
    error: str
    queued_at: str
