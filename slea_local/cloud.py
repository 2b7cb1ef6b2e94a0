"""The resources of template.yaml, created in moto, and the functions' environments resolved
from the template's intrinsic functions."""

import copy
import dataclasses
import functools
import json
import os
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, ClassVar
from unittest import mock

import boto3
import botocore.loaders
import botocore.session
from moto import mock_aws
from moto.dynamodb.models import dynamodb_backends
from moto.stepfunctions.parser.models import StepFunctionsParserBackend

from slea_local import REPO_ROOT
from slea_local.fast_responses import FastResponses
from slea_local.fast_transactions import FastTransactions
from slea_local.patches import Patches
from slea_local.template import Template, repository_template

REGION = "us-east-1"
ACCOUNT = "123456789012"
# Offline credentials, so nothing can reach a real account by accident.
OFFLINE_ENVIRONMENT = {
    "AWS_DEFAULT_REGION": REGION,
    "AWS_REGION": REGION,
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "POWERTOOLS_TRACE_DISABLED": "true",
}

# The unique part of a local stack's id (AWS::StackId), fixed so that names derived from it are too.
_STACK_ID = "0b5e1d2c-3f4a-4b6c-8d7e-9f0a1b2c3d4e"
NO_VALUE = object()  # AWS::NoValue: the key or item disappears
# GenerateSecretString properties that GetRandomPassword takes as they are.
_PASSWORD = (
    "PasswordLength",
    "ExcludeCharacters",
    "ExcludeNumbers",
    "ExcludePunctuation",
    "ExcludeUppercase",
    "ExcludeLowercase",
    "IncludeSpace",
    "RequireEachIncludedType",
)
_TABLE_PROPERTIES = (
    "AttributeDefinitions",
    "KeySchema",
    "GlobalSecondaryIndexes",
    "LocalSecondaryIndexes",
    "BillingMode",
)


def prepare_process_environment() -> None:
    """What Lambda does before importing a handler: the template's Globals environment is in
    place (Powertools reads it at import). Also offline credentials, so nothing reaches AWS.
    Values already set by the caller (e.g. POWERTOOLS_LOG_LEVEL) are kept."""
    for name, value in {**OFFLINE_ENVIRONMENT, **LocalCloud().global_environment()}.items():
        os.environ.setdefault(name, value)


