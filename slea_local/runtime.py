"""Invoking the functions of template.yaml in-process: the handler named by CodeUri + Handler,
run with the environment the template gives that function and a Lambda-like context."""

import contextlib
import gc
import importlib.util
import io
import json
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from slea_local import REPO_ROOT
from slea_local.cloud import ACCOUNT, REGION, LocalCloud

Handler = Callable[[Any, Any], Any]


@dataclass
class LambdaContext:
    """The attributes of the Lambda context object that Powertools and our handlers read."""

    function_name: str
    memory_limit_in_mb: int = 512
    function_version: str = "$LATEST"
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    timeout_seconds: int = 10

    @property
    def invoked_function_arn(self) -> str:
        return f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{self.function_name}"

    @property
    def log_group_name(self) -> str:
        return f"/aws/lambda/{self.function_name}"

    @property
    def log_stream_name(self) -> str:
        return "local"

    def get_remaining_time_in_millis(self) -> int:
        return self.timeout_seconds * 1000


_ONE_INVOCATION_AT_A_TIME = threading.RLock()
# Set for every function run here and never in AWS: the web app then offers the local sign-in
# (the stand-in token slea_local.http reads) instead of the identity provider's.
# The seed file lets the local sign-in offer the seeded learners (functions/web/app.py).
LOCAL_RUNTIME_ENVIRONMENT = {
    "SLEA_LOCAL_RUNTIME": "1",
    "SLEA_LOCAL_SEED_FILE": str(REPO_ROOT / "data" / "demo_seed.json"),
}


class _PerThreadStdout(io.TextIOBase):
    """sys.stdout that sends what a capturing thread prints to that thread's buffer. Step Functions
    runs tasks on worker threads while the caller prints progress, so a global redirect would mix
    the two."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.local = threading.local()

    def write(self, text: str) -> int:
        target = getattr(self.local, "buffer", None) or self.real
        return int(target.write(text))

    def flush(self) -> None:
        self.real.flush()


@contextlib.contextmanager
def _capture_this_thread(buffer: io.StringIO) -> Iterator[None]:
    if not isinstance(sys.stdout, _PerThreadStdout):
        sys.stdout = _PerThreadStdout(sys.stdout)
    capture = sys.stdout
    previous = getattr(capture.local, "buffer", None)
    capture.local.buffer = buffer
    try:
        yield
    finally:
        capture.local.buffer = previous


def reset_warm_state() -> None:
    """Forget what execution environments keep between invocations (clients, caches): a cold start."""
    from aws_lambda_powertools.utilities.parameters.constants import DEFAULT_PROVIDERS

    from slea.logic.generation import keywords as difficulty_keywords
    from slea.platform import aws

    aws.dynamodb.cache_clear()
    aws.sqs.cache_clear()
    aws.stepfunctions.cache_clear()
    aws.s3.cache_clear()
    aws.session.cache_clear()  # the next client is made on a new botocore session, as in a new environment
    from slea.llm.provider_choice import get_provider

    get_provider.cache_clear()
    difficulty_keywords.keyword_cache.clear()
    DEFAULT_PROVIDERS.clear()  # Powertools Parameters' cached secrets and SSM parameters


_LOADING = threading.RLock()


@contextlib.contextmanager
def _code_directory_on_path(code: Path, handler_module: str) -> Iterator[None]:
    """As in Lambda, the function's code directory is on sys.path while its handler module loads,
    so the handler imports the modules beside it by their own names (functions/api: `routers`).
    Those are loaded afresh, as in a new execution environment: another function's, or an
    earlier load's, of the same name are forgotten first (the modules loaded before keep theirs)."""
    own = {
        entry.stem if entry.suffix == ".py" else entry.name
        for entry in code.iterdir()
        if (entry.suffix == ".py" and entry.stem != handler_module) or (entry / "__init__.py").is_file()
    }
    with _LOADING:
        for name in [name for name in sys.modules if name.partition(".")[0] in own]:
            del sys.modules[name]
        sys.path.insert(0, str(code))
        try:
            yield
        finally:
            sys.path.remove(str(code))


