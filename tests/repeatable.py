"""Runs that repeat to the bit: what the functions draw at random and the time they read are the
same at every run, so a test that compares two measured figures compares the same two runs each
time, not two draws of ids or the machine's speed.

Ids: the items a round draws from the bank, the order a session lists them in (the first items of
a round are the ones a test's learner knows) and the offline generator's drafts are all keyed on
ids the functions make with uuid.uuid4 (a session's id, a round's claim and so its execution's
name, a draft's id). Here the n-th id a function of the layer (a module under `slea.`) makes is
the same at every run; any other caller (moto, botocore, the local runtime's request ids) still
gets a random one, as none of those decides what a learner is shown.

Time: the functions read it through slea.platform.clock.now. Here it stands still at START and
moves on by a second before each request that writes (any method but GET), once every execution
started before that request has finished: a round's questions are saved in the second its start
was asked for whether the machine takes a tenth of a second or two, which decides which share a
`created_at` (the session lists those by id). A GET reads the time of the last write.

The clocks alone serve tests that only need the time set: `StandingClock` (a rate limit's bucket
refills by the time that passed: standing, a burst is refused exactly where it ends, however long
its requests take) and `MiddayClock` (the time passes, on a day it does not leave: a test that
reads the day the functions count a round or a draw on agrees with them, even at midnight).
"""

import datetime
import hashlib
import sys
import threading
import uuid
from collections import Counter
from collections.abc import Callable
from typing import Any

START = datetime.datetime(2026, 11, 2, 9, 0, 0, tzinfo=datetime.UTC)
STEP = datetime.timedelta(seconds=1)
LAYER = "slea."
_RANDOM_UUID4 = uuid.uuid4


class StandingClock:
    """The functions' clock standing at `at` until moved."""

    def __init__(self, at: datetime.datetime = START) -> None:
        self.at = at

    def now(self) -> datetime.datetime:
        return self.at

    def move(self, by: datetime.timedelta = STEP) -> None:
        self.at += by


class MiddayClock:
    """The functions' clock running from noon (UTC) of the day it was made: a test of less than
    twelve hours never sees the day change."""

    def __init__(self) -> None:
        started = datetime.datetime.now(datetime.UTC)
        self.offset = datetime.datetime.combine(started.date(), datetime.time(12), datetime.UTC) - started

    def now(self) -> datetime.datetime:
        return datetime.datetime.now(datetime.UTC) + self.offset


class Repeatable(StandingClock):
    def __init__(self, step_functions: Any, start: datetime.datetime = START) -> None:
        super().__init__(start)
        self.step_functions = step_functions
        self._lock = threading.Lock()
        self._made: Counter[str] = Counter()

    def uuid4(self) -> uuid.UUID:
        """uuid.uuid4 as the layer's functions see it: the n-th id made by one function, a
        version-4 UUID as before (ids are checked for it)."""
        caller = sys._getframe(1)
        module = str(caller.f_globals.get("__name__", ""))
        if not module.startswith(LAYER):
            return _RANDOM_UUID4()
        maker = f"{module}.{caller.f_code.co_qualname}"
        with self._lock:
            self._made[maker] += 1
            number = self._made[maker]
        return uuid.UUID(bytes=hashlib.sha256(f"{maker}#{number}".encode()).digest()[:16], version=4)

    def requests(self, http: Callable[..., Any]) -> Callable[..., Any]:
        """`http` on this clock: a request that writes waits for the executions started before
        it, then moves the clock on by STEP."""

        def request(method: str, path: str, body: Any = None, token: str | None = None) -> Any:
            if method != "GET":
                self.step_functions.wait_for_running()
                self.move()
            return http(method, path, body, token)

        return request
