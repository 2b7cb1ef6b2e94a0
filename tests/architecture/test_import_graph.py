"""The layer's import graph has no cycle, between files or between packages, counting the imports
made inside functions too (a lazy import may keep a cold start small, never hide a cycle).
The direction between packages is import-linter's contract in pyproject.toml (`make lint`)."""

from collections import defaultdict

import grimp
import pytest


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("slea", include_external_packages=False)


def _modules(graph: grimp.ImportGraph) -> set[str]:
    return {module for module in graph.modules if module.startswith("slea")}


def _strongly_connected(nodes: set[str], edges: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm, iterative (the graph is small, but recursion depth is not ours to set)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    counter = 0
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def _edges(graph: grimp.ImportGraph, collapse: int | None) -> tuple[set[str], dict[str, set[str]]]:
    def name(module: str) -> str:
        return module if collapse is None else ".".join(module.split(".")[:collapse])

    nodes: set[str] = set()
    edges: dict[str, set[str]] = defaultdict(set)
    for module in _modules(graph):
        nodes.add(name(module))
        for imported in graph.find_modules_directly_imported_by(module):
            if imported.startswith("slea") and name(imported) != name(module):
                # A package's __init__ importing its own modules is not a dependency between files.
                if collapse is None and imported.startswith(module + "."):
                    continue
                edges[name(module)].add(name(imported))
    return nodes, edges


def test_no_cycle_between_files(graph):
    nodes, edges = _edges(graph, collapse=None)
    assert _strongly_connected(nodes, edges) == []


def test_no_cycle_between_packages(graph):
    nodes, edges = _edges(graph, collapse=2)
    assert _strongly_connected(nodes, edges) == []


def test_the_cycle_finder_finds_a_cycle():
    edges = defaultdict(set, {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})
    assert _strongly_connected({"a", "b", "c", "d"}, edges) == [{"a", "b", "c"}]
