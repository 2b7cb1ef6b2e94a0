"""The HTTP API's session contracts (Mode 2 and starting a Mode 1 round; a round's status, the
session's summary, learners' reports). Kept apart from the round's pipeline contracts and from the
reviewers' (slea.contracts.review) so the API function does not load those (bench/cold_import.py)."""

from typing import Literal

from pydantic import Field

from slea.constants import MAX_QUESTIONS_PER_ROUND, REPORT_REASON_MAX_LENGTH, QuestionType
from slea.contracts.ability import SessionAbility
from slea.contracts.common import CategoryName, Contract, Difficulty
from slea.contracts.pipeline import ShortfallReason

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
    purpose: Literal["practice", "placement"] = "practice"


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
    difficulty_level: str | None = Field(
        default=None,
        description="the level the difficulty label stands for (novice, beginner, intermediate, advanced, expert), "
        "so that it reads on its scale: '4 of 10: beginner'",
    )
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
    purpose: Literal["practice", "placement"] = Field(
        default="practice", description="placement: a placement test (resume it with POST .../next, not its rounds)"
    )


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
    delivered: int | None = Field(
        default=None, description="questions the round has, drawn and generated (known once it has succeeded)"
    )
    from_neighbours: int | None = Field(
        default=None,
        description="of those, written from a neighbouring difficulty's concept record, each with its own difficulty "
        "(known once it has succeeded)",
    )
    shortfall_reason: ShortfallReason | None = Field(
        default=None,
        description="why `delivered` is below `requested`: too_few_concepts (the concept records, neighbouring "
        "difficulties' included, hold too few concepts the session has not been asked about), rejected (drafts "
        "failed review and the regenerations ran out), not_saved (some repeated items withdrawn from the bank), "
        "generation_failed (a generation step failed); null when the round is whole or not finished",
    )


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
    next_difficulty: int | None = Field(
        description="the difficulty (1-10) the next round would be generated at; null while the current round is "
        "open (a question unanswered or a round being generated: the answers to come still move it)"
    )
    next_level: str | None = Field(
        default=None,
        description="the level that difficulty stands for on the scale (novice, beginner, intermediate, advanced, "
        "expert: label L is b = (L - 5.5) / 2 in the level bands), shown as '4 of 10: beginner'",
    )
    ability: SessionAbility | None = Field(
        default=None, description="the learner's ability in the session's category now (null: none measured yet)"
    )


class ReportRequest(Contract):
    reason: str = Field(strict=True, min_length=1, max_length=REPORT_REASON_MAX_LENGTH, pattern=r"\S")


class ReportAccepted(Contract):
    question_id: str
    reported: Literal[True] = True


SessionPurpose = Literal["practice", "placement"]


class CreateSessionRequest(Contract):
    """POST /sessions (the body is optional: without one, a practice session)."""

    purpose: SessionPurpose = Field(
        default="practice",
        description="practice: rounds of questions (POST .../rounds); placement: a test of one question at a "
        "time (POST .../next) that stops as soon as the learner's level is measured",
    )
    category: CategoryName | None = Field(default=None, description="the category a placement test measures")


class PlacementProgress(Contract):
    """How far a placement test is: what its stopping rule is waiting for."""

    answered: int = Field(ge=0, description="questions answered (or skipped) in this test")
    more_expected: int = Field(
        ge=0, description="about how many more answers the stopping rule waits for (it may stop sooner or later)"
    )
    max_questions: int = Field(ge=1, description="the test never asks more than this")
    theta: float = Field(description="the estimate so far (logit scale)")
    se: float = Field(ge=0, description="its standard error; the test stops once it is at or below `se_target`")
    se_target: float = Field(ge=0)


class LevelChance(Contract):
    level: str
    chance: float = Field(ge=0, le=1, description="the posterior probability that the ability is in this band")


class PlacementResult(Contract):
    """What a finished placement test measured."""

    category: str
    level: str = Field(description="the band of the estimate (slea.measurement.scale.LEVELS)")
    level_chance: float = Field(ge=0, le=1, description="how likely the ability is in that band")
    other_level: str | None = Field(default=None, description="the likeliest other band (None: under 5%)")
    other_level_chance: float = Field(default=0.0, ge=0, le=1)
    chances: list[LevelChance] = Field(description="every band with its probability, lowest band first")
    theta: float
    se: float = Field(ge=0)
    range_low: float = Field(description="the 95% credible interval of theta")
    range_high: float
    items: int = Field(ge=0, description="questions the result rests on")
    pending_review: int = Field(default=0, ge=0, description="of those, answers whose grade awaits a reviewer")
    stopped_because: Literal["precise", "classified", "max_items", "no_items"] = Field(
        description="precise: the standard error reached its target; classified: the level is settled; max_items: "
        "the test reached its length; no_items: the bank had no further question for this learner"
    )
    statement: str = Field(
        description='the level with how sure it is, e.g. "intermediate; 1 chance in 4 that it is beginner"'
    )


class PlacementNext(Contract):
    """POST /sessions/{id}/next: the next question (the same one until it is answered), or the result."""

    done: bool
    question: QuestionView | None = None
    progress: PlacementProgress | None = None
    result: PlacementResult | None = None


class SkipRecorded(Contract):
    """POST /sessions/{session_id}/questions/{question_id}/skip: the question is counted as a
    wrong answer (a score of 0), once however often it is sent."""

    session_id: str
    question_id: str
    skipped: Literal[True] = True
    score: Literal[0] = Field(default=0, description="a skipped question scores 0, as a wrong answer")
