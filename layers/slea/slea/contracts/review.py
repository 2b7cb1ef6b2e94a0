"""Contracts of the human review loop: the queue, reviewers' actions, statistics and audit. Only
reviewers' requests use them: the HTTP API loads this module with its review routes, on a
reviewer's first request (functions/api/app.py), and a learner's never does; what learners see of
a round (its status, the session's summary, their reports) is in slea.contracts.sessions."""

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from slea.constants import (
    CORRECT_KEY_MAX_LENGTH,
    CORRECT_KEYWORDS_MAX,
    HIGH_SCORE_THRESHOLD,
    ID_MAX_LENGTH,
    MAX_CHOICES,
    QUESTION_STEM_MAX,
    REVIEW_NOTE_MAX_LENGTH,
    SCORE_MAX,
    Category,
    Language,
    QuestionType,
)
from slea.contracts.common import ID_PATTERN, ChoiceText, Contract, KeywordText

# misfit, label_far: the scheduled calibration job (slea.logic.jobs.calibration).
ReviewReason = Literal[
    "needs_review",
    "too_easy",
    "too_hard",
    "difficulty_mismatch",
    "reported",
    "revise",
    "authored",
    "misfit",
    "label_far",
    "override_proposed",
]


class ReviewerContract(Contract):
    """A reviewer's request or answer: its validator and serializer are built when first used
    (pydantic's defer_build), not when this module loads, so a reviewer's first request builds
    only the ones it uses."""

    model_config = ConfigDict(defer_build=True)


class Report(ReviewerContract):
    reason: str
    at: str


class ReviewedQuestion(ReviewerContract):
    question_id: str
    session_id: str | None = None
    round: int | None = None
    type: str | None = None
    stem: str | None = None
    choices: list[str] = Field(default_factory=list)
    correct_answer: str | None = None
    correct_keywords: list[str] | None = None
    key_terms: list[str] | None = Field(
        default=None, description="the keywords as whole terms of the reference, as the learner's feedback names them"
    )
    reference_answer: str | None = None
    explanation: str | None = None
    difficulty: int | None = None
    category: str | None = None
    language: str | None = None
    validation_score: float | None = None
    usage_count: int = 0
    correct_count: int = 0
    status: Literal["active", "retired"] = "active"
    reports: list[Report] = Field(default_factory=list)
    rested_at: str | None = Field(
        default=None,
        description="when the item was rested (left out of drawing: its key shown too widely, held by an account "
        "farm, or compromised); accepting or editing it returns it to the bank, which requires a reason",
    )
    rest_reason: str | None = Field(default=None, description='why it was rested: "farm", "compromised" or none')


class OverrideProposal(ReviewerContract):
    """A reviewer's change to a finalised grade, waiting for a second reviewer to confirm it."""

    score: int
    by: str
    by_name: str | None = None
    at: str
    note: str


# Why a provisional grade waits for a reviewer, for the page to say in words.
QueuedBecause = Literal[
    "grader_unavailable", "findings", "disagreement", "not_backed", "not_sure_enough", "second_look"
]


class ReasoningSummary(ReviewerContract):
    """The automatic grade's reasoning as a teacher reads it: what the answer mentions, how close it
    is to the reference, and why it waits (the page words it; the raw reasoning stays beside it)."""

    key_ideas_found: int | None = Field(default=None, description="key terms of the question the answer mentions")
    key_ideas_total: int | None = Field(default=None, description="key terms the question has (null: none)")
    meaning: Literal["close", "partly", "far"] | None = Field(
        default=None, description="how close the answer is to the reference in meaning (null: not measured)"
    )
    on_topic: bool | None = Field(default=None, description="the answer is about the question (null: not measured)")
    not_an_answer: bool = Field(default=False, description='"I don\'t know" and the like')
    unrelated: bool = Field(default=False, description="about something else than the question")
    leans: Literal["correct", "wrong"] = Field(description="the automatic verdict (the score against correct_from)")
    queued_because: QueuedBecause | None = Field(
        default=None,
        description="why it waits for a reviewer: grader_unavailable, findings (the answer has features a person "
        "should see), disagreement (two graders disagree), not_backed (the text evidence does not back the verdict), "
        "not_sure_enough (the verdict is below the certainty that makes a grade final), second_look (another check, "
        "e.g. it resembles another question's reference); null for a final grade",
    )


