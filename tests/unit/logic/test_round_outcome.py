"""A finished round's outcome from its execution as DescribeExecution answers it (dal/executions.py
`describe`, logic/rounds/lifecycle.py `_succeeded`), and how an execution is started (`start`)."""

import datetime
import json

import pytest
from botocore.exceptions import ClientError

from slea.dal import executions
from slea.dal.rounds import RoundOutcome
from slea.logic.rounds import lifecycle

AT = "2026-11-02T10:00:00Z"


def test_a_pipeline_output_gives_the_rounds_counts_and_reason():
    output = {
        "questions": [],
        "total_generated": 4,
        "total_valid": 2,
        "total_rejected": 2,
        "requested": 3,
        "delivered": 2,
        "from_neighbours": 1,
        "shortfall_reason": "rejected",
    }
    assert lifecycle._succeeded(AT, json.dumps(output)) == RoundOutcome(
        "SUCCEEDED", AT, generated=4, valid=2, delivered=2, from_neighbours=1, shortfall_reason="rejected"
    )


def test_an_output_from_before_a_count_was_kept_leaves_it_unknown():
    output = {"questions": [], "total_generated": 3, "total_valid": 3, "total_rejected": 0}
    assert lifecycle._succeeded(AT, json.dumps(output)) == RoundOutcome("SUCCEEDED", AT, generated=3, valid=3)


def test_no_output_or_no_pipeline_output_leaves_every_count_unknown():
    assert lifecycle._succeeded(AT, None) == RoundOutcome("SUCCEEDED", AT)
    assert lifecycle._succeeded(AT, "null") == RoundOutcome("SUCCEEDED", AT)


class Client:
    def __init__(self, answer=None, error=None):
        self.answer, self.error = answer, error

    def describe_execution(self, executionArn):
        if self.error:
            raise ClientError({"Error": {"Code": self.error, "Message": "x"}}, "DescribeExecution")
        return self.answer


def test_describe_reads_the_execution_as_a_record(monkeypatch):
    stopped = datetime.datetime(2026, 11, 2, 10, tzinfo=datetime.UTC)
    answer = {"status": "FAILED", "stopDate": stopped, "error": "States.Timeout", "executionArn": "arn"}
    monkeypatch.setattr(executions, "stepfunctions", lambda tool: Client(answer))
    assert executions.describe("arn") == executions.DescribedExecution("FAILED", stopped, None, "States.Timeout")


def test_an_execution_that_does_not_exist_is_none_and_other_failures_are_raised(monkeypatch):
    monkeypatch.setattr(executions, "stepfunctions", lambda tool: Client(error="ExecutionDoesNotExist"))
    assert executions.describe("arn") is None
    monkeypatch.setattr(executions, "stepfunctions", lambda tool: Client(error="ThrottlingException"))
    with pytest.raises(ClientError, match="ThrottlingException"):
        executions.describe("arn")


class Starting:
    def __init__(self, error=None):
        self.error, self.started = error, []

    def start_execution(self, stateMachineArn, name, input):
        if self.error:
            raise ClientError({"Error": {"Code": self.error, "Message": "x"}}, "StartExecution")
        self.started.append((stateMachineArn, name, json.loads(input)))
        return {"executionArn": f"{stateMachineArn.replace(':stateMachine:', ':execution:')}:{name}"}


MACHINE = "arn:aws:states:us-east-1:123456789012:stateMachine:generate"


def test_start_names_the_execution_sends_its_input_and_gives_its_arn(monkeypatch):
    monkeypatch.setenv(executions.STATE_MACHINE_VARIABLE, MACHINE)
    client = Starting()
    monkeypatch.setattr(executions, "stepfunctions", lambda tool: client)
    arn = executions.start("s1-round-1", {"session_id": "s1", "round": 1})
    assert client.started == [(MACHINE, "s1-round-1", {"session_id": "s1", "round": 1})]
    expected = "arn:aws:states:us-east-1:123456789012:execution:generate:s1-round-1"
    assert arn == executions.execution_arn("s1-round-1") == expected


def test_a_name_started_before_is_execution_exists_and_other_refusals_are_raised(monkeypatch):
    monkeypatch.setenv(executions.STATE_MACHINE_VARIABLE, MACHINE)
    monkeypatch.setattr(executions, "stepfunctions", lambda tool: Starting(error="ExecutionAlreadyExists"))
    with pytest.raises(executions.ExecutionExists):
        executions.start("s1-round-1", {})
    monkeypatch.setattr(executions, "stepfunctions", lambda tool: Starting(error="ServiceUnavailable"))
    with pytest.raises(ClientError, match="ServiceUnavailable"):
        executions.start("s1-round-1", {})