def load_function_module(name: str, template: Any = None) -> ModuleType:
    """A function's handler module without a local cloud (e.g. to read its OpenAPI document)."""
    from slea_local.template import repository_template

    template = template or repository_template()
    for logical_id, spec in template.of_type("AWS::Serverless::Function").items():
        if logical_id == name or Path(spec["Properties"]["CodeUri"]).name == name:
            module_name = {**template.function_globals, **spec["Properties"]}["Handler"].rpartition(".")[0]
            code = REPO_ROOT / spec["Properties"]["CodeUri"]
            path = code / f"{module_name}.py"
            loaded = importlib.util.spec_from_file_location(f"functions.{logical_id}.{module_name}", path)
            if loaded is None or loaded.loader is None:
                raise ImportError(f"cannot load {path}")
            module = importlib.util.module_from_spec(loaded)
            with _code_directory_on_path(code, module_name):
                loaded.loader.exec_module(module)
            # A handler freezes what its import made (gc.freeze: a Lambda environment imports it
            # once). This process loads handlers again at every simulated cold start: left frozen,
            # every earlier environment's objects would stay in memory for good.
            gc.unfreeze()
            return module
    raise KeyError(f"template.yaml has no function {name!r}")


class LocalRuntime:
    def __init__(self, cloud: LocalCloud) -> None:
        self.cloud = cloud
        self._modules: dict[str, ModuleType] = {}
        # Powertools Parameters' providers (and the values they cache) of each function's
        # execution environment: in AWS a function reads a secret on its own cold start, whatever
        # the others have read (tests/infrastructure/test_iam_policies.py sees each read).
        self._parameter_providers: dict[str, dict[str, Any]] = {}
        # EMF documents the functions printed (Powertools Metrics), as CloudWatch would receive them.
        self.metric_documents: list[dict[str, Any]] = []

    def metric_total(self, name: str, **dimensions: str) -> float:
        """Sum of a metric over every invocation so far (optionally only where dimensions match)."""
        total = 0.0
        for document in self.metric_documents:
            if name in document and all(document.get(key) == value for key, value in dimensions.items()):
                values = document[name]
                total += sum(values) if isinstance(values, list) else values
        return total

    def function_id(self, name: str) -> str:
        """The logical id of a function given either that id or its tool name (CodeUri folder)."""
        functions = self.cloud.template.of_type("AWS::Serverless::Function")
        if name in functions:
            return name
        for logical_id, spec in functions.items():
            if Path(spec["Properties"]["CodeUri"]).name == name:
                return logical_id
        raise KeyError(f"template.yaml has no function {name!r}")

    def handler(self, name: str) -> Handler:
        attribute = self._handler_spec(name)[1].rpartition(".")[2]
        handler: Handler = getattr(self.module(name), attribute)
        return handler

    def _handler_spec(self, name: str) -> tuple[str, str, str]:
        logical_id = self.function_id(name)
        properties = {
            **self.cloud.template.function_globals,
            **self.cloud.template.resources[logical_id]["Properties"],
        }
        return logical_id, properties["Handler"], properties["CodeUri"]

    def module(self, name: str) -> ModuleType:
        """The function's handler module, loaded once per runtime (a warm execution environment)."""
        logical_id = self.function_id(name)
        if logical_id not in self._modules:
            # Every function's module is called `app`; each is loaded under a name of its own.
            self._modules[logical_id] = load_function_module(logical_id, self.cloud.template)
        return self._modules[logical_id]

    def invoke(self, name: str, event: Any, environment: dict[str, str] | None = None) -> Any:
        """Run the function's handler as Lambda would; exceptions propagate to the caller.
        `environment`: variables set over the function's own for this invocation."""
        logical_id = self.function_id(name)
        handler = self.handler(logical_id)
        printed = io.StringIO()
        # Lambda runs one invocation per execution environment at a time; here every function
        # shares one process (and Powertools' metric set, os.environ), so invocations take turns.
        with _ONE_INVOCATION_AT_A_TIME:
            try:
                variables = {
                    **self.cloud.environment_of(logical_id),
                    **LOCAL_RUNTIME_ENVIRONMENT,
                    **(environment or {}),
                }
                with (
                    self.cloud.environment(variables),
                    self._parameter_cache_of(logical_id),
                    _capture_this_thread(printed),
                ):
                    return handler(event, LambdaContext(function_name=f"{self.cloud.stack_name}-{logical_id}"))
            finally:
                self._collect_metrics(printed.getvalue())

    @contextlib.contextmanager
    def as_function(self, name: str) -> Iterator[None]:
        """The function's environment for its code run outside `invoke` (the MCP server's tools
        through an in-memory client), taking turns with invocations: each sets and restores the
        process's one os.environ, so an execution's task finishing meanwhile on another thread
        would put back what it found, without this function's variables."""
        with _ONE_INVOCATION_AT_A_TIME, self.cloud.environment(self.cloud.environment_of(self.function_id(name))):
            yield

    @contextlib.contextmanager
    def _parameter_cache_of(self, logical_id: str) -> Iterator[None]:
        """Powertools keeps its providers in one process-wide dict: while the function runs, the
        dict holds that function's own."""
        from aws_lambda_powertools.utilities.parameters.constants import DEFAULT_PROVIDERS

        outside = dict(DEFAULT_PROVIDERS)
        DEFAULT_PROVIDERS.clear()
        DEFAULT_PROVIDERS.update(self._parameter_providers.get(logical_id, {}))
        try:
            yield
        finally:
            self._parameter_providers[logical_id] = dict(DEFAULT_PROVIDERS)
            DEFAULT_PROVIDERS.clear()
            DEFAULT_PROVIDERS.update(outside)

    def _collect_metrics(self, printed: str) -> None:
        for line in printed.splitlines():
            try:
                document = json.loads(line)
            except json.JSONDecodeError:
                document = None
            if isinstance(document, dict) and "_aws" in document:
                self.metric_documents.append(document)
            else:
                print(line, file=sys.stdout)


