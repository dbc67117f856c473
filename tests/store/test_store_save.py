"""MemoryStore.save: gptme's semantics, plus refusals made before anything touches disk."""

from __future__ import annotations

import pytest

from memls.store import MemoryFrontmatterError, MemoryParseError, MemoryRoot, MemoryStore
from memls.store.errors import ReservedNameError
from memls.store.index import render_index
from memls.store.recall import recall

from .store_test_helpers import entry_file, index_text, snapshot, store_for, write_policy

RESERVED = ["memory", "MEMORY", "memory archive", "Memory notes", "memory-foo", "!!!"]


@pytest.fixture
def root(tmp_path):
    return tmp_path / "memory"


@pytest.fixture
def mstore(root):
    return store_for(root)


def test_save_writes_entry_file_and_index_line(mstore, root):
    path = mstore.save("My Fact", "A fact.", "Detail.", type="project")
    assert path == root / "my-fact.md"
    text = path.read_text(encoding="utf-8")
    assert 'description: "A fact."' in text and "type: project" in text
    assert index_text(root).startswith("# Persistent Memory\n\n")
    assert "- [my-fact](my-fact.md) — A fact." in index_text(root)


def test_resave_under_another_spelling_updates_the_same_line(mstore, root):
    mstore.save("My Fact", "A fact.")
    mstore.save("my fact", "Updated.")
    lines = [line for line in index_text(root).splitlines() if "my-fact.md" in line]
    assert lines == ["- [my-fact](my-fact.md) — Updated."]


def test_a_new_save_refuses_a_name_held_by_another_file_and_changes_nothing(mstore, root):
    mstore.save("deploy", "how we deploy", "Body.")
    (root / "deploy.md").rename(root / "notes.md")
    before = snapshot(root)
    with pytest.raises(FileExistsError, match="entry named 'deploy' already exists: notes.md"):
        mstore.save("deploy", "brand new", new=True)
    assert snapshot(root) == before


def test_a_new_save_refuses_an_existing_file_holding_another_name(mstore, root):
    mstore.save("other", "d")
    (root / "other.md").rename(root / "fresh.md")
    before = snapshot(root)
    with pytest.raises(FileExistsError, match="fresh.md already exists"):
        mstore.save("fresh", "d", new=True)
    assert snapshot(root) == before


def test_a_new_save_creates_the_file_and_its_index_line(mstore, root):
    assert mstore.save("Fresh Fact", "d", new=True) == root / "fresh-fact.md"
    assert "- [fresh-fact](fresh-fact.md) — d" in index_text(root)


def test_save_to_a_named_scope_lands_in_that_root(tmp_path):
    project, user = tmp_path / "p", tmp_path / "u"
    s = MemoryStore([MemoryRoot("project", project), MemoryRoot("user", user)])
    assert s.save("fact", "d", scope="user") == user / "fact.md"
    assert not project.exists()


def test_save_to_unknown_scope_raises_key_error_and_creates_nothing(mstore, root):
    with pytest.raises(KeyError):
        mstore.save("fact", "d", scope="agent")
    assert not root.exists()


@pytest.mark.parametrize("name", RESERVED)
def test_save_refuses_reserved_name_and_leaves_no_file(mstore, root, name):
    with pytest.raises(ReservedNameError, match="reserved for memory indexes") as info:
        mstore.save(name, "d")
    assert isinstance(info.value, ValueError)
    assert not root.exists()


@pytest.mark.parametrize("name", RESERVED)
def test_save_refuses_reserved_name_in_existing_root_without_new_files(mstore, root, name):
    root.mkdir()
    with pytest.raises(ReservedNameError):
        mstore.save(name, "d")
    assert list(root.iterdir()) == []


@pytest.mark.parametrize("name", ["memories", "memo-ry", "my-memory"])
def test_names_merely_containing_memory_are_saved(mstore, name):
    mstore.save(name, "d")
    assert mstore.get(name) is not None


def test_non_ascii_name_is_saved_and_found_by_every_reader(mstore, root):
    path = mstore.save("日本語", "日本語のメモ", "本文 kanji notes")
    assert path == root / "日本語.md"
    assert [e.name for e in mstore.entries()] == ["日本語"]
    assert mstore.get("日本語").description == "日本語のメモ"
    hits = recall(mstore, "日本語", backend="bm25").hits
    assert [h.entry.name for h in hits] == ["日本語"]
    assert "- [日本語](日本語.md) — 日本語のメモ" in index_text(root)


@pytest.mark.parametrize("filename", ["a.md", "z.md"])
def test_save_updates_the_entry_with_that_name_in_its_own_file(mstore, root, filename):
    """Before or after ``foo.md`` in file order: the entry named foo is updated, no second file."""
    entry_file(root, filename, name="foo", body="old body")
    path = mstore.save("foo", "new", "new body")
    assert path == root / filename
    assert not (root / "foo.md").exists()
    assert (mstore.get("foo").path, mstore.get("foo").body) == (root / filename, "new body")


