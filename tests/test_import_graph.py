"""The engine's and the server's modules import each other without a circle.

A circle makes import order matter (the first module imported sees the other
half-initialised), hides layering mistakes and defeats lazy imports. Imports
under ``if TYPE_CHECKING:`` are type-only and never run, so they do not count.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = {"memls.store": REPO / "store", "memls.lsp": REPO / "lsp", "memls": REPO / "memls"}


def module_files() -> dict[str, Path]:
    modules: dict[str, Path] = {}
    for package, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join([package, *parts])] = path
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_imports(tree: ast.AST):
    """Every import statement that can run: at module level or in a function body."""
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            node.body = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The memls modules one module imports (a package's own ``__init__`` excluded)."""
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in _runtime_imports(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                       for alias in node.names]
        found |= {t for t in targets if t in modules and t != name}
    return found


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def import_graph() -> dict[str, set[str]]:
    modules = module_files()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


@pytest.mark.parametrize("top", ["memls.store", "memls.lsp"])
def test_modules_import_each_other_without_a_circle(top: str) -> None:
    graph = {name: {t for t in targets if t.startswith(top)}
             for name, targets in import_graph().items() if name.startswith(top)}
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


def test_the_engine_imports_nothing_of_the_server_or_the_cli() -> None:
    offenders = {name: sorted(t for t in targets if not t.startswith("memls.store"))
                 for name, targets in import_graph().items() if name.startswith("memls.store")}
    assert {name: targets for name, targets in offenders.items() if targets} == {}


def test_the_cycle_finder_finds_a_circle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
