"""The error body every HTTP route returns (`ErrorResponse`, see docs/api.md)."""

from datetime import UTC, datetime

from pydantic import Field

from slea.contracts.common import Contract


def utc_now(timespec: str = "seconds") -> str:
    """ISO 8601 in UTC with a `Z`; `timespec="milliseconds"` where the value also orders records
    written within the same second (a session's attempts)."""
    return datetime.now(UTC).isoformat(timespec=timespec).replace("+00:00", "Z")


class ErrorResponse(Contract):
    error: str = Field(description="human-readable message naming the offending field")
    error_code: str = Field(examples=["VALIDATION_ERROR", "NOT_FOUND"])
    detail: str | None = None
    timestamp: str = Field(default_factory=utc_now)
