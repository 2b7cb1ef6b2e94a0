"""Survey records. Key design: partition `user_id` (lower-case UUID), sort `submitted_at`
(ISO 8601 UTC, which sorts chronologically), so the latest survey is one Query, newest first.

`latest_survey_record` returns the frozen StoredSurvey; `latest_survey` still gives the plain item
to the callers not moved to the record yet."""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from slea.dal.wire_format import from_item
from slea.platform.aws import dynamodb
from slea.platform.errors import storage_errors
from slea.platform.settings import resource_name

TABLE_VARIABLE = "PROFILES_TABLE"


@dataclass(frozen=True, slots=True)
class StoredSurvey:
    """A learner's survey as stored: the language they chose (None: not said) and the whole of
    their answers, which the UserProfile contract and measurement.learner.prior_for read."""

    language: str | None
    answers: Mapping[str, Any]


def stored_survey(item: Mapping[str, Any]) -> StoredSurvey:
    """The record of a survey item (a plain dict, wire_format.from_item's)."""
    language = item.get("language")
    return StoredSurvey(language=None if language is None else str(language), answers=dict(item))


def latest_survey_record(user_id: str) -> StoredSurvey | None:
    """The user's most recent survey, or None if they never submitted one."""
    found = latest_survey(user_id)
    return stored_survey(found) if found else None


def latest_survey(user_id: str) -> dict[str, Any] | None:
    """The user's most recent survey as a plain dict, or None if they never submitted one."""
    with storage_errors("profiles query"):
        response = dynamodb("get_user_profile").query(
            TableName=resource_name(TABLE_VARIABLE),
            KeyConditionExpression="user_id = :user_id",
            ExpressionAttributeValues={":user_id": {"S": user_id.lower()}},
            ScanIndexForward=False,
            Limit=1,
        )
    items = response.get("Items", [])
    return from_item(items[0]) if items else None
