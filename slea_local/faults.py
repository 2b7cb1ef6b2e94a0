"""Fault injection for the local runtime: make a tool's DynamoDB calls fail at the SDK's
transport (botocore's `before-send`), so the code under test sees exactly what it would see in
AWS, including botocore's own retries of timeouts."""

from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from botocore.exceptions import ClientError, ReadTimeoutError

TIMEOUT = "timeout"


class InjectedFaults:
    def __init__(self) -> None:
        self.attempts: Counter[str] = Counter()
        self.failures: Counter[str] = Counter()

    @contextmanager
    def dynamodb(
        self,
        tool: str,
        operation: str,
        error: str = TIMEOUT,
        times: int | None = None,
        when: Callable[[], bool] | None = None,
    ) -> Iterator[None]:
        """Fail the tool's DynamoDB `operation` (e.g. "Query") with a read timeout (retried by
        botocore) or a DynamoDB error code (e.g. "ResourceNotFoundException"): the first
        `times` attempts (every attempt if None), or the attempts for which `when()` is true."""
        from slea.platform.aws import dynamodb

        with self._failing(dynamodb(tool), "dynamodb", operation, error=error, times=times, when=when):
            yield

    @contextmanager
    def sqs(self, tool: str, operation: str, error: str = TIMEOUT, times: int | None = None) -> Iterator[None]:
        from slea.platform.aws import sqs

        with self._failing(sqs(tool), "sqs", operation, error=error, times=times, when=None):
            yield

    @contextmanager
    def _failing(
        self,
        client: Any,
        service: str,
        operation: str,
        *,
        error: str,
        times: int | None,
        when: Callable[[], bool] | None,
    ) -> Iterator[None]:
        event_name = f"before-send.{service}.{operation}"

        def fail(request: Any, **_: Any) -> None:
            self.attempts[operation] += 1
            if times is not None and self.attempts[operation] > times:
                return
            if when is not None and not when():
                return
            self.failures[operation] += 1
            if error == TIMEOUT:
                raise ReadTimeoutError(endpoint_url=request.url)
            raise ClientError({"Error": {"Code": error, "Message": "injected fault"}}, operation)

        client.meta.events.register_first(event_name, fail)
        try:
            yield
        finally:
            client.meta.events.unregister(event_name, fail)


class RecordedCalls:
    """What a tool asked of DynamoDB: calls per operation and items read (ScannedCount)."""

    def __init__(self) -> None:
        self.operations: Counter[str] = Counter()
        self.items_read = 0


@contextmanager
def recorded_dynamodb_calls(tool: str) -> Iterator[RecordedCalls]:
    from slea.platform.aws import dynamodb

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