class LocalCloud:
    """Owns one moto session. Use as a context manager:

    with LocalCloud() as cloud:
        cloud.environment_of("GetUserProfileFunction")  # {"PROFILES_TABLE": "...", ...}
    """

    def __init__(
        self,
        template: Template | None = None,
        stack_name: str = "slea-local",
        parameters: dict[str, str] | None = None,
        fast_transactions: bool = True,
        fast_responses: FastResponses | None = None,
    ) -> None:
        self.template = template or repository_template()
        self.stack_name = stack_name
        self.parameters = {**self.template.parameter_defaults(), **(parameters or {})}
        self.physical_names: dict[str, str] = {}
        self.stream_arns: dict[str, str] = {}  # tables with a StreamSpecification: their stream
        self._mock = mock_aws(
            config={"stepfunctions": {"execute_state_machine": True}, "lambda": {"use_docker": False}}
        )
        self._saved_environment: dict[str, str | None] = {}
        self._atomic_writes = _AtomicItemWrites()
        self._honest_exports = _ExportArns()
        self._pool_signing_key = _PoolSigningKey()
        self._definitions_parsed_once = _DefinitionsParsedOnce()
        self._botocore_data_parsed_once = _BotocoreDataParsedOnce()
        # Transactions copy the items they write, not whole tables (False: moto's own copies,
        # for the before/after figure of bench/local_answers.py).
        self.fast_transactions = FastTransactions() if fast_transactions else None
        # The item operations' answers written with json.dumps, not moto's shape walk
        # (slea_local.fast_responses; a test passes CheckedFastResponses to compare the two).
        self.fast_responses = fast_responses or FastResponses()

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> "LocalCloud":
        for name, value in OFFLINE_ENVIRONMENT.items():
            self._saved_environment[name] = os.environ.get(name)
            os.environ[name] = value
        # Globals apply to every function, and Powertools reads them when first imported.
        # A value the caller set (e.g. a quieter POWERTOOLS_LOG_LEVEL for the demo) wins.
        for name, value in self.global_environment().items():
            self._saved_environment.setdefault(name, os.environ.get(name))
            os.environ.setdefault(name, value)
        self._mock.start()
        self._botocore_data_parsed_once.start()
        if self.fast_transactions is not None:
            self.fast_transactions.start()  # before the lock, which then wraps it
        self.fast_responses.start()
        self._atomic_writes.start()
        from slea_local.runtime import reset_warm_state

        reset_warm_state()
        self._honest_exports.start()
        self._pool_signing_key.start()
        self._definitions_parsed_once.start()
        self._create_tables()
        self._create_buckets()
        self._create_queues()
        self._create_secrets()
        for logical_id in self.template.of_type("AWS::Serverless::Function"):
            self.physical_names[logical_id] = f"{self.stack_name}-{logical_id}"
        for logical_id in self.template.of_type("AWS::Serverless::HttpApi"):  # API Gateway's API id
            self.physical_names[logical_id] = f"{self.stack_name}-{logical_id}".lower()
        self._create_user_pools()
        self._create_state_machines()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._definitions_parsed_once.stop()
        self._pool_signing_key.stop()
        self._honest_exports.stop()
        self._atomic_writes.stop()
        self.fast_responses.stop()
        if self.fast_transactions is not None:
            self.fast_transactions.stop()
        self._botocore_data_parsed_once.stop()
        self._mock.stop()
        for name, value in self._saved_environment.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value

    # ------------------------------------------------------------------ resources
    def _create_tables(self) -> None:
        """The template's tables, created through the API by the first local cloud of a process
        and copied, empty, into every later one with the same tables and stack name (moto's own
        table objects, as restoring a backup copies them): creating a dozen tables through
        botocore cost every test's cloud about 0.06 s, a copy about 0.003 s."""
        tables = self.template.of_type("AWS::DynamoDB::Table")
        key = json.dumps([self.stack_name, tables], sort_keys=True, default=str)
        backend = dynamodb_backends[ACCOUNT][REGION]
        if key not in _CREATED_TABLES:
            self._create_tables_through_the_api(tables)
            created = {self.physical_names[logical_id] for logical_id in tables}
            _CREATED_TABLES[key] = _CreatedTables(
                copy.deepcopy({name: table for name, table in backend.tables.items() if name in created}),
                {logical_id: self.physical_names[logical_id] for logical_id in tables},
                dict(self.stream_arns),
            )
            return
        saved = _CREATED_TABLES[key]
        backend.tables.update(copy.deepcopy(saved.tables))
        self.physical_names.update(saved.physical_names)
        self.stream_arns.update(saved.stream_arns)

    def _create_tables_through_the_api(self, tables: dict[str, Any]) -> None:
        client = _creating_client("dynamodb")
        for logical_id, spec in tables.items():
            name = f"{self.stack_name}-{logical_id}"
            properties = {key: value for key, value in spec["Properties"].items() if key in _TABLE_PROPERTIES}
            stream = spec["Properties"].get("StreamSpecification")
            if stream:  # CloudFormation names the view type only; the API also wants it enabled
                properties["StreamSpecification"] = {"StreamEnabled": True, **stream}
            created = client.create_table(TableName=name, **properties)["TableDescription"]
            self.physical_names[logical_id] = name
            if "LatestStreamArn" in created:
                self.stream_arns[logical_id] = created["LatestStreamArn"]
            # Point-in-time recovery as declared: a table's export needs it (moto checks, as AWS does).
            recovery = spec["Properties"].get("PointInTimeRecoverySpecification", {})
            if recovery.get("PointInTimeRecoveryEnabled"):
                client.update_continuous_backups(
                    TableName=name, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True}
                )

    def _create_buckets(self) -> None:
        """Each bucket with a name of its own (bucket names are lower case); its policy, encryption
        and lifecycle are AWS's to apply and are not modelled here."""
        client = _creating_client("s3")
        for logical_id in self.template.of_type("AWS::S3::Bucket"):
            name = f"{self.stack_name}-{logical_id}".lower()
            client.create_bucket(Bucket=name)
            self.physical_names[logical_id] = name

    def _create_queues(self) -> None:
        client = _creating_client("sqs")
        pending = dict(self.template.of_type("AWS::SQS::Queue"))
        while pending:  # a queue is created once the queues it refers to (its DLQ) exist
            ready = {name: spec for name, spec in pending.items() if not _references(spec, set(pending))}
            if not ready:
                raise ValueError(f"queues refer to each other in a cycle: {sorted(pending)}")
            for logical_id, spec in ready.items():
                name = f"{self.stack_name}-{logical_id}"
                attributes = {
                    key: json.dumps(value)
                    if isinstance(value, dict)
                    else str(value).lower()
                    if isinstance(value, bool)
                    else str(value)
                    for key, value in self.resolve(spec.get("Properties", {})).items()
                }
                url = client.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
                self.physical_names[logical_id] = url
                del pending[logical_id]

    def _create_secrets(self) -> None:
        """Each secret with a value generated as GenerateSecretString asks (moto's random
        password), so every local cloud has secrets of its own, as every deployment does."""
        client = _creating_client("secretsmanager")
        for logical_id, spec in self.template.of_type("AWS::SecretsManager::Secret").items():
            properties = self.resolve(spec.get("Properties", {}))
            value = properties.get("SecretString")
            if value is None:
                options = properties["GenerateSecretString"]
                if set(options) - set(_PASSWORD):  # e.g. SecretStringTemplate: a JSON secret
                    raise NotImplementedError(
                        f"{logical_id}: GenerateSecretString {sorted(options)} is not generated locally"
                    )
                value = client.get_random_password(**options)["RandomPassword"]
            name = properties.get("Name", f"{self.stack_name}-{logical_id}")
            self.physical_names[logical_id] = client.create_secret(Name=name, SecretString=value)["ARN"]

    def present(self, resource_type: str) -> dict[str, dict[str, Any]]:
        """The resources of a type that the stack holds: those whose Condition is true."""
        return {
            logical_id: spec
            for logical_id, spec in self.template.of_type(resource_type).items()
            if "Condition" not in spec or self.condition(spec["Condition"])
        }

    def _create_user_pools(self) -> None:
        """The stack's own user pool when the template creates one (JwtIssuer empty): its groups,
        its clients with the settings their Custom::UserPoolClientSignIn applies in AWS, and the
        sign-in domain. With a JwtIssuer given none is present and nothing is created."""
        client = _creating_client("cognito-idp")
        for logical_id, spec in self.present("AWS::Cognito::UserPool").items():
            properties = self.resolve(spec["Properties"])
            name = properties.pop("UserPoolName", f"{self.stack_name}-{logical_id}")
            self.physical_names[logical_id] = client.create_user_pool(PoolName=name, **properties)["UserPool"]["Id"]
        for logical_id, spec in self.present("AWS::Cognito::UserPoolGroup").items():
            properties = self.resolve(spec["Properties"])
            client.create_group(**properties)
            self.physical_names[logical_id] = properties["GroupName"]
        for logical_id, spec in self.present("AWS::Cognito::UserPoolClient").items():
            properties = self.resolve(spec["Properties"])
            created = client.create_user_pool_client(**properties)["UserPoolClient"]
            self.physical_names[logical_id] = created["ClientId"]
        for spec in self.present("Custom::UserPoolClientSignIn").values():
            properties = self.resolve(
                {name: value for name, value in spec["Properties"].items() if name != "ServiceToken"}
            )
            client.update_user_pool_client(
                UserPoolId=properties["UserPoolId"], ClientId=properties["ClientId"], **properties["ClientSettings"]
            )
        for logical_id, spec in self.present("AWS::Cognito::UserPoolDomain").items():
            properties = self.resolve(spec["Properties"])
            client.create_user_pool_domain(**properties)
            self.physical_names[logical_id] = properties["Domain"]

    def _create_state_machines(self) -> None:
        client = _creating_client("stepfunctions")
        for logical_id, spec in self.template.of_type("AWS::Serverless::StateMachine").items():
            name = self.resolve(spec["Properties"].get("Name", f"{self.stack_name}-{logical_id}"))
            self.physical_names[logical_id] = client.create_state_machine(
                name=name,
                definition=self.state_machine_definition(logical_id),
                roleArn=f"arn:aws:iam::{ACCOUNT}:role/{self.stack_name}-{logical_id}-role",
                type=spec["Properties"].get("Type", "STANDARD"),
            )["stateMachineArn"]

    def state_machine_definition(self, logical_id: str) -> str:
        """The ASL file of DefinitionUri with DefinitionSubstitutions applied, as SAM deploys it."""
        properties = self.template.resources[logical_id]["Properties"]
        definition: str = (REPO_ROOT / properties["DefinitionUri"]).read_text(encoding="utf-8")
        for name, value in self.resolve(properties.get("DefinitionSubstitutions", {})).items():
            definition = definition.replace(f"${{{name}}}", str(value))
        return definition

    def table_name(self, logical_id: str) -> str:
        return self.physical_names[logical_id]

    def queue_url(self, logical_id: str) -> str:
        return self.physical_names[logical_id]

    # ------------------------------------------------------------------ intrinsic functions
    def _attribute(self, logical_id: str, attribute: str) -> str:
        name = self.physical_names[logical_id]
        resource_type = self.template.resources[logical_id]["Type"]
        if resource_type == "AWS::DynamoDB::Table":
            return {
                "Arn": lambda: f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{name}",
                "StreamArn": lambda: self.stream_arns[logical_id],
            }[attribute]()
        if resource_type == "AWS::Serverless::Function" and attribute == "Arn":
            return f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{name}"
        if resource_type == "AWS::SQS::Queue":
            queue_name = name.rsplit("/", 1)[-1]
            return {"Arn": f"arn:aws:sqs:{REGION}:{ACCOUNT}:{queue_name}", "QueueName": queue_name, "QueueUrl": name}[
                attribute
            ]
        if resource_type == "AWS::S3::Bucket":
            return {"Arn": f"arn:aws:s3:::{name}", "DomainName": f"{name}.s3.amazonaws.com"}[attribute]
        if resource_type == "AWS::Cognito::UserPool":
            return {"Arn": f"arn:aws:cognito-idp:{REGION}:{ACCOUNT}:userpool/{name}"}[attribute]
        if resource_type == "AWS::Serverless::StateMachine":  # the physical name is its ARN
            return {"Arn": name, "Name": name.rsplit(":", 1)[-1]}[attribute]
        raise NotImplementedError(f"!GetAtt {logical_id}.{attribute} is not resolved locally yet")

    def resolve(self, value: Any) -> Any:
        """The value with !Ref, !GetAtt, !Sub and !If replaced as CloudFormation would; keys and
        list items that resolve to AWS::NoValue are left out."""
        if isinstance(value, dict) and len(value) == 1:
            ((function, argument),) = value.items()
            intrinsic: Callable[[Any], Any] | None = {
                "Ref": self._reference,
                "Fn::GetAtt": lambda argument: self._attribute(*argument),
                "Fn::Sub": self._sub,
                "Fn::Select": lambda argument: self.resolve(argument[1])[int(argument[0])],
                "Fn::Split": lambda argument: str(self.resolve(argument[1])).split(argument[0]),
                "Fn::If": lambda argument: self.resolve(argument[1] if self.condition(argument[0]) else argument[2]),
            }.get(function)
            if intrinsic is not None:
                return intrinsic(argument)
        if isinstance(value, dict):
            resolved = {key: self.resolve(inner) for key, inner in value.items()}
            return {key: inner for key, inner in resolved.items() if inner is not NO_VALUE}
        if isinstance(value, list):
            return [item for item in (self.resolve(inner) for inner in value) if item is not NO_VALUE]
        return value

    def _reference(self, name: str) -> Any:
        pseudo = {
            "AWS::NoValue": NO_VALUE,
            "AWS::Region": REGION,
            "AWS::AccountId": ACCOUNT,
            "AWS::Partition": "aws",
            "AWS::StackName": self.stack_name,
            "AWS::StackId": f"arn:aws:cloudformation:{REGION}:{ACCOUNT}:stack/{self.stack_name}/{_STACK_ID}",
            "AWS::URLSuffix": "amazonaws.com",
        }
        if name in pseudo:
            return pseudo[name]
        return self.physical_names.get(name) or self.parameters[name]

    def condition(self, name: str) -> bool:
        return self._evaluate(self.template.document.get("Conditions", {})[name])

    def _evaluate(self, expression: Any) -> bool:
        ((function, argument),) = expression.items()
        if function == "Fn::Equals":
            return bool(self.resolve(argument[0]) == self.resolve(argument[1]))
        if function == "Fn::Not":
            return not self._evaluate(argument[0])
        if function == "Fn::And":
            return all(self._evaluate(inner) for inner in argument)
        if function == "Fn::Or":
            return any(self._evaluate(inner) for inner in argument)
        if function == "Condition":
            return self.condition(argument)
        raise NotImplementedError(f"condition function {function} is not evaluated locally")

    def _sub(self, argument: str | list[Any]) -> str:
        """!Sub text, or [text, {name: value}] whose names are substituted before the template's."""
        text, variables = (argument, {}) if isinstance(argument, str) else (argument[0], self.resolve(argument[1]))
        return re.sub(
            r"\$\{([^}]+)\}",
            lambda match: (
                str(variables[match.group(1)]) if match.group(1) in variables else self._substitute(match.group(1))
            ),
            text,
        )

    def _substitute(self, reference: str) -> str:
        if "." in reference and not reference.startswith("AWS::"):
            return self._attribute(*reference.split(".", 1))
        return str(self._reference(reference))

    # ------------------------------------------------------------------ functions
    def global_environment(self) -> dict[str, str]:
        variables = self.resolve(self.template.function_globals.get("Environment", {}).get("Variables", {}))
        return {name: str(value) for name, value in variables.items()}

    def environment_of(self, function_logical_id: str) -> dict[str, str]:
        """Globals' variables merged with the function's own, as SAM does."""
        variables = (
            self.template.resources[function_logical_id]["Properties"].get("Environment", {}).get("Variables", {})
        )
        return {**self.global_environment(), **{name: str(value) for name, value in self.resolve(variables).items()}}

    def seed_environment(self) -> dict[str, str]:
        """The union of every function's environment (what `ops.seed` and other tools read)."""
        merged: dict[str, str] = {}
        for logical_id in self.template.of_type("AWS::Serverless::Function"):
            merged.update(self.environment_of(logical_id))
        return merged

    @contextmanager
    def environment(self, variables: dict[str, str]) -> Iterator[None]:
        saved = {name: os.environ.get(name) for name in variables}
        os.environ.update(variables)
        try:
            yield
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


