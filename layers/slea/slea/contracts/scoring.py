"""Tool 6 `score_and_explain` contracts: the scoring rules."""

import unicodedata
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, model_validator
from pydantic_core import PydanticCustomError

from slea.constants import (
    ANSWER_MAX_LENGTH,
    CATEGORY_MAX_LENGTH,
    CHOICE_MAX_LENGTH,
    CORRECT_KEY_MAX_LENGTH,
    CORRECT_KEYWORDS_MAX,
    EXPLANATION_MIN_LENGTH,
    MAX_CHOICES,
    REFERENCE_ANSWER_MAX,
    SCORE_MAX,
    QuestionType,
)
from slea.contracts.common import Contract, Difficulty, IdText, KeywordText, NonBlankStr

# Letters that render as nothing (Hangul fillers) beside the categories that never show:
# control (Cc), format (Cf: zero-width space and joiners, BOM, word joiner, bidi marks), separators.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0")


def _visible(text: str) -> str:
    """An answer of only invisible or control characters is empty: nothing to grade."""
    if all(c in _BLANK_LETTERS or unicodedata.category(c)[0] in "CZ" or c.isspace() for c in text):
        raise PydanticCustomError("blank_answer", "must contain a visible character")
    return text


AnswerText = Annotated[NonBlankStr, Field(max_length=ANSWER_MAX_LENGTH), AfterValidator(_visible)]


class ScoreAnswerInput(Contract):
    session_id: IdText
    user_id: IdText
    question_id: IdText
    question_type: QuestionType
    user_answer: AnswerText
    correct_answer: str | None = Field(default=None, strict=True, max_length=CORRECT_KEY_MAX_LENGTH)
    correct_keywords: list[KeywordText] | None = Field(default=None, max_length=CORRECT_KEYWORDS_MAX)
    difficulty: Difficulty | None = None
    category: str | None = Field(default=None, strict=True, max_length=CATEGORY_MAX_LENGTH)
    choices: list[Annotated[str, Field(max_length=CHOICE_MAX_LENGTH)]] | None = Field(
        default=None,
        max_length=MAX_CHOICES,
        description="MC choices, so the full choice text counts as the key (looked up when stored)",
    )
    reference_answer: str | None = Field(
        default=None,
        strict=True,
        max_length=REFERENCE_ANSWER_MAX,
        description="short answer: the model answer to grade against (else the stored one, else the explanation)",
    )

    @model_validator(mode="after")
    def _answer_key_present(self) -> "ScoreAnswerInput":
        if self.question_type in ("multiple_choice", "true_false") and not (self.correct_answer or "").strip():
            raise PydanticCustomError(
                "correct_answer", "correct_answer required for {kind}", {"kind": self.question_type}
            )
        if self.question_type == "short_answer" and not self.correct_keywords:
            raise PydanticCustomError("correct_keywords", "correct_keywords required for short_answer")
        return self

    def identity(self) -> list[Any]:
        """What makes two requests the same grading: the user, the answer (spacing aside) and
        everything the answer is graded against."""
        return [
            self.user_id,
            " ".join(self.user_answer.split()),
            self.question_type,
            self.correct_answer,
            self.correct_keywords,
            self.choices,
            self.reference_answer,
        ]


class RubricPoints(Contract):
    """Tool 6's short-answer rubric (40/40/20 points), criterion by criterion."""

    key_concepts: int = Field(ge=0, le=40, description="presence of the key keywords/concepts (40 points)")
    correctness: int = Field(ge=0, le=40, description="semantic correctness and relevance (40 points)")
    clarity: int = Field(ge=0, le=20, description="clarity and completeness (20 points)")

    @property
    def total(self) -> int:
        return self.key_concepts + self.correctness + self.clarity


class ReferenceLink(Contract):
    title: str
    url: str


