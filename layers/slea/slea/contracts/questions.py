"""Tool 5 `save_generated_question` contracts (spec 000 Tool 5 validation table)."""

from typing import Literal

from pydantic import Field, model_validator
from pydantic_core import PydanticCustomError

from slea.constants import QUESTION_STEM_MAX, QuestionType
from slea.contracts.answers import choice_index, is_true_false_key
from slea.contracts.common import Contract, Difficulty, NonEmptyStr


class SaveQuestionInput(Contract):
    item_type: QuestionType
    stem: str = Field(strict=True, min_length=1, max_length=QUESTION_STEM_MAX)
    choices: list[NonEmptyStr] | None = None
    correct_key: str | None = Field(default=None, strict=True)
    correct_keywords: list[NonEmptyStr] | None = None
    difficulty: Difficulty = 5
    categories: list[NonEmptyStr] = Field(default_factory=lambda: ["general"], min_length=1)
    round_id: NonEmptyStr = Field(examples=["sess_123_1_2025-11-09T10:30:00Z"])
    validation_score: float | None = Field(default=None, ge=0.0, le=1.0)
    explanation: str | None = None

    @model_validator(mode="after")
    def _type_specific_answer(self) -> "SaveQuestionInput":
        if not self.stem.strip():
            raise PydanticCustomError("stem", "stem cannot be empty")
        if not self.round_id.strip():
            raise PydanticCustomError("round_id", "round_id cannot be empty")
        if self.item_type == "multiple_choice":
            if not self.choices:
                raise PydanticCustomError("choices", "choices required for multiple_choice")
            if self.correct_key is None or choice_index(self.correct_key, self.choices) is None:
                raise PydanticCustomError("correct_key", "correct_key must name one of the choices")
        elif self.item_type == "true_false":
            if self.correct_key is None or not is_true_false_key(self.correct_key):
                raise PydanticCustomError("correct_key", "correct_key must be True or False for true_false")
        elif not self.correct_keywords:
            raise PydanticCustomError("correct_keywords", "correct_keywords required for short_answer")
        return self


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


SaveQuestionResult = SaveQuestionSaved | SaveQuestionQueued