@dataclass
class DrainReport:
    invocations: int = 0
    deleted: int = 0
    reported_failures: int = 0


def _sqs_record(message: dict[str, Any], queue_arn: str) -> dict[str, Any]:
    return {
        "messageId": message["MessageId"],
        "receiptHandle": message["ReceiptHandle"],
        "body": message["Body"],
        "attributes": {"SenderId": ACCOUNT, **message.get("Attributes", {})},
        "messageAttributes": {},
        "md5OfBody": message.get("MD5OfBody", ""),
        "eventSource": "aws:sqs",
        "eventSourceARN": queue_arn,
        "awsRegion": REGION,
    }


class QueuePoller:
    """What a Lambda event source mapping does for an SQS queue of template.yaml: receive a
    batch, invoke the subscribed function, delete what succeeded. Reported failures are made
    visible again at once (instead of after the visibility timeout), so redelivery, the receive
    count and the move to the dead-letter queue happen as in AWS, without waiting."""

    def __init__(self, runtime: LocalRuntime, queue_logical_id: str) -> None:
        self.runtime = runtime
        self.queue_url = runtime.cloud.queue_url(queue_logical_id)
        self.queue_arn = runtime.cloud.resolve({"Fn::GetAtt": [queue_logical_id, "Arn"]})
        self.function_id, self.batch_size = self._subscriber(queue_logical_id)

    def _subscriber(self, queue_logical_id: str) -> tuple[str, int]:
        for logical_id, spec in self.runtime.cloud.template.of_type("AWS::Serverless::Function").items():
            for event in spec["Properties"].get("Events", {}).values():
                if event["Type"] == "SQS" and event["Properties"]["Queue"] == {"Fn::GetAtt": [queue_logical_id, "Arn"]}:
                    assert event["Properties"].get("FunctionResponseTypes") == ["ReportBatchItemFailures"]
                    return logical_id, int(event["Properties"].get("BatchSize", 10))
        raise KeyError(f"no function of template.yaml is subscribed to {queue_logical_id}")

    def poll_once(self, report: DrainReport, redeliver: Callable[[dict[str, Any]], bool] | None = None) -> int:
        """One receive-invoke-delete cycle; returns how many messages were received."""
        import boto3

        client = boto3.client("sqs", region_name=REGION)
        messages: list[Any] = client.receive_message(
            QueueUrl=self.queue_url,
            MaxNumberOfMessages=min(self.batch_size, 10),
            VisibilityTimeout=30,
            AttributeNames=["All"],
        ).get("Messages", [])
        if not messages:
            return 0
        records = [_sqs_record(message, self.queue_arn) for message in messages]
        failed = self._invoke(records, report)
        for message, record in zip(messages, records, strict=True):
            if redeliver and redeliver(message):  # at-least-once: the same message arrives again
                failed |= self._invoke([record], report)
        for message in messages:
            if message["MessageId"] in failed:
                client.change_message_visibility(
                    QueueUrl=self.queue_url, ReceiptHandle=message["ReceiptHandle"], VisibilityTimeout=0
                )
            else:
                client.delete_message(QueueUrl=self.queue_url, ReceiptHandle=message["ReceiptHandle"])
                report.deleted += 1
        return len(messages)

    def _invoke(self, records: list[dict[str, Any]], report: DrainReport) -> set[str]:
        report.invocations += 1
        try:
            response = self.runtime.invoke(self.function_id, {"Records": records})
        except Exception:  # a function error: Lambda returns the whole batch to the queue
            failures = {record["messageId"] for record in records}
        else:
            failures = {failure["itemIdentifier"] for failure in response.get("batchItemFailures", [])}
        report.reported_failures += len(failures)
        return failures

    def drain(self, max_polls: int = 1000, redeliver: Callable[[dict[str, Any]], bool] | None = None) -> DrainReport:
        """Poll until the queue is empty (poison messages end in the dead-letter queue)."""
        report = DrainReport()
        for _ in range(max_polls):
            if not self.poll_once(report, redeliver):
                return report
        raise RuntimeError(f"queue not drained after {max_polls} polls")


