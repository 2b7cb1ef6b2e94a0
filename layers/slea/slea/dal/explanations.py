"""Cached explanations of MC/TF questions: one per (question, correct or not, prompt version,
content digest), so answers to the same question reuse it instead of calling the LLM again. Key
design: partition `question_id`, sort `variant` = "{correct|incorrect}#{prompt version}#{digest}"."""

from typing import Any

from slea.dal.conditional import applied
from slea.dal.wire_format import from_item, to_item
from slea.platform.aws import dynamodb
from slea.platform.errors import storage_errors
from slea.platform.settings import resource_name

TABLE_VARIABLE = "EXPLANATIONS_TABLE"
TOOL = "score_and_explain"


def get_explanation(question_id: str, variant: str) -> dict[str, Any] | None:
    with storage_errors("explanations get"):
        response = dynamodb(TOOL).get_item(
            TableName=resource_name(TABLE_VARIABLE),
            Key={"question_id": {"S": question_id}, "variant": {"S": variant}},
        )
    item = response.get("Item")
    return from_item(item) if item else None


def put_explanation(question_id: str, variant: str, explanation: dict[str, Any]) -> None:
    """First writer wins: concurrent graders may both generate, but one explanation is kept."""
    with storage_errors("explanations put"):
        applied(
            dynamodb(TOOL).put_item,
            TableName=resource_name(TABLE_VARIABLE),
            Item=to_item({"question_id": question_id, "variant": variant, **explanation}),
            ConditionExpression="attribute_not_exists(question_id)",
        )


def cache_put(question_id: str, variant: str, explanation: dict[str, Any]) -> dict[str, Any]:
    """The cache entry as an item of the answer's recording transaction (dal/attempts.py). No
    condition: a condition that failed would cancel the grade with it."""
    return {
        "Put": {
            "TableName": resource_name(TABLE_VARIABLE),
            "Item": to_item({"question_id": question_id, "variant": variant, **explanation}),
        }
    }
