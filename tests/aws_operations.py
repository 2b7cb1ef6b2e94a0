"""moto does not enforce IAM, so a permission missing from template.yaml passes every local test.
This pytest plugin records every AWS operation each function (and the state machine) performs
and checks it against that principal's `Policies` in template.yaml.

Recording: botocore's BaseClient._make_api_call is wrapped; a call made while
LocalRuntime.invoke runs a handler is attributed to that function's logical id (a contextvar,
so Step Functions' worker threads attribute correctly). The state machine's Lambda task
invocations are recorded where slea_local.executions hands them to the runtime.

Checking: each call is mapped to the IAM actions and resource ARNs AWS authorises it as
(TransactWriteItems as the PutItem/UpdateItem/... of each item, a Query on an index as the index
ARN, ...); each principal's Policies are resolved like CloudFormation (conditions, !Ref, !Sub)
and SAM policy templates expanded. `check` reports both directions: calls no grant allows, and
grants no call used. tests/infrastructure/test_iam_policies.py drives every function and asserts
both; at the end of any pytest session, a call made anywhere in the suite that the template does
not grant fails the run too.

Deliberate exceptions (not in `Policies`, not checked):
- calls made outside a function's handler: test set-up, the operator commands, and
  slea_local.runtime.QueuePoller, which stands in for the Lambda service's SQS event source
  mapping (sqs:ReceiveMessage/DeleteMessage/ChangeMessageVisibility/GetQueueAttributes); SAM grants
  those to the retry worker's role itself (AWSLambdaSQSQueueExecutionRole, from the SQS event);
- CloudWatch Logs and X-Ray: SAM attaches AWSLambdaBasicExecutionRole and AWSXRayDaemonWriteAccess
  (Tracing: Active); logs and EMF metrics are written by the Lambda runtime, not by API calls;
- UNUSED_GRANT_EXCEPTIONS below: grants no code of ours calls, each with its reason.
"""

import contextlib
import contextvars
import fnmatch
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import botocore.client
import pytest

from slea_local.cloud import ACCOUNT, LocalCloud

PRINCIPAL: contextvars.ContextVar[str | None] = contextvars.ContextVar("aws_principal", default=None)

_VENDED_LOGS = (
    "Vended log delivery of the state machine's Logging configuration: the Step Functions service "
    "calls this when it sets up and writes the execution log destination, not our code (and moto "
    "does not log executions)"
)
_EXPORT_WRITES = (
    "DynamoDB writes a table export's files into the bucket with the permissions of the principal "
    "that called ExportTableToPointInTime (AWS docs, 'Requesting a table export in DynamoDB'); moto "
    "writes them without asking"
)
_MAP_CHILDREN = (
    "A distributed map runs its children as executions of its own state machine, started, followed "
    "and stopped by the Step Functions service with the state machine's role (AWS docs, 'IAM policies "
    "for using Distributed Map states'); moto's interpreter runs them in process"
)
# (principal, IAM action) -> why the grant is kept although no recorded call uses it.
UNUSED_GRANT_EXCEPTIONS: dict[tuple[str, str], str] = {
    **{
        (machine, action): _VENDED_LOGS
        for machine in ("GenerateRoundStateMachine", "CalibrationRefitStateMachine")
        for action in (
            "logs:CreateLogDelivery",
            "logs:GetLogDelivery",
            "logs:UpdateLogDelivery",
            "logs:DeleteLogDelivery",
            "logs:ListLogDeliveries",
            "logs:PutResourcePolicy",
            "logs:DescribeResourcePolicies",
            "logs:DescribeLogGroups",
        )
    },
    **{
        ("CalibrationExportFunction", action): _EXPORT_WRITES
        for action in ("s3:PutObject", "s3:AbortMultipartUpload", "s3:PutObjectAcl")
    },
    **{
        ("CalibrationRefitStateMachine", action): _MAP_CHILDREN
        for action in ("states:StartExecution", "states:DescribeExecution", "states:StopExecution")
    },
}

