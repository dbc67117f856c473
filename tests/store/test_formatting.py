"""Canonical text of memory documents (store.formatting), checked against gptme and the engine."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from memls.store.formatting import formatted_entry, formatted_index, render_root_view
from memls.store.model import Workspace
from memls.store.roots import MemoryRoot

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
