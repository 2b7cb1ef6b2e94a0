"""Every sample event in events/ runs through its function and does what events/expectations.json says."""

import json

import pytest

from slea_local import REPO_ROOT

EVENTS = REPO_ROOT / "events"
EXPECTATIONS = {
    name: expected
    for name, expected in json.loads((EVENTS / "expectations.json").read_text(encoding="utf-8")).items()
    if not name.startswith("_")
}
ERRORS = {"ValueError": ValueError, "TypeError": TypeError}


STATE_MACHINE_INPUTS = "state_machine/"


def test_every_event_file_has_an_expectation_and_vice_versa():
    files = {str(path.relative_to(EVENTS)) for path in EVENTS.glob("*/*.json")}
    assert files == set(EXPECTATIONS)


def test_every_function_has_a_valid_and_an_invalid_event(runtime):
    tools = {name.split("/")[0] for name in EXPECTATIONS if not name.startswith(STATE_MACHINE_INPUTS)}
    functions = {runtime.function_id(tool) for tool in tools}
    assert functions == set(runtime.cloud.template.of_type("AWS::Serverless::Function"))
    for tool in tools:
        outcomes = {"raises" in expected for name, expected in EXPECTATIONS.items() if name.startswith(f"{tool}/")}
        assert outcomes == {True, False}, tool


@pytest.mark.parametrize("name", sorted(n for n in EXPECTATIONS if n.startswith(STATE_MACHINE_INPUTS)))
def test_state_machine_input(name, step_functions):
    """Execution inputs as a console user would paste them into "Start execution"."""
    expected = EXPECTATIONS[name]
    execution_input = json.loads((EVENTS / name).read_text(encoding="utf-8"))
    execution = step_functions.run("GenerateRoundStateMachine", execution_input, name=name.replace("/", "-")[:80])
    assert execution.status == expected["execution"], execution.cause
    if "match" in expected:
        assert expected["match"] in execution.cause


@pytest.mark.parametrize("name", sorted(n for n in EXPECTATIONS if not n.startswith(STATE_MACHINE_INPUTS)))
def test_event(name, seeded):
    expected = EXPECTATIONS[name]
    event = json.loads((EVENTS / name).read_text(encoding="utf-8"))
    tool = name.split("/")[0]
    if "raises" in expected:
        with pytest.raises(ERRORS[expected["raises"]], match=expected["match"]):
            seeded.invoke(tool, event)
        return
    result = seeded.invoke(tool, event)
    json.dumps(result)
    if "returns" in expected:
        assert expected["returns"].items() <= result.items()
    else:
        assert len(result) >= expected["returns_list"]["min_length"]