def test_save_preserves_lifecycle_and_omitted_fields(mstore, root):
    entry_file(
        root, "fact.md", description="old", type_="reference",
        extra=(
            'title: "The fact"\nstatus: historical\nsupersedes:\n- older\n'
            "provenance:\n  source: chat\nconfidence: 0.5\nkeywords:\n- kw\nrecheck: '2030-01-01'\n"
            "custom_key: kept\n"
        ),
    )
    mstore.save("fact", "new description", "new body")
    e = mstore.get("fact")
    assert (e.description, e.body, e.type, e.title) == ("new description", "new body", "reference", "The fact")
    assert (e.status, e.supersedes, e.provenance) == ("historical", ["older"], {"source": "chat"})
    assert (e.confidence, e.keywords, e.recheck, e.extra) == (0.5, ["kw"], "2030-01-01", {"custom_key": "kept"})


def test_save_explicit_values_replace_and_metadata_merges(mstore):
    mstore.save("fact", "d", type="project", title="T1", metadata={"a": 1, "b": 2}, keywords=["x"])
    mstore.save("fact", "d", type="feedback", title="T2", metadata={"b": 3, "c": 4}, keywords=[])
    e = mstore.get("fact")
    assert (e.type, e.title, e.metadata, e.keywords) == ("feedback", "T2", {"a": 1, "b": 3, "c": 4}, [])


def test_save_refuses_keywords_given_as_one_string(mstore, root):
    with pytest.raises(ValueError, match="keywords must be a list"):
        mstore.save("fact", "d", keywords="release")
    assert not root.exists()


def test_save_folds_line_breaks_in_description_title_and_type(mstore, root):
    mstore.save("fact", "line one\nline two\r\nthree\u2028four", title="a\nb", type="my\ntype")
    e = mstore.get("fact")
    assert (e.description, e.title, e.type) == ("line one line two three four", "a b", "my type")
    assert index_text(root) == "# Persistent Memory\n\n- [a b](fact.md) — line one line two three four\n"
    assert mstore.check_index() is False  # legacy upsert, not yet grouped
    mstore.write_index()
    assert "## My type\n" in index_text(root)


@pytest.mark.parametrize("field", ["description", "title"])
def test_save_refuses_control_characters_before_creating_the_root(mstore, root, field):
    kwargs = {"description": "d", field: "bad\x1bvalue"}
    with pytest.raises(ValueError, match="control character U\\+001B"):
        mstore.save("fact", **kwargs)
    assert not root.exists()


def test_save_refuses_close_bracket_in_title(mstore, root):
    with pytest.raises(ValueError, match=r"\]"):
        mstore.save("fact", "d", title="a ] b")
    assert not root.exists()


def test_save_refuses_unencodable_body_before_creating_the_root(mstore, root):
    with pytest.raises(ValueError, match="U\\+D800"):
        mstore.save("fact", "d", "bad \ud800 body")
    assert not root.exists()


def test_save_refuses_body_over_the_readers_size_cap_before_creating_the_root(mstore, root):
    with pytest.raises(MemoryParseError, match="larger than"):
        mstore.save("fact", "d", "x" * (1024 * 1024 + 1))
    assert not root.exists()


def test_save_refuses_metadata_yaml_cannot_represent_before_creating_the_root(mstore, root):
    with pytest.raises(ValueError, match="cannot be written as YAML"):
        mstore.save("fact", "d", metadata={"when": object()})
    assert not root.exists()


def test_save_refuses_multi_line_type_given_inside_metadata(mstore, root):
    with pytest.raises(ValueError, match="type must be a single line"):
        mstore.save("fact", "d", metadata={"type": "a\nb"})
    assert not root.exists()


@pytest.mark.parametrize("managed", [False, True])
def test_save_over_malformed_yaml_raises_frontmatter_error_and_changes_nothing(mstore, root, managed):
    (root).mkdir()
    (root / "fact.md").write_text("---\nname: fact\ndescription: [unclosed\n---\nbody\n", encoding="utf-8")
    if managed:
        write_policy(root, [])
    before = snapshot(root)
    assert mstore.get("fact") is not None  # the lenient readers still see it
    with pytest.raises(MemoryFrontmatterError, match="invalid YAML"):
        mstore.save("fact", "d")
    assert snapshot(root) == before


def test_save_over_a_non_entry_file_mentions_frontmatter_and_changes_nothing(mstore, root):
    root.mkdir()
    (root / "fact.md").write_text("# Just a heading\n", encoding="utf-8")
    before = snapshot(root)
    with pytest.raises(MemoryParseError, match="frontmatter"):
        mstore.save("fact", "d")
    assert snapshot(root) == before


