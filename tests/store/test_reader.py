"""What the readers see of a root: entries, files no reader can open, files too large to read."""

from __future__ import annotations

import os

import pytest

from memls.store.reader import MAX_DOCUMENT_BYTES, read_root

from .store_test_helpers import entry_file, index_text, snapshot, store_for

BIG_BODY = "x" * (MAX_DOCUMENT_BYTES + 1)


@pytest.fixture
def root(tmp_path):
    return tmp_path / "memory"


@pytest.mark.parametrize("make, detail", [
    # Python's own wording of the error, as gptme's audit prints it.
    (lambda p: p.symlink_to(p.parent / "nowhere.md"), "[Errno 2] No such file or directory: '{}'"),
    (lambda p: p.symlink_to(p), "[Errno 40] Too many levels of symbolic links: '{}'"),
    (lambda p: p.mkdir(), "[Errno 21] Is a directory: '{}'"),
    (lambda p: os.mkfifo(p), "not a regular file: {}"),  # never opened: a FIFO would block
])
def test_an_entry_name_no_reader_can_open_is_an_error_not_skipped_silently(root, make, detail):
    entry_file(root, "fine.md")
    make(root / "odd.md")
    read = read_root(root, "explicit", cache=False)
    assert [e.name for e in read.entries] == ["fine"]
    assert read.errors == [(root / "odd.md", detail.format(root / "odd.md"))]


def test_a_file_too_large_to_read_is_no_entry_but_keeps_its_index_headline(root):
    entry_file(root, "big.md", description="Big one", type_="user", body=BIG_BODY)
    entry_file(root, "small.md")
    read = read_root(root, "explicit", cache=False)
    assert [e.name for e in read.entries] == ["small"]
    assert [(e.name, e.description, e.type, e.body) for e in read.entries_for_index] == [
        ("big", "Big one", "user", ""), ("small", "d", "project", "")]
    assert read.errors == [(root / "big.md", f"larger than {MAX_DOCUMENT_BYTES} bytes; not read")]
    cached = read_root(root, "explicit")  # remembered with its headline
    assert read_root(root, "explicit").entries_for_index == cached.entries_for_index
    assert [e.name for e in cached.entries_for_index] == ["big", "small"]


def test_a_too_large_file_whose_frontmatter_does_not_end_within_the_cap_has_no_headline(root):
    root.mkdir()
    (root / "huge.md").write_text("---\nname: huge\ndescription: " + "y" * (MAX_DOCUMENT_BYTES + 10)
                                  + "\n---\n", encoding="utf-8")
    assert read_root(root, "explicit", cache=False).entries_for_index == []


def test_no_write_drops_the_index_line_of_a_file_too_large_to_read(root):
    store = store_for(root)
    entry_file(root, "big.md", description="Big one", body=BIG_BODY)
    store.save("alpha", "Alpha", type="project")
    store.write_index()
    assert "- [big](big.md) — Big one" in index_text(root)
    assert store.check_index()
    store.save("beta", "Beta", type="project")
    store.supersede("alpha", "beta")
    store.set_status("beta", "historical")
    assert "- [big](big.md) — Big one" in index_text(root)
    assert store.check_index()
    assert "big" not in [e.name for e in store.entries()]  # list and recall skip it, and say so
    assert store.errors == [(root / "big.md", f"larger than {MAX_DOCUMENT_BYTES} bytes; not read")]


def test_writes_refuse_to_rewrite_a_file_whose_aliases_were_left_unread(root):
    store = store_for(root)
    store.save("new", "n")
    laughs = ['a0: &a0 "lol"'] + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 8)]
    (root / "old.md").write_text("---\nname: old\ndescription: o\n" + "\n".join(laughs)
                                 + "\nmetadata:\n  nested: *a7\n---\n", encoding="utf-8")
    before = snapshot(root)
    with pytest.raises(ValueError, match="YAML aliases"):
        store.supersede("old", "new")
    with pytest.raises(ValueError, match="YAML aliases"):
        store.save("old", "changed")
    assert snapshot(root) == before