class ReviewedAttempt(ReviewerContract):
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
    group_id: str | None = Field(default=None, description="the review group it waits in (GET /review/groups)")
    proposal: OverrideProposal | None = Field(
        default=None, description="a finalised grade's proposed change, waiting for a second reviewer"
    )
    correct_from: int = Field(default=HIGH_SCORE_THRESHOLD, description="the pass mark: a score from it is correct")
    reasoning_summary: ReasoningSummary | None = Field(
        default=None, description="the reasoning in parts a page puts in words (short answers)"
    )


# Where an entry came from: an automatic grade the grader was unsure of, a learner's report on a
# question, or a question's own quality flag (generation, statistics, calibration, authoring).
QueueSource = Literal["grade", "report", "item"]
QueueSort = Literal["queued_asc", "queued_desc", "confidence"]
QUEUE_SEARCH_MAX = 100


class ReviewEntry(ReviewerContract):
    entry_id: str = Field(description="the attempt_id of an attempt entry, the question_id of a question entry")
    kind: Literal["attempt", "question"]
    reasons: list[ReviewReason]
    queued_at: str
    question: ReviewedQuestion
    attempt: ReviewedAttempt | None = None
    source: QueueSource = Field(
        description="grade: a provisional grade; report: a learner's report; item: a quality flag"
    )
    learner_id: str | None = Field(default=None, description="whose answer it is (attempt entries)")
    session_id: str | None = None
    round: int | None = None
    truncated: bool = Field(
        default=False,
        description='a text or list of this entry was shortened for the listing (a text ends in "… [truncated]")',
    )


class ReviewQueue(ReviewerContract):
    entries: list[ReviewEntry]
    open: int = Field(description="entries waiting in the whole queue (not only those listed)")
    next_cursor: str | None = Field(
        default=None, description="pass as `cursor` for the entries after these; null at the end of the queue"
    )


class _Position(ReviewerContract):
    """Where a page stopped in one of the queue's two indexes: the index key of the last entry
    read from it. Validated strictly: a cursor becomes a DynamoDB ExclusiveStartKey."""

    model_config = ConfigDict(extra="forbid", strict=True)

    queued_at: str = Field(min_length=1, max_length=64)


class AttemptsPosition(_Position):
    # Set when the page was sorted by confidence (the attempts' `review-confidence` index).
    confidence: float | None = Field(default=None, ge=0, le=1)
    session_id: str = Field(min_length=1, max_length=256)
    attempt_key: str = Field(min_length=1, max_length=512)


class QuestionsPosition(_Position):
    question_id: str = Field(min_length=1, max_length=256)


class QueueCursor(ReviewerContract):
    """The review queue's paging cursor (sent base64url-encoded): per index, where the previous
    page stopped (null: from the start), or that it was read to its end."""

    model_config = ConfigDict(extra="forbid", strict=True)

    attempts: AttemptsPosition | None = None
    questions: QuestionsPosition | None = None
    attempts_done: bool = False
    questions_done: bool = False
    view: str = Field(
        default="", max_length=32, description="the sort and filters it was made for (a digest; empty: the default)"
    )


class QueueView(ReviewerContract):
    """GET /review/queue's filters and order. Filtering happens as the indexes are read, so a
    page may hold fewer than `limit` entries (even none) and still have a next cursor."""

    model_config = ConfigDict(extra="forbid")

    source: QueueSource | None = None
    item_type: QuestionType | None = None
    category: Category | None = None
    language: Language | None = None
    q: str | None = Field(
        default=None, min_length=1, max_length=QUEUE_SEARCH_MAX, pattern=r"\S", description="text in stem or answer"
    )
    sort: QueueSort = Field(
        default="queued_asc", description="confidence: provisional grades only, the least sure first"
    )

    def filtering(self) -> bool:
        return any(value is not None for value in (self.source, self.item_type, self.category, self.language, self.q))


def _reason(note: str | None, info: ValidationInfo, actions: tuple[str, ...] | None, what: str) -> str | None:
    """`note`, required (non-blank) when the request's action is one of `actions` (None: always).
    Called by field validators, not a model one, so that the error names `note`."""
    required = actions is None or info.data.get("action") in actions
    if required and (note is None or not note.strip()):
        raise PydanticCustomError("missing", "a reason is required to {what}", {"what": what})
    return note.strip() if note is not None else None


