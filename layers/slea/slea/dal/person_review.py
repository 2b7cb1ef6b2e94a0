"""Learners whose answers misfit the model (person fit), kept for reviewers.

Two places, both in AbilitiesTable:
- one list record under the reserved partition `user_id` = "#review" (never a learner's id: those
  are UUIDs or OIDC subjects, never "#..."), entry "person-fit": the learners the last calibration
  run flagged, each with why, written whole by the run (a GetItem for the reviewers' page);
- on each of a flagged learner's ability records, a `review` map (why and when), beside the
  ability it never changes: the level stays what the learner's answers made it until a reviewer
  decides. The mark is removed when a later run no longer flags the learner.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from slea.dal.abilities import TABLE_VARIABLE, ability_entry
from slea.dal.wire_format import from_item, to_item
from slea.platform.aws import dynamodb
from slea.platform.errors import storage_errors
from slea.platform.settings import resource_name

TOOL = "calibrate_items"
LIST_KEY = {"user_id": {"S": "#review"}, "entry": {"S": "person-fit"}}
# Learners listed at most (the most aberrant first): far under DynamoDB's 400 KB per item.
LISTED_MAX = 500


@dataclass(frozen=True, slots=True)
class LearnerMark:
    """Why and when a run flagged a learner: the list's entry for them."""

    reason: str
    lz: float
    exposure_z: float | None
    answers: int
    categories: tuple[str, ...]  # where their ability records carry the mark
    flagged_at: str


def _mark(stored: Mapping[str, Any]) -> LearnerMark:
    exposure_z = stored.get("exposure_z")
    return LearnerMark(
        reason=str(stored.get("reason") or ""),
        lz=float(stored.get("lz") or 0.0),
        exposure_z=None if exposure_z is None else float(exposure_z),
        answers=int(stored.get("answers") or 0),
        categories=tuple(str(category) for category in stored.get("categories") or ()),
        flagged_at=str(stored.get("flagged_at") or ""),
    )


def _mark_map(mark: LearnerMark) -> dict[str, Any]:
    return {
        "reason": mark.reason,
        "lz": mark.lz,
        "exposure_z": mark.exposure_z,
        "answers": mark.answers,
        "categories": list(mark.categories),
        "flagged_at": mark.flagged_at,
    }


def flagged_learners(tool: str = TOOL) -> dict[str, LearnerMark]:
    """The learners the last run flagged, by user id."""
    with storage_errors("person fit list get"):
        item = dynamodb(tool).get_item(TableName=resource_name(TABLE_VARIABLE), Key=LIST_KEY).get("Item")
    listed = from_item(item).get("learners") if item else None
    return {str(user_id): _mark(mark) for user_id, mark in (listed or {}).items()}


def write_flagged_learners(learners: Mapping[str, LearnerMark], at: str) -> None:
    listed = {user_id: _mark_map(mark) for user_id, mark in learners.items()}
    with storage_errors("person fit list put"):
        dynamodb(TOOL).put_item(
            TableName=resource_name(TABLE_VARIABLE),
            Item=to_item({"user_id": "#review", "entry": "person-fit", "learners": listed, "updated_at": at}),
        )


def mark_ability(user_id: str, category: str, mark: LearnerMark) -> bool:
    """Set the review mark (why, when, by person fit) on an existing ability record (never creates
    one); False if there is none."""
    stored = {"reason": mark.reason, "flagged_at": mark.flagged_at, "source": "person_fit"}
    return _update(
        user_id,
        category,
        {
            "UpdateExpression": "SET #review = :mark",
            "ConditionExpression": "attribute_exists(user_id)",
            "ExpressionAttributeValues": to_item({":mark": stored}),
        },
    )


def clear_ability(user_id: str, category: str) -> bool:
    """Remove the review mark; False if the record has none."""
    return _update(
        user_id, category, {"UpdateExpression": "REMOVE #review", "ConditionExpression": "attribute_exists(#review)"}
    )


def _update(user_id: str, category: str, expression: dict[str, Any]) -> bool:
    with storage_errors("ability review mark"):
        try:
            dynamodb(TOOL).update_item(
                TableName=resource_name(TABLE_VARIABLE),
                Key={"user_id": {"S": user_id}, "entry": {"S": ability_entry(category)}},
                ExpressionAttributeNames={"#review": "review"},
                **expression,
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                return False
            raise
    return True
