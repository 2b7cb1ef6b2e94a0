"""The ASL of GenerateRoundStateMachine: cfn-lint does not check a SAM state machine's definition
(https://github.com/aws-cloudformation/cfn-lint/issues/3518), so these checks do — together with
moto's parser, which rejects an invalid definition when the local cloud creates the machine."""

import json
import re

import boto3
import pytest
from botocore.exceptions import ClientError

from slea_local import REPO_ROOT
from slea_local.template import repository_template

TEMPLATE = repository_template()
MACHINES = TEMPLATE.of_type("AWS::Serverless::StateMachine")
LAMBDA_SERVICE_ERRORS = {
    "Lambda.ServiceException",
    "Lambda.AWSLambdaException",
    "Lambda.SdkClientException",
    "Lambda.TooManyRequestsException",
}


def definition(name):
    return json.loads((REPO_ROOT / MACHINES[name]["Properties"]["DefinitionUri"]).read_text(encoding="utf-8"))


def targets(state):
    found = [state.get("Next"), state.get("Default")]
    found += [catcher["Next"] for catcher in state.get("Catch", [])]
    found += [choice["Next"] for choice in state.get("Choices", [])]
    return [target for target in found if target]


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_every_transition_target_exists_and_every_state_is_reachable(name):
    asl = definition(name)
    states = asl["States"]
    assert asl["StartAt"] in states
    for state_name, state in states.items():
        for target in targets(state):
            assert target in states, f"{state_name} -> {target}"
    reachable, frontier = set(), [asl["StartAt"]]
    while frontier:
        current = frontier.pop()
        if current not in reachable:
            reachable.add(current)
            frontier.extend(targets(states[current]))
    assert reachable == set(states)


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_substitutions_match_the_template(name):
    text = (REPO_ROOT / MACHINES[name]["Properties"]["DefinitionUri"]).read_text(encoding="utf-8")
    used = set(re.findall(r"\$\{(\w+)\}", text))
    assert used == set(MACHINES[name]["Properties"]["DefinitionSubstitutions"])


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_tasks_time_out_and_retry_lambda_service_errors(name):
    for state_name, state in definition(name)["States"].items():
        if state["Type"] != "Task":
            continue
        assert state["TimeoutSeconds"] > 0, state_name
        retried = {error for retrier in state.get("Retry", []) for error in retrier["ErrorEquals"]}
        assert retried >= LAMBDA_SERVICE_ERRORS, state_name
        lambda_retry = next(r for r in state["Retry"] if set(r["ErrorEquals"]) >= LAMBDA_SERVICE_ERRORS)
        assert lambda_retry["BackoffRate"] > 1
        assert lambda_retry["MaxAttempts"] <= 6


def test_input_errors_fail_fast_into_a_fail_state_with_error_and_cause():
    states = definition("GenerateRoundStateMachine")["States"]
    for state_name in ("GetUserProfile", "PlanRound"):
        (catcher,) = [c for c in states[state_name]["Catch"] if "ValueError" in c["ErrorEquals"]]
        assert set(catcher["ErrorEquals"]) == {"ValueError", "TypeError"}
        assert states[catcher["Next"]]["Type"] == "Fail"
        assert states[catcher["Next"]]["CausePath"].startswith(catcher["ResultPath"])


def test_a_round_the_bank_covers_skips_generation_into_finish_round():
    """After PlanRound (which drew from the bank) one Choice: nothing missing goes straight to
    FinishRound through the empty save result; otherwise generation runs as before."""
    states = definition("GenerateRoundStateMachine")["States"]
    choice = states[states["PlanRound"]["Next"]]
    assert choice["Type"] == "Choice"
    (rule,) = choice["Choices"]
    assert (rule["Variable"], rule["NumericEquals"]) == ("$.plan.progress.missing", 0)
    assert choice["Default"] == "SearchTemplates"
    skipped = states[rule["Next"]]
    assert skipped["Type"] == "Pass"
    assert skipped["Result"] == {"results": [], "saved": 0, "queued_for_retry": 0}
    assert skipped["ResultPath"] == "$.saved"
    assert skipped["Next"] == "FinishRound"
    # Constant in size: no state per question, drawn or generated.
    assert not any(state["Type"] == "Map" for state in states.values())


def test_state_machine_is_standard_with_logging_and_tracing():
    properties = MACHINES["GenerateRoundStateMachine"]["Properties"]
    assert properties["Type"] == "STANDARD"
    assert properties["Tracing"] == {"Enabled": True}
    assert properties["Logging"]["Destinations"]


def test_moto_parses_the_substituted_definition(cloud):
    described = boto3.client("stepfunctions").describe_state_machine(
        stateMachineArn=cloud.physical_names["GenerateRoundStateMachine"]
    )
    assert "${" not in described["definition"]
    assert "arn:aws:lambda:" in described["definition"]


def test_a_broken_definition_is_rejected_by_the_parser(cloud):
    broken = definition("GenerateRoundStateMachine")
    broken["States"]["GetUserProfile"]["Type"] = "Taskk"
    with pytest.raises(ClientError, match="ASLParserException"):
        boto3.client("stepfunctions").create_state_machine(
            name="broken", definition=json.dumps(broken), roleArn="arn:aws:iam::123456789012:role/x"
        )