# Who changed a grade and why: the reason a reviewer gives is shown to the learner.
AttemptAction = Literal["accept", "override", "confirm", "reject"]


class AttemptReviewRequest(ReviewerContract):
    """accept or override a provisional grade; override a finalised one (a proposal: a second
    reviewer confirms or rejects it)."""

    action: AttemptAction
    # A field validator (not a model one), so that the error names `score`.
    score: int | None = Field(
        default=None, ge=0, le=SCORE_MAX, validate_default=True, description="required to override"
    )
    note: str | None = Field(
        default=None,
        max_length=REVIEW_NOTE_MAX_LENGTH,
        validate_default=True,
        description="the reason: required to override (the learner sees it)",
    )

    @field_validator("score")
    @classmethod
    def _score_with_override(cls, score: int | None, info: ValidationInfo) -> int | None:
        if info.data.get("action") == "override" and score is None:
            raise PydanticCustomError("missing", "score is required to override a grade")
        return score

    @field_validator("note")
    @classmethod
    def _note_given(cls, note: str | None, info: ValidationInfo) -> str | None:
        return _reason(note, info, ("override",), "override a grade")


class AttemptReviewed(ReviewerContract):
    attempt_id: str
    action: AttemptAction | Literal["undo"]
    status: Literal["applied", "proposed", "rejected", "undone"] = Field(
        default="applied",
        description="proposed: the grade was final, a second reviewer must confirm the change (score unchanged); "
        "undone: the attempt's latest review was undone (score: the one restored)",
    )
    score: int
    is_correct: bool
    previous_score: int
    reviewed_by: str
    reviewed_by_name: str | None = Field(default=None, description="the reviewer's display name")
    reviewed_at: str


AttemptIdText = Annotated[str, Field(min_length=1, max_length=ID_MAX_LENGTH, pattern=ID_PATTERN)]
BULK_ACCEPT_MAX = 50


class BulkAcceptRequest(ReviewerContract):
    attempt_ids: list[AttemptIdText] = Field(min_length=1, max_length=BULK_ACCEPT_MAX)
    note: str | None = Field(
        default=None, max_length=REVIEW_NOTE_MAX_LENGTH, validate_default=True, description="the reason: required"
    )

    @field_validator("note")
    @classmethod
    def _note_given(cls, note: str | None, info: ValidationInfo) -> str | None:
        return _reason(note, info, None, "accept grades in bulk")

    @field_validator("attempt_ids")
    @classmethod
    def _distinct(cls, ids: list[str]) -> list[str]:
        if len(set(ids)) != len(ids):
            raise PydanticCustomError("distinct", "each attempt id at most once")
        return ids


class BulkAcceptResult(ReviewerContract):
    attempt_id: str
    status: Literal["accepted", "already_reviewed", "not_found", "own_attempt", "conflict"]
    score: int | None = None
    message: str | None = None


class BulkAccepted(ReviewerContract):
    """Each attempt accepted on its own (all or nothing per attempt, as POST /review/attempts/{id});
    a repeat answers `already_reviewed` for those done and writes nothing for them."""

    results: list[BulkAcceptResult]
    accepted: int
    bulk_id: str | None = Field(default=None, description="POST /review/bulk/{bulk_id}/revert undoes it")


class UndoRequest(ReviewerContract):
    note: str | None = Field(
        default=None, max_length=REVIEW_NOTE_MAX_LENGTH, validate_default=True, description="the reason: required"
    )

    @field_validator("note")
    @classmethod
    def _note_given(cls, note: str | None, info: ValidationInfo) -> str | None:
        return _reason(note, info, None, "undo an action")


class BulkReverted(ReviewerContract):
    """The attempts a bulk accept had accepted, back in the queue (those reviewed again since stay)."""

    bulk_id: str
    reverted: list[str]
    kept: list[str] = Field(default_factory=list, description="reviewed again since the bulk accept: left as they are")


class GroupReverted(ReviewerContract):
    """A group grade undone: each member it changed as it was before (those reviewed since stay)."""

    group_id: str
    reverted: list[str]
    kept: list[str] = Field(default_factory=list, description="reviewed again since the group grade: left as they are")


GROUP_EXCLUDE_MAX = 100