class FeedbackDetails(Contract):
    """What a learner needs to learn from one graded answer, in parts a page can lay out;
    the `explanation` string says the same in prose, for callers that show one block of text."""

    language: Literal["en", "ko"] = Field(default="en", description="the language of every fixed phrase here")
    question: str | None = Field(default=None, description="the question as the learner saw it")
    your_answer: str = Field(description="the learner's answer; for a choice, the text of the option picked")
    correct_answer: str | None = Field(
        default=None, description="the key as shown: the option's text, true/false, or a model answer"
    )
    why_correct: str | None = Field(default=None, description="why the key is right")
    why_yours_is_wrong: str | None = Field(
        default=None, description="a wrong choice: why the option picked is wrong (absent when unknown)"
    )
    next_steps: list[str] = Field(default_factory=list, description="what to do next, fitted to the result")
    score_reason: str | None = Field(
        default=None, description="a short answer below full marks: why this score and not 100, in one sentence"
    )


class ScoreAnswerOutput(Contract):
    attempt_id: str
    session_id: str
    question_id: str
    user_id: str
    is_correct: bool
    score: int = Field(ge=0, le=SCORE_MAX)
    explanation: str = Field(min_length=EXPLANATION_MIN_LENGTH)
    keyword_matches: list[str] = Field(default_factory=list)
    feedback: str | None = None
    graded_at: str
    reference_links: list[ReferenceLink] = Field(default_factory=list)
    needs_review: bool = Field(
        default=False, description="the grade is provisional until a human reviews it (low confidence)"
    )
    confidence: float = Field(default=1.0, ge=0.0, le=1.0, description="the grader's confidence in the verdict")
    rubric_points: RubricPoints | None = Field(default=None, description="short answer: points per criterion")
    grader_reasoning: str | None = Field(default=None, description="short answer: why the grader gave this score")
    details: FeedbackDetails | None = Field(default=None, description="the feedback in parts")
    held_back_note: str | None = Field(
        default=None,
        description="while another item of the round is open: that what would answer it is held back from this"
        " feedback until the round is answered (the same words after every such answer, whether or not anything"
        " was; a page says it once per round). Never part of `explanation`",
    )


# ---------------------------------------------------------------- HTTP API contracts
class AnswerRequest(Contract):
    """POST /sessions/{session_id}/answers: the answer key is looked up server-side."""

    question_id: IdText
    user_answer: AnswerText


class AttemptView(Contract):
    """One stored grading, as GET /sessions/{session_id}/attempts lists it (no answer key)."""

    attempt_id: str
    session_id: str | None = Field(default=None, description="the session the answer was given in")
    question_id: str
    round: int
    is_correct: bool
    score: int
    user_answer: str
    feedback: str | None = None
    needs_review: bool = False
    confidence: float = 1.0
    graded_at: str
    reviewed: bool = Field(default=False, description="a reviewer has confirmed or corrected this grade")
    original_score: int | None = Field(default=None, description="the automatic score, if a reviewer changed it")
    skipped: bool = Field(
        default=False, description="left unanswered when its round was over: counted as wrong, never answered"
    )
    review_note: str | None = Field(default=None, description="the reviewer's reason, if a reviewer changed the grade")
    # Kept on the attempt when it was graded (for the learner's history), absent on older attempts.
    # Only answered questions have attempts, so nothing here gives away the key of an unanswered one.
    question_stem: str | None = Field(default=None, description="the question as the learner saw it")
    question_type: QuestionType | None = None
    question_choices: list[str] | None = Field(default=None, description="a choice question's options, as shown")
    explanation: str | None = None
    reference_links: list[ReferenceLink] = Field(default_factory=list)
    details: FeedbackDetails | None = None
    held_back_note: str | None = Field(
        default=None,
        description="while another item of the round is open: that what would answer it is held back from this"
        " feedback until the round is answered (the same words after every such answer, whether or not anything"
        " was; a page says it once per round). Never part of `explanation`",
    )


class AttemptList(Contract):
    session_id: str
    attempts: list[AttemptView]


class AttemptHistory(Contract):
    """GET /learners/me/attempts: a page of the caller's answers across their sessions."""

    attempts: list[AttemptView] = Field(description="newest first")
    next_cursor: str | None = Field(default=None, description="pass as `cursor` for the next page; null at the end")
