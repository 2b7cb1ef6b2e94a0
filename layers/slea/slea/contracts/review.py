"""Issue 12 contracts: a round's status, a session's summary, learners' reports, and the human
review loop (queue, actions, statistics, audit). Apart from the pipeline's contracts so the API
function does not load those (bench/cold_import.py)."""

from typing import Any, Literal

from pydantic import Field, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from slea.constants import SCORE_MAX
from slea.contracts.common import Contract, NonBlankStr

RoundState = Literal["RUNNING", "SUCCEEDED", "FAILED"]
ReviewReason = Literal["needs_review", "too_easy", "too_hard", "difficulty_mismatch", "reported", "revise", "authored"]


# ---------------------------------------------------------------- learner side
class RoundStatus(Contract):
    """GET /sessions/{session_id}/rounds/{round}: the execution's state and what it saved."""

    session_id: str
    round: int
    status: RoundState
    requested: int
    generated: int | None = Field(default=None, description="drafts written (known once the round has finished)")
    valid: int | None = Field(default=None, description="drafts that passed validation (known once finished)")
    saved: int = Field(description="questions of this round stored so far")
    question_ids: list[str] = Field(default_factory=list)
    started_at: str
    finished_at: str | None = None
    error: str | None = None


class RoundSummary(Contract):
    round: int
    questions: int
    answered: int
    correct: int
    score: float | None = Field(description="mean score (0-100) of the answered questions; null if none")
    pending_review: int = Field(description="answers whose grade waits for a reviewer")


class ToReview(Contract):
    question_id: str
    round: int
    stem: str
    score: int
    category: str | None = None


class SessionSummary(Contract):
    session_id: str
    rounds: list[RoundSummary]
    to_review: list[ToReview] = Field(description="answers below the pass mark (80)")
    next_round: Literal[1, 2] | None = Field(description="null when both rounds have been started")
    next_difficulty: int | None = Field(description="the difficulty the next round would be generated at")


class ReportRequest(Contract):
    reason: str = Field(strict=True, min_length=1, max_length=500, pattern=r"\S")


class ReportAccepted(Contract):
    question_id: str
    reported: Literal[True] = True


# ---------------------------------------------------------------- reviewer side
class Report(Contract):
    reason: str
    at: str


class ReviewedQuestion(Contract):
    question_id: str
    session_id: str | None = None
    round: int | None = None
    type: str | None = None
    stem: str | None = None
    choices: list[str] = Field(default_factory=list)
    correct_answer: str | None = None
    correct_keywords: list[str] | None = None
    reference_answer: str | None = None
    explanation: str | None = None
    difficulty: int | None = None
    category: str | None = None
    validation_score: float | None = None
    usage_count: int = 0
    correct_count: int = 0
    status: Literal["active", "retired"] = "active"
    reports: list[Report] = Field(default_factory=list)


class ReviewedAttempt(Contract):
    attempt_id: str
    session_id: str
    user_answer: str
    score: int
    is_correct: bool
    confidence: float = 1.0
    reasoning: str | None = None
    keyword_matches: list[str] = Field(default_factory=list)
    feedback: str | None = None
    graded_at: str


class ReviewEntry(Contract):
    entry_id: str = Field(description="the attempt_id of an attempt entry, the question_id of a question entry")
    kind: Literal["attempt", "question"]
    reasons: list[ReviewReason]
    queued_at: str
    question: ReviewedQuestion
    attempt: ReviewedAttempt | None = None


class ReviewQueue(Contract):
    entries: list[ReviewEntry]
    open: int = Field(description="entries waiting in the whole queue (not only those listed)")


class AttemptReviewRequest(Contract):
    action: Literal["accept", "override"]
    # A field validator (not a model one), so that the error names `score`.
    score: int | None = Field(
        default=None, ge=0, le=SCORE_MAX, validate_default=True, description="required to override"
    )
    note: str | None = Field(default=None, max_length=1000)

    @field_validator("score")
    @classmethod
    def _score_with_override(cls, score: int | None, info: ValidationInfo) -> int | None:
        if info.data.get("action") == "override" and score is None:
            raise PydanticCustomError("missing", "score is required to override a grade")
        return score


class AttemptReviewed(Contract):
    attempt_id: str
    action: Literal["accept", "override"]
    score: int
    is_correct: bool
    previous_score: int
    reviewed_by: str
    reviewed_at: str


class QuestionReviewRequest(Contract):
    action: Literal["accept", "retire", "edit"]
    stem: str | None = Field(default=None, strict=True, min_length=1)
    choices: list[NonBlankStr] | None = None
    correct_answer: str | None = Field(default=None, strict=True, min_length=1)
    correct_keywords: list[NonBlankStr] | None = None
    note: str | None = Field(default=None, max_length=1000)

    def changes_nothing(self) -> bool:
        return all(change is None for change in (self.stem, self.choices, self.correct_answer, self.correct_keywords))


class QuestionReviewed(Contract):
    question_id: str
    action: Literal["accept", "retire", "edit"]
    status: Literal["active", "retired"]
    reviewed_by: str
    reviewed_at: str


class ReviewStats(Contract):
    reviewed: int = Field(description="attempts reviewed (accepted + overridden)")
    accepted: int
    overridden: int
    agreement: float | None = Field(description="accepted / reviewed attempts; null before the first review")
    questions_retired: int
    questions_edited: int
    questions_accepted: int
    open: int


class AuditRecord(Contract):
    audit_id: str
    target_id: str
    target_kind: Literal["attempt", "question"]
    action: str
    who: str
    at: str
    before: dict[str, Any]
    after: dict[str, Any]
    note: str | None = None


class AuditRecords(Contract):
    records: list[AuditRecord]
