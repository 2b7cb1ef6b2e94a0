"""The command line of a benchmark measured by one whole number (`python bench/<name>.py [--runs N]`)."""

import argparse
import json
from collections.abc import Callable
from typing import Any


def print_measure(measure: Callable[[int], Any], doc: str | None, option: str, default: int) -> None:
    """measure(N) printed as JSON, N from `option` (default `default`); the help is the first line of `doc`."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument(option, type=int, default=default)
    print(json.dumps(measure(getattr(parser.parse_args(), option.removeprefix("--").replace("-", "_"))), indent=2))
