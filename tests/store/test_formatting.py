"""Canonical text of memory documents (store.formatting), checked against gptme and the engine."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from memls.store.entry import KNOWN_KEYS
from memls.store.formatting import formatted_entry, formatted_index, render_root_view
from memls.store.model import Workspace
from memls.store.roots import MemoryRoot

from .messy_entries import messy_entries, split_body
from .store_test_helpers import entry_file, store_for, write_policy


def workspace(root: Path) -> Workspace:
    return Workspace.load([MemoryRoot("explicit", root)])


def test_render_root_view_equals_what_write_index_writes_for_a_legacy_root(tmp_path):
    entry_file(tmp_path, "a.md")
    entry_file(tmp_path, "b.md", type_="user")
    entry_file(tmp_path, "old.md", extra="status: historical\n")
    written = store_for(tmp_path).write_index().read_text(encoding="utf-8")
    assert render_root_view(workspace(tmp_path).roots[0]) == written


def test_render_root_view_equals_what_write_index_writes_for_a_managed_root(tmp_path):
    entry_file(tmp_path, "a.md")
    entry_file(tmp_path, "b.md")
    write_policy(tmp_path, ["b.md"])
    written = store_for(tmp_path).write_index().read_text(encoding="utf-8")
    assert render_root_view(workspace(tmp_path).roots[0]) == written
    assert "a.md" not in written


def test_formatted_index_leaves_a_hand_curated_index_alone(tmp_path):
    entry_file(tmp_path, "a.md")
    state = workspace(tmp_path).roots[0]
    assert formatted_index(state, "# Persistent Memory\n\nmy prose\n") is None


def test_formatted_index_keeps_the_budget_of_a_trimmed_index(tmp_path):
    for i in range(30):
        entry_file(tmp_path, f"e{i:02}.md", description="x" * 40)
    store = store_for(tmp_path)
    trimmed = store.write_index(budget=400).read_text(encoding="utf-8")
    assert "omitted (budget 400 bytes)" in trimmed
    state = workspace(tmp_path).roots[0]
    assert formatted_index(state, trimmed) == trimmed


def test_formatted_entry_refuses_text_failing_the_strict_parse():
    assert formatted_entry("---\nname: a\ndescription: d\nstatus: bogus\n---\n") is None
    assert formatted_entry("---\nname: [a\n---\n") is None
    assert formatted_entry("no frontmatter\n") is None


def test_formatted_entry_matches_gptme_serialization_when_every_key_gptme_writes_is_there():
    from gptme.memory import MemoryEntry as GptmeEntry

    text = (
        "---\nstatus: superseded\nsuperseded_by: b\nmetadata:\n    type: general\n"
        "description: 'say: hi'\nname: a\n---\n\nBody\n"
    )
    gptme = GptmeEntry(name="a", description="say: hi", status="superseded", superseded_by="b", body="Body")
    assert formatted_entry(text) == gptme.to_markdown()


_names = st.from_regex(r"[a-z][a-z0-9-]{0,12}", fullmatch=True).filter(lambda n: not n.startswith("memory"))
_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=30)


@settings(max_examples=150, deadline=None)
@given(name=_names, description=_text, extra=_text, body=_text)
def test_formatting_is_idempotent_and_keeps_the_entry(name, description, extra, body):
    from memls.store.entry import MemoryEntry
    from memls.store.parse import parse_document

    text = MemoryEntry(name=name, description=description, body=body, extra={"zz": extra}).to_markdown()
    once = formatted_entry(text)
    if once is None:
        return  # the engine itself would not round-trip it; formatting must then stay away
    assert formatted_entry(once) == once
    assert parse_document(once).entry == parse_document(text).entry


# -- formatting is whitespace and order only (issue 11, defect 6) ------------------------------

COMMENTED = (
    "---\n"
    "# owner: alice\n"
    "\n"
    "status: living\n"
    "name: foo\n"
    "description: x  # short\n"
    "supersedes: [a, b]  # b was wrong\n"
    "---\r\n"
    "Body line\r\n"
    "second\r\n"
)


def test_formatting_keeps_comments_explicit_status_and_crlf_body_and_adds_no_key():
    assert formatted_entry(COMMENTED) == (
        "---\n"
        "# owner: alice\n"
        "name: foo\n"
        "description: x  # short\n"
        "status: living\n"
        "supersedes: [a, b]  # b was wrong\n"
        "---\r\n"
        "Body line\r\n"
        "second\r\n"
    )


def test_formatting_a_formatted_document_changes_nothing():
    once = formatted_entry(COMMENTED)
    assert formatted_entry(once) == once


def test_comment_lines_move_with_the_key_below_them():
    text = "---\ndescription: d\n# why this name\nname: foo\nzz: 1\n# the end\n---\n"
    assert formatted_entry(text) == (
        '---\n# why this name\nname: foo\ndescription: "d"\nzz: 1\n# the end\n---\n'
    )


def test_a_comment_right_above_the_first_key_moves_with_it():
    """Only a blank line makes the comments above the first key a header that stays on top."""
    text = "---\n# why: the on-call rotation sets it\nstatus: living\nname: x\ndescription: d\n---\n"
    assert formatted_entry(text) == (
        '---\nname: x\ndescription: "d"\n# why: the on-call rotation sets it\nstatus: living\n---\n'
    )
    headed = "---\n# about this file\n\n# why\nstatus: living\nname: x\ndescription: d\n---\n"
    assert formatted_entry(headed) == (
        '---\n# about this file\nname: x\ndescription: "d"\n# why\nstatus: living\n---\n'
    )


def test_a_crlf_frontmatter_keeps_its_line_endings():
    text = "---\r\ndescription: 'd'\r\nname: foo\r\n---\r\n\r\nBody\r\n"
    assert formatted_entry(text) == '---\r\nname: foo\r\ndescription: "d"\r\n---\r\n\r\nBody\r\n'


def test_the_body_keeps_its_leading_and_trailing_blank_lines():
    text = "---\ndescription: 'd'\nname: foo\n---\nBody with no blank line before it\n\n\n"
    formatted = formatted_entry(text)
    assert formatted.endswith("---\nBody with no blank line before it\n\n\n")


def test_a_value_gptme_would_spell_differently_keeps_its_own_text():
    text = "---\nname: 'yes'\ndescription: |\n  two\n  lines\n---\n"
    # `name: yes` would load as true, and gptme's double quotes fold the block's line break.
    assert formatted_entry(text) == text


def test_metadata_gets_type_first_but_no_type_it_did_not_have():
    text = "---\nname: foo\nmetadata:\n    origin: chat\n    type: user\n---\n"
    assert formatted_entry(text) == "---\nname: foo\nmetadata:\n  type: user\n  origin: chat\n---\n"
    bare = "---\nname: foo\nmetadata:\n    origin: chat\n---\n"
    assert formatted_entry(bare) == "---\nname: foo\nmetadata:\n  origin: chat\n---\n"


def test_a_byte_order_mark_stays():
    text = "\ufeff---\ndescription: 'd'\nname: foo\n---\n"
    assert formatted_entry(text) == '\ufeff---\nname: foo\ndescription: "d"\n---\n'


def test_a_frontmatter_with_a_duplicate_key_is_left_alone():
    assert formatted_entry("---\nname: foo\ndescription: a\ndescription: b\n---\n") is None


@settings(max_examples=200, deadline=None)
@given(messy=messy_entries("some-entry"))
def test_formatting_keeps_every_comment_value_key_and_body_byte_and_is_idempotent(messy):
    from memls.store.parse import parse_document

    formatted = formatted_entry(messy.text)
    assert formatted is not None, messy.text
    before, after = parse_document(messy.text), parse_document(formatted)
    assert after.frontmatter.data == before.frontmatter.data
    assert list(after.frontmatter.keys) == [k for k in KNOWN_KEYS if k in messy.keys] + [
        k for k in messy.keys if k not in KNOWN_KEYS
    ]
    assert after.entry == before.entry
    head, body = split_body(formatted)
    assert body == messy.body
    for comment in messy.comments:
        assert head.count(comment) >= messy.comments.count(comment), (comment, formatted)
    assert formatted_entry(formatted) == formatted