# SAM policy templates, transcribed from samtranslator/policy_templates_data/policy_templates.json
# (aws/serverless-application-model); tests/infrastructure/test_iam_policies.py compares this
# table with that file when samtranslator is installed (.venv-sam). Placeholders: {partition},
# {region}, {account} and the template's parameters.
_TABLE = "arn:{partition}:dynamodb:{region}:{account}:table/{TableName}"
_QUEUE = "arn:{partition}:sqs:{region}:{account}:{QueueName}"
SAM_POLICY_TEMPLATES: dict[str, list[tuple[list[str], list[str]]]] = {
    "DynamoDBCrudPolicy": [
        (
            [
                "dynamodb:GetItem",
                "dynamodb:DeleteItem",
                "dynamodb:PutItem",
                "dynamodb:Scan",
                "dynamodb:Query",
                "dynamodb:UpdateItem",
                "dynamodb:BatchWriteItem",
                "dynamodb:BatchGetItem",
                "dynamodb:DescribeTable",
                "dynamodb:ConditionCheckItem",
            ],
            [_TABLE, _TABLE + "/index/*"],
        )
    ],
    "DynamoDBReadPolicy": [
        (
            ["dynamodb:GetItem", "dynamodb:Scan", "dynamodb:Query", "dynamodb:BatchGetItem", "dynamodb:DescribeTable"],
            [_TABLE, _TABLE + "/index/*"],
        )
    ],
    "DynamoDBWritePolicy": [
        (["dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:BatchWriteItem"], [_TABLE, _TABLE + "/index/*"])
    ],
    "SQSSendMessagePolicy": [(["sqs:SendMessage*"], [_QUEUE])],
    "SQSPollerPolicy": [
        (
            [
                "sqs:ChangeMessageVisibility",
                "sqs:ChangeMessageVisibilityBatch",
                "sqs:DeleteMessage",
                "sqs:DeleteMessageBatch",
                "sqs:GetQueueAttributes",
                "sqs:ReceiveMessage",
            ],
            [_QUEUE],
        )
    ],
    "StepFunctionsExecutionPolicy": [
        (["states:StartExecution"], ["arn:{partition}:states:{region}:{account}:stateMachine:{StateMachineName}"])
    ],
    "SSMParameterReadPolicy": [
        (["ssm:DescribeParameters"], ["*"]),
        (
            ["ssm:GetParameters", "ssm:GetParameter", "ssm:GetParametersByPath"],
            ["arn:{partition}:ssm:{region}:{account}:parameter/{ParameterName}"],
        ),
    ],
    "SSMParameterWithSlashPrefixReadPolicy": [
        (["ssm:DescribeParameters"], ["*"]),
        (
            ["ssm:GetParameters", "ssm:GetParameter", "ssm:GetParametersByPath"],
            ["arn:{partition}:ssm:{region}:{account}:parameter{ParameterName}"],
        ),
    ],
    "LambdaInvokePolicy": [
        (["lambda:InvokeFunction"], ["arn:{partition}:lambda:{region}:{account}:function:{FunctionName}*"])
    ],
}


@dataclass(frozen=True)
class Use:
    """One IAM authorisation a call needed: `action` on `resource`, by `principal`."""

    principal: str
    action: str
    resource: str
    call: str  # e.g. "dynamodb.PutItem", for the report


@dataclass(frozen=True)
class Grant:
    """One action allowed on any of `resources` (an inline statement gives one Grant per action and
    resource, a policy template one per action: the unit that must be used)."""

    principal: str
    action: str
    resources: tuple[str, ...]
    origin: str

    def allows(self, use: Use) -> bool:
        return (
            use.principal == self.principal
            and fnmatch.fnmatchcase(use.action.lower(), self.action.lower())
            and any(fnmatch.fnmatchcase(use.resource, pattern) for pattern in self.resources)
        )


@dataclass
class Findings:
    missing: list[Use] = field(default_factory=list)  # used, not granted
    unused: list[Grant] = field(default_factory=list)  # granted, never used

    def report(self) -> str:
        lines = [f"NOT GRANTED: {u.principal} {u.action} on {u.resource} ({u.call})" for u in self.missing]
        lines += [
            f"UNUSED GRANT: {g.principal} {g.action} on {', '.join(g.resources)} ({g.origin})" for g in self.unused
        ]
        return "\n".join(lines)


def check(
    uses: list[Use],
    grants: list[Grant],
    unused_exceptions: dict[tuple[str, str], str] | None = None,
    check_unused: bool = True,
) -> Findings:
    exceptions = UNUSED_GRANT_EXCEPTIONS if unused_exceptions is None else unused_exceptions
    findings = Findings()
    for use in dict.fromkeys(uses):
        if not any(grant.allows(use) for grant in grants):
            findings.missing.append(use)
    if check_unused:
        findings.unused = [
            grant
            for grant in grants
            if (grant.principal, grant.action) not in exceptions and not any(grant.allows(use) for use in uses)
        ]
    return findings


