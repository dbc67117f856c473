"""The model against its files: which documents changed on disk behind it, and reading one twice.

An editor's save renders the root's ``MEMORY.md`` from the model while word
of other tools' writes may still be on its way (``paths_changed_on_disk``);
the watcher event that follows must then find nothing left to do.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from memls.store import model
from memls.store.cache import RACY_WINDOW_NS
from memls.store.model import Workspace
from memls.store.roots import MemoryRoot


def entry(name: str, description: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\ntype: project\n---\n\nbody\n"


def test_paths_changed_on_disk_names_the_files_added_changed_and_removed_and_no_other(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    for name in ("a", "b", "d"):
        (root / f"{name}.md").write_text(entry(name, "first"), encoding="utf-8")
    # A file touched within the racy window may change again unseen: only older ones count as read.
    time.sleep(RACY_WINDOW_NS / 1e9 + 0.1)
    ws = Workspace.load([MemoryRoot("project", root)])
    state = ws.roots[0]
    assert ws.paths_changed_on_disk(state) == []
    (root / "b.md").write_text(entry("b", "second"), encoding="utf-8")
    (root / "c.md").write_text(entry("c", "new"), encoding="utf-8")
    (root / "d.md").unlink()
    assert sorted(ws.paths_changed_on_disk(state)) == [root / "b.md", root / "c.md", root / "d.md"]


def test_a_file_written_within_the_racy_window_counts_as_changed_until_read_again(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    (root / "a.md").write_text(entry("a", "first"), encoding="utf-8")
    ws = Workspace.load([MemoryRoot("project", root)])
    assert ws.paths_changed_on_disk(ws.roots[0]) == [root / "a.md"]


def test_a_second_read_of_a_file_the_model_already_took_in_affects_nothing(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    (root / "a.md").write_text(entry("a", "first"), encoding="utf-8")
    ws = Workspace.load([MemoryRoot("project", root)])
    (root / "c.md").write_text(entry("c", "new"), encoding="utf-8")
    assert root / "c.md" in ws.update_from_disk(root / "c.md")
    assert ws.update_from_disk(root / "c.md") == set()
    os.utime(root / "c.md")  # touched, same text
    assert ws.update_from_disk(root / "c.md") == set()
    assert ws.document(root / "c.md").entry.description == "new"


def test_a_changed_file_is_read_again_after_an_earlier_read(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    (root / "a.md").write_text(entry("a", "first"), encoding="utf-8")
    ws = Workspace.load([MemoryRoot("project", root)])
    (root / "a.md").write_text(entry("a", "other"), encoding="utf-8")  # same size, same tick perhaps
    assert root / "a.md" in ws.update_from_disk(root / "a.md")
    assert ws.document(root / "a.md").entry.description == "other"


def parses_counted(monkeypatch) -> list[Path]:
    """From now on, the path of every document the model parses, in order."""
    parsed: list[Path] = []
    real_parse = model.parse_document

    def counted(text, *, path, scope):
        parsed.append(path)
        return real_parse(text, path=path, scope=scope)

    monkeypatch.setattr(model, "parse_document", counted)
    return parsed


def test_an_unchanged_file_read_within_the_racy_window_is_confirmed_by_its_text_not_parsed_again(
    tmp_path, monkeypatch
):
    root = tmp_path / "memory"
    root.mkdir()
    (root / "a.md").write_text(entry("a", "first"), encoding="utf-8")
    ws = Workspace.load([MemoryRoot("project", root)])  # within the window: the read proves nothing yet
    held = ws.document(root / "a.md")
    parsed = parses_counted(monkeypatch)
    time.sleep(RACY_WINDOW_NS / 1e9 + 0.1)
    assert ws.paths_changed_on_disk(ws.roots[0]) == [root / "a.md"]
    assert ws.update_from_disk(root / "a.md") == set()
    assert ws.document(root / "a.md") is held
    assert parsed == []  # confirmed by reading its text, not by parsing it again
    assert ws.paths_changed_on_disk(ws.roots[0]) == []  # and the new read is settled


def test_reads_taken_while_racy_are_confirmed_once_settled_and_only_changed_files_are_handed_back(
    tmp_path, monkeypatch
):
    """What a server reads again in the background after a checkout (``confirm_reads``).

    An unchanged file is proved by its text, not parsed, and needs no read at
    the next look; a file rewritten since and one deleted since are handed
    back for the caller to take in, and the model still holds what it read.
    """
    root = tmp_path / "memory"
    root.mkdir()
    for name in ("a", "b", "c", "d"):
        (root / f"{name}.md").write_text(entry(name, "first"), encoding="utf-8")
    ws = Workspace.load([MemoryRoot("project", root)])  # within the window: no read proves anything
    unsettled = ws.unsettled_reads()
    assert sorted(unsettled) == [root / f"{name}.md" for name in "abcd"]
    parsed = parses_counted(monkeypatch)
    time.sleep(RACY_WINDOW_NS / 1e9 + 0.1)
    (root / "b.md").write_text(entry("b", "other"), encoding="utf-8")  # same size
    (root / "c.md").unlink()
    assert sorted(ws.confirm_reads(unsettled)) == [root / "b.md", root / "c.md"]
    assert parsed == []
    assert ws.document(root / "b.md").entry.description == "first"  # taken in by the caller, not here
    assert sorted(ws.unsettled_reads()) == [root / "b.md", root / "c.md"]
    assert sorted(ws.paths_changed_on_disk(ws.roots[0])) == [root / "b.md", root / "c.md"]  # a and d: a stat


def test_confirming_reads_leaves_a_buffer_and_a_settled_read_alone(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    (root / "a.md").write_text(entry("a", "first"), encoding="utf-8")
    (root / "b.md").write_text(entry("b", "first"), encoding="utf-8")
    ws = Workspace.load([MemoryRoot("project", root)])
    unsettled = ws.unsettled_reads()
    ws.update(root / "a.md", entry("a", "typed in a buffer"))
    time.sleep(RACY_WINDOW_NS / 1e9 + 0.1)
    assert ws.unsettled_reads() == [root / "b.md"]
    assert ws.confirm_reads(unsettled) == []
    assert ws.document(root / "a.md").entry.description == "typed in a buffer"
    assert ws.unsettled_reads() == [] and ws.confirm_reads(unsettled) == []


def _changed_by_the_listing(ws: Workspace, state) -> list[Path]:
    """``paths_changed_on_disk`` spelled out over :func:`stat_directory`'s listing (its reference)."""
    from memls.store.cache import stamp_of
    from memls.store.names import document_kind, is_document_filename
    from memls.store.reader import stat_directory

    listing = stat_directory(state.path, is_document_filename)
    by_name = {path.name: doc for path, doc in state.documents.items()}
    changed = []
    for name, st in listing.files:
        doc = by_name.pop(name, None)
        if doc is None or doc.disk is None or not doc.disk.holds_for(stamp_of(st)):
            changed.append(name)
    for name, _ in listing.unreadable:
        doc = by_name.pop(name, None)
        if document_kind(name) == "entry" and (doc is None or doc.read_error is None):
            changed.append(name)
    return [state.path / name for name in changed] + [doc.path for doc in by_name.values()]


