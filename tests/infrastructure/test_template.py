"""template.yaml: the properties the issues require of every resource."""

import json
import re
import typing
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


# The usage counters and rate limit buckets expire by TTL: nothing in them to recover or retain.
COUNTER_TABLES = {"UsageTable", "RateLimitTable"}


@pytest.mark.parametrize("name", sorted(COUNTER_TABLES))
def test_counters_expire_by_ttl_and_are_encrypted_on_demand(name):
    properties = TABLES[name]["Properties"]
    assert properties["TimeToLiveSpecification"] == {"AttributeName": "expires_at", "Enabled": True}
    assert properties["BillingMode"] == "PAY_PER_REQUEST"
    assert properties["SSESpecification"] == {"SSEEnabled": True}


@pytest.mark.parametrize("name", sorted(set(TABLES) - COUNTER_TABLES))
def test_tables_are_on_demand_recoverable_and_encrypted(name):
    properties = TABLES[name]["Properties"]
    assert properties["BillingMode"] == "PAY_PER_REQUEST"
    assert properties["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert properties["SSESpecification"] == {"SSEEnabled": True}
    assert TABLES[name]["DeletionPolicy"] == "Retain"


def test_the_four_tables_exist():
    assert {"ProfilesTable", "TemplatesTable", "KeywordsTable", "QuestionsTable"} <= set(TABLES)


def test_layer_is_built_by_its_makefile_from_the_package_folder():
    (layer,) = TEMPLATE.of_type("AWS::Serverless::LayerVersion").values()
    assert layer["Metadata"]["BuildMethod"] == "makefile"
    source = REPO_ROOT / layer["Properties"]["ContentUri"]
    # The Makefile adds the python/ level itself, so the package sits at the top of ContentUri.
    assert (source / "slea" / "__init__.py").is_file()
    assert not (source / "python").exists()
    makefile = (source / "Makefile").read_text(encoding="utf-8")
    assert "build-SleaLayer:" in makefile
    # Both locks, with their hashes; the second without dependencies; Linux x86_64 wheels for 3.13.
    assert "-r requirements.txt" in makefile
    assert "--no-deps -r requirements-no-deps.txt" in makefile
    assert "--require-hashes" in makefile
    assert "--python-version 3.13" in makefile
    assert "x86_64" in makefile
    for lock in ("requirements.txt", "requirements-no-deps.txt"):
        assert "--hash=sha256:" in (source / lock).read_text(encoding="utf-8")


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


# No Scan anywhere: the calibration refit reads the attempts table's export, not the table.
SCAN_GRANTS: dict[str, object] = {}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_policies_are_least_privilege(name):
    for statement in _statements(FUNCTIONS[name]):
        actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
        assert not any(action.endswith("*") for action in actions)
        if "dynamodb:Scan" in actions:
            assert (actions, statement["Resource"]) == (["dynamodb:Scan"], SCAN_GRANTS.get(name)), name
        assert statement["Resource"] != "*"


def test_the_calibration_refit_runs_on_a_slow_schedule_from_a_parameter_and_no_function_scans():
    machine = TEMPLATE.resources["CalibrationRefitStateMachine"]["Properties"]
    (event,) = machine["Events"].values()
    assert event["Type"] == "Schedule"
    assert event["Properties"]["Schedule"] == {"Ref": "CalibrationRefitSchedule"}
    assert event["Properties"]["Input"] == "{}"
    assert PARAMETERS["CalibrationRefitSchedule"]["Default"] == "rate(1 day)"
    assert re.match(PARAMETERS["CalibrationRefitSchedule"]["AllowedPattern"], "cron(0 3 * * ? *)")
    assert "CalibrationSchedule" not in PARAMETERS
    # Only the state machine is scheduled; its fit has Lambda's longest timeout.
    for name in ("CalibrateItemsFunction", "CalibrationExportFunction", "CalibrationReduceFunction"):
        assert "Events" not in FUNCTIONS[name]["Properties"], name
    assert FUNCTIONS["CalibrateItemsFunction"]["Properties"]["Timeout"] == 900
    assert FUNCTIONS["CalibrateItemsFunction"]["Properties"]["Environment"]["Variables"] == {
        "EXPORT_BUCKET": {"Ref": "CalibrationExportBucket"},
        "QUESTIONS_TABLE": {"Ref": "QuestionsTable"},
        "ABILITIES_TABLE": {"Ref": "AbilitiesTable"},  # flagged learners marked for review
    }
    granted = {
        action for name in FUNCTIONS for statement in _statements(FUNCTIONS[name]) for action in _actions(statement)
    }
    assert "dynamodb:Scan" not in granted


def _actions(statement):
    return statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]


