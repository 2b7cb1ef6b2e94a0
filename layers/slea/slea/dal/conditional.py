"""A write with a condition (a put, an update or a delete with a ConditionExpression), and whether
DynamoDB applied it: a failed condition is an answer (another writer got there first, the item is
gone), not an error."""

from collections.abc import Callable
from typing import Any

from botocore.exceptions import ClientError

CONDITION_FAILED = "ConditionalCheckFailedException"


def condition_failed(error: ClientError) -> bool:
    return error.response.get("Error", {}).get("Code") == CONDITION_FAILED


def applied(write: Callable[..., object], /, *, refusal: str = CONDITION_FAILED, **request: Any) -> bool:
    """`write(**request)`: True if it was applied, False if DynamoDB refused it with the error
    code `refusal` (a condition failed; TransactionCanceledException for a transaction); any other
    error is raised."""
    try:
        write(**request)
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") == refusal:
            return False
        raise
    return True
