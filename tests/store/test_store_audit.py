"""MemoryStore.audit: gptme's six codes on one root."""

from __future__ import annotations

import pytest

from .store_test_helpers import entry_file, store_for


@pytest.fixture
def root(tmp_path):
    return tmp_path / "memory"


@pytest.fixture
def mstore(root):
    return store_for(root)


def codes(issues):
    return {(i.code, i.entry) for i in issues}


def test_audit_of_a_missing_root_is_clean_and_creates_nothing(mstore, root):
    assert mstore.audit() == []
    assert not root.exists()


def test_audit_of_an_unknown_scope_raises_key_error(mstore):
    with pytest.raises(KeyError):
        mstore.audit(scope="user")


def test_superseded_by_without_a_back_link_is_asymmetric(mstore, root):
    entry_file(root, "old.md", extra="status: superseded\nsuperseded_by: new\n")
    entry_file(root, "new.md")
    assert codes(mstore.audit()) == {("asymmetric-supersession", "old")}


def test_supersedes_missing_and_unlinked_entries(mstore, root):
    entry_file(root, "new.md", extra="supersedes:\n- missing\n- old\n")
    entry_file(root, "old.md")
    assert codes(mstore.audit()) == {("dangling-supersedes", "new"), ("asymmetric-supersession", "new")}


@pytest.mark.parametrize(
    "line",
    ["status: bogus", "status: false", "confidence: nope", "confidence: 2", "confidence: true",
     "metadata: nope", "provenance: nope", "supersedes: 42", "keywords: [fine, 42]",
     "superseded_by: 42", "recheck: 42", "title: 42"],
)
def test_each_bad_field_type_is_exactly_one_invalid_yaml(mstore, root, line):
    root.mkdir()
    (root / "bad.md").write_text(f'---\nname: bad\ndescription: "d"\n{line}\n---\n', encoding="utf-8")
    assert [(i.code, i.entry) for i in mstore.audit()] == [("invalid-yaml", "bad.md")]


@pytest.mark.parametrize("frontmatter", ['name: bad\ndescription: 42', "name: false\ndescription: d", "name: ''\ndescription: d"])
def test_bad_name_or_description_is_exactly_one_invalid_yaml(mstore, root, frontmatter):
    root.mkdir()
    (root / "bad.md").write_text(f"---\n{frontmatter}\n---\n", encoding="utf-8")
    assert [(i.code, i.entry) for i in mstore.audit()] == [("invalid-yaml", "bad.md")]


def test_duplicate_name_reports_the_later_file(mstore, root):
    entry_file(root, "a.md", name="same")
    entry_file(root, "z.md", name="same")
    issues = mstore.audit()
    assert [(i.code, i.entry) for i in issues] == [("duplicate-name", "z.md")]
    assert str(root / "a.md") in issues[0].detail


def test_invalid_yaml_and_dangling_superseded_by_are_both_reported(mstore, root):
    root.mkdir()
    (root / "invalid.md").write_text("---\nname: invalid\ndescription: [x\n---\n", encoding="utf-8")
    entry_file(root, "old.md", extra="status: superseded\nsuperseded_by: ghost\n")
    assert {("invalid-yaml", "invalid.md"), ("dangling-superseded-by", "old")} <= codes(mstore.audit())


def test_non_entries_and_non_utf8_files_are_invalid_entries(mstore, root):
    root.mkdir()
    (root / "notes.md").write_text("just notes\n", encoding="utf-8")
    (root / "binary.md").write_bytes(b"\xff\xfe\x00bad")
    assert codes(mstore.audit()) == {("invalid-entry", "notes.md"), ("invalid-entry", "binary.md")}


def test_dot_files_and_index_files_are_not_audited(mstore, root):
    root.mkdir()
    (root / ".#draft.md").write_text("broken\n", encoding="utf-8")
    (root / "MEMORY.md").write_text("# Persistent Memory\n", encoding="utf-8")
    assert mstore.audit() == []
