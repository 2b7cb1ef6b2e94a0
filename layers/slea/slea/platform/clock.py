"""The time as every record stores it: ISO 8601 in UTC with a `Z`.

Every reading of the time in the functions goes through `now()`, so that a test can set the clock
in one place (tests/conftest.py `repeatable`): a run is then the same run whatever the machine's
speed or the time of day."""

from datetime import UTC, datetime


def now() -> datetime:
    """The current time, in UTC (an aware datetime)."""
    return datetime.now(UTC)


def utc_now(timespec: str = "seconds") -> str:
    """ISO 8601 in UTC with a `Z`; `timespec="milliseconds"` where the value also orders records
    written within the same second (a session's attempts)."""
    return now().isoformat(timespec=timespec).replace("+00:00", "Z")