# ---------------------------------------------------------------- calls -> IAM actions and resources
def _arn(service: str, region: str, resource: str) -> str:
    return f"arn:aws:{service}:{region}:{ACCOUNT}:{resource}"


def _table(region: str, table: str, index: str | None = None) -> str:
    return _arn("dynamodb", region, f"table/{table}" + (f"/index/{index}" if index else ""))


_TRANSACT_ACTIONS = {
    "Put": "PutItem",
    "Update": "UpdateItem",
    "Delete": "DeleteItem",
    "ConditionCheck": "ConditionCheckItem",
}


def iam_uses(service: str, operation: str, params: dict[str, Any], region: str) -> list[tuple[str, str]]:
    """The (IAM action, resource ARN) pairs AWS authorises a call as. `service` is the client's
    signing name (dynamodb, sqs, states, ssm, secretsmanager, lambda)."""
    if service == "dynamodb":
        if operation == "TransactWriteItems":  # authorised item by item
            return [
                (f"dynamodb:{_TRANSACT_ACTIONS[kind]}", _table(region, body["TableName"]))
                for item in params["TransactItems"]
                for kind, body in item.items()
            ]
        if operation == "TransactGetItems":
            return [("dynamodb:GetItem", _table(region, item["Get"]["TableName"])) for item in params["TransactItems"]]
        if "RequestItems" in params:  # BatchGetItem, BatchWriteItem
            return [(f"dynamodb:{operation}", _table(region, table)) for table in params["RequestItems"]]
        if operation == "ExportTableToPointInTime":  # the table's ARN
            return [("dynamodb:ExportTableToPointInTime", params["TableArn"])]
        if operation == "DescribeExport":  # the export's ARN: {table ARN}/export/{id}
            return [("dynamodb:DescribeExport", params["ExportArn"])]
        return [(f"dynamodb:{operation}", _table(region, params["TableName"], params.get("IndexName")))]
    if service == "sqs" and "QueueUrl" in params:
        return [(f"sqs:{operation}", _arn("sqs", region, params["QueueUrl"].rstrip("/").rsplit("/", 1)[-1]))]
    if service == "states":
        arn = params.get("stateMachineArn") or params.get("executionArn") or "*"
        return [(f"states:{operation}", arn)]
    if service == "ssm" and ("Name" in params or "Names" in params):
        names = params.get("Names") or [params["Name"]]
        return [
            (f"ssm:{operation}", _arn("ssm", region, "parameter" + ("" if n.startswith("/") else "/") + n))
            for n in names
        ]
    if service == "secretsmanager" and "SecretId" in params:  # the code passes the secret's ARN (!Ref)
        return [(f"secretsmanager:{operation}", params["SecretId"])]
    if service == "s3" and "Bucket" in params:
        bucket = f"arn:aws:s3:::{params['Bucket']}"
        if operation in ("ListObjectsV2", "ListObjects"):
            return [("s3:ListBucket", bucket)]
        if operation in ("GetObject", "HeadObject"):
            return [("s3:GetObject", f"{bucket}/{params['Key']}")]
        return [(f"s3:{operation}", f"{bucket}/{params['Key']}" if "Key" in params else bucket)]
    if service == "lambda" and operation == "Invoke":
        name = params["FunctionName"]
        return [
            ("lambda:InvokeFunction", name if name.startswith("arn:") else _arn("lambda", region, f"function:{name}"))
        ]
    return [(f"{service}:{operation}", "*")]


# ---------------------------------------------------------------- template policies -> grants
class UnsupportedPolicy(ValueError):
    pass


