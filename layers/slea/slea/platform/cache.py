"""A thread-safe TTL cache that remembers each key's last good value, so a read that fails
can be served from data that expired (stale beats nothing when the source is down)."""

import threading
import time
from collections.abc import Callable
from typing import Literal, NamedTuple

from cachetools import LRUCache, TTLCache

Source = Literal["cache", "source", "stale"]


class Lookup[V](NamedTuple):
    value: V | None
    source: Source


class StaleOnErrorCache[V]:
    def __init__(self, ttl: float, maxsize: int = 256, timer: Callable[[], float] = time.monotonic) -> None:
        self._fresh: TTLCache[str, V] = TTLCache(maxsize=maxsize, ttl=ttl, timer=timer)
        self._last_good: LRUCache[str, V] = LRUCache(maxsize=maxsize)
        # One lock around check-and-load: concurrent misses of a key cause a single load.
        self._lock = threading.Lock()

    def lookup(self, key: str, load: Callable[[], V | None], recoverable: type[Exception]) -> Lookup[V]:
        """The fresh cached value; else `load()` (None means "not found" and is not cached);
        else, if `load` raised `recoverable`, the last good value (or re-raise without one)."""
        with self._lock:
            cached = self._fresh.get(key)
            if cached is not None:
                return Lookup(cached, "cache")
            try:
                value = load()
            except recoverable:
                stale = self._last_good.get(key)
                if stale is None:
                    raise
                return Lookup(stale, "stale")
            if value is not None:
                self._fresh[key] = value
                self._last_good[key] = value
            return Lookup(value, "source")

    def clear(self) -> None:
        with self._lock:
            self._fresh.clear()
            self._last_good.clear()
