"""The local DynamoDB's answers to item reads and writes, written as JSON directly.

moto (5.2) writes every response by walking the operation's output shape in botocore's service
model, value by value, trying each member's aliases on the result. For an item read or write that
walk returns the result it was given: DynamoDB's JSON protocol carries items in the same
`{"S": …}` form moto already holds them in. Profiled over a test that plays two learners through
twelve rounds, that walk took about 30% of the test's time, more than everything moto's DynamoDB
itself did; the answers' `json.dumps` takes a small fraction of it.

So for the item operations (`ITEM_OPERATIONS`), a result made only of JSON's own types is written
with `json.dumps`, as moto's serializer would have written it. Anything else goes through moto's
serializer unchanged: errors, other operations (tables, exports, backups), and results holding
what JSON cannot carry as it is (bytes, which the protocol base64-encodes; datetimes; an infinite
number).

`CheckedFastResponses` writes each answer both ways and fails when they differ; a test runs a
whole learner's and reviewer's path under it, so a moto release that writes these answers
differently is found there. Production never runs this: it only wraps moto, for slea_local and
the tests built on it.
"""

import json
import math
from typing import Any
from unittest import mock

from slea_local.patches import Patches, moto_is_reviewed

# The moto release whose response writing this was read against (moto.core.serialize): another
# release keeps its own serializer, with a warning, until someone reads it again and updates this.
REVIEWED_MOTO_VERSION = "5.2.5"
ITEM_OPERATIONS = frozenset(
    {
        "GetItem",
        "PutItem",
        "UpdateItem",
        "DeleteItem",
        "Query",
        "Scan",
        "BatchGetItem",
        "BatchWriteItem",
        "TransactGetItems",
        "TransactWriteItems",
    }
)
CONTENT_TYPE = "application/x-amz-json-1.0"  # DynamoDB's protocol: JSON 1.0


def plain_json(value: Any) -> bool:
    """Whether `value` is made only of dicts with string keys, lists, strings, booleans and finite
    numbers, which JSON writes as they are. (An item's numbers are strings in DynamoDB's protocol;
    the numbers here are counts and consumed capacities, and none of the item operations' outputs
    holds a timestamp, the one kind of number the protocol writes in its own way.)"""
    if isinstance(value, str | bool | int):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(isinstance(key, str) and plain_json(inner) for key, inner in value.items())
    if isinstance(value, list):
        return all(plain_json(inner) for inner in value)
    return False


def fast_body(action: str, result: Any) -> str | None:
    """The response body for `result`, or None when moto's serializer must write it."""
    if action not in ITEM_OPERATIONS or isinstance(result, BaseException) or not plain_json(result):
        return None
    return json.dumps(result)


class FastResponses:
    """Writes the item operations' answers with `json.dumps` (see the module's docstring).
    `written` and `passed_on` count the answers written here and those left to moto."""

    def __init__(self) -> None:
        self.written = 0
        self.passed_on = 0
        self._patches = Patches()

    def start(self) -> None:
        from moto.dynamodb.responses import DynamoHandler

        if not moto_is_reviewed(
            "fast_responses", REVIEWED_MOTO_VERSION, "the local DynamoDB's answers go through moto's serializer"
        ):
            return
        original = DynamoHandler.serialized

        def serialized(handler: Any, action_result: Any) -> Any:
            return self._serialized(original, handler, action_result)

        self._patches.start(mock.patch.object(DynamoHandler, "serialized", serialized))

    def stop(self) -> None:
        self._patches.stop()

    @property
    def active(self) -> bool:
        return bool(self._patches)

    def _serialized(self, original: Any, handler: Any, action_result: Any) -> Any:
        body = fast_body(handler._get_action(), action_result.result)
        if body is None:
            self.passed_on += 1
            return original(handler, action_result)
        self.written += 1
        return 200, {"Content-Type": CONTENT_TYPE, **handler.response_headers}, body


class CheckedFastResponses(FastResponses):
    """Writes each answer both ways and raises AssertionError where they differ (as parsed JSON,
    with the same status and content type): what a test runs to show the two agree."""

    def __init__(self) -> None:
        super().__init__()
        self.compared: set[str] = set()  # the operations whose answers were compared

    def _serialized(self, original: Any, handler: Any, action_result: Any) -> Any:
        theirs = original(handler, action_result)
        ours = super()._serialized(lambda *_: theirs, handler, action_result)
        if ours is not theirs:
            action = handler._get_action()
            assert ours[0] == theirs[0], (action, ours[0], theirs[0])
            assert ours[1]["Content-Type"] == theirs[1]["Content-Type"], (action, ours[1], theirs[1])
            assert json.loads(ours[2]) == json.loads(theirs[2]), (action, ours[2], theirs[2])
            self.compared.add(action)
        return theirs
