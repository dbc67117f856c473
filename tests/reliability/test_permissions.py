"""Permission bits survive every rewrite; new files are private (0600).

Decision (fixed in store/files.py, store/store.py, store/apply.py): a rename
creates a new file, and that file inherits the renamed file's mode, so an
entry keeps its mode through a rename. Any other new file (an entry, a first
``MEMORY.md``, a policy) gets ``0o600`` minus the process umask: memories are
private, and gptme creates its entries ``0600`` too. (This reverses an earlier
decision that new files follow the umask's ``0o666``.)
"""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

import pytest

from memls.store import MemoryRoot, MemoryStore
from memls.store.apply import apply_fixes
from memls.store.diagnostics import Fix, RenameFile

from .reliability_helpers import MEMLS, entry_text, root_env, write_policy


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def private_root(root: Path, managed: bool) -> MemoryStore:
    root.mkdir()
    (root / "a.md").write_text(entry_text("a", "private"), encoding="utf-8")
    (root / "b.md").write_text(entry_text("b", "public"), encoding="utf-8")
    if managed:
        write_policy(root, ["a.md", "b.md"])
    store = MemoryStore([MemoryRoot("explicit", root)])
    store.write_index()
    for name in ("a.md", "MEMORY.md", ".memory-index.json"):
        if (root / name).exists():
            (root / name).chmod(0o600)
    return store


@pytest.mark.parametrize("managed", [False, True], ids=["legacy", "managed"])
def test_private_entry_index_and_policy_stay_0600_through_save_rename_supersede(managed, tmp_path):
    root = tmp_path / "root"
    store = private_root(root, managed)
    private = ["MEMORY.md"] + ([".memory-index.json"] if managed else [])
    before = {name: (root / name).read_bytes() for name in private}

    store.save("a", "private, changed", "secret\n")
    assert mode(root / "a.md") == 0o600
    store.rename("a", "a-renamed")
    assert not (root / "a.md").exists() and mode(root / "a-renamed.md") == 0o600
    store.supersede("a-renamed", "b")
    assert mode(root / "a-renamed.md") == 0o600 and mode(root / "b.md") == 0o644
    store.write_index()
    for name in private:
        assert (root / name).read_bytes() != before[name], f"{name} was never rewritten"
        assert mode(root / name) == 0o600, name


def test_renamed_entry_keeps_an_unusual_mode(tmp_path):
    root = tmp_path / "root"
    store = private_root(root, False)
    (root / "b.md").chmod(0o640)
    store.rename("b", "b2")
    assert mode(root / "b2.md") == 0o640


def test_file_rename_fix_keeps_the_renamed_files_mode(tmp_path):
    root = tmp_path / "root"
    private_root(root, False)
    text = (root / "a.md").read_text(encoding="utf-8")
    fix = Fix("rename the file", (RenameFile(root / "a.md", root / "a2.md"),), safe=False)
    apply_fixes([fix], {root / "a.md": text, root / "a2.md": None}, root=root)
    assert mode(root / "a2.md") == 0o600 and (root / "a2.md").read_text(encoding="utf-8") == text


@pytest.mark.parametrize("umask,expected", [(0o077, 0o600), (0o022, 0o600), (0o000, 0o600),
                                            (0o277, 0o400)])
def test_new_entry_and_new_index_are_private_whatever_the_umask(umask, expected, tmp_path):
    root = tmp_path / "root"
    command = f"umask {umask:03o}; exec {MEMLS} save fresh 'a new entry' </dev/null"
    result = subprocess.run(["sh", "-c", command], env=root_env(root), capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert mode(root / "fresh.md") == expected
    assert mode(root / "MEMORY.md") == expected


def test_new_entry_has_the_mode_gptme_gives_its_new_entries(tmp_path):
    gptme_store = pytest.importorskip("gptme.memory", reason="the real gptme is needed to compare modes")
    ours, theirs = tmp_path / "memls", tmp_path / "gptme"
    MemoryStore([MemoryRoot("explicit", ours)]).save("fresh", "a new entry")
    gptme_store.MemoryStore([gptme_store.MemoryRoot("explicit", theirs)]).save("fresh", "a new entry")
    assert mode(ours / "fresh.md") == mode(theirs / "fresh.md") == 0o600


def test_existing_files_keep_their_mode_when_a_save_rewrites_them(tmp_path):
    root = tmp_path / "root"
    store = private_root(root, False)
    (root / "b.md").chmod(0o644)
    (root / "MEMORY.md").chmod(0o640)
    store.save("b", "public, changed")
    assert mode(root / "b.md") == 0o644 and mode(root / "MEMORY.md") == 0o640
