"""`make unit` runs the fast part alone: nothing that builds the local AWS or drives a browser.
The markers come from tests/conftest.py (by folder and by the `cloud` fixture); a test that
needs AWS but escapes them would make the fast part slow and flaky."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from slea_local import REPO_ROOT

pytestmark = pytest.mark.slow  # may collect the whole suite in a fresh process
REPORTING = ["-p", "tests.architecture.marker_report"]
NOT_FAST = {"aws", "browser", "slow"}  # what `make unit` leaves out (-m "not aws and not browser and not slow")


@pytest.fixture(scope="module")
def markers(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, set[str]]:
    """Every test of the suite and its markers, as one collection sees them: this run's own, when
    it collected every test file (the whole suite, as `make test` runs it, each xdist worker
    collecting all of it), else a collection of the whole suite in a fresh process (about 25 s)."""
    collected = request.session.items
    if {item.path for item in collected} >= set((REPO_ROOT / "tests").rglob("test_*.py")):
        return {item.nodeid: {mark.name for mark in item.iter_markers()} for item in collected}
    report = tmp_path_factory.mktemp("markers") / "report.json"
    subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *REPORTING],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO_ROOT,
        env={**os.environ, "MARKER_REPORT": str(report)},
    )
    return {test: set(names) for test, names in json.loads(Path(report).read_text(encoding="utf-8")).items()}


def test_the_fast_part_holds_no_test_that_needs_the_local_aws_or_a_browser(markers):
    fast = {test for test, names in markers.items() if not names & NOT_FAST}
    assert len(fast) > 1000  # the unit tests, not an empty selection
    for folder in ("integration", "infrastructure", "security", "browser", "unit/bench"):
        assert not [test for test in fast if test.startswith(f"tests/{folder}/")], folder
    # Through the cloud fixture (here via runtime), and a module that builds moto itself.
    assert not [test for test in fast if test.startswith("tests/unit/ops/test_backfill.py::")]
    assert not [test for test in fast if test.startswith("tests/unit/local/test_local_transactions.py::")]
    assert [test for test in fast if test.startswith("tests/unit/measurement/")]


def test_every_browser_test_is_marked_browser_and_aws(markers):
    browser = {test for test in markers if test.startswith("tests/browser/")}
    assert browser
    assert all({"browser", "aws"} <= markers[test] for test in browser)
