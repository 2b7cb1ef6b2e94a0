"""slea.dal.wire_format's conversion to and from DynamoDB's attribute values, checked against
boto3's own (boto3.dynamodb.types, which the layer no longer imports) for every DynamoDB type:
the same attribute values, the same Python values read back (but bytes for boto3's Binary),
the same errors."""

from decimal import Decimal
from typing import Any

import pytest
from boto3.dynamodb.types import Binary, TypeDeserializer, TypeSerializer

from slea.dal import wire_format
from slea.dal.wire_format import deserialize, from_item, serialize, to_item


def stable_id(value: Any) -> str:
    """A test id that does not depend on the hash seed (a set's repr does): pytest-xdist's
    workers must collect the same ids."""
    if isinstance(value, (set, frozenset)):
        return f"{type(value).__name__}({sorted(map(repr, value))})"
    if type(value) is object:  # its repr carries its address
        return "object()"
    return repr(value)


VALUES: list[Any] = [
    None,  # NULL
    True,  # BOOL
    False,
    "",  # S
    "한국어 text",
    0,  # N
    -17,
    10**37,
    Decimal("0.1"),
    Decimal("-1.5E-7"),
    Decimal("12345678901234567890123456789012345678"),  # 38 digits: the most DynamoDB keeps
    Decimal("1E+125"),
    b"\x00\xffbytes",  # B
    bytearray(b"more"),
    {"flagged", "reported"},  # SS
    frozenset({"one"}),
    {1, Decimal("2.5"), -3},  # NS
    {True},  # a set of bools is a number set, as in boto3
    set(),  # an empty set is an (invalid) number set, as in boto3
    {b"a", b"b"},  # BS
    [],  # L
    [1, "two", None, [Decimal("3.5")], {"four": True}],
    ("a", 1),  # a tuple is a list
    {},  # M
    {"nested": {"deeper": [{"n": 1, "s": "x", "ss": {"a"}}]}, "null": None, "bool": False},
]


def _sets_as_sorted_lists(value: Any) -> Any:
    """Attribute values with sets' members in a fixed order (a set's serialized order is its iteration order)."""
    if isinstance(value, dict):
        return {
            key: sorted(inner) if key in {"SS", "NS", "BS"} else _sets_as_sorted_lists(inner)
            for key, inner in value.items()
        }
    if isinstance(value, list):
        return [_sets_as_sorted_lists(inner) for inner in value]
    return value


def _without_binary(value: Any) -> Any:
    """boto3's deserialized value with its Binary wrappers as the bytes they hold."""
    if isinstance(value, Binary):
        return value.value
    if isinstance(value, dict):
        return {key: _without_binary(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [_without_binary(inner) for inner in value]
    if isinstance(value, (set, frozenset)):
        return {_without_binary(inner) for inner in value}
    return value


@pytest.mark.parametrize("value", VALUES, ids=stable_id)
def test_a_value_is_serialized_as_boto3_serializes_it(value: Any) -> None:
    ours = serialize(value)
    assert _sets_as_sorted_lists(ours) == _sets_as_sorted_lists(TypeSerializer().serialize(value))
    assert type(ours) is dict
    assert len(ours) == 1


@pytest.mark.parametrize("value", VALUES, ids=stable_id)
def test_an_attribute_value_is_read_back_as_boto3_reads_it(value: Any) -> None:
    attribute = TypeSerializer().serialize(value)
    ours = deserialize(attribute)
    assert ours == _without_binary(TypeDeserializer().deserialize(attribute))
    if isinstance(value, (bytes, bytearray)):
        assert type(ours) is bytes  # not boto3's Binary wrapper


def test_every_dynamodb_type_is_covered() -> None:
    kinds = {next(iter(serialize(value))) for value in VALUES}
    assert kinds == {"NULL", "BOOL", "S", "N", "B", "SS", "NS", "BS", "L", "M"}


def test_a_number_is_read_as_a_decimal_in_dynamodbs_context() -> None:
    read = deserialize({"N": "0.1"})
    assert isinstance(read, Decimal)
    assert read == Decimal("0.1")
    assert deserialize({"NS": ["1", "2.50"]}) == {Decimal(1), Decimal("2.5")}


@pytest.mark.parametrize(
    "value",
    [
        1.5,  # a float: dynamo_numbers makes it a Decimal first
        [1.5],
        {1.5},
        Decimal("1234567890123456789012345678901234567890.1"),  # more digits than DynamoDB keeps
        Decimal("Infinity"),
        Decimal("NaN"),
        Decimal("1E+200"),
        object(),
        {"mixed", 1},  # neither a string set nor a number set
    ],
    ids=stable_id,
)
def test_what_boto3_refuses_is_refused(value: Any) -> None:
    with pytest.raises((TypeError, ArithmeticError)) as boto3s:  # decimal's traps are ArithmeticErrors
        TypeSerializer().serialize(value)
    with pytest.raises(type(boto3s.value)):
        serialize(value)


@pytest.mark.parametrize("attribute", [{}, {"X": "1"}], ids=repr)
def test_an_unknown_attribute_value_is_refused(attribute: dict[str, Any]) -> None:
    with pytest.raises(TypeError):
        TypeDeserializer().deserialize(attribute)
    with pytest.raises(TypeError):
        deserialize(attribute)


def test_items_round_trip_as_plain_json_values() -> None:
    document = {
        "id": "q-1",
        "score": 0.1,
        "count": 3,
        "passed": True,
        "reasons": {"reported", "flagged"},
        "prints": {3, 1},
        "choices": [{"text": "a", "weight": 0.25}],
        "absent": None,
    }
    item = to_item(document)
    assert "absent" not in item  # None at the top level is left out, not stored as NULL
    assert item["score"] == {"N": "0.1"}  # a float stored as its decimal text, not its binary expansion
    assert item["choices"] == {"L": [{"M": {"text": {"S": "a"}, "weight": {"N": "0.25"}}}]}
    assert from_item(item) == {
        "id": "q-1",
        "score": 0.1,
        "count": 3,
        "passed": True,
        "reasons": ["flagged", "reported"],  # sets read back as sorted lists
        "prints": [1, 3],
        "choices": [{"text": "a", "weight": 0.25}],
    }


def test_the_number_context_is_boto3s() -> None:
    from boto3.dynamodb.types import DYNAMODB_CONTEXT

    ours = wire_format.DYNAMODB_CONTEXT
    assert (ours.prec, ours.Emin, ours.Emax) == (DYNAMODB_CONTEXT.prec, DYNAMODB_CONTEXT.Emin, DYNAMODB_CONTEXT.Emax)
    assert {trap for trap, on in ours.traps.items() if on} == {
        trap for trap, on in DYNAMODB_CONTEXT.traps.items() if on
    }