def expand_policies(principal: str, policies: list[Any], region: str, partition: str = "aws") -> list[Grant]:
    """Grants of resolved `Policies` (inline statements and SAM policy templates)."""
    grants: list[Grant] = []
    for number, policy in enumerate(policies):
        if isinstance(policy, dict) and "Statement" in policy:
            for statement in policy["Statement"]:
                if statement.get("Effect") != "Allow" or "Condition" in statement or "NotAction" in statement:
                    raise UnsupportedPolicy(f"{principal}: only plain Allow statements are checked: {statement}")
                actions = _as_list(statement["Action"])
                resources = _as_list(statement["Resource"])
                grants += [
                    Grant(principal, action, (resource,), f"Policies[{number}] Statement")
                    for action in actions
                    for resource in resources
                ]
        elif isinstance(policy, dict) and len(policy) == 1 and next(iter(policy)) in SAM_POLICY_TEMPLATES:
            ((name, parameters),) = policy.items()
            values = {"partition": partition, "region": region, "account": ACCOUNT, **(parameters or {})}
            for actions, resources in SAM_POLICY_TEMPLATES[name]:
                rendered = tuple(resource.format(**values) for resource in resources)
                grants += [Grant(principal, action, rendered, f"Policies[{number}] {name}") for action in actions]
        else:
            raise UnsupportedPolicy(f"{principal}: add {policy!r} to tests/aws_operations.py to check it")
    return grants


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def principal_grants(cloud: LocalCloud, principal: str) -> list[Grant]:
    from slea_local.cloud import REGION

    policies = cloud.resolve(cloud.template.resources[principal]["Properties"].get("Policies", []))
    return expand_policies(principal, policies, REGION)


def principals(cloud: LocalCloud) -> list[str]:
    template = cloud.template
    return [*template.of_type("AWS::Serverless::Function"), *template.of_type("AWS::Serverless::StateMachine")]


# ---------------------------------------------------------------- recording
ConfigKey = tuple[int, str, tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]


@dataclass
class Recording:
    uses: list[tuple[ConfigKey, Use]] = field(default_factory=list)
    grants: dict[tuple[ConfigKey, str], list[Grant]] = field(default_factory=dict)
    invoked: set[str] = field(default_factory=set)  # functions run, and state machines that ran tasks

    def add(self, cloud: LocalCloud, use: Use) -> None:
        self.invoke(cloud, use.principal)
        self.uses.append((_config_key(cloud), use))

    def invoke(self, cloud: LocalCloud, principal: str) -> None:
        """The principal ran: its grants are checked, even if it made no call."""
        key = _config_key(cloud)
        if (key, principal) not in self.grants:
            self.grants[key, principal] = principal_grants(cloud, principal)
        self.invoked.add(principal)

    def findings(self, check_unused: bool = False) -> Findings:
        """Each template configuration (parameters, physical names) is checked against its own grants."""
        findings = Findings()
        for key in dict.fromkeys(key for key, _ in self.grants):
            uses = [use for use_key, use in self.uses if use_key == key]
            grants = [grant for (grant_key, _), granted in self.grants.items() if grant_key == key for grant in granted]
            found = check(uses, grants, check_unused=check_unused)
            findings.missing += found.missing
            findings.unused += found.unused
        return findings


def _config_key(cloud: LocalCloud) -> ConfigKey:
    """What the grants depend on: the template, its parameters and the resources' physical names
    (a secret's ARN ends in random characters, different in every local cloud)."""
    return (
        id(cloud.template.document),
        cloud.stack_name,
        tuple(sorted(cloud.parameters.items())),
        tuple(sorted(cloud.physical_names.items())),
    )


_SESSION = Recording()
_ACTIVE: list[Recording] = [_SESSION]
_ACTIVE_LOCK = threading.Lock()
_CLOUD: contextvars.ContextVar[LocalCloud | None] = contextvars.ContextVar("aws_cloud", default=None)


@contextlib.contextmanager
def recording() -> Iterator[Recording]:
    """Collect the uses made inside the block (they are also kept for the session check)."""
    captured = Recording()
    with _ACTIVE_LOCK:
        _ACTIVE.append(captured)
    try:
        yield captured
    finally:
        with _ACTIVE_LOCK:
            _ACTIVE.remove(captured)


def _record(cloud: LocalCloud, use: Use) -> None:
    with _ACTIVE_LOCK:
        for target in _ACTIVE:
            target.add(cloud, use)


def _record_invocation(cloud: LocalCloud, principal: str) -> None:
    with _ACTIVE_LOCK:
        for target in _ACTIVE:
            target.invoke(cloud, principal)


_STEP_FUNCTION_CLOUDS: list[LocalCloud] = []  # the local clouds whose state machines run now


