"""Every rewrite is an edit: supersede, rename, historical, save and unlink change only their keys.

The writes go through the real ``MemoryStore`` on real files; what must
survive (comments, key order, unknown keys, quoting, the body's bytes and
line endings) is what the test wrote, not what the parser says.
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memls.store.entry import MemoryEntry
from memls.store.parse import parse_document
from memls.store.rewrite import rewritten_text, value_end
from memls.store.roots import MemoryRoot
from memls.store.store import MemoryStore

from .messy_entries import messy_entries, split_body
from .store_test_helpers import entry_file, store_for

COMMENTED = (
    "---\n"
    "# owner: alice\n"
    "name: old\n"
    "description: x  # short\n"
    "supersedes: [a, b]  # b was wrong\n"
    "status: living\n"
    "zz_custom: keep\n"
    "---\r\n"
    "Body line\r\n"
)


def write(root: Path, filename: str, text: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    path = root / filename
    path.write_bytes(text.encode("utf-8"))
    return path


def test_supersede_edits_only_status_and_superseded_by_keeping_comments_and_crlf_body(tmp_path):
    old = write(tmp_path, "old.md", COMMENTED)
    entry_file(tmp_path, "new.md")
    store_for(tmp_path).supersede("old", "new")
    assert old.read_bytes().decode() == (
        "---\n"
        "# owner: alice\n"
        "name: old\n"
        "description: x  # short\n"
        "supersedes: [a, b]  # b was wrong\n"
        "status: superseded\n"
        "superseded_by: new\n"
        "zz_custom: keep\n"
        "---\r\n"
        "Body line\r\n"
    )


def test_supersede_appends_to_a_commented_flow_list_on_its_line(tmp_path):
    entry_file(tmp_path, "a.md")
    write(tmp_path, "new.md", "---\nname: new\n# links\nsupersedes: [x1]  # x1 was wrong\n---\n")
    store_for(tmp_path).supersede("a", "new")
    assert (tmp_path / "new.md").read_text() == (
        "---\nname: new\n# links\nsupersedes: [x1, a]  # x1 was wrong\n---\n"
    )


def test_supersede_appends_to_an_indented_block_list_with_its_indent(tmp_path):
    entry_file(tmp_path, "a.md")
    write(tmp_path, "new.md", "---\nname: new\nsupersedes:\n  - x1  # first\nzz: 1\n---\n")
    store_for(tmp_path).supersede("a", "new")
    assert (tmp_path / "new.md").read_text() == (
        "---\nname: new\nsupersedes:\n  - x1  # first\n  - a\nzz: 1\n---\n"
    )


def test_supersede_keeps_an_empty_body_without_adding_a_blank_line(tmp_path):
    write(tmp_path, "old.md", '---\nname: old\ndescription: "d"\n---\n')
    write(tmp_path, "new.md", '---\nname: new\ndescription: "d"\n---\n')
    store_for(tmp_path).supersede("old", "new")
    assert (tmp_path / "old.md").read_text().endswith("superseded_by: new\n---\n")
    assert (tmp_path / "new.md").read_text().endswith("- old\n---\n")


def test_historical_sets_status_where_gptme_puts_it_and_living_removes_it_again(tmp_path):
    text = '---\nname: a  # mine\ndescription: "d"\nmetadata:\n  type: user\nzz: 1\n---\n\nBody\n'
    path = write(tmp_path, "a.md", text)
    store = store_for(tmp_path)
    store.set_status("a", "historical")
    assert path.read_text() == text.replace("  type: user\n", "  type: user\nstatus: historical\n")
    store.set_status("a", "living")
    assert path.read_text() == text


def test_historical_keeps_a_comment_after_the_status_value(tmp_path):
    path = write(tmp_path, "a.md", "---\nname: a\nstatus: living  # for now\n---\n")
    store_for(tmp_path).set_status("a", "historical")
    assert path.read_text() == "---\nname: a\nstatus: historical  # for now\n---\n"


def test_rename_edits_the_name_and_relinks_neighbours_keeping_their_comments(tmp_path):
    write(tmp_path, "succ.md", "---\nname: succ\nsupersedes:\n- old  # retired\n- x1\n---\n")
    write(tmp_path, "old.md", "---\n# the first one\nname: old  # was tmp\nstatus: superseded\n"
                              "superseded_by: succ\nzz: 1\n---\nBody\n")
    store_for(tmp_path).rename("old", "older")
    assert not (tmp_path / "old.md").exists()
    assert (tmp_path / "older.md").read_text() == (
        "---\n# the first one\nname: older  # was tmp\nstatus: superseded\nsuperseded_by: succ\nzz: 1\n---\nBody\n"
    )
    assert (tmp_path / "succ.md").read_text() == "---\nname: succ\nsupersedes:\n- older  # retired\n- x1\n---\n"


def test_delete_removes_only_the_deleted_item_from_a_neighbours_list(tmp_path):
    entry_file(tmp_path, "gone.md")
    write(tmp_path, "keep.md", "---\nname: keep\nsupersedes:\n# history\n- x1\n- gone  # merged\n- x2\n---\n")
    store_for(tmp_path).delete("gone")
    assert (tmp_path / "keep.md").read_text() == "---\nname: keep\nsupersedes:\n# history\n- x1\n- x2\n---\n"


def test_save_over_an_entry_edits_description_and_body_keeping_comments_and_unknown_keys(tmp_path):
    path = write(tmp_path, "a.md", "---\n# mine\nname: a\ndescription: old  # short\nzz: [1, 2]\n---\nold body\n")
    store_for(tmp_path).save("a", "new description", "new body")
    assert path.read_text() == (
        '---\n# mine\nname: a\ndescription: "new description"  # short\nzz: [1, 2]\n---\n\nnew body\n'
    )


def test_a_file_in_gptmes_layout_is_rewritten_to_gptmes_bytes(tmp_path):
    entry = MemoryEntry(name="a", description="d", type="user", keywords=["k"], body="Body")
    path = write(tmp_path, "a.md", entry.to_markdown())
    store_for(tmp_path).set_status("a", "historical")
    assert path.read_text() == replace(entry, status="historical").to_markdown()


def test_rewritten_text_is_the_text_itself_when_nothing_changes():
    text = "---\nname: a\nstatus: living  # explicit\n---\nBody\r\n"
    entry = parse_document(text).entry
    assert rewritten_text(text, entry) == text


def test_rewritten_text_declines_a_file_without_frontmatter():
    assert rewritten_text("no frontmatter\n", MemoryEntry(name="a")) is None


# -- the property: only the keys a write sets change --------------------------------------------


def lines_outside(text: str, keys: set[str]) -> list[str]:
    """The file's lines (with their breaks) minus the lines of ``keys``, in order."""
    parsed = parse_document(text)
    owned: set[int] = set()
    for key in keys:
        spans = parsed.frontmatter.keys.get(key)
        if spans is not None:
            owned.update(range(spans.key.start_line, value_end(spans)[0] + 1))
    return [line for i, line in enumerate(text.split("\n")) if i not in owned]


