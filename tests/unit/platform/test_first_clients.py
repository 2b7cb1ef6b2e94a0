"""The AWS clients a function's first invocation creates, which bench/cold_import.py times with
its init (FIRST_CLIENTS): each function's sample event, run cold, creates exactly those, and all
of them on the layer's one botocore session (a client on a session of its own loads botocore's
data again), and, but for Powertools' parameters utility, without importing boto3."""

import json
from typing import Any

import boto3
import botocore.session
import pytest
from aws_lambda_powertools.utilities import parameters

from bench.cold_import import FIRST_CLIENTS
from slea.platform import aws
from slea_local import REPO_ROOT
from slea_local.http import http_api_event
from slea_local.runtime import LocalRuntime, reset_warm_state

ALICE = "550e8400-e29b-41d4-a716-446655440000"
EVENTS = REPO_ROOT / "events"
FIRST_EVENTS = {  # function -> its first invocation
    "get_user_profile": "get_user_profile/valid.json",
    "search_question_templates": "search_question_templates/valid.json",
    "get_difficulty_keywords": "get_difficulty_keywords/valid.json",
    "validate_question_quality": "validate_question_quality/valid_single.json",
    "save_generated_question": "save_generated_question/valid_multiple_choice.json",
    "score_and_explain": "score_and_explain/multiple_choice.json",
    "mcp": "mcp/tools_list.json",
}
PARAMETER_SERVICES = {"secretsmanager": "secrets", "ssm": "ssm"}


def _event(function: str) -> dict[str, Any]:
    if function == "api":  # a learner's first request: the sessions page
        headers = {"content-type": "application/json", "accept": "application/json"}
        return http_api_event("GET", "/sessions", "", headers, body="", claims={"sub": ALICE})
    event: dict[str, Any] = json.loads((EVENTS / FIRST_EVENTS[function]).read_text(encoding="utf-8"))
    return event


@pytest.fixture
def created(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, Any]]:
    """(service, the tool whose budget configured it, its botocore session) of every client made."""
    made: list[tuple[str, str, Any]] = []
    tools: list[str] = []
    client_config, create_client = aws.client_config, botocore.session.Session.create_client

    def configured(tool: str) -> Any:
        tools.append(tool)
        return client_config(tool)

    def recorded(session: Any, service_name: str, *args: Any, **kwargs: Any) -> Any:
        made.append((service_name, tools[-1] if tools else "", session))
        return create_client(session, service_name, *args, **kwargs)

    monkeypatch.setattr(aws, "client_config", configured)
    monkeypatch.setattr(botocore.session.Session, "create_client", recorded)
    return made


@pytest.mark.parametrize("function", sorted(FIRST_CLIENTS))
def test_a_first_invocation_creates_the_clients_the_benchmark_times(
    function: str, seeded: LocalRuntime, created: list[tuple[str, str, Any]]
) -> None:
    reset_warm_state()  # a cold start: no client, no provider yet
    created.clear()
    seeded.invoke(function, _event(function))
    as_listed = [
        ("parameter_provider", PARAMETER_SERVICES[service]) if service in PARAMETER_SERVICES else (service, tool)
        for service, tool, _ in created
    ]
    assert as_listed == FIRST_CLIENTS[function]
    assert [session for _, _, session in created if session is not aws.session()] == []


def test_the_parameter_providers_read_through_the_layers_session(
    cloud: Any, created: list[tuple[str, str, Any]]
) -> None:
    reset_warm_state()
    created.clear()
    secrets, ssm = aws.parameter_provider("secrets"), aws.parameter_provider("ssm")
    # Made once per execution environment (until Powertools' providers are forgotten).
    assert (aws.parameter_provider("secrets"), aws.parameter_provider("ssm")) == (secrets, ssm)
    assert [(service, session) for service, _, session in created] == [
        ("secretsmanager", aws.session()),
        ("ssm", aws.session()),
    ]
    # Powertools' own functions read through them, cache what they read and forget it on clear_caches.
    boto3.client("secretsmanager").create_secret(Name="a-secret", SecretString="first")
    assert parameters.get_secret("a-secret") == "first"
    boto3.client("secretsmanager").put_secret_value(SecretId="a-secret", SecretString="second")
    assert parameters.get_secret("a-secret") == "first"
    parameters.clear_caches()
    assert parameters.get_secret("a-secret") == "second"
    boto3.client("ssm").put_parameter(Name="/a/key", Value="k", Type="SecureString")
    assert parameters.get_parameter("/a/key", decrypt=True) == "k"


def test_the_gemini_key_is_read_through_the_layers_ssm_provider(
    cloud: Any, created: list[tuple[str, str, Any]]
) -> None:
    from slea.llm.gemini import _api_key
    from slea.llm.model_settings import LLMSettings

    reset_warm_state()
    boto3.client("ssm").put_parameter(Name="/slea/gemini-api-key", Value="a-key", Type="SecureString")
    created.clear()
    assert _api_key(LLMSettings(api_key_parameter="/slea/gemini-api-key")) == "a-key"
    assert [(service, session) for service, _, session in created] == [("ssm", aws.session())]


def test_every_client_is_made_on_one_session_until_warm_state_is_forgotten(cloud: Any) -> None:
    reset_warm_state()
    first = aws.session()
    assert isinstance(first, botocore.session.Session)
    assert aws.session() is first
    reset_warm_state()  # a new execution environment: a new session, made after moto started
    assert aws.session() is not first
    client = aws.dynamodb("get_user_profile")
    assert client.meta.config.read_timeout == aws.client_config("get_user_profile").read_timeout
    # moto answers it (its handler is in every botocore session made after moto was loaded).
    table = cloud.table_name("ProfilesTable")
    assert client.describe_table(TableName=table)["Table"]["TableName"] == table
