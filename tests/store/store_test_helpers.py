"""Builders shared by the MemoryStore tests: roots, entry files, byte snapshots."""

from __future__ import annotations

import json
from pathlib import Path

from memls.store import MemoryRoot, MemoryStore


def store_for(*dirs: Path, scope: str = "explicit") -> MemoryStore:
    """A store over explicit roots (nearest first); none is created in advance."""
    return MemoryStore([MemoryRoot(scope, d) for d in dirs])


def entry_file(
    root: Path,
    filename: str,
    name: str | None = None,
    description: str = "d",
    *,
    type_: str = "project",
    extra: str = "",
    body: str = "",
) -> Path:
    """Write a valid entry file by hand (``extra``: raw YAML lines for the frontmatter)."""
    root.mkdir(parents=True, exist_ok=True)
    name = name if name is not None else filename[: -len(".md")]
    text = f'---\nname: {name}\ndescription: "{description}"\nmetadata:\n  type: {type_}\n{extra}---\n\n{body}'
    path = root / filename
    path.write_text(text, encoding="utf-8")
    return path


def write_policy(root: Path, selected: list[str], budget: int = 21000) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    path = root / ".memory-index.json"
    path.write_text(json.dumps({"version": 1, "budget": budget, "selected": selected}), encoding="utf-8")
    return path


def snapshot(root: Path, *, with_lock: bool = False) -> dict[str, bytes] | None:
    """Every file under ``root`` (relative path -> bytes), or None when it does not exist.

    The empty ``.memory.lock`` is left out unless asked for: every writer
    (gptme's too) creates it in an existing root before it can read the root
    under the lock, it holds no data and is never deleted. Tests that a
    refusal creates *nothing* check it explicitly.
    """
    if not root.exists():
        return None
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and (with_lock or p.name != ".memory.lock")
    }


def index_text(root: Path) -> str:
    return (root / "MEMORY.md").read_text(encoding="utf-8")
