"""The web app's Content-Security-Policy allows no `eval` (script-src 'self'). Playwright runs a
`wait_for_function` predicate written as a bare expression through `eval` inside the page, so the
policy refuses it, but only when the first check is false and the predicate has to be polled: such a
test passes on a fast machine and fails on a slow one. A predicate written as a function
(`"() => …"`) is passed as a function and never evaluated as a string."""

import ast
import re

from slea_local import REPO_ROOT

BROWSER_TESTS = REPO_ROOT / "tests" / "browser"
# How a JavaScript function starts: `(args) =>`, `arg =>`, `function`, `async …`.
FUNCTION_START = re.compile(r"\s*(async\s+)?(\(|function\b|[A-Za-z_$][\w$]*\s*=>)")


def expression_predicates(source: str) -> list[int]:
    """The lines of `source` where wait_for_function is given a string that is not a function."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr != "wait_for_function" or not node.args:
            continue
        predicate = node.args[0]
        if isinstance(predicate, ast.Constant) and isinstance(predicate.value, str):
            text = predicate.value
        elif isinstance(predicate, ast.JoinedStr) and predicate.values:
            first = predicate.values[0]
            text = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else ""
        else:
            continue
        if not FUNCTION_START.match(text):
            lines.append(node.lineno)
    return lines


def test_the_check_finds_a_bare_expression_and_passes_a_function() -> None:
    source = (
        "page.wait_for_function(\"document.title === 'x'\")\n"
        "page.wait_for_function(f\"document.title === '{x}'\")\n"
        "page.wait_for_function(\"() => document.title === 'x'\")\n"
        "page.wait_for_function(\"(text) => document.title === text\", arg='x')\n"
        "page.wait_for_function(\"text => document.title === text\", arg='x')\n"
        'page.wait_for_function("documentReady")\n'
    )
    assert expression_predicates(source) == [1, 2, 6]


def test_every_browser_predicate_is_a_function() -> None:
    offenders = {
        str(path.relative_to(REPO_ROOT)): lines
        for path in sorted(BROWSER_TESTS.rglob("*.py"))
        if (lines := expression_predicates(path.read_text(encoding="utf-8")))
    }
    assert not offenders, f"wait_for_function given an expression (eval, refused by the page's policy): {offenders}"
