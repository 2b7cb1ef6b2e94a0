"""logic/ reads what it stores through the data-access layer's typed records (slea.dal's
StoredQuestion, StoredAbility, ...), not by a field's name in a dictionary: a misspelt attribute
is a type error, a misspelt key a None at run time. The reads by a constant key in logic/
(`item["field"]`, `item.get("field")`) are counted, and the count may only go down. None of those
left reads a stored item: five read pydantic's validation errors (`ErrorDetails`, a TypedDict mypy
checks) and one a constant table of Tool 4's feedback by language."""

import ast
from pathlib import Path

from slea_local import REPO_ROOT

LOGIC = REPO_ROOT / "layers" / "slea" / "slea" / "logic"
MAXIMUM = 6


def keyed_reads(path: Path) -> int:
    count = 0
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            count += isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            first = node.args[0] if node.args else None
            count += isinstance(first, ast.Constant) and isinstance(first.value, str)
    return count


def test_logic_reads_fewer_dictionaries_by_key() -> None:
    counts = {str(path.relative_to(LOGIC)): keyed_reads(path) for path in sorted(LOGIC.rglob("*.py"))}
    assert sum(counts.values()) <= MAXIMUM, sorted(counts.items(), key=lambda item: -item[1])[:10]


def test_the_count_sees_both_ways_of_reading_a_key(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('a = item["x"]\nb = item.get("y")\nitem["z"] = 1\nc = item[0]\nd = item.x\n', encoding="utf-8")
    assert keyed_reads(sample) == 2
