"""Mode 1 pipeline output: `PipelineOutput` and the `GeneratedQuestionOutput` items it holds."""

from typing import Literal

from pydantic import Field

from slea.constants import Language, QuestionType
from slea.contracts.common import Contract, Difficulty


class GeneratedQuestionOutput(Contract):
    question_id: str | None = Field(description="None while the question waits on the retry queue")
    stem: str
    type: QuestionType
    choices: list[str] = Field(default_factory=list)
    correct_answer: str
    difficulty: Difficulty
    category: str
    round_id: str
    validation_score: float = Field(ge=0.0, le=1.0)
    saved_at: str
    queued_for_retry: bool = False
    language: Language | None = Field(default=None, description="the language the item is written in")
    concept: str | None = Field(default=None, description="the concept record the item was written from, if any")
    concept_domain: str | None = Field(default=None, description="that concept's domain (matched to interests)")
    from_bank: bool = Field(default=False, description="drawn from the question bank, not generated for this round")


# Why a round has fewer items than asked (logic/rounds/shortfall.py says when each applies).
ShortfallReason = Literal["too_few_concepts", "rejected", "not_saved", "generation_failed"]


class PipelineOutput(Contract):
    questions: list[GeneratedQuestionOutput]
    total_generated: int = Field(ge=0)
    total_valid: int = Field(ge=0)
    total_rejected: int = Field(ge=0)
    requested: int | None = Field(default=None, ge=1, description="the questions the round was asked for")
    delivered: int | None = Field(default=None, ge=0, description="the questions it has (drawn and generated)")
    from_neighbours: int = Field(
        default=0, ge=0, description="generated from a neighbouring difficulty's concept record (each keeps its label)"
    )
    shortfall_reason: ShortfallReason | None = Field(
        default=None, description="why `delivered` is below `requested` (null: the round is whole)"
    )
