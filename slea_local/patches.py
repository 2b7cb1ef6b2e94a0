"""Patches of the local AWS started one by one and stopped together (the newest first)."""

import warnings
from typing import Any


def moto_is_reviewed(patch: str, reviewed: str, otherwise: str) -> bool:
    """Whether the installed moto is the release `patch` (a module of slea_local) was read
    against. A patch of moto's internals is applied to that release only: another may work
    differently, so it keeps moto's own behaviour, with a warning saying what that costs
    (`otherwise`), until someone reads it again."""
    import moto

    if moto.__version__ == reviewed:
        return True
    warnings.warn(
        f"slea_local.{patch} was written against moto {reviewed}, not {moto.__version__}: {otherwise}",
        stacklevel=3,
    )
    return False


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
