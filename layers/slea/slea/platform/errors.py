"""Domain exceptions raised at the data-access boundary (logic never sees botocore errors)."""

from collections.abc import Iterator
from contextlib import contextmanager

from botocore.exceptions import BotoCoreError, ClientError


class DataAccessError(Exception):
    """A storage call failed after its configured retries (throttling, timeout, missing table, ...)."""


@contextmanager
def storage_errors(operation: str) -> Iterator[None]:
    """Re-raise any AWS SDK failure inside the block as `DataAccessError` naming the operation."""
    try:
        yield
    except ClientError as error:
        code = error.response.get("Error", {}).get("Code", "Unknown")
        raise DataAccessError(f"{operation} failed: {code}") from error
    except BotoCoreError as error:
        raise DataAccessError(f"{operation} failed: {type(error).__name__}") from error
