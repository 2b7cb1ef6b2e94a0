"""`make unit` runs the fast part alone: nothing that builds the local AWS or drives a browser.
The markers come from tests/conftest.py (by folder and by the `cloud` fixture); a test that
needs AWS but escapes them would make the fast part slow and flaky."""

import subprocess
import sys

import pytest

from slea_local import REPO_ROOT

pytestmark = pytest.mark.slow  # collects the whole suite in a fresh process
FAST = "not aws and not browser and not slow"


def _collected(marker_expression: str) -> set[str]:
    output = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-m", marker_expression],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO_ROOT,
    )
    return {line for line in output.stdout.splitlines() if "::" in line}


def test_the_fast_part_holds_no_test_that_needs_the_local_aws_or_a_browser() -> None:
    fast = _collected(FAST)
    assert len(fast) > 1000  # the unit tests, not an empty selection
    for folder in ("integration", "infrastructure", "security", "browser", "unit/bench"):
        assert not [test for test in fast if test.startswith(f"tests/{folder}/")], folder
    # Through the cloud fixture (here via runtime), and a module that builds moto itself.
    assert not [test for test in fast if test.startswith("tests/unit/ops/test_backfill.py::")]
    assert not [test for test in fast if test.startswith("tests/unit/local/test_local_transactions.py::")]
    assert [test for test in fast if test.startswith("tests/unit/measurement/")]


def test_every_test_is_in_the_fast_part_or_marked() -> None:
    everything, fast, marked = _collected(""), _collected(FAST), _collected("aws or browser or slow")
    assert fast | marked == everything
    assert not fast & marked
