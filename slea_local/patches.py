"""Patches of the local AWS started one by one and stopped together (the newest first)."""

from typing import Any


class Patches:
    def __init__(self) -> None:
        self._started: list[Any] = []

    def start(self, patch: Any) -> None:
        patch.start()
        self._started.append(patch)

    def stop(self) -> None:
        for patch in reversed(self._started):
            patch.stop()
        self._started.clear()

    def __bool__(self) -> bool:
        """Whether any patch is in place."""
        return bool(self._started)
