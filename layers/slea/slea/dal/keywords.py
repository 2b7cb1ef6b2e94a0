"""Difficulty keyword records. Key design: partition `difficulty` (number), sort `category`:
one record per (difficulty, category), read with a single GetItem."""

from typing import Any

from slea.dal.wire_format import from_item
from slea.platform.aws import dynamodb
from slea.platform.errors import storage_errors
from slea.platform.settings import resource_name

TABLE_VARIABLE = "KEYWORDS_TABLE"


def get_record(difficulty: int, category: str) -> dict[str, Any] | None:
    with storage_errors("keywords get"):
        response = dynamodb("get_difficulty_keywords").get_item(
            TableName=resource_name(TABLE_VARIABLE),
            Key={"difficulty": {"N": str(difficulty)}, "category": {"S": category}},
        )
    item = response.get("Item")
    return from_item(item) if item else None
