"""The time as every record stores it: ISO 8601 in UTC with a `Z`."""

from datetime import UTC, datetime


def utc_now(timespec: str = "seconds") -> str:
    """ISO 8601 in UTC with a `Z`; `timespec="milliseconds"` where the value also orders records
    written within the same second (a session's attempts)."""
    return datetime.now(UTC).isoformat(timespec=timespec).replace("+00:00", "Z")
