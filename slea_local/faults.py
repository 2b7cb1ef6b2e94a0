"""Fault injection for the local runtime: make a tool's DynamoDB calls fail at the SDK's
transport (botocore's `before-send`), so the code under test sees exactly what it would see in
AWS, including botocore's own retries of timeouts."""

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from botocore.exceptions import ClientError, ReadTimeoutError

TIMEOUT = "timeout"


class InjectedFaults:
    def __init__(self) -> None:
        self.attempts: Counter[str] = Counter()

    @contextmanager
    def dynamodb(self, tool: str, operation: str, error: str = TIMEOUT, times: int | None = None) -> Iterator[None]:
        """Fail the tool's `operation` (e.g. "Query") `times` times (every time if None) with a read
        timeout (retried by botocore) or a DynamoDB error code (e.g. "ResourceNotFoundException")."""
        from slea.aws import dynamodb

        events = dynamodb(tool).meta.events
        event_name = f"before-send.dynamodb.{operation}"

        def fail(request: Any, **_: Any) -> None:
            self.attempts[operation] += 1
            if times is not None and self.attempts[operation] > times:
                return
            if error == TIMEOUT:
                raise ReadTimeoutError(endpoint_url=request.url)
            raise ClientError({"Error": {"Code": error, "Message": "injected fault"}}, operation)

        events.register_first(event_name, fail)
        try:
            yield
        finally:
            events.unregister(event_name, fail)


class RecordedCalls:
    """What a tool asked of DynamoDB: calls per operation and items read (ScannedCount)."""

    def __init__(self) -> None:
        self.operations: Counter[str] = Counter()
        self.items_read = 0


@contextmanager
def recorded_dynamodb_calls(tool: str) -> Iterator[RecordedCalls]:
    from slea.aws import dynamodb

    events = dynamodb(tool).meta.events
    recorded = RecordedCalls()

    def after_call(model: Any, parsed: dict[str, Any], **_: Any) -> None:
        recorded.operations[model.name] += 1
        recorded.items_read += int(parsed.get("ScannedCount", parsed.get("Count", 0)))
        if "Item" in parsed:
            recorded.items_read += 1

    events.register("after-call.dynamodb", after_call)
    try:
        yield recorded
    finally:
        events.unregister("after-call.dynamodb", after_call)