@dataclass
class StreamReport:
    invocations: int = 0
    checkpointed: int = 0  # records the poller moved past (folded, or given up on)
    reported_failures: int = 0
    sent_on_failure: int = 0  # batches described on the on-failure queue after the last retry


def _stream_record(record: dict[str, Any], stream_arn: str) -> dict[str, Any]:
    """A record as GetRecords returns it, as Lambda delivers it (the source ARN added, the
    creation time in epoch seconds)."""
    change = dict(record["dynamodb"])
    created = change.get("ApproximateCreationDateTime")
    if created is not None and hasattr(created, "timestamp"):
        change["ApproximateCreationDateTime"] = int(created.timestamp())
    return {**record, "dynamodb": change, "eventSourceARN": stream_arn}


class StreamPoller:
    """What a Lambda event source mapping does for a DynamoDB stream of template.yaml: read each
    shard from where it last got to, invoke the subscribed function with up to BatchSize records,
    and move on past what succeeded. With ReportBatchItemFailures the next batch starts at the
    first failed record (the records after it come again: at-least-once, as in AWS); a function
    error halves the batch (BisectBatchOnFunctionError); after MaximumRetryAttempts the batch is
    described on the OnFailure queue and skipped. Retries happen at the next poll, not after
    Lambda's backoff."""

    def __init__(self, runtime: LocalRuntime, table_logical_id: str) -> None:
        import boto3
        from botocore.config import Config

        self.runtime = runtime
        self.stream_arn = runtime.cloud.stream_arns[table_logical_id]
        self.function_id, self.settings = self._subscriber(table_logical_id)
        # moto answers the streams API on its regional endpoint only, not the account-based one
        # botocore picks for a request naming a stream ARN.
        self._client = boto3.client(
            "dynamodbstreams", region_name=REGION, config=Config(account_id_endpoint_mode="disabled")
        )
        self._iterators: dict[str, str] = {}
        self._pending: list[dict[str, Any]] = []
        self._retries = 0
        self._limit = int(self.settings.get("BatchSize", 100))

    def _subscriber(self, table_logical_id: str) -> tuple[str, dict[str, Any]]:
        stream = {"Fn::GetAtt": [table_logical_id, "StreamArn"]}
        for logical_id, spec in self.runtime.cloud.template.of_type("AWS::Serverless::Function").items():
            for event in spec["Properties"].get("Events", {}).values():
                if event["Type"] == "DynamoDB" and event["Properties"]["Stream"] == stream:
                    assert event["Properties"].get("FunctionResponseTypes") == ["ReportBatchItemFailures"]
                    return logical_id, event["Properties"]
        raise KeyError(f"no function of template.yaml reads the stream of {table_logical_id}")

    def _read(self) -> None:
        description = self._client.describe_stream(StreamArn=self.stream_arn)["StreamDescription"]
        for shard in description.get("Shards", []):
            shard_id = shard["ShardId"]
            iterator = (
                self._iterators.get(shard_id)
                or self._client.get_shard_iterator(
                    StreamArn=self.stream_arn,
                    ShardId=shard_id,
                    ShardIteratorType=str(self.settings.get("StartingPosition", "TRIM_HORIZON")),
                )["ShardIterator"]
            )
            response = self._client.get_records(ShardIterator=iterator)
            self._pending += [_stream_record(record, self.stream_arn) for record in response.get("Records", [])]
            self._iterators[shard_id] = response.get("NextShardIterator") or iterator

    def take(self) -> list[dict[str, Any]]:
        """Every record not yet delivered, as Lambda would deliver them, and forget them (for
        tests that invoke the function with real stream records themselves)."""
        self._read()
        records, self._pending = self._pending, []
        return records

    def poll_once(self, report: StreamReport, redeliver: bool = False) -> int:
        """One batch: returns how many records were delivered (0: nothing new). `redeliver`:
        deliver the same batch twice, as a retried invocation would."""
        self._read()
        batch = self._pending[: self._limit]
        if not batch:
            return 0
        failed = self._invoke(batch, report)
        if redeliver:
            failed = self._invoke(batch, report)
        if failed is None:  # a function error: retry the first half
            self._limit = max(1, len(batch) // 2)
            first = 0
        elif failed:
            first = min(index for index, record in enumerate(batch) if record["dynamodb"]["SequenceNumber"] in failed)
        else:
            first = len(batch)
        if first == len(batch):
            self._retries, self._limit = 0, int(self.settings.get("BatchSize", 100))
        else:
            self._retries += 1
            if self._retries > int(self.settings.get("MaximumRetryAttempts", -1)) >= 0:
                self._send_on_failure(batch[first:])
                report.sent_on_failure += 1
                first, self._retries = len(batch), 0
        report.checkpointed += first
        del self._pending[:first]
        return len(batch)

    def _invoke(self, records: list[dict[str, Any]], report: StreamReport) -> set[str] | None:
        report.invocations += 1
        try:
            response = self.runtime.invoke(self.function_id, {"Records": records})
        except Exception:  # a function error: Lambda retries the batch (bisected)
            report.reported_failures += len(records)
            return None
        failures = {failure["itemIdentifier"] for failure in response.get("batchItemFailures", [])}
        report.reported_failures += len(failures)
        return failures

    def _send_on_failure(self, records: list[dict[str, Any]]) -> None:
        """What Lambda sends to an OnFailure destination for a stream: where the batch is, not it."""
        import boto3

        destination = self.settings["DestinationConfig"]["OnFailure"]["Destination"]
        queue = destination["Fn::GetAtt"][0]
        boto3.client("sqs", region_name=REGION).send_message(
            QueueUrl=self.runtime.cloud.queue_url(queue),
            MessageBody=json.dumps(
                {
                    "requestContext": {"condition": "RetryAttemptsExhausted", "functionArn": self.function_id},
                    "DDBStreamBatchInfo": {
                        "streamArn": self.stream_arn,
                        "startSequenceNumber": records[0]["dynamodb"]["SequenceNumber"],
                        "endSequenceNumber": records[-1]["dynamodb"]["SequenceNumber"],
                        "batchSize": len(records),
                    },
                }
            ),
        )

    def drain(self, max_polls: int = 1000, redeliver: bool = False) -> StreamReport:
        """Poll until every record has been moved past."""
        report = StreamReport()
        for _ in range(max_polls):
            if not self.poll_once(report, redeliver):
                return report
        raise RuntimeError(f"stream not drained after {max_polls} polls")