def raw(path: Path) -> str:
    return path.read_bytes().decode("utf-8")


_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(old=messy_entries("old"), new=messy_entries("new"))
def test_supersede_changes_only_the_keys_it_sets(old, new):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        old_path, new_path = write(root, "old.md", old.text), write(root, "new.md", new.text)
        store_for(root).supersede("old", "new")
        assert lines_outside(raw(old_path), {"status", "superseded_by"}) == lines_outside(
            old.text, {"status", "superseded_by"})
        assert lines_outside(raw(new_path), {"supersedes"}) == lines_outside(new.text, {"supersedes"})
        for comment in new.comments:
            assert comment in raw(new_path)
        entry = store_for(root).get("old")
        assert (entry.status, entry.superseded_by) == ("superseded", "new")
        assert store_for(root).get("new").supersedes[-1] == "old"


@_SETTINGS
@given(messy=messy_entries("a"), status=st.sampled_from(["historical", "living"]))
def test_set_status_changes_only_the_status_key(messy, status):
    with tempfile.TemporaryDirectory() as tmp:
        path = write(Path(tmp), "a.md", messy.text)
        store_for(Path(tmp)).set_status("a", status)
        after = raw(path)
        assert lines_outside(after, {"status"}) == lines_outside(messy.text, {"status"})
        assert store_for(Path(tmp)).get("a").status == status
        if status == "living":
            assert after == messy.text  # already living: an explicit `status: living` stays


@_SETTINGS
@given(messy=messy_entries("a"))
def test_rename_changes_only_the_name_key(messy):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write(root, "a.md", messy.text)
        store_for(root).rename("a", "b")
        after = raw(root / "b.md")
        assert lines_outside(after, {"name"}) == lines_outside(messy.text, {"name"})
        assert store_for(root).get("b").name == "b"


@_SETTINGS
@given(messy=messy_entries("a"), description=st.sampled_from(["new words", "it's: new"]),
       body=st.sampled_from(["", "new body", "two\nlines\n"]))
def test_save_over_an_entry_changes_only_description_and_body(messy, description, body):
    with tempfile.TemporaryDirectory() as tmp:
        path = write(Path(tmp), "a.md", messy.text)
        store_for(Path(tmp)).save("a", description, body)
        after = raw(path)
        head_before, _ = split_body(messy.text)
        head_after, body_after = split_body(after)
        assert lines_outside(head_after, {"description"}) == lines_outside(head_before, {"description"})
        new_body = body.strip("\n")
        if new_body == parse_document(messy.text).entry.body:
            assert body_after == messy.body  # an unchanged body is not touched
        else:  # gptme's layout, in the file's line breaks
            assert body_after == ("\n" + new_body + "\n" if new_body else "\n").replace("\n", messy.newline)
        entry = store_for(Path(tmp)).get("a")
        assert (entry.description, entry.body) == (description, body.strip("\n"))


def test_rename_keeps_a_literal_block_description_and_the_comments_around_it(tmp_path):
    """The serialization would fold the block into one line; the edit keeps the value as written."""
    root = tmp_path / "memory"
    root.mkdir()
    (root / "alpha.md").write_text(
        "---\nname: alpha\ndescription: |\n  First part of it\n  second part of it\n"
        "metadata:\n  type: general\n# owner: team alpha\nx-reviewer: keep-me  # kept\n---\n\nbody\n")
    MemoryStore([MemoryRoot("explicit", root)]).rename("alpha", "omega")
    assert (root / "omega.md").read_text() == (
        "---\nname: omega\ndescription: |\n  First part of it\n  second part of it\n"
        "metadata:\n  type: general\n# owner: team alpha\nx-reviewer: keep-me  # kept\n---\n\nbody\n")


def test_a_rewrite_that_cannot_be_an_edit_refuses_rather_than_drop_a_comment(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    text = "---\nname: a\ndescription: d\nstatus: historical\n# why: kept for the audit\nstatus: historical\n---\n"
    (root / "a.md").write_text(text)
    with pytest.raises(ValueError, match="comment"):
        MemoryStore([MemoryRoot("explicit", root)]).set_status("a", "living")
    assert (root / "a.md").read_text() == text
