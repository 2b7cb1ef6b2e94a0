"""Tool 4 `validate_question_quality` contracts, single and batch."""

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator
from pydantic_core import PydanticCustomError

from slea.constants import (
    QUESTION_STEM_MAX,
    REFERENCE_ANSWER_MAX,
    VALIDATION_BATCH_MAX,
    VALIDATION_EXISTING_STEMS_MAX,
    Language,
    QuestionType,
)
from slea.contracts.common import Contract, NonEmptyStr
from slea.contracts.keywords import Concept

Recommendation = Literal["pass", "revise", "reject"]
# Stems are compared pairwise, at a cost that grows with their length: Tool 5's limit bounds it.
# Past STEM_MAX_LENGTH a stem is still valid input; the rule score reports it.
StemText = Annotated[str, Field(max_length=QUESTION_STEM_MAX)]


class ValidateQuestionInput(Contract):
    """One question to validate. Rule violations (stem too long, wrong number of choices, answer
    not among the choices, duplicate choices) lower the rule score; they are not input errors.
    Only a stem longer than Tool 5 would save is (QUESTION_STEM_MAX, see StemText)."""

    stem: NonEmptyStr = Field(max_length=QUESTION_STEM_MAX)
    question_type: QuestionType
    choices: list[str] | None = None
    correct_answer: str | None = Field(default=None, strict=True)
    correct_keywords: list[str] | None = Field(default=None, description="short answer: the expected terms")
    reference_answer: str | None = Field(
        default=None,
        max_length=REFERENCE_ANSWER_MAX,
        description="short answer: the model answer; each expected term must be one it states",
    )
    source: Concept | None = Field(
        default=None, description="the concept record the item was written from: the key is checked against it"
    )
    language: Language | None = Field(
        default=None, description="the learner's language (en or ko): the item must be in it; feedback is in it"
    )
    batch: Literal[False] = False
    existing_stems: list[StemText] = Field(default_factory=list, max_length=VALIDATION_EXISTING_STEMS_MAX)

    @model_validator(mode="after")
    def _conditional_fields(self) -> "ValidateQuestionInput":
        if not self.stem.strip():
            raise PydanticCustomError("stem", "stem cannot be empty")
        if self.question_type == "multiple_choice" and self.choices is None:
            raise PydanticCustomError("choices", "choices required for multiple_choice")
        if self.question_type in ("multiple_choice", "true_false") and not (self.correct_answer or "").strip():
            raise PydanticCustomError(
                "correct_answer", "correct_answer required for {kind}", {"kind": self.question_type}
            )
        return self


PARALLEL_FIELDS = (
    "question_type",
    "choices",
    "correct_answer",
    "correct_keywords",
    "reference_answer",
    "source",
    "language",
)


class ValidateQuestionBatchInput(Contract):
    """Parallel lists, one entry per question (the `batch=True` form). Each entry is validated on its
    own, so one malformed question yields its own error entry and the others are still scored."""

    stem: list[Any] = Field(strict=True, min_length=1, max_length=VALIDATION_BATCH_MAX)
    question_type: list[Any] = Field(strict=True)
    choices: list[Any] | None = Field(default=None, strict=True)
    correct_answer: list[Any] | None = Field(default=None, strict=True)
    correct_keywords: list[Any] | None = Field(default=None, strict=True)
    reference_answer: list[Any] | None = Field(
        default=None, strict=True, description="per question: its model answer (short answers), or null"
    )
    source: list[Any] | None = Field(default=None, strict=True, description="per question: its concept record, or null")
    language: list[Any] | None = Field(default=None, strict=True, description="per question: en, ko or null")
    batch: Literal[True]
    existing_stems: list[StemText] = Field(
        default_factory=list,
        max_length=VALIDATION_EXISTING_STEMS_MAX,
        description="stems already in the bank (e.g. Tool 2's templates), to flag near-duplicates",
    )

    @model_validator(mode="after")
    def _same_lengths(self) -> "ValidateQuestionBatchInput":
        for name in PARALLEL_FIELDS:
            values = getattr(self, name)
            if values is not None and len(values) != len(self.stem):
                raise PydanticCustomError("batch_length", f"{name} must have one entry per stem ({len(self.stem)})")
        return self

    def entries(self) -> list[dict[str, Any]]:
        entries = []
        for index, stem in enumerate(self.stem):
            entry = {"stem": stem}
            for name in PARALLEL_FIELDS:
                values = getattr(self, name)
                entry[name] = values[index] if values is not None else None
            entries.append(entry)
        return entries


class ValidationResult(Contract):
    """Tool 4's verdict. `error` is set only on a batch entry whose input was invalid."""

    is_valid: bool
    score: float = Field(ge=0.0, le=1.0, description="LLM semantic score")
    rule_score: float = Field(ge=0.0, le=1.0)
    final_score: float = Field(ge=0.0, le=1.0, description="min(score, rule_score)")
    feedback: str
    issues: list[str]
    recommendation: Recommendation
    error: str | None = None
