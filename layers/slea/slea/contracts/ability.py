"""What a learner sees of their own measured ability: GET /learners/me/ability, the
summary's `ability`, and the MCP tool get_ability.

theta and se are on the logit scale of slea.measurement (the item difficulties' scale); `level`
is the word slea.measurement.scale.level_of gives theta."""

from typing import Literal

from pydantic import Field

from slea.constants import CATEGORY_MAX_LENGTH
from slea.contracts.common import Contract

PointEvent = Literal["answer", "review", "skipped"]
HISTORY_POINTS_MAX = 200  # the newest points of all categories: a chart's worth, one small response


class SessionAbility(Contract):
    """The learner's ability in one category as it stands now."""

    category: str
    theta: float = Field(description="ability on the logit scale (0: an item of difficulty 0 is a coin toss)")
    se: float = Field(ge=0, description="standard error of theta: theta +- 1.96 se holds the ability 95% of the time")
    level: str = Field(description="theta in words (slea.measurement.scale.LEVELS)")
    answers: int = Field(ge=0, description="graded answers the estimate rests on")
    skipped: int = Field(
        default=0,
        ge=0,
        description="items left unanswered when their round was over: counted in the estimate as wrong",
    )
    pending_review: int = Field(
        default=0,
        ge=0,
        description="answers counted provisionally while a reviewer has yet to grade them (short answers the"
        " grader was unsure of): the estimate may move when they are reviewed",
    )


class AbilityView(SessionAbility):
    updated_at: str
    answers_to_precision: int = Field(
        ge=0, description="about how many more well-targeted answers bring se down to 0.3 (0: precise already)"
    )


class AbilityPoint(Contract):
    """The ability in a category as it stood resting on `answers` graded answers: just after the
    answer, or after a reviewer's correction made before the next one (one point per answer)."""

    at: str
    category: str
    theta: float
    se: float = Field(ge=0)
    answers: int = Field(ge=0, description="graded answers the estimate rests on: the point's answer number")
    event: PointEvent = Field(
        default="answer",
        description="what made the point: an answer (its estimate as stored then, never changed later), a"
        " reviewer's change of a grade, or questions left unanswered counted as wrong (each a later point of"
        " its own, resting on the same answers as the answer before it)",
    )


class LearnerAbility(Contract):
    abilities: list[AbilityView] = Field(description="one per category the learner has been graded in")
    history: list[AbilityPoint] = Field(
        description=f"oldest first: the newest {HISTORY_POINTS_MAX} points of all categories, one per answer as"
        " stored when it was graded, and one per later re-estimate (`event`), so a point once shown never changes"
        " (a category's last point is its current estimate, and its `answers` the ability's)"
    )


class AgentAbilityInput(Contract):
    """get_ability over MCP: always the caller's own ability; optionally one category only."""

    category: str | None = Field(default=None, min_length=1, max_length=CATEGORY_MAX_LENGTH)