def test_the_attempts_table_can_be_exported():
    assert TABLES["AttemptsTable"]["Properties"]["PointInTimeRecoverySpecification"] == {
        "PointInTimeRecoveryEnabled": True
    }


def test_the_export_bucket_is_private_encrypted_tls_only_and_expires_what_it_holds():
    bucket = TEMPLATE.resources["CalibrationExportBucket"]["Properties"]
    assert bucket["BucketEncryption"]["ServerSideEncryptionConfiguration"] == [
        {"ServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}
    ]
    assert all(bucket["PublicAccessBlockConfiguration"].values())
    assert len(bucket["PublicAccessBlockConfiguration"]) == 4
    assert bucket["OwnershipControls"] == {"Rules": [{"ObjectOwnership": "BucketOwnerEnforced"}]}
    rules = {rule["Prefix"]: rule for rule in bucket["LifecycleConfiguration"]["Rules"]}
    assert set(rules) == {"exports/", "refits/"}
    assert all(rule["Status"] == "Enabled" and 0 < rule["ExpirationInDays"] <= 30 for rule in rules.values())
    (statement,) = TEMPLATE.resources["CalibrationExportBucketPolicy"]["Properties"]["PolicyDocument"]["Statement"]
    assert (statement["Effect"], statement["Action"], statement["Principal"]) == ("Deny", "s3:*", "*")
    assert statement["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}


def test_the_refit_state_machine_polls_a_bounded_number_of_times_and_fails_cleanly():
    definition = json.loads((REPO_ROOT / "statemachine" / "calibration_refit.asl.json").read_text(encoding="utf-8"))
    states = definition["States"]
    choices = states["ExportDone"]["Choices"]
    assert {choice["Next"] for choice in choices} == {"ReduceExportFiles", "ExportFailed", "ExportTimedOut"}
    assert any(choice.get("NumericGreaterThanEqualsPath") == "$.export.max_polls" for choice in choices)
    assert states["ExportDone"]["Default"] == "WaitForExport"
    for name in ("ExportFailed", "ExportTimedOut", "ReduceFailed", "FitIncomplete"):
        assert states[name]["Type"] == "Fail"
    reduce = states["ReduceExportFiles"]
    assert reduce["ItemProcessor"]["ProcessorConfig"]["Mode"] == "DISTRIBUTED"
    assert reduce["ItemReader"]["Resource"] == "arn:aws:states:::s3:listObjectsV2"


def test_tool_tables_key_designs():
    def keys(table):
        return {key["AttributeName"]: key["KeyType"] for key in TABLES[table]["Properties"]["KeySchema"]}

    assert keys("ProfilesTable") == {"user_id": "HASH", "submitted_at": "RANGE"}
    assert keys("KeywordsTable") == {"difficulty": "HASH", "category": "RANGE"}
    index, stems = TABLES["TemplatesTable"]["Properties"]["GlobalSecondaryIndexes"]
    assert (stems["IndexName"], stems["KeySchema"]) == (
        "template-stems",
        [{"AttributeName": "stem_digest", "KeyType": "HASH"}],
    )
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


def test_the_attempts_stream_feeds_the_fold_with_partial_failures_bisect_bounded_retries_and_a_failure_queue():
    stream = TABLES["AttemptsTable"]["Properties"]["StreamSpecification"]
    assert stream == {"StreamViewType": "NEW_AND_OLD_IMAGES"}  # a correction needs the score before
    (event,) = FUNCTIONS["FoldAttemptsFunction"]["Properties"]["Events"].values()
    properties = event["Properties"]
    assert event["Type"] == "DynamoDB"
    assert properties["Stream"] == {"Fn::GetAtt": ["AttemptsTable", "StreamArn"]}
    assert properties["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert properties["BisectBatchOnFunctionError"] is True
    assert 0 < properties["MaximumRetryAttempts"] <= 10  # a poison record cannot hold the shard for a day
    assert 1 <= properties["BatchSize"] <= 1000
    assert properties["MaximumBatchingWindowInSeconds"] <= 30
    destination = properties["DestinationConfig"]["OnFailure"]
    assert destination["Type"] == "SQS"
    assert destination["Destination"] == {"Fn::GetAtt": ["FoldFailedQueue", "Arn"]}
    alarm = TEMPLATE.resources["FoldFailedAlarm"]["Properties"]
    assert alarm["Dimensions"] == [{"Name": "QueueName", "Value": {"Fn::GetAtt": ["FoldFailedQueue", "QueueName"]}}]
    environment = FUNCTIONS["FoldAttemptsFunction"]["Properties"]["Environment"]["Variables"]
    assert environment["CALIBRATION_SUMS_TABLE"] == {"Ref": "CalibrationSumsTable"}


def test_an_alarm_watches_the_dead_letter_queue_depth():
    properties = TEMPLATE.resources["RetryDeadLetterAlarm"]["Properties"]
    assert properties["MetricName"] == "ApproximateNumberOfMessagesVisible"
    assert properties["Dimensions"] == [
        {"Name": "QueueName", "Value": {"Fn::GetAtt": ["RetryDeadLetterQueue", "QueueName"]}}
    ]
    assert properties["Threshold"] == 1
    assert properties["ComparisonOperator"] == "GreaterThanOrEqualToThreshold"
    # The operator command it names exists: `python -m ops.retry_queue_admin peek|redrive`.
    commands = re.findall(r"python -m ([\w.]+) (\w+)", properties["AlarmDescription"])
    assert commands
    for module, subcommand in commands:
        source = REPO_ROOT / (module.replace(".", "/") + ".py")
        assert source.is_file(), f"{module} does not exist"
        assert f'"{subcommand}"' in source.read_text(encoding="utf-8")


def test_http_api_requires_a_jwt_with_configurable_issuer_and_audience():
    (api,) = TEMPLATE.of_type("AWS::Serverless::HttpApi").values()
    auth = api["Properties"]["Auth"]
    authorizer = auth["Authorizers"][auth["DefaultAuthorizer"]]
    # The stack's own user pool and client, or the given issuer and audience
    # (tests/infrastructure/test_user_pool.py resolves both ways).
    assert authorizer["JwtConfiguration"] == {
        "issuer": {
            "Fn::If": [
                "CreatesUserPool",
                {"Fn::Sub": "https://cognito-idp.${AWS::Region}.amazonaws.com/${UserPool}"},
                {"Ref": "JwtIssuer"},
            ]
        },
        "audience": [{"Fn::If": ["CreatesUserPool", {"Ref": "UserPoolClient"}, {"Ref": "JwtAudience"}]}],
    }
    routes = {
        (event["Properties"]["Method"], event["Properties"]["Path"])
        for event in FUNCTIONS["ApiFunction"]["Properties"]["Events"].values()
    }
    assert routes == {
        ("POST", "/sessions"),
        ("GET", "/sessions"),
        ("POST", "/sessions/{session_id}/rounds"),
        ("POST", "/sessions/{session_id}/next"),
        ("GET", "/sessions/{session_id}/questions"),
        ("POST", "/sessions/{session_id}/answers"),
        ("GET", "/sessions/{session_id}/attempts"),
        ("GET", "/sessions/{session_id}/rounds/{round}"),
        ("GET", "/sessions/{session_id}/summary"),
        ("POST", "/sessions/{session_id}/questions/{question_id}/reports"),
        ("POST", "/sessions/{session_id}/questions/{question_id}/skip"),
        ("GET", "/learners/me/ability"),
        ("GET", "/learners/me/attempts"),
        ("GET", "/review/queue"),
        ("POST", "/review/attempts/{attempt_id}"),
        ("POST", "/review/questions/{question_id}"),
        ("GET", "/review/stats"),
        ("GET", "/review/audit"),
        ("GET", "/review/audit/recent"),
        ("POST", "/review/attempts/accept"),
        ("GET", "/review/items"),
        ("GET", "/review/groups"),
        ("POST", "/review/groups/{group_id}"),
        ("POST", "/review/questions/{question_id}/unretire"),
        ("POST", "/review/bulk/{bulk_id}/revert"),
        ("POST", "/review/attempts/{attempt_id}/undo"),
        ("POST", "/review/groups/{group_id}/revert"),
        ("POST", "/review/questions/{question_id}/revert-edit"),
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
    from slea.llm.model_settings import LLMSettings

    api = FUNCTIONS["ApiFunction"]["Properties"]
    variables = api["Environment"]["Variables"]
    settings = LLMSettings(
        timeout_seconds=float(variables["LLM_TIMEOUT_SECONDS"]), retry_attempts=int(variables["LLM_RETRY_ATTEMPTS"])
    )
    assert 2 * worst_case_seconds(settings) + RESERVE_SECONDS <= api["Timeout"] <= 29


# ---------------------------------------------------------------- operations
PARAMETERS = TEMPLATE.document["Parameters"]
CONDITIONS = TEMPLATE.document["Conditions"]
ALARMS = TEMPLATE.of_type("AWS::CloudWatch::Alarm")
LOG_GROUPS = TEMPLATE.of_type("AWS::Logs::LogGroup")
NAMESPACE = TEMPLATE.function_globals["Environment"]["Variables"]["POWERTOOLS_METRICS_NAMESPACE"]
SERVICE = TEMPLATE.function_globals["Environment"]["Variables"]["POWERTOOLS_SERVICE_NAME"]
LAYER_PACKAGE = REPO_ROOT / "layers" / "slea" / "slea"
VALID_RETENTION_DAYS = {1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557}


def _retention_is_the_parameter(log_group):
    assert log_group["Type"] == "AWS::Logs::LogGroup"
    assert log_group["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionInDays"}


def test_log_retention_is_a_parameter_with_a_valid_default():
    parameter = PARAMETERS["LogRetentionInDays"]
    assert parameter["Default"] in VALID_RETENTION_DAYS
    assert set(parameter["AllowedValues"]) >= VALID_RETENTION_DAYS


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_every_function_logs_to_its_own_log_group_with_retention(name):
    reference = FUNCTIONS[name]["Properties"]["LoggingConfig"]["LogGroup"]
    assert set(reference) == {"Ref"}
    _retention_is_the_parameter(TEMPLATE.resources[reference["Ref"]])
    users = [other for other, spec in FUNCTIONS.items() if spec["Properties"]["LoggingConfig"]["LogGroup"] == reference]
    assert users == [name]


def test_every_log_group_has_the_retention_parameter():
    assert LOG_GROUPS
    for log_group in LOG_GROUPS.values():
        _retention_is_the_parameter(log_group)


@pytest.mark.parametrize("name", sorted(TEMPLATE.of_type("AWS::Serverless::StateMachine")))
def test_each_state_machine_logs_to_a_retained_group(name):
    machine = TEMPLATE.resources[name]
    (destination,) = machine["Properties"]["Logging"]["Destinations"]
    arn = destination["CloudWatchLogsLogGroup"]["LogGroupArn"]
    _retention_is_the_parameter(TEMPLATE.resources[arn["Fn::GetAtt"][0]])
    assert machine["Properties"]["Logging"]["IncludeExecutionData"] is False


def _http_api():
    (api,) = TEMPLATE.of_type("AWS::Serverless::HttpApi").values()
    return api["Properties"]


def test_http_api_writes_a_json_access_log_to_a_retained_group():
    settings = _http_api()["AccessLogSettings"]
    _retention_is_the_parameter(TEMPLATE.resources[settings["DestinationArn"]["Fn::GetAtt"][0]])
    fields = json.loads(settings["Format"])
    assert fields["requestId"] == "$context.requestId"
    assert fields["ip"] == "$context.identity.sourceIp"
    assert fields["routeKey"] == "$context.routeKey"
    assert fields["status"] == "$context.status"
    assert fields["latency"] == "$context.responseLatency"
    assert fields["userAgent"] == "$context.identity.userAgent"
    assert fields["sub"] == "$context.authorizer.claims.sub"


def test_http_api_is_throttled_by_parameters():
    route_settings = _http_api()["DefaultRouteSettings"]
    assert route_settings["ThrottlingRateLimit"] == {"Ref": "ApiThrottlingRateLimit"}
    assert route_settings["ThrottlingBurstLimit"] == {"Ref": "ApiThrottlingBurstLimit"}
    assert 0 < PARAMETERS["ApiThrottlingRateLimit"]["Default"] <= PARAMETERS["ApiThrottlingBurstLimit"]["Default"]


RATE_LIMIT_PARAMETERS = {
    "request": ("RequestRateBurst", "RequestRateIntervalSeconds"),
    "answer": ("AnswerRateBurst", "AnswerRateIntervalSeconds"),
    "round_start": ("RoundStartRateBurst", "RoundStartRateIntervalSeconds"),
    "mcp_call": ("McpCallRateBurst", "McpCallRateIntervalSeconds"),
}


@pytest.mark.parametrize("action", sorted(RATE_LIMIT_PARAMETERS))
def test_per_user_rate_limits_are_parameters_with_the_codes_defaults(action):
    from slea.security.rate_limits import DEFAULT_LIMITS

    burst, interval = RATE_LIMIT_PARAMETERS[action]
    default = DEFAULT_LIMITS[action]
    assert (PARAMETERS[burst]["Default"], PARAMETERS[interval]["Default"]) == (default.burst, default.interval_seconds)
    prefix = f"RATE_LIMIT_{action.upper()}"
    users = {"ApiFunction", "McpFunction"} if action != "mcp_call" else {"McpFunction"}
    for name in users:
        variables = FUNCTIONS[name]["Properties"]["Environment"]["Variables"]
        assert variables[f"{prefix}_BURST"] == {"Ref": burst}
        assert variables[f"{prefix}_INTERVAL_SECONDS"] == {"Ref": interval}
        assert variables["RATE_LIMIT_TABLE"] == {"Ref": "RateLimitTable"}


def _calls_the_model(name):
    """A function whose handler reaches the model in the layer's import graph: slea.llm itself, or
    the use case it calls or a module that use case imports, at any depth."""
    import grimp

    graph = grimp.build_graph("slea", include_external_packages=False)
    code = (REPO_ROOT / FUNCTIONS[name]["Properties"]["CodeUri"] / "app.py").read_text(encoding="utf-8")
    imported = set()
    for module, names in re.findall(r"^\s*(?:from|import) (slea[\w.]*)(?: import ([\w, ]+))?", code, re.MULTILINE):
        imported |= {module} | {f"{module}.{part.strip()}" for part in names.split(",") if part.strip()}
    reached = set().union(*(graph.find_upstream_modules(module) | {module} for module in imported & graph.modules))
    return any(module.startswith("slea.llm") for module in reached)


MODEL_FUNCTIONS = sorted(name for name in FUNCTIONS if _calls_the_model(name))


def test_the_model_calling_functions_are_found():
    assert {"GenerateQuestionsFunction", "ValidateQuestionQualityFunction", "ScoreAndExplainFunction"} <= set(
        MODEL_FUNCTIONS
    )


@pytest.mark.parametrize("name", MODEL_FUNCTIONS)
def test_model_calling_functions_have_reserved_concurrency_from_a_parameter(name):
    value = FUNCTIONS[name]["Properties"]["ReservedConcurrentExecutions"]
    condition, reserved, otherwise = value["Fn::If"]
    assert otherwise == {"Ref": "AWS::NoValue"}
    parameter = reserved["Ref"]
    assert PARAMETERS[parameter]["Type"] == "Number"
    assert PARAMETERS[parameter]["Default"] > 0
    # 0 means "no reservation" (a reservation of 0 would stop the function).
    assert CONDITIONS[condition] == {"Fn::Not": [{"Fn::Equals": [{"Ref": parameter}, "0"]}]}


@pytest.mark.parametrize("name", sorted(ALARMS))
def test_alarms_notify_the_optional_topic(name):
    assert PARAMETERS["AlarmTopicArn"]["Default"] == ""
    assert CONDITIONS["HasAlarmTopic"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "AlarmTopicArn"}, ""]}]}
    properties = ALARMS[name]["Properties"]
    expected = {"Fn::If": ["HasAlarmTopic", [{"Ref": "AlarmTopicArn"}], {"Ref": "AWS::NoValue"}]}
    assert properties["AlarmActions"] == expected
    assert properties["OKActions"] == expected
    assert properties["TreatMissingData"] == "notBreaching"


