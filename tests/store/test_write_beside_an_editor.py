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
from memls.store.roots import MemoryRoot
from memls.store.store import MemoryStore

CURATED = "# Persistent Memory\n\n- [alpha](alpha.md) \u2014 my hook\n"


def test_a_save_while_an_editor_saves_memory_md_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "memory"
    store = MemoryStore([MemoryRoot("explicit", root)])
    store.save("alpha", "Alpha thing.", type="project")
    index = root / "MEMORY.md"
    index.write_text(CURATED, encoding="utf-8")
    edited = CURATED + "- a line the person just saved\n"
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
