"""Learners whose answers misfit the model (person fit), kept for reviewers.

Two places, both in AbilitiesTable:
- one list record under the reserved partition `user_id` = "#review" (never a learner's id: those
  are UUIDs or OIDC subjects, never "#..."), entry "person-fit": the learners the last calibration
  run flagged, each with why, written whole by the run (a GetItem for the reviewers' page);
- on each of a flagged learner's ability records, a `review` map (why and when), beside the
  ability it never changes: the level stays what the learner's answers made it until a reviewer
  decides. The mark is removed when a later run no longer flags the learner.
"""

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


def flagged_learners(tool: str = TOOL) -> dict[str, dict[str, Any]]:
    """The learners the last run flagged, by user id: {reason, lz, exposure_z, answers, categories, flagged_at}."""
    with storage_errors("person fit list get"):
        item = dynamodb(tool).get_item(TableName=resource_name(TABLE_VARIABLE), Key=LIST_KEY).get("Item")
    return dict(from_item(item).get("learners") or {}) if item else {}


def write_flagged_learners(learners: dict[str, dict[str, Any]], at: str) -> None:
    with storage_errors("person fit list put"):
        dynamodb(TOOL).put_item(
            TableName=resource_name(TABLE_VARIABLE),
            Item=to_item({"user_id": "#review", "entry": "person-fit", "learners": learners, "updated_at": at}),
        )


def mark_ability(user_id: str, category: str, mark: dict[str, Any]) -> bool:
    """Set the review mark on an existing ability record (never creates one); False if there is none."""
    return _update(
        user_id,
        category,
        {
            "UpdateExpression": "SET #review = :mark",
            "ConditionExpression": "attribute_exists(user_id)",
            "ExpressionAttributeValues": to_item({":mark": mark}),
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