def _alarm_metrics(properties):
    """(namespace, metric name, dimensions) of every metric an alarm reads."""
    if "MetricName" in properties:
        dimensions = {d["Name"]: d["Value"] for d in properties.get("Dimensions", [])}
        return [(properties["Namespace"], properties["MetricName"], dimensions)]
    found = []
    for query in properties["Metrics"]:
        if "MetricStat" in query:
            metric = query["MetricStat"]["Metric"]
            dimensions = {d["Name"]: d["Value"] for d in metric.get("Dimensions", [])}
            found.append((metric["Namespace"], metric["MetricName"], dimensions))
    return found


def test_api_5xx_alarm():
    ((namespace, name, dimensions),) = _alarm_metrics(ALARMS["HttpApi5xxAlarm"]["Properties"])
    assert (namespace, name, dimensions) == ("AWS/ApiGateway", "5xx", {"ApiId": {"Ref": "HttpApi"}})


def test_llm_error_rate_alarm_divides_errors_by_calls_of_every_operation():
    from slea.llm.provider import Operation

    properties = ALARMS["LlmErrorRateAlarm"]["Properties"]
    metrics = _alarm_metrics(properties)
    for metric_name in ("LLMErrors", "LLMCalls"):
        operations = {dims["Operation"] for namespace, name, dims in metrics if name == metric_name}
        assert operations == set(typing.get_args(Operation))
    for namespace, _, dimensions in metrics:
        assert namespace == NAMESPACE
        # EMF dimensions of slea.llm.provider.llm_call: Operation, Provider and Powertools' service.
        assert set(dimensions) == {"Operation", "Provider", "service"}
        assert dimensions["service"] == SERVICE
        assert dimensions["Provider"] == "gemini"
    (expression,) = [query for query in properties["Metrics"] if "Expression" in query]
    assert expression["ReturnData"] is True
    assert all(query["ReturnData"] is False for query in properties["Metrics"] if query is not expression)
    ids = {query["Id"] for query in properties["Metrics"] if query is not expression}
    assert ids == set(re.findall(r"[a-z_]+_[a-z]+(?=,0\))", expression["Expression"]))


