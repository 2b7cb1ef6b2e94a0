"""The functions read the time in one place, slea.platform.clock.now, so a test can set it (tests/
repeatable.py): a reading of the wall clock anywhere else in the layer or the functions would
escape it (a day counted on the real clock while the test reads its own, a rate limit refilled by
how long the machine took). Durations (time.monotonic, time.perf_counter) are not the time of day
and are not checked."""

import ast
import datetime
from pathlib import Path

import pytest

from slea_local import REPO_ROOT

CLOCK = REPO_ROOT / "layers" / "slea" / "slea" / "platform" / "clock.py"
# The wall clock's readings: datetime.now/utcnow/today, date.today, time.time/time_ns/gmtime/localtime.
WALL_CLOCK = {
    ("datetime", "now"),
    ("datetime", "utcnow"),
    ("datetime", "today"),
    ("date", "today"),
    ("time", "time"),
    ("time", "time_ns"),
    ("time", "gmtime"),
    ("time", "localtime"),
}


def _sources() -> list[Path]:
    return sorted(
        path
        for folder in (REPO_ROOT / "layers" / "slea" / "slea", REPO_ROOT / "functions")
        for path in folder.rglob("*.py")
        if path != CLOCK
    )


def wall_clock_reads(source: str) -> list[int]:
    """The lines of `source` that read the wall clock (a call of one of WALL_CLOCK, named as
    `x.datetime.now()`, `datetime.now()`, `time.time()`...)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            name = owner.attr if isinstance(owner, ast.Attribute) else owner.id if isinstance(owner, ast.Name) else ""
            if (name, node.func.attr) in WALL_CLOCK:
                found.append(node.lineno)
    return found


def test_only_the_clock_module_reads_the_wall_clock():
    found = {
        f"{path.relative_to(REPO_ROOT)}:{line}"
        for path in _sources()
        for line in wall_clock_reads(path.read_text(encoding="utf-8"))
    }
    assert not found, "read the time through slea.platform.clock.now(): " + ", ".join(sorted(found))


@pytest.mark.parametrize(
    "source",
    [
        "import datetime\ndatetime.datetime.now(datetime.UTC)",
        "from datetime import datetime\ndatetime.now()",
        "from datetime import date\ndate.today()",
        "import time\ntime.time()",
    ],
    ids=["datetime.datetime.now", "datetime.now", "date.today", "time.time"],
)
def test_a_wall_clock_read_is_found(source):
    assert wall_clock_reads(source) == [2]


def test_durations_and_the_clock_are_not_wall_clock_reads():
    assert wall_clock_reads("import time\nfrom slea.platform import clock\ntime.monotonic()\nclock.now()") == []


def test_what_reads_the_time_follows_the_clock_a_test_sets(monkeypatch):
    """The day a round counts on, the day an item's draws count on, the time records carry, a rate
    limit's refill, the round time limit and an abandoned claim all follow the clock."""
    from slea.dal import bank, usage
    from slea.dal.rounds import stored_round
    from slea.logic.rounds import lifecycle, skips
    from slea.platform import clock
    from slea.security import rate_limits

    at = datetime.datetime(2026, 11, 2, 23, 59, 59, tzinfo=datetime.UTC)
    monkeypatch.setattr(clock, "now", lambda: at)
    assert (clock.utc_now(), usage.today(), bank._today()) == ("2026-11-02T23:59:59Z", "2026-11-02", "2026-11-02")
    assert usage.seconds_until_tomorrow() == 1
    two_hours_before = (at - skips.ROUND_TIME_LIMIT).isoformat()
    assert not skips._past_limit(two_hours_before)
    assert skips._past_limit((at - skips.ROUND_TIME_LIMIT - datetime.timedelta(seconds=1)).isoformat())
    assert lifecycle._abandoned(stored_round({"started_at": (at - lifecycle.ABANDONED_CLAIM * 2).isoformat()}))
    assert not lifecycle._abandoned(stored_round({"started_at": at.isoformat()}))
    seen = []
    monkeypatch.setattr(rate_limits.rate_limits, "take_token", lambda *arguments: seen.append(arguments[2]))
    rate_limits.take("3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c", "answer")
    assert seen == [at.timestamp()]
