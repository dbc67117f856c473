"""A poller primed from a start's listing sees the roots exactly as its own first look would.

A client without watchers for the roots (Neovim on Linux) has them polled
(``memls.lsp.watcher``). The start has just listed and ``stat``-ed every
file (``memls.store.warm_start``); the poller takes that listing as its first
look instead of ``stat``-ing every file again. Were the two looks to differ
(a directory named like a memory, a broken link, a root spelled through a
symlink), the first round would report files that did not change, or miss
ones that did.
"""

from __future__ import annotations

from pathlib import Path

from memls.lsp.watcher import snapshot
from memls.store.replay import observe
from memls.store.roots import MemoryRoot


def primed(directory: Path, root: MemoryRoot) -> dict[Path, tuple[int, ...]] | None:
    listed = observe([root]).regular_files(directory)
    return None if listed is None else {directory / name: tuple(stamp) for name, *stamp in listed}


def test_the_listing_of_a_root_is_the_pollers_own_look(tmp_path: Path) -> None:
    root_dir = tmp_path / "memory"
    root_dir.mkdir()
    (root_dir / "a.md").write_text("---\nname: a\ndescription: d\n---\n")
    (root_dir / "MEMORY.md").write_text("# Memory\n")
    (root_dir / ".memory-index.json").write_text("{}")
    (root_dir / "notes.txt").write_text("not a memory")
    (root_dir / "folder.md").mkdir()  # named like a memory, but no file
    (root_dir / "dangling.md").symlink_to(tmp_path / "nowhere.md")
    (root_dir / "linked.md").symlink_to(root_dir / "a.md")
    look = snapshot(root_dir)
    assert set(look) == {root_dir / name for name in ("a.md", "MEMORY.md", ".memory-index.json", "linked.md")}
    assert primed(root_dir, MemoryRoot("project", root_dir)) == look
    # The same root spelled through a symlink: the listing is found by where it resolves.
    spelled = tmp_path / "spelled"
    spelled.symlink_to(root_dir)
    assert primed(spelled, MemoryRoot("project", spelled)) == snapshot(spelled)


def test_a_root_the_start_did_not_list_gets_no_primed_look(tmp_path: Path) -> None:
    listed, other = tmp_path / "listed", tmp_path / "other"
    listed.mkdir()
    other.mkdir()
    observation = observe([MemoryRoot("project", listed)])
    assert observation.regular_files(other) is None
    missing = tmp_path / "missing"
    assert observe([MemoryRoot("project", missing)]).regular_files(missing) is None
