"""The round-generation state machine's executions: started by name (`start`), and read back as
a typed record of DescribeExecution's answer, built in one place (`describe`)."""

import datetime
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from slea.platform.aws import stepfunctions
from slea.platform.settings import resource_name

STATE_MACHINE_VARIABLE = "GENERATE_ROUND_STATE_MACHINE_ARN"


class ExecutionExists(Exception):
    """An execution of that name was started before (names are unique per state machine)."""


@dataclass(frozen=True, slots=True)
class DescribedExecution:
    """What DescribeExecution says of an execution: its status, when it stopped (None while it
    runs), its output (JSON, a SUCCEEDED execution's) and a FAILED one's error name."""

    status: str
    stopped_at: datetime.datetime | None = None
    output: str | None = None
    error: str | None = None


def describe(arn: str, tool: str = "api") -> DescribedExecution | None:
    """The execution `arn`, None if it does not exist. Any other failure of the call (botocore's
    ClientError or BotoCoreError) is raised for the caller to report."""
    try:
        described = stepfunctions(tool).describe_execution(executionArn=arn)
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") == "ExecutionDoesNotExist":
            return None
        raise
    stopped = described.get("stopDate")
    output, error_name = described.get("output"), described.get("error")
    return DescribedExecution(
        status=str(described["status"]),
        stopped_at=stopped if isinstance(stopped, datetime.datetime) else None,
        output=output or None,
        error=error_name or None,
    )


def execution_arn(name: str) -> str:
    """The ARN of the execution `name` of the round-generation state machine (started or not)."""
    machine = resource_name(STATE_MACHINE_VARIABLE)
    return f"{machine.replace(':stateMachine:', ':execution:', 1)}:{name}"


def start(name: str, execution_input: Mapping[str, Any], tool: str = "api") -> str:
    """Start the execution `name` of the round-generation state machine with `execution_input`;
    its ARN. ExecutionExists if one of that name was started before; any other failure of the
    call (botocore's ClientError or BotoCoreError) is raised for the caller to report."""
    try:
        started = stepfunctions(tool).start_execution(
            stateMachineArn=resource_name(STATE_MACHINE_VARIABLE), name=name, input=json.dumps(execution_input)
        )
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") == "ExecutionAlreadyExists":
            raise ExecutionExists(name) from error
        raise
    return str(started["executionArn"])
