"""boto3 clients with each tool's time budget and retry policy (slea.constants: TOOL_CONFIG and
TOOL_DB_ATTEMPTS).

Clients are created on first use and kept for the life of the execution environment, so warm
invocations reuse connections and the handler's import stays cheap. All of them, Powertools'
parameter providers' too (`parameter_provider`), are made on boto3's default session: a client
on a session of its own loads botocore's endpoint and service data a second time.
"""

from functools import cache
from typing import TYPE_CHECKING, Any, Literal

import boto3
from botocore.config import Config

if TYPE_CHECKING:  # stubs are a dev dependency only
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_sqs import SQSClient
    from mypy_boto3_stepfunctions import SFNClient

from slea.constants import TOOL_CONFIG, TOOL_DB_ATTEMPTS


def client_config(tool: str) -> Config:
    """Connect/read timeouts of the tool's budget and botocore's standard retry mode
    (exponential backoff with jitter) for the tool's number of attempts."""
    seconds = TOOL_CONFIG.get(tool, 10)
    return Config(
        connect_timeout=seconds,
        read_timeout=seconds,
        retries={"mode": "standard", "total_max_attempts": TOOL_DB_ATTEMPTS.get(tool, 3)},
    )


@cache
def dynamodb(tool: str) -> "DynamoDBClient":
    return boto3.client("dynamodb", config=client_config(tool))


@cache
def sqs(tool: str) -> "SQSClient":
    return boto3.client("sqs", config=client_config(tool))


@cache
def stepfunctions(tool: str) -> "SFNClient":
    return boto3.client("stepfunctions", config=client_config(tool))


@cache
def s3(tool: str) -> Any:
    """An S3 client (the calibration refit reads the attempts table's exports). Typed Any: the
    development dependencies carry no S3 stubs, and only slea.dal.attempt_export calls it."""
    return boto3.client("s3", config=client_config(tool))


def parameter_provider(kind: Literal["secrets", "ssm"]) -> Any:
    """Powertools' default provider of secrets or SSM parameters (the one `parameters.get_secret`
    and `parameters.get_parameter` read through, and `parameters.clear_caches` empties), with
    its client made on boto3's default session. Left to make it itself, Powertools opens a new
    boto3 session for it, whose client loads botocore's endpoint, partition and service data
    again: about 0.4 of the baseline of bench/cold_import.py, in every cold start that reads the
    id secret. The client has no config, as Powertools' own (botocore's defaults)."""
    # Only the functions that read a secret or parameter load the parameters utility.
    from aws_lambda_powertools.utilities.parameters import SecretsProvider, SSMProvider  # noqa: PLC0415
    from aws_lambda_powertools.utilities.parameters.constants import DEFAULT_PROVIDERS  # noqa: PLC0415

    if kind not in DEFAULT_PROVIDERS:
        if kind == "secrets":
            DEFAULT_PROVIDERS[kind] = SecretsProvider(boto3_client=boto3.client("secretsmanager"))
        else:
            DEFAULT_PROVIDERS[kind] = SSMProvider(boto3_client=boto3.client("ssm"))
    return DEFAULT_PROVIDERS[kind]
