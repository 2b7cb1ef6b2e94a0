"""The HTTP API's session contracts (Mode 2 and starting a Mode 1 round; a round's status, the
session's summary, learners' reports). Kept apart from the round's pipeline contracts and from the
reviewers' (slea.contracts.review) so the API function does not load those (bench/cold_import.py)."""

from typing import Literal

from pydantic import Field

from slea.constants import MAX_QUESTIONS_PER_ROUND, REPORT_REASON_MAX_LENGTH, QuestionType
from slea.contracts.ability import SessionAbility
from slea.contracts.common import CategoryName, Contract, Difficulty

RoundState = Literal["RUNNING", "SUCCEEDED", "FAILED"]


class StartRoundRequest(Contract):
    """POST /sessions/{session_id}/rounds: the caller is the token's subject."""

    round: Literal[1, 2] = 1
    category: CategoryName
    count: int = Field(default=5, ge=1, le=MAX_QUESTIONS_PER_ROUND)
    difficulty: Difficulty | None = None
    question_types: list[QuestionType] | None = Field(default=None, min_length=1, max_length=MAX_QUESTIONS_PER_ROUND)
    purpose: Literal["practice", "placement"] | None = Field(
        default=None,
        description="practice (default): items the learner answers about 70% of the time (the deployment's "
        "setting); placement: 50%, the most informative",
    )


class SessionCreated(Contract):
    """POST /sessions: a new session of the caller's, with an id the server chose."""

    session_id: str = Field(examples=["3f2b6c1e-9a4d-4e8b-b1f7-0c5d2a9e7f31"])


class RoundStarted(Contract):
    session_id: str
    round: int
    execution_arn: str
    status: Literal["RUNNING"] = "RUNNING"


class QuestionView(Contract):
    """A saved question as learners see it: everything but the answer key."""

    question_id: str
    round: int
    type: QuestionType
    stem: str
    choices: list[str] = Field(default_factory=list)
    difficulty: int
    category: str
    answered: bool = Field(default=False, description="the caller has answered it (a page resumes after it)")
    skipped: bool = Field(
        default=False,
        description="skipped on purpose, or left unanswered when its round was over: counted as wrong (also "
        "`answered`: it cannot be answered)",
    )


class SessionQuestions(Contract):
    session_id: str
    questions: list[QuestionView]


class RoundProgressView(Contract):
    """One round of a session as GET /sessions lists it: enough for a page to resume it."""

    round: int
    status: Literal["RUNNING", "SUCCEEDED", "FAILED"] | None = Field(
        default=None, description="the round's generation; null for a round from before rounds were recorded"
    )
    questions: int = Field(description="questions the learner can see")
    answered: int
    finished: bool = Field(description="generated and every question answered")


class SessionOverview(Contract):
    session_id: str
    created_at: str
    rounds: list[RoundProgressView] = Field(description="the rounds started, in order")


class SessionList(Contract):
    """GET /sessions: the caller's sessions, newest first, a page at a time."""

    sessions: list[SessionOverview]
    next_cursor: str | None = Field(default=None, description="pass as `cursor` for the next page; null at the end")
    language: Literal["en", "ko"] | None = Field(
        default=None, description="the caller's profile language (the page's UI language); null without a profile"
    )


# ---------------------------------------------------------------- a round's status, the summary, reports
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
    answered: int = Field(description="questions answered (skipped ones not included)")
    correct: int
    score: float | None = Field(
        description="mean score (0-100) of the answered and skipped questions (a skipped one scores 0); null if none"
    )
    skipped: int = Field(default=0, description="questions left unanswered when the round was over: scored 0")
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
    ability: SessionAbility | None = Field(
        default=None, description="the learner's ability in the session's category now (null: none measured yet)"
    )


class ReportRequest(Contract):
    reason: str = Field(strict=True, min_length=1, max_length=REPORT_REASON_MAX_LENGTH, pattern=r"\S")


class ReportAccepted(Contract):
    question_id: str
    reported: Literal[True] = True


class SkipRecorded(Contract):
    """POST /sessions/{session_id}/questions/{question_id}/skip: the question is counted as a
    wrong answer (a score of 0), once however often it is sent."""

    session_id: str
    question_id: str
    skipped: Literal[True] = True
    score: Literal[0] = Field(default=0, description="a skipped question scores 0, as a wrong answer")
