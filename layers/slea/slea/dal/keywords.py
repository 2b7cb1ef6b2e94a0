"""Difficulty keyword records. Key design: partition `difficulty` (number), sort `category`:
one record per (difficulty, category), read with a single GetItem."""

from dataclasses import dataclass
from typing import Any

from slea.dal.wire_format import from_item
from slea.platform.aws import dynamodb
from slea.platform.errors import storage_errors
from slea.platform.settings import resource_name

TABLE_VARIABLE = "KEYWORDS_TABLE"


@dataclass(frozen=True, slots=True)
class StoredKeywords:
    """A (difficulty, category) record as stored. Its lists' entries are as stored (Tool 3
    validates them with its contract); a list that is missing is empty, and a value stored
    where a list belongs is None (no list: the record is malformed)."""

    difficulty: int
    category: str
    keywords: tuple[Any, ...] | None
    concepts: tuple[Any, ...] | None
    example_questions: tuple[Any, ...] | None


def _entries(value: Any) -> tuple[Any, ...] | None:
    if value is None:
        return ()
    return tuple(value) if isinstance(value, list) else None


def stored_keywords(item: dict[str, Any]) -> StoredKeywords:
    """The record of a keywords item (as `wire_format.from_item` gives it)."""
    return StoredKeywords(
        difficulty=int(item["difficulty"]),  # the table's keys: every item has both
        category=str(item["category"]),
        keywords=_entries(item.get("keywords")),
        concepts=_entries(item.get("concepts")),
        example_questions=_entries(item.get("example_questions")),
    )


def get_record(difficulty: int, category: str) -> StoredKeywords | None:
    with storage_errors("keywords get"):
        response = dynamodb("get_difficulty_keywords").get_item(
            TableName=resource_name(TABLE_VARIABLE),
            Key={"difficulty": {"N": str(difficulty)}, "category": {"S": category}},
        )
    item = response.get("Item")
    return stored_keywords(from_item(item)) if item else None
