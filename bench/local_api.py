"""The local stack that the benchmarks of simulated learners play through the HTTP API: the demo-seeded
local AWS, its state machines on moto's interpreter, and the HTTP API served on localhost, with the
per-user rate limits lifted (the learners answer at machine speed, as in the tests)."""

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any
from unittest import mock


@dataclass(frozen=True)
class LocalApi:
    aws: Any  # slea_local.demo_aws.SeededAWS
    step_functions: Any  # slea_local.executions.LocalStepFunctions, on aws.runtime
    base: str  # the HTTP API's URL

    def table(self, logical_id: str) -> Any:
        """A table of template.yaml by its logical id (a boto3 resource)."""
        import boto3

        return boto3.resource("dynamodb").Table(self.aws.cloud.table_name(logical_id))

    def folding(self) -> Callable[[], None]:
        """fold(): what AWS does between two rounds in the background, done now: the executions
        started finish, and the attempts table's stream is folded into the statistics."""
        from slea_local.runtime import StreamPoller

        poller = StreamPoller(self.step_functions.runtime, "AttemptsTable")

        def fold() -> None:
            self.step_functions.wait_for_running()
            poller.drain()

        return fold


@contextmanager
def local_api() -> Iterator[LocalApi]:
    from slea.security import rate_limits
    from slea_local.demo_aws import seeded_local_aws
    from slea_local.executions import LocalStepFunctions
    from slea_local.http import serve_in_background

    unlimited = rate_limits.Limit(burst=10_000, interval_seconds=0.001)
    with ExitStack() as stack:
        stack.enter_context(mock.patch.object(rate_limits, "limit", return_value=unlimited))
        aws = stack.enter_context(seeded_local_aws())
        step_functions = stack.enter_context(LocalStepFunctions(aws.runtime))
        yield LocalApi(aws, step_functions, stack.enter_context(serve_in_background(step_functions.runtime)))
