"""Conversion between plain JSON-like dicts and DynamoDB's attribute-value format."""

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from boto3.dynamodb.types import TypeDeserializer, TypeSerializer

from slea.platform.errors import storage_errors

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

_serializer = TypeSerializer()
_deserializer = TypeDeserializer()


def dynamo_numbers(value: Any) -> Any:
    """`value` with every float as Decimal, as boto3 requires for DynamoDB numbers."""
    # DynamoDB numbers are decimals; str() keeps 0.1 as 0.1 rather than its binary expansion.
    if isinstance(value, float):
        return Decimal(str(value))
    if isinstance(value, dict):
        return {key: dynamo_numbers(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [dynamo_numbers(inner) for inner in value]
    return value


def _to_json_numbers(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, dict):
        return {key: _to_json_numbers(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [_to_json_numbers(inner) for inner in value]
    if isinstance(value, (set, frozenset)):  # a string set (e.g. review reasons): JSON has no sets
        return sorted(_to_json_numbers(inner) for inner in value)
    return value


def to_item(document: dict[str, Any]) -> dict[str, Any]:
    """A plain dict as a DynamoDB item; None values are left out rather than stored as NULL."""
    return {key: _serializer.serialize(dynamo_numbers(value)) for key, value in document.items() if value is not None}


def from_item(item: dict[str, Any]) -> dict[str, Any]:
    """A DynamoDB item as a plain dict with int/float numbers."""
    return {key: _to_json_numbers(_deserializer.deserialize(value)) for key, value in item.items()}


def query_all(client: "DynamoDBClient", **params: Any) -> list[dict[str, Any]]:
    """Every item a Query matches, following its pages, as plain dicts."""
    items: list[dict[str, Any]] = []
    for page in client.get_paginator("query").paginate(**params):
        items.extend(from_item(item) for item in page.get("Items", []))
    return items


def batch_get(
    client: "DynamoDBClient", request: dict[str, Any], operation: str, rounds: int | None = None
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, Any]]:
    """What a BatchGetItem request finds, by table (in DynamoDB's format), asking again for the
    keys DynamoDB leaves unprocessed under load (botocore does not): until none are left, or for
    at most `rounds` calls. Returns the items and the request still unprocessed then ({} if none)."""
    found: dict[str, list[dict[str, Any]]] = {}
    calls = 0
    while request and (rounds is None or calls < rounds):
        with storage_errors(operation):
            response = client.batch_get_item(RequestItems=request)
        calls += 1
        for table, items in response.get("Responses", {}).items():
            found.setdefault(table, []).extend(items)
        request = dict(response.get("UnprocessedKeys") or {})
    return found, request
