"""A state machine's execution as its callers read it: DescribeExecution's answer as a typed
record, built in one place (`describe`)."""

import datetime
from dataclasses import dataclass

from botocore.exceptions import ClientError

from slea.platform.aws import stepfunctions


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
