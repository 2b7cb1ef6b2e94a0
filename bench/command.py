"""The command line of a benchmark measured by whole numbers (`python bench/<name>.py [--runs N]`)."""

import argparse
import json
from collections.abc import Callable
from typing import Any


def print_measure(measure: Callable[..., Any], doc: str | None, *options: tuple[str, int]) -> None:
    """measure(N, ...) printed as JSON, each N from its (option, default) in turn; the help is the
    first paragraph of `doc`."""
    parser = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    for option, default in options:
        parser.add_argument(option, type=int, default=default)
    arguments = vars(parser.parse_args())
    print(json.dumps(measure(*(arguments[option[2:].replace("-", "_")] for option, _ in options)), indent=2))
