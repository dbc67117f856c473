"""House rules a machine can check: the layer rule, lint-clean and type-checked code."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FORBIDDEN_IN_STORE = re.compile(
    r"^\s*(from|import)\s+(lsp|memls\.lsp|memls\.cli|pygls|lsprotocol|click)\b", re.MULTILINE
)


def test_store_imports_no_editor_or_cli_framework():
    """store/ decides; lsp/ translates; the CLI (memls/cli.py) is a client like the server."""
    offenders = [
        str(path.relative_to(REPO))
        for path in (REPO / "store").rglob("*.py")
        if FORBIDDEN_IN_STORE.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_code_is_pyflakes_clean():
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed (it comes with the test extra: pip install -e '.[test]')")
    result = subprocess.run(
        [ruff, "check", "--quiet", "memls", "store", "lsp", "tests", "benchmarks"],
        cwd=REPO, capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _installed_layout(tree: Path) -> Path:
    """The import package as the wheel lays it out: memls/, with store/ and lsp/ inside.

    mypy does not follow setuptools' package-dir mapping (editable installs
    resolve it with an import hook), so it checks a tree of links instead.
    """
    package = tree / "memls"
    package.mkdir(parents=True)
    for module in (REPO / "memls").glob("*.py"):
        (package / module.name).symlink_to(module)
    (package / "store").symlink_to(REPO / "store", target_is_directory=True)
    (package / "lsp").symlink_to(REPO / "lsp", target_is_directory=True)
    return tree


def test_engine_server_and_cli_type_check(tmp_path):
    mypy = shutil.which("mypy") or str(Path(sys.executable).parent / "mypy")
    if not Path(mypy).exists():
        pytest.skip("mypy is not installed (it comes with the test extra: pip install -e '.[test]')")
    tree = _installed_layout(tmp_path / "tree")
    result = subprocess.run(
        [mypy, "--config-file", str(REPO / "pyproject.toml"), "--cache-dir", str(tmp_path / "cache"),
         "-p", "memls"],
        cwd=tree, capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_dataclass_says_what_it_holds():
    """A dataclass without a docstring gets one made from its signature, at import.

    ``dataclasses`` inspects the class's signature for it (about 0.1 ms a
    class, paid by every process that imports the module: the language
    server's start among them), and the text it makes says less than a line
    written by hand.
    """
    import ast

    missing = []
    for folder in ("memls", "store", "lsp"):
        for path in sorted((REPO / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (isinstance(node, ast.ClassDef) and ast.get_docstring(node) is None
                        and any(("dataclass" in ast.unparse(d) or ast.unparse(d).startswith("struct")) for d in node.decorator_list)):
                    missing.append(f"{path.relative_to(REPO)}:{node.lineno} {node.name}")
    assert missing == []
