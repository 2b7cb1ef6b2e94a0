"""Question templates. Key design: partition `id`; a sparse global secondary index keyed by
`search_key` = "{category}#{domain, case-folded}" with `avg_difficulty_score` as sort key.
Only active templates that have been used (usage_count > 0) carry `search_key`, so the index
holds exactly Tool 2's candidates and a search reads one difficulty window per interest,
however large the table grows. A second index, `template-stems` on `stem_digest`, finds the
templates with a given stem (a reviewer retiring a question deactivates them)."""

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from slea.dal.wire_format import query_all
from slea.platform.aws import dynamodb
from slea.platform.errors import storage_errors
from slea.platform.settings import resource_name

TABLE_VARIABLE = "TEMPLATES_TABLE"
INDEX_VARIABLE = "TEMPLATES_SEARCH_INDEX"


def search_key(category: str, domain: str) -> str:
    return f"{category}#{domain.strip().casefold()}"


def stem_digest(stem: str) -> str:
    """A stem as an index key (a stem may be longer than a key may be): spacing and case aside."""
    return hashlib.sha256(" ".join(stem.split()).casefold().encode()).hexdigest()[:32]


def with_search_key(template: dict[str, Any]) -> dict[str, Any]:
    """The template with `search_key` set if it belongs in the search index, removed if not,
    and the `stem_digest` of its stem."""
    stored = {key: value for key, value in template.items() if key != "search_key"}
    if isinstance(stored.get("stem"), str):
        stored["stem_digest"] = stem_digest(stored["stem"])
    if stored.get("is_active", True) and stored.get("usage_count", 0) > 0:
        stored["search_key"] = search_key(stored["category"], stored["domain"])
    return stored


@dataclass(frozen=True, slots=True)
class StoredTemplate:
    """A stored template as Tool 2's search re-checks it: the fields it filters on, typed (a
    missing score is None, a missing count 0; `is_active` holds unless stored as anything but
    true), and the whole item as stored, which Tool 2 validates as its contract's template."""

    category: str | None
    domain: str
    avg_difficulty_score: float | None
    usage_count: int
    is_active: bool
    as_stored: Mapping[str, Any] = field(compare=False, repr=False)


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float | Decimal) and not isinstance(value, bool) else None


def stored_template(item: Mapping[str, Any]) -> StoredTemplate:
    """The record of a template item (as `wire_format.from_item` gives it)."""
    category = item.get("category")
    return StoredTemplate(
        category=None if category is None else str(category),
        domain=str(item.get("domain", "")),
        avg_difficulty_score=_number(item.get("avg_difficulty_score")),
        usage_count=int(_number(item.get("usage_count")) or 0),
        is_active=item.get("is_active", True) is True,
        as_stored=dict(item),
    )


def query_candidates(category: str, domains: list[str], low: float, high: float) -> list[StoredTemplate]:
    """Templates of `category` in any of `domains` whose avg_difficulty_score is in [low, high]."""
    client = dynamodb("search_question_templates")
    table, index = resource_name(TABLE_VARIABLE), resource_name(INDEX_VARIABLE)
    keys = dict.fromkeys(search_key(category, domain) for domain in domains)
    candidates: list[dict[str, Any]] = []
    with storage_errors("templates query"):
        for key in keys:
            candidates += query_all(
                client,
                TableName=table,
                IndexName=index,
                KeyConditionExpression="search_key = :key AND avg_difficulty_score BETWEEN :low AND :high",
                ExpressionAttributeValues={
                    ":key": {"S": key},
                    ":low": {"N": str(Decimal(str(low)))},
                    ":high": {"N": str(Decimal(str(high)))},
                },
            )
    return [stored_template(item) for item in candidates]
