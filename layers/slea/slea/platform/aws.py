"""AWS clients with each tool's time budget and retry policy (slea.constants: TOOL_CONFIG and
TOOL_DB_ATTEMPTS).

Clients are created on first use and kept for the life of the execution environment, so warm
invocations reuse connections and the handler's import stays cheap. All of them, Powertools'
parameter providers' too (`parameter_provider`), are made on one botocore session (`session`): a
client on a session of its own loads botocore's endpoint and service data a second time.

They are botocore's clients, made as `boto3.client` makes them (boto3's default session is a
botocore session too, and `boto3.client` hands its arguments to that session's `create_client`),
without importing boto3: its package (sessions, resources, the S3 transfer manager) is about
0.08 of what importing boto3 and creating one client costs (docs/benchmarks.md), and nothing
here uses it. What boto3's session adds to a client is only its user agent's name and the S3
transfer methods (`upload_file`, ...), which no code here calls.
"""

from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal, cast

import botocore.session
from botocore.config import Config

if TYPE_CHECKING:  # stubs are a dev dependency only
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_sqs import SQSClient
    from mypy_boto3_stepfunctions import SFNClient

from slea.constants import TOOL_CONFIG, TOOL_DB_ATTEMPTS
from slea.platform.errors import DataAccessError


@cache
def session() -> botocore.session.Session:
    """The execution environment's botocore session, made on first use (as boto3's default
    session is): credentials, region and botocore's loaded data are shared by every client.
    Forgetting it (`session.cache_clear()`, as slea_local.runtime.reset_warm_state does) makes
    the next client on a new session."""
    return botocore.session.get_session()


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
    return cast("DynamoDBClient", session().create_client("dynamodb", config=client_config(tool)))


@cache
def sqs(tool: str) -> "SQSClient":
    return cast("SQSClient", session().create_client("sqs", config=client_config(tool)))


@cache
def stepfunctions(tool: str) -> "SFNClient":
    return cast("SFNClient", session().create_client("stepfunctions", config=client_config(tool)))


@cache
def s3(tool: str) -> Any:
    """An S3 client (the calibration refit reads the attempts table's exports). Typed Any: the
    development dependencies carry no S3 stubs, and only slea.dal.attempt_export calls it."""
    return session().create_client("s3", config=client_config(tool))


def parameter_provider(kind: Literal["secrets", "ssm"]) -> Any:
    """Powertools' default provider of secrets or SSM parameters (the one `parameters.get_secret`
    and `parameters.get_parameter` read through, and `parameters.clear_caches` empties), with
    its client made on the shared session (`session`). Left to make it itself, Powertools opens a
    new boto3 session for it, whose client loads botocore's endpoint, partition and service data
    again: about 0.4 of the baseline of bench/cold_import.py, in every cold start that reads the
    id secret. The client has no config, as Powertools' own (botocore's defaults)."""
    utility = _parameters_utility()
    providers = utility.constants.DEFAULT_PROVIDERS
    if kind not in providers:
        if kind == "secrets":
            providers[kind] = utility.SecretsProvider(boto3_client=session().create_client("secretsmanager"))
        else:
            providers[kind] = utility.SSMProvider(boto3_client=session().create_client("ssm"))
    return providers[kind]


def _parameters_utility() -> ModuleType:
    """Powertools' parameters utility, loaded by the first read: it imports boto3, so only the
    functions that read a secret or parameter load it."""
    from aws_lambda_powertools.utilities import parameters  # noqa: PLC0415 - listed in slea.platform.deferred_imports

    return parameters


def read_secret(name: str, *, max_age: int) -> str:
    """The secret's string (Powertools' `get_secret`, cached `max_age` seconds per execution
    environment, through `parameter_provider("secrets")`); DataAccessError with the reason if
    Secrets Manager fails after its retries."""
    utility = _parameters_utility()
    parameter_provider("secrets")
    try:
        return str(utility.get_secret(name, max_age=max_age))
    except utility.GetParameterError as error:
        raise DataAccessError(str(error)) from error


def read_parameter(name: str, *, max_age: int) -> str:
    """An SSM parameter, decrypted (a SecureString), cached `max_age` seconds per execution
    environment (Powertools' `get_parameter`, through `parameter_provider("ssm")`)."""
    utility = _parameters_utility()
    parameter_provider("ssm")
    return str(utility.get_parameter(name, decrypt=True, max_age=max_age))
