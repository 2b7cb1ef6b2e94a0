"""template.yaml: the properties the issues require of every resource."""

from pathlib import Path

import pytest

from slea_local import REPO_ROOT
from slea_local.template import repository_template

TEMPLATE = repository_template()
TABLES = TEMPLATE.of_type("AWS::DynamoDB::Table")
FUNCTIONS = TEMPLATE.of_type("AWS::Serverless::Function")


def test_runtime_is_python_3_13():
    assert TEMPLATE.function_globals["Runtime"] == "python3.13"
    assert all("Runtime" not in spec["Properties"] for spec in FUNCTIONS.values())


# The usage counters expire by TTL within two days: nothing in them to recover or retain.
COUNTER_TABLES = {"UsageTable"}


def test_usage_counters_expire_by_ttl():
    assert TABLES["UsageTable"]["Properties"]["TimeToLiveSpecification"] == {
        "AttributeName": "expires_at",
        "Enabled": True,
    }


@pytest.mark.parametrize("name", sorted(set(TABLES) - COUNTER_TABLES))
def test_tables_are_on_demand_recoverable_and_encrypted(name):
    properties = TABLES[name]["Properties"]
    assert properties["BillingMode"] == "PAY_PER_REQUEST"
    assert properties["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert properties["SSESpecification"] == {"SSEEnabled": True}
    assert TABLES[name]["DeletionPolicy"] == "Retain"


def test_the_four_tables_exist():
    assert {"ProfilesTable", "TemplatesTable", "KeywordsTable", "QuestionsTable"} <= set(TABLES)


def test_layer_is_built_by_sam_as_python_3_13_from_the_package_folder():
    (layer,) = TEMPLATE.of_type("AWS::Serverless::LayerVersion").values()
    assert layer["Metadata"]["BuildMethod"] == "python3.13"
    source = REPO_ROOT / layer["Properties"]["ContentUri"]
    # sam build adds the python/ level itself, so the package sits at the top of ContentUri.
    assert (source / "slea" / "__init__.py").is_file()
    assert (source / "requirements.txt").is_file()
    assert not (source / "python").exists()


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_functions_have_a_handler_and_use_the_layer(name):
    properties = FUNCTIONS[name]["Properties"]
    code = Path(REPO_ROOT / properties["CodeUri"])
    assert "def lambda_handler(event" in (code / "app.py").read_text(encoding="utf-8")
    assert TEMPLATE.function_globals["Handler"] == "app.lambda_handler"
    assert TEMPLATE.function_globals["Layers"] == [{"Ref": "SleaLayer"}]
    assert TEMPLATE.function_globals["Tracing"] == "Active"


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_resource_names_reach_functions_only_through_intrinsic_functions(name):
    variables = FUNCTIONS[name]["Properties"].get("Environment", {}).get("Variables", {})
    for variable, value in variables.items():
        if variable.endswith(("_TABLE", "_QUEUE_URL", "_ARN")):
            assert isinstance(value, dict), f"{name}.{variable} must use !Ref/!GetAtt, not a literal"
            assert set(value) <= {"Ref", "Fn::GetAtt", "Fn::Sub"}


def _statements(function):
    for policy in function["Properties"].get("Policies", []):
        assert isinstance(policy, dict), "use explicit statements, not broad managed policies"
        yield from policy.get("Statement", [])


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_policies_are_least_privilege(name):
    for statement in _statements(FUNCTIONS[name]):
        actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
        assert not any(action.endswith("*") for action in actions)
        assert "dynamodb:Scan" not in actions
        assert statement["Resource"] != "*"


def test_tool_tables_key_designs():
    def keys(table):
        return {key["AttributeName"]: key["KeyType"] for key in TABLES[table]["Properties"]["KeySchema"]}

    assert keys("ProfilesTable") == {"user_id": "HASH", "submitted_at": "RANGE"}
    assert keys("KeywordsTable") == {"difficulty": "HASH", "category": "RANGE"}
    (index,) = TABLES["TemplatesTable"]["Properties"]["GlobalSecondaryIndexes"]
    assert {key["AttributeName"]: key["KeyType"] for key in index["KeySchema"]} == {
        "search_key": "HASH",
        "avg_difficulty_score": "RANGE",
    }
    search = FUNCTIONS["SearchQuestionTemplatesFunction"]["Properties"]["Environment"]["Variables"]
    assert search["TEMPLATES_SEARCH_INDEX"] == index["IndexName"]


QUEUES = TEMPLATE.of_type("AWS::SQS::Queue")


def test_retry_queue_is_encrypted_and_dead_letters_after_bounded_receives():
    retry = QUEUES["RetryQueue"]["Properties"]
    assert all(queue["Properties"]["SqsManagedSseEnabled"] is True for queue in QUEUES.values())
    assert retry["RedrivePolicy"]["deadLetterTargetArn"] == {"Fn::GetAtt": ["RetryDeadLetterQueue", "Arn"]}
    assert 1 < retry["RedrivePolicy"]["maxReceiveCount"] <= 10


def test_visibility_timeout_is_at_least_six_times_the_workers_timeout():
    worker = FUNCTIONS["SaveRetryWorkerFunction"]["Properties"]
    timeout = worker.get("Timeout", TEMPLATE.function_globals["Timeout"])
    assert QUEUES["RetryQueue"]["Properties"]["VisibilityTimeout"] >= 6 * timeout


def test_worker_reports_partial_batch_failures_from_the_retry_queue():
    (event,) = FUNCTIONS["SaveRetryWorkerFunction"]["Properties"]["Events"].values()
    assert event["Type"] == "SQS"
    assert event["Properties"]["Queue"] == {"Fn::GetAtt": ["RetryQueue", "Arn"]}
    assert event["Properties"]["FunctionResponseTypes"] == ["ReportBatchItemFailures"]


def test_an_alarm_watches_the_dead_letter_queue_depth():
    (alarm,) = TEMPLATE.of_type("AWS::CloudWatch::Alarm").values()
    properties = alarm["Properties"]
    assert properties["MetricName"] == "ApproximateNumberOfMessagesVisible"
    assert properties["Dimensions"] == [
        {"Name": "QueueName", "Value": {"Fn::GetAtt": ["RetryDeadLetterQueue", "QueueName"]}}
    ]
    assert properties["Threshold"] == 1
    assert properties["ComparisonOperator"] == "GreaterThanOrEqualToThreshold"


def test_http_api_requires_a_jwt_with_configurable_issuer_and_audience():
    (api,) = TEMPLATE.of_type("AWS::Serverless::HttpApi").values()
    auth = api["Properties"]["Auth"]
    authorizer = auth["Authorizers"][auth["DefaultAuthorizer"]]
    assert authorizer["JwtConfiguration"] == {"issuer": {"Ref": "JwtIssuer"}, "audience": [{"Ref": "JwtAudience"}]}
    routes = {
        (event["Properties"]["Method"], event["Properties"]["Path"])
        for event in FUNCTIONS["ApiFunction"]["Properties"]["Events"].values()
    }
    assert routes == {
        ("POST", "/sessions"),
        ("POST", "/sessions/{session_id}/rounds"),
        ("GET", "/sessions/{session_id}/questions"),
        ("POST", "/sessions/{session_id}/answers"),
        ("GET", "/sessions/{session_id}/attempts"),
    }


def test_documented_routes_are_the_deployed_routes():
    import json

    document = json.loads((REPO_ROOT / "docs" / "openapi.json").read_text(encoding="utf-8"))
    documented = {(method.upper(), path) for path, item in document["paths"].items() for method in item}
    deployed = {
        (event["Properties"]["Method"], event["Properties"]["Path"])
        for event in FUNCTIONS["ApiFunction"]["Properties"]["Events"].values()
    }
    assert documented == deployed


def test_the_api_functions_timeout_holds_a_grading_and_an_explanation_at_their_worst():
    """The HTTP API answers within API Gateway's limit even if both model calls time out on
    every attempt, with time left to record the grade (slea.llm.budget)."""
    from slea.llm.budget import RESERVE_SECONDS, worst_case_seconds
    from slea.llm.settings import LLMSettings

    api = FUNCTIONS["ApiFunction"]["Properties"]
    variables = api["Environment"]["Variables"]
    settings = LLMSettings(
        timeout_seconds=float(variables["LLM_TIMEOUT_SECONDS"]), retry_attempts=int(variables["LLM_RETRY_ATTEMPTS"])
    )
    assert 2 * worst_case_seconds(settings) + RESERVE_SECONDS <= api["Timeout"] <= 29
