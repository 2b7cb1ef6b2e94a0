"""The error body every HTTP route returns (`ErrorResponse`, see docs/api.md)."""

from pydantic import Field

from slea.contracts.common import Contract
from slea.platform.clock import utc_now


class ErrorResponse(Contract):
    error: str = Field(description="human-readable message naming the offending field")
    error_code: str = Field(examples=["VALIDATION_ERROR", "NOT_FOUND"])
    detail: str | None = None
    timestamp: str = Field(default_factory=utc_now)