class ReviewGroup(ReviewerContract):
    """Open short answers of one bank item graded alike or worded alike: one action grades them all."""

    group_id: str
    size: int = Field(description="members listed on this page")
    entries: list[ReviewEntry]


class ReviewGroups(ReviewerContract):
    groups: list[ReviewGroup] = Field(description="largest first")
    open: int = Field(description="entries waiting in the whole queue (not only those listed)")
    next_cursor: str | None = Field(default=None, description="the queue's cursor: pass it to read on")


class GroupReviewRequest(ReviewerContract):
    score: int = Field(ge=0, le=SCORE_MAX, description="the grade every member gets")
    note: str = Field(
        min_length=1,
        max_length=REVIEW_NOTE_MAX_LENGTH,
        pattern=r"\S",
        description="the reason, required as for an override (a learner whose grade changes sees it)",
    )
    exclude: list[AttemptIdText] = Field(
        default_factory=list, max_length=GROUP_EXCLUDE_MAX, description="members split off, left in the queue"
    )


class GroupMemberResult(ReviewerContract):
    attempt_id: str
    status: Literal["reviewed", "excluded", "already_reviewed", "own_attempt", "conflict"]
    score: int | None = None
    message: str | None = None


class GroupReviewed(ReviewerContract):
    """One reviewer action: each member updated and audited on its own transaction, with the group's id."""

    group_id: str
    score: int
    is_correct: bool
    reviewed: int
    results: list[GroupMemberResult]


class QuestionReviewRequest(ReviewerContract):
    action: Literal["accept", "retire", "edit"]
    stem: str | None = Field(default=None, strict=True, min_length=1, max_length=QUESTION_STEM_MAX)
    choices: list[ChoiceText] | None = Field(default=None, max_length=MAX_CHOICES)
    correct_answer: str | None = Field(default=None, strict=True, min_length=1, max_length=CORRECT_KEY_MAX_LENGTH)
    correct_keywords: list[KeywordText] | None = Field(default=None, max_length=CORRECT_KEYWORDS_MAX)
    note: str | None = Field(
        default=None,
        max_length=REVIEW_NOTE_MAX_LENGTH,
        validate_default=True,
        description="the reason: required to retire or edit",
    )

    @field_validator("note")
    @classmethod
    def _note_given(cls, note: str | None, info: ValidationInfo) -> str | None:
        return _reason(note, info, ("retire", "edit"), "retire or edit a question")

    def changes_nothing(self) -> bool:
        return all(change is None for change in (self.stem, self.choices, self.correct_answer, self.correct_keywords))


class QuestionReviewed(ReviewerContract):
    question_id: str
    action: Literal["accept", "retire", "edit", "unretire", "revert_edit"]
    status: Literal["active", "retired"]
    reviewed_by: str
    reviewed_by_name: str | None = Field(default=None, description="the reviewer's display name")
    reviewed_at: str


class ReviewStats(ReviewerContract):
    reviewed: int = Field(description="attempts reviewed (accepted + overridden)")
    accepted: int
    overridden: int
    agreement: float | None = Field(description="accepted / reviewed attempts; null before the first review")
    questions_retired: int
    questions_edited: int
    questions_accepted: int
    open: int
    proposals: int = Field(default=0, description="changes to final grades waiting for a second reviewer")
    correct_from: int = Field(default=HIGH_SCORE_THRESHOLD, description="the pass mark: a score from it is correct")


class AuditRecord(ReviewerContract):
    audit_id: str
    target_id: str
    target_kind: Literal["attempt", "question", "bulk", "group"]
    action: str
    who: str
    who_name: str | None = Field(default=None, description="the reviewer's display name when they acted")
    at: str
    before: dict[str, Any]
    after: dict[str, Any]
    note: str | None = None
    stem: str | None = Field(default=None, description="the item's stem, shortened")
    question_id: str | None = None
    session_id: str | None = None
    learner_id: str | None = None
    learner_name: str | None = Field(
        default=None, description="the learner's display name, as their token gave it when they started the session"
    )
    bulk_id: str | None = Field(default=None, description="the bulk accept this record was part of")
    changed: bool = Field(default=True, description="false: the action kept everything as it was (an accept)")
    group_id: str | None = Field(default=None, description="the review group one action graded with it")


class AuditRecords(ReviewerContract):
    records: list[AuditRecord]
