"""Comments, docstrings and descriptions cite only what a reader of this repository can look up.

Numbered specification files and issue numbers live outside the repository, so a source file says
what the rule is in its own words, or points to docs/ (architecture, measurement, grading,
security, api, operations, benchmarks, testing). The README links nothing outside the repository.
Tool 1 to Tool 6 are the project's own names and are fine.

The patterns are assembled from pieces so that this file's own text never matches them; it is
scanned like every other file.
"""

import re
import subprocess
from pathlib import Path

import pytest

from slea_local import REPO_ROOT

THIS_FILE = Path(__file__).resolve().relative_to(REPO_ROOT).as_posix()

_ZEROS = "0" * 2
# A numbered specification: the word "spec" (or "specs", "spec's", "specification") then a number
# that starts with two zeros.
_SPEC = r"\bspec(?:s|'s|ification)? " + _ZEROS + r"\d"
# An issue number, with or without "#": one issue or several.
_ISSUE = r"\bissues? #?\d" + "+"
# A bare specification number before a tool or a quoted section title.
_BARE_NUMBER = r"\b" + _ZEROS + r"[0-4] (?:tool|" + '"' + ")"
CITATION = re.compile("|".join((_SPEC, _ISSUE, _BARE_NUMBER)), re.IGNORECASE)

SOURCE_SUFFIXES = {".py", ".yaml", ".yml", ".toml", ".js", ".html"}
# JSON holds data almost everywhere (the demo seed, corpora, the generated OpenAPI document); only
# these folders hold hand-written JSON with descriptions (state comments, sample events).
JSON_FOLDERS = ("statemachine/", "events/")
EXCLUDED = ("bench/data/", "docs/openapi.json")


def _tracked_files() -> list[str]:
    try:
        listed = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "ls-files", "-z"], check=True, capture_output=True, text=True, timeout=60
        ).stdout
    except (OSError, subprocess.SubprocessError):
        pytest.skip("not a git checkout: the tracked files are unknown")
    return [path for path in listed.split("\0") if path]


def _scanned(path: str) -> bool:
    if path.startswith(EXCLUDED):
        return False
    suffix = Path(path).suffix
    return suffix in SOURCE_SUFFIXES or (suffix == ".json" and path.startswith(JSON_FOLDERS))


def _citations(path: str) -> list[str]:
    file = REPO_ROOT / path
    if not file.is_file():  # deleted in the work tree but still in the index
        return []
    lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
    return [f"{path}:{number}: {line.strip()}" for number, line in enumerate(lines, 1) if CITATION.search(line)]


@pytest.fixture(scope="module")
def citations() -> dict[str, list[str]]:
    paths = {path for path in _tracked_files() if _scanned(path)} | {THIS_FILE}
    return {path: found for path in sorted(paths) if (found := _citations(path))}


def test_the_patterns_catch_citations_and_spare_the_projects_own_names():
    cited = [
        "spec " + _ZEROS + "0",
        "(Spec " + _ZEROS + "3)",
        "the spec's " + _ZEROS + "0 TOOL_CONFIG",
        "(issue" + " 21)",
        "Issue" + " 12 contracts",
        "issues" + " 12 and 21",
        "issue" + " #7",
        _ZEROS + '1 "Constants & Ranges"',
        _ZEROS + "0 Tool 6",
    ]
    own = [
        "Tool 6 `score_and_explain` contracts: the scoring rules.",
        "issues=[*issues, *(issue for issue in semantic.issues if issue not in issues)]",
        'any(issue.startswith("Near-duplicate") for issue in r.issues)',
        "https://github.com/aws-cloudformation/cfn-lint/issues/3518",
        "costs 100,000 and yields 25,000",
        "test_search_input_normalises_as_spec_" + _ZEROS + "3_says",
    ]
    assert [text for text in cited if not CITATION.search(text)] == []
    assert [text for text in own if CITATION.search(text)] == []


def test_this_file_is_scanned_and_clean(citations):
    assert THIS_FILE not in citations


def test_no_source_file_cites_a_specification_or_an_issue_number(citations):
    found = [line for lines in citations.values() for line in lines]
    assert found == [], "say what the rule is, or point to docs/:\n" + "\n".join(found)


# A reference to the shared folder beside the repository, or any relative link that climbs out of it.
OUTSIDE_THE_REPOSITORY = re.compile(r"\.\./shared|\]\(\s*\.\./|(?:href|src)=[\"']\.\./")


def test_the_readme_links_nothing_outside_the_repository():
    lines = (REPO_ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    found = [f"README.md:{number}: {line.strip()}" for number, line in enumerate(lines, 1)]
    assert [line for line in found if OUTSIDE_THE_REPOSITORY.search(line)] == []
