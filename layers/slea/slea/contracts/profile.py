"""Tool 1 `get_user_profile` contracts; `self_level` is beginner, intermediate or advanced."""

import re
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, Field
from pydantic_core import PydanticCustomError

from slea.constants import SCORE_MAX, YEARS_EXPERIENCE_MAX, Language, SelfLevel
from slea.contracts.common import Contract, OptionalExtras

_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def is_uuid(value: str) -> bool:
    return bool(_UUID.match(value.strip()))


def normalised_user_id(subject: str) -> str:
    """The one form of a caller's id: a UUID subject (a Cognito `sub`) lower-cased, since UUIDs
    are case-insensitive; any other subject as it is (OIDC subjects are case-sensitive). Sessions'
    owners, the daily quota and the rate limits all key on it, so case variants are one user."""
    candidate = subject.strip()
    return candidate.lower() if is_uuid(candidate) else subject


def _uuid_format(value: str) -> str:
    value = value.strip()
    if not value:
        raise PydanticCustomError("user_id", "user_id cannot be empty")
    if not _UUID.match(value):
        raise PydanticCustomError("user_id", "user_id must be valid UUID format")
    return value


UserId = Annotated[
    str, Field(strict=True, examples=["550e8400-e29b-41d4-a716-446655440000"]), AfterValidator(_uuid_format)
]


class GetUserProfileInput(Contract):
    user_id: UserId


class UserProfile(OptionalExtras):
    """The profile Tool 1 returns (also the fallback profile, echoing the caller's user_id)."""

    OMIT_WHEN_UNSET: ClassVar[tuple[str, ...]] = ("language",)

    user_id: str
    self_level: SelfLevel
    years_experience: int = Field(ge=0, le=YEARS_EXPERIENCE_MAX)
    job_role: str
    duty: str
    interests: list[str]
    previous_score: int = Field(ge=0, le=SCORE_MAX)
    language: Language | None = Field(default=None, description="the learner's language (en or ko); absent: en")


class SurveyRecord(UserProfile):
    """One submitted self-assessment survey as stored (a user may have many; the newest wins)."""

    user_id: UserId
    submitted_at: str = Field(min_length=1, description="ISO 8601 UTC, e.g. 2026-09-14T08:30:00Z")

    def key(self) -> dict[str, Any]:
        return {"user_id": self.user_id.lower(), "submitted_at": self.submitted_at}