def test_legacy_save_keeps_hand_prose_and_appends_its_line(mstore, root):
    root.mkdir()
    (root / "MEMORY.md").write_text("# My notes\n\nRead these first.\n", encoding="utf-8")
    mstore.save("fact", "d")
    assert index_text(root) == "# My notes\n\nRead these first.\n- [fact](fact.md) — d\n"


def test_legacy_save_of_a_non_living_entry_removes_its_index_line(mstore, root):
    mstore.save("fact", "d")
    mstore.save("other", "o")
    mstore.set_status("fact", "historical")
    (root / "MEMORY.md").write_text(
        "# Persistent Memory\n\nprose\n- [fact](fact.md) — d\n- [other](other.md) — o\n", encoding="utf-8"
    )
    mstore.save("fact", "still historical")
    assert index_text(root) == "# Persistent Memory\n\nprose\n- [other](other.md) — o\n"


def test_managed_save_of_an_unselected_entry_leaves_index_and_policy_unchanged(mstore, root):
    mstore.save("kept", "selected one", title="Curated")
    write_policy(root, ["kept.md"])
    mstore.write_index()
    before = snapshot(root)
    mstore.save("fresh", "not selected")
    after = snapshot(root)
    assert after.pop("fresh.md")
    assert after == before
    assert recall(mstore, "selected not", backend="bm25").hits
    assert "[Curated](kept.md)" in index_text(root)
    assert mstore.check_index()


def test_managed_save_with_empty_selection_leaves_index_unchanged(mstore, root):
    write_policy(root, [])
    mstore.write_index()
    mstore.save("fact", "d")
    assert index_text(root) == "# Persistent Memory\n"


def test_managed_save_over_budget_raises_and_changes_nothing(mstore, root):
    mstore.save("fact", "aaaa")
    write_policy(root, ["fact.md"], budget=len(render_index(mstore.entries()).encode()))
    mstore.write_index()
    before = snapshot(root)
    with pytest.raises(ValueError, match="budget"):
        mstore.save("fact", "ääää")  # same characters, more bytes
    assert snapshot(root) == before


def test_saving_a_superseded_unselected_entry_keeps_links_and_index(mstore, root):
    mstore.save("old", "o")
    mstore.save("new", "n")
    mstore.supersede("old", "new")
    write_policy(root, ["new.md"])
    mstore.write_index()
    before_index = index_text(root)
    mstore.save("old", "o2")
    e = mstore.get("old")
    assert (e.status, e.superseded_by) == ("superseded", "new")
    assert index_text(root) == before_index


@pytest.mark.parametrize(
    "policy",
    ["{broken", "[]", '{"version": 2, "budget": 100, "selected": []}', '{"version": 1, "budget": 0, "selected": []}',
     '{"version": 1, "budget": 100, "selected": ["../kept.md"]}', '{"version": 1, "budget": 100}'],
)
def test_malformed_policy_makes_save_raise_and_change_nothing(mstore, root, policy):
    root.mkdir()
    (root / ".memory-index.json").write_text(policy, encoding="utf-8")
    before = snapshot(root)
    with pytest.raises(ValueError):
        mstore.save("fact", "d")
    assert snapshot(root) == before


def test_managed_index_of_a_description_with_line_breaks_equals_a_fresh_render(mstore, root):
    mstore.save("fact", "one\ntwo")
    write_policy(root, ["fact.md"])
    mstore.save("fact", "three\nfour")
    assert index_text(root) == mstore.render_root_index()


def test_dot_files_are_not_entries(mstore, root):
    entry_file(root, ".#fact.md", name="fact")
    entry_file(root, "real.md")
    assert [e.name for e in mstore.entries()] == ["real"]
    assert mstore.get("fact") is None


def test_index_files_are_skipped_and_non_entries_are_recorded(mstore, root):
    entry_file(root, "MEMORY-archive.md", name="archived")
    entry_file(root, "real.md")
    (root / "MEMORY.md").write_text("# Persistent Memory\n", encoding="utf-8")
    (root / "notes.md").write_text("no frontmatter\n", encoding="utf-8")
    assert [e.name for e in mstore.entries()] == ["real"]
    assert [p.name for p, _ in mstore.errors] == ["notes.md"]


def test_nearest_root_wins_on_name(tmp_path):
    near, far = tmp_path / "near", tmp_path / "far"
    entry_file(near, "fact.md", description="near")
    entry_file(far, "fact.md", description="far")
    entry_file(far, "another.md")
    s = store_for(near, far)
    assert [(e.name, e.description) for e in s.entries()] == [("another", "d"), ("fact", "near")]
