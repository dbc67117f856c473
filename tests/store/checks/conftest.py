"""Shared builders for check tests: a root from a dict of files, checked at once."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from datetime import date
from pathlib import Path

import pytest

from memls.store.checks import CheckContext, check_workspace
from memls.store.model import Workspace
from memls.store.roots import MemoryRoot
from memls.store.settings import Settings


def entry_text(name: str, description: str = "d", *, extra: str = "", body: str = "", type_: str = "project") -> str:
    """A valid entry file; ``extra`` is raw YAML lines appended to the frontmatter."""
    head = f'---\nname: {name}\ndescription: "{description}"\nmetadata:\n  type: {type_}\n'
    return head + textwrap.dedent(extra) + "---\n\n" + body


def write_root(root: Path, files: Mapping[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


class Checked:
    """A loaded workspace and its full check results, with small query helpers."""

    def __init__(self, roots: list[MemoryRoot], settings: Settings | None = None, today: date | None = None):
        self.workspace = Workspace.load(roots)
        self.ctx = CheckContext(self.workspace, settings or Settings(), today or date(2026, 11, 30))
        self.results = check_workspace(self.ctx)

    def problems(self, code: str | None = None, path: Path | None = None):
        out = [p for ps in self.results.values() for p in ps]
        if code is not None:
            out = [p for p in out if p.code == code]
        if path is not None:
            out = [p for p in out if p.path == path]
        return out

    def codes(self) -> set[str]:
        return {p.code for p in self.problems()}


@pytest.fixture
def check_root(tmp_path):
    """``check_root({"a.md": text, ...})`` → Checked over one explicit root."""

    def build(files: Mapping[str, str], *, settings: Settings | None = None, today: date | None = None,
              index: bool = False) -> Checked:
        root = write_root(tmp_path / "memory", files)
        return Checked([MemoryRoot("explicit", root)], settings, today)

    return build
