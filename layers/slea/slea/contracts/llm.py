"""Structured-output schemas of the LLM operations: each call asks for JSON matching one of these
models and parses the answer into it (no free-text parsing)."""

from pydantic import BaseModel, Field

from slea.constants import QuestionType
from slea.contracts.keywords import ChoiceNote, Concept
from slea.contracts.scoring import ReferenceLink, RubricPoints


class ValidationItem(BaseModel):
    """A question as the semantic validator sees it."""

    index: int
    stem: str
    question_type: QuestionType
    choices: list[str] = Field(default_factory=list)
    correct_answer: str | None = None
    correct_keywords: list[str] = Field(default_factory=list)
    source: Concept | None = Field(default=None, description="the concept record the item was written from")


class ItemScore(BaseModel):
    index: int = Field(description="the question's index in the request")
    score: float = Field(ge=0.0, le=1.0, description="clarity, appropriateness, correctness, bias, format")
    issues: list[str] = Field(default_factory=list, description="each problem found, one short sentence")


class SemanticScores(BaseModel):
    scores: list[ItemScore]


class ShortAnswerGrade(BaseModel):
    """A provider's grading of one short answer: the score, its points per criterion, the
    grader's confidence in its verdict and its reasoning (kept with the attempt for review)."""

    score: int = Field(ge=0, le=100)
    reasoning: str = ""
    points: RubricPoints | None = None
    confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    flags: list[str] = Field(default_factory=list, description="form problems a human should look at")
    final: bool = Field(default=False, description="the verdict stands without a reviewer (set by the calibration)")


class ModelShortAnswerGrade(BaseModel):
    """What the model answers when it grades (its structured-output schema): the three criteria
    scored separately against the reference answer and the keywords, and its confidence."""

    key_concepts: int = Field(ge=0, le=40, description="0-40: the key concepts/keywords the answer states correctly")
    correctness: int = Field(ge=0, le=40, description="0-40: agreement in meaning with the reference answer")
    clarity: int = Field(ge=0, le=20, description="0-20: clear, complete, directly answers the question")
    confidence: float = Field(ge=0.0, le=1.0, description="how sure you are of this grade, 0-1")
    reasoning: str = Field(description="one or two sentences: what the answer got right and what it missed")


class Explanation(BaseModel):
    """What an explainer says about one graded answer, in parts: Tool 6 lays the parts
    out for the page and composes its prose explanation from them without repeating itself."""

    explanation: str = Field(
        default="",
        description="the key concepts involved and how to study them; never repeats why_correct or why_yours_is_wrong",
    )
    why_correct: str | None = Field(default=None, description="why the correct answer is correct (1-3 sentences)")
    why_yours_is_wrong: str | None = Field(
        default=None,
        description="only when the learner's answer is wrong: why the option they picked (or their answer) is "
        "wrong, 1-2 sentences; null when the answer is correct",
    )
    reference_links: list[ReferenceLink] = Field(
        default_factory=list, description="only links from the item's `sources`; none if it has none"
    )


class GradedExample(BaseModel):
    """A reviewed answer to the same question with the reviewer's grade (a model grader's example;
    never shown to a learner)."""

    answer: str
    score: int = Field(ge=0, le=100)
    correct: bool


class GradingItem(BaseModel):
    """What the grader and the explainer know about one answer."""

    question_type: QuestionType
    user_answer: str
    stem: str | None = None
    choices: list[str] = Field(default_factory=list)
    correct_answer: str | None = None
    correct_keywords: list[str] = Field(default_factory=list)
    keyword_matches: list[str] = Field(default_factory=list)
    reference_answer: str | None = Field(default=None, description="the model answer a correct answer agrees with")
    reference_explanation: str | None = Field(default=None, description="the explanation stored with the question")
    shown_texts: list[str] = Field(
        default_factory=list, description="choices and stems the learner was shown (copying them is no evidence)"
    )
    difficulty: int | None = None
    category: str | None = None
    is_correct: bool | None = None
    non_answer: bool = Field(
        default=False, description='short answers: no answer at all ("I don\'t know", the question copied back)'
    )
    sources: list[ReferenceLink] = Field(
        default_factory=list, description="the concept's real sources: the only references an explanation may cite"
    )
    choice_notes: list[ChoiceNote] = Field(
        default_factory=list, description="choice items: the concept each option was taken from"
    )
    graded_examples: list[GradedExample] = Field(
        default_factory=list,
        description="short answers: reviewed answers of the same item, for a model grader only (never explained)",
    )
