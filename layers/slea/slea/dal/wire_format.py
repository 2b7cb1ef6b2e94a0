"""Conversion between plain JSON-like dicts and DynamoDB's attribute-value format.

The conversion is boto3's (boto3.dynamodb.types: TypeSerializer, TypeDeserializer), written
again here because importing that module imports the whole boto3 package (its sessions,
resources and S3 transfer manager), which nothing else the functions run needs: the clients are
botocore's (slea.platform.aws). It is the same mapping, type for type and in the same order of
checks, with the same number context; the one difference is that a binary value (B, BS) reads
back as bytes rather than boto3's Binary wrapper (nothing here stores binary values).
tests/unit/dal/test_wire_format.py checks it against boto3's own for every type.
"""

from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from decimal import Clamped, Context, Decimal, Inexact, Overflow, Rounded, Underflow
from typing import TYPE_CHECKING, Any

from slea.platform.errors import storage_errors

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

# DynamoDB's numbers: up to 38 significant digits, exponents from -130 to +125; a number that
# does not fit exactly raises rather than being rounded (boto3's DYNAMODB_CONTEXT).
DYNAMODB_CONTEXT = Context(Emin=-128, Emax=126, prec=38, traps=[Clamped, Overflow, Inexact, Rounded, Underflow])
_BINARY = (bytes, bytearray)


def _is_number(value: Any) -> bool:
    if isinstance(value, float):
        raise TypeError("Float types are not supported. Use Decimal types instead.")
    return isinstance(value, (int, Decimal))  # bool too, as boto3's (only inside a set: `serialize` checks BOOL first)


def _number(value: int | Decimal | str) -> str:
    number = str(DYNAMODB_CONTEXT.create_decimal(value))
    if number in ("Infinity", "NaN"):
        raise TypeError("Infinity and NaN not supported")
    return number


def serialize(value: Any) -> dict[str, Any]:  # noqa: PLR0911 - one return per type, in boto3's order
    """A Python value as a DynamoDB attribute value: None as NULL, bool as BOOL, int and Decimal
    as N (a float raises TypeError: `dynamo_numbers` first), str as S, bytes as B, a set of
    numbers, strings or bytes as NS, SS or BS, a mapping as M, a list or tuple as L."""
    if value is None:
        return {"NULL": True}
    if isinstance(value, bool):
        return {"BOOL": value}
    if _is_number(value):
        return {"N": _number(value)}
    if isinstance(value, str):
        return {"S": value}
    if isinstance(value, _BINARY):
        return {"B": bytes(value) if isinstance(value, bytearray) else value}
    if isinstance(value, AbstractSet):
        if all(_is_number(inner) for inner in value):  # as boto3: an empty set is a number set
            return {"NS": [_number(inner) for inner in value]}
        if all(isinstance(inner, str) for inner in value):
            return {"SS": list(value)}
        if all(isinstance(inner, _BINARY) for inner in value):
            return {"BS": list(value)}
    if isinstance(value, Mapping):
        return {"M": {key: serialize(inner) for key, inner in value.items()}}
    if isinstance(value, (list, tuple)):
        return {"L": [serialize(inner) for inner in value]}
    raise TypeError(f'Unsupported type "{type(value)}" for value "{value}"')


def deserialize(value: dict[str, Any]) -> Any:
    """A DynamoDB attribute value as a Python value: N as Decimal, NS and SS as sets, B as bytes."""
    if not value:
        raise TypeError("Value must be a nonempty dictionary whose key is a valid dynamodb type.")
    kind, inner = next(iter(value.items()))
    if kind not in _READERS:
        raise TypeError(f"Dynamodb type {kind} is not supported")
    return _READERS[kind](inner)


_READERS: dict[str, Callable[[Any], Any]] = {
    "S": lambda inner: inner,
    "N": DYNAMODB_CONTEXT.create_decimal,
    "M": lambda inner: {key: deserialize(item) for key, item in inner.items()},
    "L": lambda inner: [deserialize(item) for item in inner],
    "BOOL": lambda inner: inner,
    "NULL": lambda _: None,
    "SS": set,
    "NS": lambda inner: {DYNAMODB_CONTEXT.create_decimal(item) for item in inner},
    "B": bytes,
    "BS": lambda inner: {bytes(item) for item in inner},
}


def dynamo_numbers(value: Any) -> Any:
    """`value` with every float as Decimal, as `serialize` (and boto3's) requires for DynamoDB numbers."""
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
    return {key: serialize(dynamo_numbers(value)) for key, value in document.items() if value is not None}


def from_item(item: dict[str, Any]) -> dict[str, Any]:
    """A DynamoDB item as a plain dict with int/float numbers."""
    return {key: _to_json_numbers(deserialize(value)) for key, value in item.items()}


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