def test_attempts_not_recorded_alarm_matches_what_the_scoring_path_emits():
    ((namespace, name, dimensions),) = _alarm_metrics(ALARMS["AttemptsNotRecordedAlarm"]["Properties"])
    assert (namespace, name, dimensions) == (NAMESPACE, "AttemptsNotRecorded", {"service": SERVICE})
    assert any('add_metric(name="AttemptsNotRecorded"' in source.read_text() for source in LAYER_PACKAGE.rglob("*.py"))


@pytest.mark.parametrize(
    ("alarm", "machine"),
    [
        ("GenerateRoundFailedAlarm", "GenerateRoundStateMachine"),
        ("CalibrationRefitFailedAlarm", "CalibrationRefitStateMachine"),
    ],
)
def test_state_machine_failures_alarm(alarm, machine):
    metrics = _alarm_metrics(ALARMS[alarm]["Properties"])
    assert {name for _, name, _ in metrics} == {"ExecutionsFailed", "ExecutionsTimedOut", "ExecutionsAborted"}
    assert all(dims == {"StateMachineArn": {"Ref": machine}} for _, _, dims in metrics)


def _emitted_metric_names():
    """Every metric name the layer emits: add_metric(name="...") literals, and the f-string
    KeywordsFrom{source} expanded over slea.platform.cache.Source."""
    from slea.platform.cache import Source

    names = set()
    for path in LAYER_PACKAGE.rglob("*.py"):
        for prefix, name in re.findall(r'add_metric\(\s*name=(f?)"([^"]+)"', path.read_text(encoding="utf-8")):
            if not prefix:
                names.add(name)
            elif name == "KeywordsFrom{found.source.capitalize()}":
                names |= {f"KeywordsFrom{source.capitalize()}" for source in typing.get_args(Source)}
            else:
                pytest.fail(f"{path.name}: teach this test the metric names of f-string {name!r}")
    return names