def _install() -> None:
    from moto.stepfunctions.parser.asl.component.state.exec.state_map.item_reader.eval.resource_eval_s3 import (
        ResourceEvalS3,
    )

    from slea_local.executions import LocalStepFunctions
    from slea_local.runtime import LocalRuntime

    if getattr(botocore.client.BaseClient._make_api_call, "_records_aws_operations", False):
        return
    original_call = botocore.client.BaseClient._make_api_call
    original_invoke = LocalRuntime.invoke
    original_task = LocalStepFunctions._invoke_lambda

    def make_api_call(self: Any, operation_name: str, api_params: dict[str, Any]) -> Any:
        principal, cloud = PRINCIPAL.get(), _CLOUD.get()
        if principal is not None and cloud is not None:
            service = self.meta.service_model.signing_name
            for action, resource in iam_uses(service, operation_name, api_params, self.meta.region_name):
                _record(cloud, Use(principal, action, resource, f"{service}.{operation_name}"))
        return original_call(self, operation_name, api_params)

    def invoke(self: LocalRuntime, name: str, event: Any, environment: dict[str, str] | None = None) -> Any:
        _record_invocation(self.cloud, self.function_id(name))
        principal = PRINCIPAL.set(self.function_id(name))
        cloud = _CLOUD.set(self.cloud)
        try:
            return original_invoke(self, name, event, environment)
        finally:
            PRINCIPAL.reset(principal)
            _CLOUD.reset(cloud)

    def invoke_task(self: LocalStepFunctions, function_name: str, *args: Any) -> bytes:
        """A Lambda task: the state machine's role invokes the function."""
        cloud = self.runtime.cloud
        function_id = self.runtime.function_id(function_name.rsplit(":", 1)[-1].removeprefix(f"{cloud.stack_name}-"))
        arn = cloud.resolve({"Fn::GetAtt": [function_id, "Arn"]})
        for machine, spec in cloud.template.of_type("AWS::Serverless::StateMachine").items():
            if arn in cloud.resolve(spec["Properties"].get("DefinitionSubstitutions", {})).values():
                _record(cloud, Use(machine, "lambda:InvokeFunction", arn, "lambda.Invoke (Task state)"))
        return original_task(self, function_name, *args)

    def read_items(self: Any, env: Any) -> Any:
        """A distributed map's ItemReader: the state machine's role lists (or reads) the objects.
        The role's name says which state machine of which local cloud runs (slea_local.cloud)."""
        role = env.aws_execution_details.role_arn.rsplit("/", 1)[-1]
        for cloud in list(_STEP_FUNCTION_CLOUDS):
            machine = role.removeprefix(f"{cloud.stack_name}-").removesuffix("-role")
            if machine in cloud.template.of_type("AWS::Serverless::StateMachine"):
                principal, current = PRINCIPAL.set(machine), _CLOUD.set(cloud)
                try:
                    return original_read_items(self, env)
                finally:
                    PRINCIPAL.reset(principal)
                    _CLOUD.reset(current)
        return original_read_items(self, env)

    def enter(self: LocalStepFunctions) -> LocalStepFunctions:
        _STEP_FUNCTION_CLOUDS.insert(0, self.runtime.cloud)
        return original_enter(self)

    def exit_(self: LocalStepFunctions, *exc_info: object) -> None:
        try:
            original_exit(self, *exc_info)
        finally:
            _STEP_FUNCTION_CLOUDS.remove(self.runtime.cloud)

    original_read_items = ResourceEvalS3.eval_resource
    original_enter, original_exit = LocalStepFunctions.__enter__, LocalStepFunctions.__exit__
    ResourceEvalS3.eval_resource = read_items  # type: ignore[method-assign]
    LocalStepFunctions.__enter__ = enter  # type: ignore[method-assign]
    LocalStepFunctions.__exit__ = exit_  # type: ignore[method-assign]
    make_api_call._records_aws_operations = True  # type: ignore[attr-defined]
    botocore.client.BaseClient._make_api_call = make_api_call  # type: ignore[method-assign]
    LocalRuntime.invoke = invoke  # type: ignore[method-assign]
    LocalStepFunctions._invoke_lambda = invoke_task  # type: ignore[method-assign]


# ---------------------------------------------------------------- pytest hooks
def pytest_configure(config: pytest.Config) -> None:
    _install()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    findings = _SESSION.findings(check_unused=False)
    session.config.stash[_FINDINGS] = findings
    if findings.missing and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    findings = config.stash.get(_FINDINGS, None)
    if findings is not None and findings.missing:
        terminalreporter.section("AWS operations not granted by template.yaml", red=True)
        terminalreporter.write_line(findings.report())


_FINDINGS = pytest.StashKey[Findings]()