def test_paths_changed_on_disk_equals_the_walk_over_the_sorted_listing_for_every_kind_of_name(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    for name in ("a", "b", "d", "e", "link-later", "dir-later"):
        (root / f"{name}.md").write_text(entry(name, "first"), encoding="utf-8")
    (root / "MEMORY.md").write_text("# Persistent Memory\n", encoding="utf-8")
    (root / ".memory-index.json").write_text("{}", encoding="utf-8")
    (root / "broken.md").symlink_to(root / "nowhere.md")
    (root / "sub.md").mkdir()
    os.mkfifo(root / "pipe.md")
    (root / "notes.txt").write_text("not a document", encoding="utf-8")
    time.sleep(RACY_WINDOW_NS / 1e9 + 0.1)
    ws = Workspace.load([MemoryRoot("project", root)])
    state = ws.roots[0]
    assert ws.paths_changed_on_disk(state) == _changed_by_the_listing(ws, state) == []

    (root / "b.md").write_text(entry("b", "second"), encoding="utf-8")  # changed
    (root / "c.md").write_text(entry("c", "new"), encoding="utf-8")  # added
    (root / "d.md").unlink()  # removed
    (root / "link-later.md").unlink()
    (root / "link-later.md").symlink_to(root / "gone.md")  # now unreadable
    (root / "dir-later.md").unlink()
    (root / "dir-later.md").mkdir()  # now a directory
    (root / "MEMORY.md").write_text("# Persistent Memory\n\n- [a](a.md)\n", encoding="utf-8")
    (root / "another.txt").write_text("still not a document", encoding="utf-8")
    found = ws.paths_changed_on_disk(state)
    assert found == _changed_by_the_listing(ws, state)
    assert sorted(found) == sorted(root / n for n in (
        "b.md", "c.md", "d.md", "link-later.md", "dir-later.md", "MEMORY.md"))

    gone = tmp_path / "gone-root"
    root.rename(gone)  # a root that vanished: every document is gone
    assert sorted(ws.paths_changed_on_disk(state)) == sorted(_changed_by_the_listing(ws, state)) != []


def test_once_the_model_took_in_every_file_added_changed_and_removed_no_file_counts_as_changed(tmp_path):
    """The documents by filename that the look at the root reads follow the model, removals too."""
    root = tmp_path / "memory"
    root.mkdir()
    for name in ("a", "b", "d"):
        (root / f"{name}.md").write_text(entry(name, "first"), encoding="utf-8")
    ws = Workspace.load([MemoryRoot("project", root)])
    state = ws.roots[0]
    (root / "b.md").write_text(entry("b", "second"), encoding="utf-8")
    (root / "c.md").write_text(entry("c", "new"), encoding="utf-8")
    (root / "d.md").unlink()
    time.sleep(RACY_WINDOW_NS / 1e9 + 0.1)
    for path in ws.paths_changed_on_disk(state):
        ws.update_from_disk(path)
    assert ws.paths_changed_on_disk(state) == []
    assert state.by_filename == {path.name: doc for path, doc in state.documents.items()}
    (root / "c.md").unlink()
    assert ws.paths_changed_on_disk(state) == [root / "c.md"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=hs.data())
def test_paths_changed_on_disk_equals_the_walk_over_the_listing_through_every_way_the_model_follows_files(data):
    """Files written, touched and deleted, and the model taking them in by every way it has, in any order.

    The look reads the settled stamps the root keeps beside its documents; after
    each step it must find what the walk over each document's own read finds.
    Every read counts as settled here (a clock moved ahead), so the stamps matter.
    """
    names = ("a.md", "b.md", "c.md", "MEMORY.md")
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as patch:
        patch.setattr(model, "now_ns", lambda: time.time_ns() + 10 * RACY_WINDOW_NS)
        root = Path(tmp) / "memory"
        root.mkdir()
        for name in data.draw(hs.lists(hs.sampled_from(names), unique=True), label="at the start"):
            (root / name).write_text(entry(name[0], "first"), encoding="utf-8")
        ws = Workspace.load([MemoryRoot("project", root)])
        state = ws.roots[0]
        for _ in range(data.draw(hs.integers(1, 12), label="steps")):
            path = root / data.draw(hs.sampled_from(names))
            step = data.draw(hs.sampled_from(
                ("write", "touch", "delete", "take in", "buffer", "saved", "remove", "catch up")))
            if step == "write":
                path.write_text(entry(path.stem, data.draw(hs.sampled_from(("first", "second", "a third")))),
                                encoding="utf-8")
            elif step == "touch" and path.exists():
                os.utime(path)
            elif step == "delete" and path.exists():
                path.unlink()
            elif step == "take in":
                ws.update_from_disk(path)
            elif step == "buffer":
                ws.update(path, entry(path.stem, "typed"))
            elif step == "saved":
                ws.saved(path)
            elif step == "remove":
                ws.remove(path)
            elif step == "catch up":
                for changed in ws.paths_changed_on_disk(state):
                    ws.update_from_disk(changed)
            assert ws.paths_changed_on_disk(state) == _changed_by_the_listing(ws, state), step


@pytest.mark.timeout(30)  # a FIFO opened for reading blocks
def test_an_index_turned_into_a_fifo_is_held_as_unreadable_not_removed_nor_opened(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    (root / "a.md").write_text(entry("a", "first"), encoding="utf-8")
    index = root / "MEMORY.md"
    index.write_text("# Persistent Memory\n", encoding="utf-8")
    ws = Workspace.load([MemoryRoot("project", root)])
    state = ws.roots[0]
    index.unlink()
    os.mkfifo(index)
    assert index in ws.paths_changed_on_disk(state)
    ws.update_from_disk(index)
    doc = state.documents[index]
    assert doc.text == "" and doc.read_error is not None and "not a regular file" in doc.read_error
    assert index not in ws.paths_changed_on_disk(state)  # held as it is: not read again at every look
