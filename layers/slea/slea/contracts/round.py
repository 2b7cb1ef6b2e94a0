"""Mode 1 round bookkeeping: the execution input a console user pastes, the round's plan, its
progress across regeneration attempts, and the step that turns it into `PipelineOutput`."""

from typing import Literal

from pydantic import Field

from slea.constants import MAX_QUESTIONS_PER_ROUND, Language, QuestionType
from slea.contracts.common import CategoryName, Contract, Difficulty, NonBlankStr
from slea.contracts.exposure import SessionExposure
from slea.contracts.generation import IdentifiedDraft
from slea.contracts.pipeline import GeneratedQuestionOutput
from slea.contracts.profile import UserId, UserProfile
from slea.contracts.questions import SaveQuestionInput, SaveQuestionsBatchResult
from slea.contracts.validation import ValidationResult

MAX_EXTRA_ATTEMPTS = 2  # regenerations after the first generation


class RoundRequest(Contract):
    """Start of a Mode 1 execution: `events/generate_round/*.json` are examples."""

    user_id: UserId
    session_id: NonBlankStr
    round: Literal[1, 2] = 1
    category: CategoryName
    count: int = Field(default=5, ge=1, le=MAX_QUESTIONS_PER_ROUND)
    difficulty: Difficulty | None = Field(default=None, description="override the adaptive difficulty")
    question_types: list[QuestionType] | None = Field(default=None, min_length=1, max_length=MAX_QUESTIONS_PER_ROUND)
    purpose: Literal["practice", "placement"] = Field(
        default="practice",
        description="practice: items the learner answers about 70% of the time (the deployment's setting); "
        "placement: 50%, the most informative",
    )
    fill_bank: bool = Field(
        default=False,
        description="write items for the bank only (a placement test found it thin): nothing is drawn from the bank "
        "and nothing is marked seen for the learner, who is only the survey the items are written for",
    )


class AcceptedQuestion(Contract):
    draft: IdentifiedDraft
    validation_score: float


class RoundProgress(Contract):
    attempt: int = Field(ge=0, description="the next generation attempt (0 = first)")
    missing: int = Field(ge=0, description="valid questions still needed")
    accepted: list[AcceptedQuestion] = Field(default_factory=list)
    accepted_count: int = 0
    to_save: list[SaveQuestionInput] = Field(default_factory=list, description="Tool 5's batch input")
    feedback: list[str] = Field(default_factory=list, description="Tool 4's issues with rejected questions")
    used_stems: list[str] = Field(default_factory=list)
    exposure: SessionExposure = Field(
        default_factory=SessionExposure,
        description="the session's items, the round's draws and the drafts accepted so far: what a new draft is "
        "judged against (security/exposure.py)",
    )
    total_generated: int = 0
    total_rejected: int = 0
    unwritten: int = Field(
        default=0,
        ge=0,
        description="drafts the writer could not write in the last pass (the concept records ran out): the round's "
        "shortfall reason if it stays short (logic/rounds/shortfall.py)",
    )


class RoundPlan(Contract):
    session_id: str
    round: int
    round_id: str
    category: CategoryName
    count: int = Field(ge=1, le=MAX_QUESTIONS_PER_ROUND)
    difficulty: Difficulty
    difficulty_reason: str
    interests: list[str] = Field(min_length=1, description="interests to search templates for")
    question_types: list[QuestionType] | None = None
    progress: RoundProgress
    user_id: str | None = Field(default=None, description="the learner (FinishRound marks the round's items seen)")
    language: Language = Field(default="en", description="the round's language: the learner's, else en")
    drawn: list[GeneratedQuestionOutput] = Field(
        default_factory=list, description="questions drawn from the bank for this round (saved by PlanRound)"
    )
    farm: bool = Field(
        default=False,
        description="person fit flagged the learner's answers (their ability record's review mark): what the "
        "round draws and generates is saved rested, never joining the bank (logic/rounds/bank_draw.py)",
    )
    fill_difficulties: list[Difficulty] = Field(
        default_factory=list,
        description="neighbouring difficulties whose concept records may write what the round's own cannot, in "
        "order (logic/rounds/shortfall.py); empty when the request set the difficulty",
    )


class PlanRoundInput(Contract):
    request: RoundRequest
    profile: UserProfile
    correlation_id: str | None = Field(
        default=None, description="the execution's name: a retried PlanRound draws the same bank items"
    )


class CollectRoundInput(Contract):
    plan: RoundPlan
    questions: list[IdentifiedDraft]
    verdicts: list[ValidationResult]


class FinishRoundInput(Contract):
    plan: RoundPlan
    saved: SaveQuestionsBatchResult