def _references(value: Any, logical_ids: set[str]) -> bool:
    """Whether `value` mentions any of `logical_ids` through !Ref, !GetAtt or !Sub."""
    if isinstance(value, dict):
        for function, argument in value.items():
            if function == "Ref" and argument in logical_ids:
                return True
            if function == "Fn::GetAtt" and argument[0] in logical_ids:
                return True
            if function == "Fn::Sub" and any(f"${{{name}" in str(argument) for name in logical_ids):
                return True
            if _references(argument, logical_ids):
                return True
    if isinstance(value, list):
        return any(_references(inner, logical_ids) for inner in value)
    return False


class _AtomicItemWrites:
    """DynamoDB applies each write to an item atomically; moto's in-memory backend does not lock,
    so concurrent local writes could lose updates that AWS never loses. Its write operations take
    turns here, which makes the local service keep the guarantee our code relies on."""

    OPERATIONS = ("update_item", "put_item", "delete_item", "transact_write_items")

    def __init__(self) -> None:
        self._lock = threading.RLock()  # transact_write_items calls put_item and update_item
        self._patches = Patches()

    def start(self) -> None:
        from moto.dynamodb.models import DynamoDBBackend

        for name in self.OPERATIONS:
            original = getattr(DynamoDBBackend, name)

            def locked(*args: Any, _original: Any = original, **kwargs: Any) -> Any:
                with self._lock:
                    return _original(*args, **kwargs)

            self._patches.start(mock.patch.object(DynamoDBBackend, name, locked))

    def stop(self) -> None:
        self._patches.stop()


