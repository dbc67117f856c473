"""A ``MEMLS_CACHE_DIR`` inside a memory root is not used: memls writes nothing into a root to cache.

A memory root is shared with gptme, Claude Code and version control; the
README promises the cache never writes into one. Pointed into a root
(directly, through a symlink, or into another root of the same command's
layers), the caches are off: every command answers as with
``MEMLS_NO_CACHE=1`` and the root's tree is left as it was. Real processes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memls.store.files import LOCK_FILENAME

ENTRY = "---\nname: {name}\ndescription: about {name}\nsuperseded_by: nothere\n---\nbody\n"
COMMANDS = (["index"], ["list"], ["audit"], ["show", "alpha"], ["check"], ["check", "--format", "json"])


def memls(args: list[str], env: dict[str, str], cwd: Path) -> tuple[int, str, str]:
    proc = subprocess.run([sys.executable, "-c", "from memls.quick import main; main()", *args],
                          cwd=cwd, capture_output=True, text=True, env=env, timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


def tree_of(directory: Path) -> list[str]:
    """Every path under ``directory`` but the root lock, which readers share with gptme by design."""
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*") if p.name != LOCK_FILENAME)


def make_root(path: Path, name: str) -> Path:
    path.mkdir(parents=True)
    (path / f"{name}.md").write_text(ENTRY.format(name=name), encoding="utf-8")
    (path / "MEMORY.md").write_text(f"# Memory\n\n- [{name}]({name}.md) — about {name}\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("where", ["in the root", "through a link to the root", "in another layer's root"])
def test_a_cache_dir_inside_a_memory_root_writes_nothing_there_and_changes_no_answer(
    tmp_path: Path, where: str
) -> None:
    root = make_root(tmp_path / "project" / "memory", "alpha")
    other = make_root(tmp_path / "user-memory", "gamma")
    (tmp_path / "home").mkdir()
    (tmp_path / "link").symlink_to(root, target_is_directory=True)
    cache = {
        "in the root": root / ".cache",
        "through a link to the root": tmp_path / "link" / ".cache",
        "in another layer's root": other / ".cache",
    }[where]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMLS_", "GPTME_", "XDG_"))}
    env.update(HOME=str(tmp_path / "home"), MEMLS_CACHE_DIR=str(cache),
               MEMLS_MEMORY_DIRS=os.pathsep.join([str(root), str(other)]))
    time.sleep(2.1)  # every file has settled: a working cache would remember them all
    before = {root: tree_of(root), other: tree_of(other)}
    for args in COMMANDS:
        first = memls(args, env, tmp_path)
        assert first == memls(args, env, tmp_path) == memls(args, {**env, "MEMLS_NO_CACHE": "1"}, tmp_path), args
    assert {root: tree_of(root), other: tree_of(other)} == before


def test_a_cache_dir_outside_every_root_is_used(tmp_path: Path) -> None:
    """The refusal is about roots: the same layout with the cache beside the roots caches."""
    root = make_root(tmp_path / "project" / "memory", "alpha")
    (tmp_path / "home").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMLS_", "GPTME_", "XDG_"))}
    env.update(HOME=str(tmp_path / "home"), MEMLS_CACHE_DIR=str(tmp_path / "project" / ".cache"),
               MEMLS_MEMORY_DIRS=str(root))
    time.sleep(2.1)
    for args in COMMANDS:
        memls(args, env, tmp_path)
    kinds = {p.suffix for p in (tmp_path / "project" / ".cache").iterdir()}
    assert {".view", ".results", ".records", ".documents"} <= kinds
