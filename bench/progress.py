"""Progress on stderr while `make bench` runs (stdout stays the JSON report): each benchmark's
name before it starts, then the seconds it took."""

import functools
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any, TextIO

BENCH_DIR = Path(__file__).resolve().parent


def with_progress(name: str, measure: Callable[..., Any], stream: TextIO | None = None) -> Callable[..., Any]:
    @functools.wraps(measure)
    def timed(*args: Any, **kwargs: Any) -> Any:
        out = stream or sys.stderr
        shown = ", ".join([*map(repr, args), *(f"{key}={value!r}" for key, value in kwargs.items())])
        print(f"bench: {name}({shown}) ...", file=out, flush=True)
        start = time.perf_counter()
        result = measure(*args, **kwargs)
        print(f"bench: {name} took {time.perf_counter() - start:.1f} s", file=out, flush=True)
        return result

    return timed


def report_progress(modules: Iterable[ModuleType] | None = None) -> list[str]:
    """Wrap `measure` of every benchmark module (those imported from bench/); returns their names."""
    wrapped = []
    for module in list(sys.modules.values()) if modules is None else modules:
        path = getattr(module, "__file__", None)
        measure = getattr(module, "measure", None)
        if path and Path(path).resolve().parent == BENCH_DIR and callable(measure):
            if not getattr(measure, "__wrapped__", None):
                module.measure = with_progress(module.__name__, measure)  # type: ignore[attr-defined]
            wrapped.append(module.__name__)
    return sorted(wrapped)