class _PoolSigningKey:
    """moto gives every user pool the same fixed RSA key and imports it anew for each pool, which
    takes most of a second (recovering the key's primes); the imported key is kept once per
    process, and every local pool still signs its tokens with it, as moto would."""

    _imported: ClassVar[dict[str, Any]] = {}

    def __init__(self) -> None:
        self._patch: Any = None

    def start(self) -> None:
        from types import SimpleNamespace

        from joserfc import jwk
        from moto.cognitoidp import models

        original = jwk.RSAKey.import_key  # the one moto's models call

        def import_key(value: Any, *args: Any, **kwargs: Any) -> Any:
            key = json.dumps(value, sort_keys=True, default=str) + repr((args, sorted(kwargs.items())))
            if key not in self._imported:
                self._imported[key] = original(value, *args, **kwargs)
            return self._imported[key]

        self._patch = mock.patch.object(models, "jwk", SimpleNamespace(RSAKey=SimpleNamespace(import_key=import_key)))
        self._patch.start()

    def stop(self) -> None:
        if self._patch is not None:
            self._patch.stop()
            self._patch = None


class _ExportArns:
    """moto names a table export `table/{the table's whole ARN}/import/{id}`; DynamoDB names it
    `{the table's ARN}/export/{id}`, and an IAM grant on `table/NAME/export/*` depends on that
    shape. The export is renamed as AWS names it (its files, status and contents are moto's)."""

    def __init__(self) -> None:
        self._patch: Any = None

    def start(self) -> None:
        from moto.dynamodb.models import DynamoDBBackend

        original = DynamoDBBackend.export_table

        def export_table(backend: Any, *args: Any, **kwargs: Any) -> Any:
            export = original(backend, *args, **kwargs)
            backend.table_exports.pop(export.arn)
            export.arn = f"{export.table.table_arn}/export/{export.arn.rsplit('/', 1)[-1]}"
            backend.table_exports[export.arn] = export
            return export

        self._patch = mock.patch.object(DynamoDBBackend, "export_table", export_table)
        self._patch.start()

    def stop(self) -> None:
        if self._patch is not None:
            self._patch.stop()
            self._patch = None


