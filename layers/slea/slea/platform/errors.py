"""The exceptions every layer may raise: storage failures (raised at the data-access boundary, so
logic never sees botocore errors) and the domain's refusals (no transport status codes: the
entry points map each class once, see slea/http/api.py and functions/mcp/app.py)."""

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


class DomainError(Exception):
    """A request the domain refuses. It carries a stable machine-readable `code` and a message
    for people, never a transport's status: each entry point (the HTTP API, the MCP server) maps
    the class to its own answer in one place."""

    def __init__(self, code: str, message: str, *, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.code, self.message = code, message
        self.retry_after = retry_after  # seconds until a retry can succeed, when known


class Invalid(DomainError):
    """The request is well formed but names something that cannot be used (a forged cursor)."""


class Unauthenticated(DomainError):
    """The caller is not identified."""


class Forbidden(DomainError):
    """The caller is identified but may not do this (another learner's session, a missing role)."""


class NotFound(DomainError):
    """What the request names does not exist for this caller."""


class Conflict(DomainError):
    """The request contradicts the current state (already answered, retired, changed meanwhile)."""


class RateLimited(DomainError):
    """The caller has asked too often or too much; `retry_after` says when to try again."""


class Unavailable(DomainError):
    """A dependency failed and nothing was done: the same request can be sent again."""
