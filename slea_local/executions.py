"""Running the state machines of template.yaml on moto's Step Functions interpreter (the real
ASL, no Docker): Lambda tasks are dispatched to the in-process handlers of LocalRuntime."""

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any
from unittest import mock

import boto3
from moto.awslambda_simple.models import LambdaSimpleBackend
from moto.stepfunctions.parser.asl.component.common.retry import retrier_decl

from slea_local.cloud import REGION
from slea_local.patches import Patches
from slea_local.runtime import LocalRuntime


@dataclass
class Execution:
    arn: str
    status: str
    output: Any = None
    error: str | None = None
    cause: str | None = None
    events: list[dict[str, Any]] = field(default_factory=list)

    @property
    def states_entered(self) -> list[str]:
        """The execution's path through the states, in order."""
        return [
            event["stateEnteredEventDetails"]["name"] for event in self.events if event["type"].endswith("StateEntered")
        ]

    @property
    def transitions(self) -> int:
        return len(self.states_entered)


class LocalStepFunctions:
    """Use as a context manager around executions:

    with LocalStepFunctions(runtime) as sfn:
        execution = sfn.run("GenerateRoundStateMachine", {...})
    """

    def __init__(self, runtime: LocalRuntime, wait_on_retry: bool = False) -> None:
        self.runtime = runtime
        self.wait_on_retry = wait_on_retry
        self.retry_waits: list[float] = []  # seconds each Retry would have slept
        self._patches = Patches()

    def __enter__(self) -> "LocalStepFunctions":
        self._patches.start(mock.patch.object(LambdaSimpleBackend, "invoke", self._invoke_lambda, create=False))
        if not self.wait_on_retry:
            self._patches.start(mock.patch.object(retrier_decl, "time", SimpleNamespace(sleep=self.retry_waits.append)))
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.wait_for_running()
        self._patches.stop()

    def wait_for_running(self, timeout: float = 120) -> None:
        """Let executions started in the background (e.g. by the HTTP API) finish: their tasks
        must not outlive the local cloud they run against."""
        client = boto3.client("stepfunctions", region_name=REGION)
        deadline = time.monotonic() + timeout
        for logical_id in self.runtime.cloud.template.of_type("AWS::Serverless::StateMachine"):
            arn = self.runtime.cloud.physical_names[logical_id]
            while client.list_executions(stateMachineArn=arn, statusFilter="RUNNING")["executions"]:
                if time.monotonic() > deadline:
                    raise TimeoutError("background executions still RUNNING")
                time.sleep(0.05)

    def _invoke_lambda(
        self, function_name: str, qualifier: Any, body: Any, headers: Any, response_headers: Any
    ) -> bytes:
        """What the Lambda service returns for one invoke: the handler's result, or a function
        error whose errorType is the exception's class (Step Functions matches Retry/Catch on it)."""
        name = function_name.rsplit(":", 1)[-1].removeprefix(f"{self.runtime.cloud.stack_name}-")
        event = json.loads(body) if body else {}
        try:
            result = self.runtime.invoke(name, event)
        except Exception as error:  # reported to Step Functions, exactly like Lambda's "Unhandled"
            response_headers["x-amz-function-error"] = "Unhandled"
            return json.dumps({"errorType": type(error).__name__, "errorMessage": str(error)}).encode()
        return json.dumps(result).encode()

    def run(
        self,
        state_machine: str,
        execution_input: dict[str, Any],
        name: str,
        timeout: float = 120,
        on_state: Callable[[str], None] | None = None,
    ) -> Execution:
        """Start an execution with an explicit name and watch it until it leaves RUNNING."""
        arn = boto3.client("stepfunctions", region_name=REGION).start_execution(
            stateMachineArn=self.runtime.cloud.physical_names[state_machine],
            name=name,
            input=json.dumps(execution_input),
        )["executionArn"]
        return self.watch(arn, timeout, on_state)

    def watch(self, arn: str, timeout: float = 120, on_state: Callable[[str], None] | None = None) -> Execution:
        """Poll an execution until it leaves RUNNING, calling `on_state` with each state's name
        as the execution enters it."""
        client = boto3.client("stepfunctions", region_name=REGION)
        deadline = time.monotonic() + timeout
        reported = 0
        while True:
            described = client.describe_execution(executionArn=arn)
            events: list[Any] = client.get_execution_history(executionArn=arn, maxResults=1000)["events"]
            entered = Execution(arn, described["status"], events=events).states_entered
            for state in entered[reported:]:
                if on_state is not None:
                    on_state(state)
            reported = len(entered)
            # moto's interpreter thread marks an execution SUCCEEDED a moment before it stores
            # the output: a busy machine (tests on every core) can read between the two.
            settled = described["status"] != "SUCCEEDED" or described.get("output") is not None
            if described["status"] != "RUNNING" and settled:
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"execution {arn} still RUNNING after {timeout} s")
            time.sleep(0.05)
        return Execution(
            arn=arn,
            status=described["status"],
            output=json.loads(described["output"]) if described.get("output") else None,
            error=described.get("error"),
            cause=described.get("cause"),
            events=events,
        )
