"""boto3 clients with each tool's time budget and retry policy (slea.constants: TOOL_CONFIG and
TOOL_DB_ATTEMPTS).

Clients are created on first use and kept for the life of the execution environment, so warm
invocations reuse connections and the handler's import stays cheap.
"""

from functools import cache
from typing import TYPE_CHECKING, Any

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