# Definitions moto's state-machine parser has accepted in this process. Parsing one takes about
# 0.2 s (an ANTLR grammar), and every local cloud creates the template's state machines again from
# the same definitions: parsed once, a cloud starts about 0.4 s sooner. Only acceptance is
# remembered; a definition never seen is parsed, and a refused one is refused every time.
_ACCEPTED_DEFINITIONS: set[str] = set()


@dataclasses.dataclass(frozen=True)
class _CreatedTables:
    tables: dict[str, Any]  # physical name -> moto's Table, empty, never handed out itself
    physical_names: dict[str, str]
    stream_arns: dict[str, str]


# The tables the first local cloud of this process created, by stack name and table properties.
_CREATED_TABLES: dict[str, _CreatedTables] = {}


class _DefinitionsParsedOnce:
    """moto's state-machine definition check, run once per distinct definition."""

    def __init__(self) -> None:
        self._patch: Any = None

    def start(self) -> None:
        check = StepFunctionsParserBackend._validate_definition

        def validate_once(definition: str) -> None:
            if definition not in _ACCEPTED_DEFINITIONS:
                check(definition)
                _ACCEPTED_DEFINITIONS.add(definition)

        self._patch = mock.patch.object(StepFunctionsParserBackend, "_validate_definition", staticmethod(validate_once))
        self._patch.start()

    def stop(self) -> None:
        if self._patch is not None:
            self._patch.stop()
            self._patch = None


@functools.cache
def _creating_client(service: str) -> Any:
    """The client a local cloud creates its resources with, one per service for the process:
    moto answers any client's requests while a cloud runs, and making the S3 client alone cost
    every cloud start about 0.04 s. Functions and tests make clients of their own."""
    return boto3.client(service, region_name=REGION)  # type: ignore[call-overload]


@functools.cache
def _shared_loader(data_path: str | None) -> Any:
    return botocore.loaders.create_loader(data_path)


class _BotocoreDataParsedOnce:
    """Every botocore session made while a local cloud runs reads botocore's data (service models,
    endpoints) through one loader per process, which keeps what it parsed. A simulated cold start
    makes a new session, as a new execution environment does; parsing the same JSON again for it
    cost a test about 0.2 s, and says nothing about the code under test. The cold start itself is
    measured apart, in fresh interpreters (bench/cold_import.py)."""

    def __init__(self) -> None:
        self._patch: Any = None

    def start(self) -> None:
        self._patch = mock.patch.object(botocore.session, "create_loader", _shared_loader)
        self._patch.start()

    def stop(self) -> None:
        if self._patch is not None:
            self._patch.stop()
            self._patch = None
