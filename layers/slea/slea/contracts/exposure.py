"""What a learner has been shown in a session (and met in recent ones), carried through a Mode 1
round so that the bank draw, the generator and the collection of drafts judge new items against
the same record (security/exposure.py holds the rules)."""

from pydantic import Field

from slea.constants import QuestionType
from slea.contracts.common import Contract


class Fact(Contract):
    """A concept the learner may have been told about: its name with its definition."""

    name: str
    definition: str = ""


class ShownItem(Contract):
    """An item of the session, with what answering it may tell: its key, explanation and model
    answer, and the concepts (`facts`) its feedback names: its own, and the option picked (or, before
    it is answered, every option's)."""

    type: QuestionType
    stem: str
    choices: list[str] = Field(default_factory=list)
    correct_answer: str | None = None
    correct_keywords: list[str] = Field(default_factory=list)
    reference_answer: str = ""
    explanation: str = ""
    concept: str | None = Field(default=None, description="the concept the item tests, if known")
    facts: list[Fact] = Field(default_factory=list)
    answered: bool = Field(default=False, description="answered: its facts were told, not merely possible")


class SessionExposure(Contract):
    shown: list[ShownItem] = Field(default_factory=list, description="the session's items, in the order shown")
    recent: list[str] = Field(
        default_factory=list,
        description="fingerprints (stem; concept and key) of the items of the learner's recent sessions in the "
        "category, newest last",
    )
    practice: bool = Field(default=True, description="a practice round avoids the recent items; a placement round not")