def _dashboard():
    (dashboard,) = TEMPLATE.of_type("AWS::CloudWatch::Dashboard").values()
    body = dashboard["Properties"]["DashboardBody"]["Fn::Sub"]
    for reference in re.findall(r"\$\{([^}]+)\}", body):
        assert reference.startswith("AWS::") or reference.split(".")[0] in TEMPLATE.resources, reference
    return json.loads(re.sub(r"\$\{([^}]+)\}", r"<\1>", body))


def _dashboard_metrics():
    """(namespace, name, dimensions) of the dashboard's metric rows, and its SEARCH expressions."""
    rows, searches = [], []
    for widget in _dashboard()["widgets"]:
        for row in widget["properties"].get("metrics", []):
            if isinstance(row, dict):
                searches.append(row["expression"])
                continue
            fields = [field for field in row if not isinstance(field, dict)]
            rows.append((fields[0], fields[1], dict(zip(fields[2::2], fields[3::2], strict=True))))
    return rows, searches


def test_the_code_emits_the_metrics_this_test_expects():
    names = _emitted_metric_names()
    assert {"LLMCalls", "LLMErrors", "AttemptsNotRecorded", "KeywordsFromStale", "QuestionsSaved"} <= names


def test_the_dashboard_shows_every_metric_the_code_emits():
    rows, searches = _dashboard_metrics()
    shown = {name for namespace, name, dims in rows if namespace == NAMESPACE and dims == {"service": SERVICE}}
    for search in searches:
        assert search.startswith(f"SEARCH('{{{NAMESPACE},Operation,Provider,service}}")
        shown |= set(re.findall(r'MetricName="(\w+)"', search))
    missing = _emitted_metric_names() - shown
    assert not missing, f"add these EMF metrics to OperationsDashboard: {sorted(missing)}"


def test_the_dashboard_shows_the_api_the_functions_the_state_machine_and_the_dead_letter_queue():
    rows, _ = _dashboard_metrics()
    shown = {(namespace, name, tuple(sorted(dims.items()))) for namespace, name, dims in rows}
    for metric in ("5xx", "Latency"):
        assert ("AWS/ApiGateway", metric, (("ApiId", "<HttpApi>"),)) in shown
    for function in FUNCTIONS:
        for metric in ("Errors", "Throttles"):
            assert ("AWS/Lambda", metric, (("FunctionName", f"<{function}>"),)) in shown
    assert ("AWS/States", "ExecutionsFailed", (("StateMachineArn", "<GenerateRoundStateMachine>"),)) in shown
    dead_letters = (("QueueName", "<RetryDeadLetterQueue.QueueName>"),)
    assert ("AWS/SQS", "ApproximateNumberOfMessagesVisible", dead_letters) in shown
    (alarm_widget,) = [widget for widget in _dashboard()["widgets"] if widget["type"] == "alarm"]
    assert set(alarm_widget["properties"]["alarms"]) == {f"<{name}.Arn>" for name in ALARMS}
