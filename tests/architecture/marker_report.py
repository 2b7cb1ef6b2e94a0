"""A pytest plugin for tests/architecture/test_fast_part.py: at the end of collection, writes every
collected test's node id and markers as JSON to the file MARKER_REPORT names."""

import json
import os
from typing import Any


def pytest_collection_finish(session: Any) -> None:
    report = {item.nodeid: sorted({mark.name for mark in item.iter_markers()}) for item in session.items}
    with open(os.environ["MARKER_REPORT"], "w", encoding="utf-8") as out:
        json.dump(report, out)
