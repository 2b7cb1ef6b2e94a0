"""StaleOnErrorCache: hit, expiry, stale-on-error, and one load under concurrent misses."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from slea.platform.cache import StaleOnErrorCache


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class SourceDown(Exception):
    pass


def test_hit_then_expiry_after_ttl():
    clock = Clock()
    cache: StaleOnErrorCache[str] = StaleOnErrorCache(ttl=3600, timer=clock)
    loads = []
    load = lambda: loads.append(1) or f"v{len(loads)}"  # noqa: E731
    assert cache.lookup("k", load, SourceDown) == ("v1", "source")
    clock.now = 3599
    assert cache.lookup("k", load, SourceDown) == ("v1", "cache")
    clock.now = 3600
    assert cache.lookup("k", load, SourceDown) == ("v2", "source")
    assert len(loads) == 2


def test_expired_value_is_served_when_the_source_fails():
    clock = Clock()
    cache: StaleOnErrorCache[str] = StaleOnErrorCache(ttl=10, timer=clock)
    cache.lookup("k", lambda: "good", SourceDown)
    clock.now = 100

    def broken() -> str:
        raise SourceDown

    assert cache.lookup("k", broken, SourceDown) == ("good", "stale")
    with pytest.raises(SourceDown):
        cache.lookup("other", broken, SourceDown)


def test_not_found_is_not_cached():
    cache: StaleOnErrorCache[str] = StaleOnErrorCache(ttl=10)
    assert cache.lookup("k", lambda: None, SourceDown) == (None, "source")
    assert cache.lookup("k", lambda: "now there", SourceDown) == ("now there", "source")


def test_unexpected_errors_are_not_swallowed():
    cache: StaleOnErrorCache[str] = StaleOnErrorCache(ttl=10)
    cache.lookup("k", lambda: "good", SourceDown)
    cache.clear()

    def bug() -> str:
        raise KeyError("bug")

    with pytest.raises(KeyError):
        cache.lookup("k", bug, SourceDown)


def test_concurrent_misses_load_once():
    cache: StaleOnErrorCache[str] = StaleOnErrorCache(ttl=10)
    loads = []
    start = threading.Barrier(16)

    def slow_load() -> str:
        loads.append(1)
        time.sleep(0.05)
        return "value"

    def worker(_: int) -> str | None:
        start.wait()
        return cache.lookup("k", slow_load, SourceDown).value

    with ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(worker, range(16)))
    assert results == ["value"] * 16
    assert len(loads) == 1
