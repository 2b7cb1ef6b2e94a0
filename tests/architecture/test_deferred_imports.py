"""Imports sit at the top of their module, where the call graph can be read; one made inside a
function is a cold-start deferral, named with its reason in slea.platform.deferred_imports."""

import ast
from pathlib import Path

from slea.platform.deferred_imports import DEFERRED_IMPORTS, HANDLER_DEFERRED_IMPORTS
from slea_local import REPO_ROOT

LAYER = REPO_ROOT / "layers" / "slea"
HANDLERS = REPO_ROOT / "functions"
# The imports inside functions the layer has (each statement counts); it may only go down.
MAXIMUM = 19


def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _inner_imports(files: Path = LAYER / "slea", root: Path = LAYER) -> list[tuple[str, str, int]]:
    """(importing module, imported module, line) of every import statement inside a function."""
    found: list[tuple[str, str, int]] = []
    for path in sorted(files.rglob("*.py")):
        module = _module_name(path, root)
        for function in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Import):
                    found += [(module, alias.name, node.lineno) for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module:
                    found.append((module, node.module, node.lineno))
    return sorted(set(found))  # a nested function's import is seen from each enclosing one


def test_imports_inside_functions_stay_few() -> None:
    statements = {(module, line) for module, _, line in _inner_imports()}
    assert len(statements) <= MAXIMUM


def test_every_import_inside_a_function_is_a_named_deferral() -> None:
    unnamed = [found for found in _inner_imports() if found[:2] not in DEFERRED_IMPORTS]
    assert unnamed == []


def test_the_list_names_only_deferrals_that_exist() -> None:
    present = {found[:2] for found in _inner_imports()}
    assert sorted(set(DEFERRED_IMPORTS) - present) == []


def test_every_import_inside_a_handlers_function_is_a_named_deferral() -> None:
    found = _inner_imports(HANDLERS, REPO_ROOT)
    unnamed = [place for place in found if place[:2] not in HANDLER_DEFERRED_IMPORTS]
    assert unnamed == []
    assert sorted(set(HANDLER_DEFERRED_IMPORTS) - {place[:2] for place in found}) == []
