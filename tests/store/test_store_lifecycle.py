"""rename, delete and set_status: the lifecycle operations gptme lacks."""

from __future__ import annotations

import json

import pytest

from memls.store.errors import ReservedNameError

from .store_test_helpers import entry_file, index_text, snapshot, store_for, write_policy

RESERVED = ["memory", "MEMORY", "memory archive", "Memory notes", "memory-foo", "!!!"]


@pytest.fixture
def root(tmp_path):
    return tmp_path / "memory"


@pytest.fixture
def mstore(root):
    return store_for(root)


def chain(mstore):
    """a superseded by b; c unrelated."""
    for name in ("a", "b", "c"):
        mstore.save(name, f"{name} desc")
    mstore.supersede("a", "b")


# -- rename -------------------------------------------------------------------


def test_rename_moves_the_file_and_renames_the_entry(mstore, root):
    mstore.save("old", "d", "body")
    renamed = mstore.rename("old", "Fresh Name")
    assert renamed.name == "fresh-name" and renamed.path == root / "fresh-name.md"
    assert not (root / "old.md").exists()
    assert mstore.get("fresh-name").body == "body"
    assert mstore.get("old") is None


def test_rename_relinks_every_supersession_link(mstore, root):
    chain(mstore)
    mstore.rename("b", "bee")
    assert mstore.get("a").superseded_by == "bee"
    assert mstore.get("bee").supersedes == ["a"]
    mstore.rename("a", "ay")
    assert mstore.get("bee").supersedes == ["ay"]
    assert mstore.audit() == []


def test_rename_regenerates_a_machine_made_index(mstore, root):
    chain(mstore)
    mstore.write_index()
    mstore.rename("b", "bee")
    assert index_text(root) == mstore.render_root_index()
    assert "(bee.md)" in index_text(root)


def test_rename_rewrites_only_its_pointer_in_a_curated_index(mstore, root):
    mstore.save("old", "d")
    (root / "MEMORY.md").write_text("Prose\n- [old](old.md) — d\nMore prose\n", encoding="utf-8")
    mstore.rename("old", "new")
    assert index_text(root) == "Prose\n- [new](new.md) — d\nMore prose\n"


def test_rename_of_the_name_alone_keeps_its_pointer_in_a_curated_index(mstore, root):
    entry_file(root, "foo.md", name="bar")
    (root / "MEMORY.md").write_text("Prose\n- [bar](foo.md) — d\n", encoding="utf-8")
    renamed = mstore.rename("bar", "foo")
    assert renamed.path == root / "foo.md" and renamed.name == "foo"
    assert index_text(root) == "Prose\n- [foo](foo.md) — d\n"


def test_rename_never_overwrites_an_existing_file(mstore, root):
    mstore.save("one", "d")
    (root / "two.md").write_text("not an entry\n", encoding="utf-8")
    before = snapshot(root)
    with pytest.raises(FileExistsError, match="two.md"):
        mstore.rename("one", "two")
    assert snapshot(root) == before


def test_rename_refuses_a_name_another_entry_holds(mstore, root):
    mstore.save("one", "d")
    entry_file(root, "other.md", name="two")
    before = snapshot(root)
    with pytest.raises(ValueError, match="other.md"):
        mstore.rename("one", "two")
    assert snapshot(root) == before


@pytest.mark.parametrize("name", RESERVED)
def test_rename_refuses_reserved_new_name_and_creates_nothing(mstore, root, name):
    with pytest.raises(ReservedNameError, match="reserved for memory indexes"):
        mstore.rename("whatever", name)
    assert not root.exists()
    mstore.save("fact", "d")
    before = snapshot(root, with_lock=True)
    with pytest.raises(ReservedNameError, match="reserved for memory indexes"):
        mstore.rename("fact", name)
    assert snapshot(root, with_lock=True) == before


def test_rename_transfers_the_policy_selection(mstore, root):
    mstore.save("old", "d")
    write_policy(root, ["old.md"])
    mstore.rename("old", "new")
    assert json.loads((root / ".memory-index.json").read_text())["selected"] == ["new.md"]
    assert mstore.check_index()


def test_rename_of_a_missing_entry_raises_key_error(mstore, root):
    with pytest.raises(KeyError, match="ghost"):
        mstore.rename("ghost", "spirit")
    assert not root.exists()


# -- delete -------------------------------------------------------------------


def test_delete_removes_file_index_line_and_supersedes_links(mstore, root):
    chain(mstore)
    mstore.delete("a")
    assert not (root / "a.md").exists()
    assert mstore.get("b").supersedes == []
    assert "(a.md)" not in index_text(root)
    assert mstore.audit() == []


def test_delete_refuses_an_entry_that_is_another_entrys_successor(mstore, root):
    chain(mstore)
    before = snapshot(root)
    with pytest.raises(ValueError, match="successor of 'a'"):
        mstore.delete("b")
    assert snapshot(root) == before


def test_delete_in_a_curated_index_removes_only_its_line(mstore, root):
    chain(mstore)
    (root / "MEMORY.md").write_text("Prose\n- [c](c.md) — c desc\n", encoding="utf-8")
    mstore.delete("a")
    assert index_text(root) == "Prose\n- [c](c.md) — c desc\n"
    mstore.delete("c")
    assert index_text(root) == "Prose\n"


def test_delete_drops_the_policy_selection(mstore, root):
    mstore.save("a", "d")
    mstore.save("b", "d")
    write_policy(root, ["a.md", "b.md"])
    mstore.delete("a")
    assert json.loads((root / ".memory-index.json").read_text())["selected"] == ["b.md"]
    assert mstore.check_index()


def test_delete_of_a_missing_entry_raises_key_error_and_creates_nothing(mstore, root):
    with pytest.raises(KeyError, match="ghost"):
        mstore.delete("ghost")
    assert not root.exists()


# -- set_status ----------------------------------------------------------------


def test_historical_entry_leaves_the_index_but_stays_on_disk(mstore, root):
    mstore.save("a", "d")
    mstore.save("b", "d")
    mstore.set_status("a", "historical")
    assert mstore.get("a").status == "historical"
    assert "(a.md)" not in index_text(root) and "(b.md)" in index_text(root)


def test_historical_entry_is_dropped_from_the_policy_selection(mstore, root):
    mstore.save("a", "d")
    write_policy(root, ["a.md"])
    mstore.set_status("a", "historical")
    assert json.loads((root / ".memory-index.json").read_text())["selected"] == []
    assert mstore.check_index()


def test_making_a_superseded_entry_living_unlinks_its_successor(mstore):
    chain(mstore)
    revived = mstore.set_status("a", "living")
    assert (revived.status, revived.superseded_by) == ("living", None)
    assert mstore.get("b").supersedes == []
    assert mstore.audit() == []


def test_superseded_status_needs_a_successor(mstore):
    mstore.save("a", "d")
    with pytest.raises(ValueError, match="use supersede"):
        mstore.set_status("a", "superseded")


def test_unknown_status_is_refused_before_anything(mstore, root):
    with pytest.raises(ValueError, match="invalid status"):
        mstore.set_status("a", "archived")
    assert not root.exists()
