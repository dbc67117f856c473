"""A store write never replaces a MEMORY.md an editor saved after memls read it.

Editors take no memls lock. A save of theirs that lands while memls computes
or stages its write makes the write fail whole, with a one-line reason,
instead of replacing the person's lines with memls's older view of the file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import memls.store.files as files
from memls.store.errors import ChangedMeanwhile
from memls.store.index_sync import commit_index
from memls.store.roots import MemoryRoot
from memls.store.store import MemoryStore

CURATED = "# Persistent Memory\n\n- [alpha](alpha.md) \u2014 my hook\n"


def test_a_save_while_an_editor_saves_memory_md_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store, root, index, edited = _curated_root(tmp_path)
    stage = files._stage

    def stage_while_the_editor_saves(target: Path, data: bytes, *args: object) -> None:
        stage(target, data, *args)
        if Path(target) == index:
            index.write_text(edited, encoding="utf-8")

    monkeypatch.setattr(files, "_stage", stage_while_the_editor_saves)
    with pytest.raises(ChangedMeanwhile, match="MEMORY.md changed while memls was writing it"):
        store.save("beta", "Beta thing.", type="project")
    assert index.read_text(encoding="utf-8") == edited
    assert not (root / "beta.md").exists()
    monkeypatch.setattr(files, "_stage", stage)
    store.save("beta", "Beta thing.", type="project")  # saved again: the person's line stays
    assert index.read_text(encoding="utf-8") == edited + "- [beta](beta.md) \u2014 Beta thing.\n"


@pytest.mark.parametrize("write", ["save", "delete"])
def test_a_write_while_an_editor_creates_the_absent_memory_md_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, write: str
) -> None:
    root = tmp_path / "memory"
    store = MemoryStore([MemoryRoot("explicit", root)])
    store.save("alpha", "Alpha thing.", type="project")
    index = root / "MEMORY.md"
    index.unlink()  # read as absent: the write creates it
    written = "# My notes\n\n- [alpha](alpha.md) \u2014 in my own words\n"
    _editor_creates_while_staged(monkeypatch, index, written)
    with pytest.raises(ChangedMeanwhile, match="MEMORY.md changed while memls was writing it"):
        if write == "save":
            store.save("beta", "Beta thing.", type="project")
        else:
            store.delete("alpha")
    assert index.read_text(encoding="utf-8") == written
    assert not (root / "beta.md").exists()
    assert (root / "alpha.md").exists()


def test_an_editor_save_landing_while_the_entry_is_renamed_is_not_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, root, index, edited = _curated_root(tmp_path)
    entry = root / "beta.md"
    replace = files.os.replace

    def replace_then_the_editor_saves(source: object, target: object) -> None:
        replace(source, target)
        if Path(str(target)) == entry:  # after the last check before any rename, before the index's
            index.write_text(edited, encoding="utf-8")

    monkeypatch.setattr(files.os, "replace", replace_then_the_editor_saves)
    with pytest.raises(ChangedMeanwhile, match="MEMORY.md changed while memls was writing it"):
        store.save("beta", "Beta thing.", type="project")
    monkeypatch.setattr(files.os, "replace", replace)
    assert index.read_text(encoding="utf-8") == edited
    assert not entry.exists()  # the entry written before it was taken back


def test_the_servers_index_write_computes_again_from_a_memory_md_an_editor_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    index = root / "MEMORY.md"
    written = "# My notes\n\n- [alpha](alpha.md) \u2014 in my own words\n"
    line = "- [beta](beta.md) \u2014 Beta thing.\n"
    _editor_creates_while_staged(monkeypatch, index, written)
    result = commit_index(root, lambda current: (current or "# Persistent Memory\n\n") + line)
    assert result == written + line
    assert index.read_text(encoding="utf-8") == written + line


def _editor_creates_while_staged(monkeypatch: pytest.MonkeyPatch, index: Path, written: str) -> None:
    """An editor saves ``written`` as a new ``index`` right after memls staged its own (no lock taken)."""
    stage = files._stage

    def stage_while_the_editor_creates_it(target: Path, data: bytes, *args: object) -> None:
        stage(target, data, *args)
        if Path(target) == index and not index.exists():
            index.write_text(written, encoding="utf-8")

    monkeypatch.setattr(files, "_stage", stage_while_the_editor_creates_it)


def _curated_root(tmp_path: Path) -> tuple[MemoryStore, Path, Path, str]:
    """A root with one entry and a curated MEMORY.md; with the text an editor is about to save there."""
    root = tmp_path / "memory"
    store = MemoryStore([MemoryRoot("explicit", root)])
    store.save("alpha", "Alpha thing.", type="project")
    index = root / "MEMORY.md"
    index.write_text(CURATED, encoding="utf-8")
    return store, root, index, CURATED + "- a line the person just saved\n"
