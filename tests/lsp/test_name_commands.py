"""Server commands that take a NAME act on the entry whose ``name`` equals it.

``memls.supersede`` finds its files on disk by the engine's one rule
(:func:`memls.store.lookup.resolve_name`), so the files it checks for
unsaved changes are the files the store then writes.
"""

from __future__ import annotations

import pytest
from pygls.exceptions import JsonRpcException

from .conftest import entry, run_command, wait_until_scanned


async def test_supersede_acts_on_the_entries_named_not_the_files_named(start):
    session = await start({"bar.md": entry("foo"), "foo.md": entry("bar")})
    await wait_until_scanned(session.client)
    result = await run_command(session.client, "memls.supersede", "bar", "foo")
    assert result == {"old": session.uri("foo.md"), "new": session.uri("bar.md")}
    assert "superseded_by: foo" in (session.root / "foo.md").read_text(encoding="utf-8")


async def test_supersede_by_file_stem_refuses_while_that_file_has_unsaved_edits(start):
    session = await start({"notes.md": entry("Team Notes"), "next.md": entry("next")})
    await wait_until_scanned(session.client)
    before = (session.root / "notes.md").read_bytes()
    session.open("notes.md", entry("Team Notes", description="edited, not saved"))
    with pytest.raises(JsonRpcException, match="save notes.md first"):
        await run_command(session.client, "memls.supersede", "notes", "next")
    assert (session.root / "notes.md").read_bytes() == before


async def test_supersede_refuses_a_name_two_entries_match_by_stem_or_slug(start):
    files = {"api-keys.md": entry("Keys"), "b.md": entry("api-keys"), "vault.md": entry("vault")}
    session = await start(files)
    await wait_until_scanned(session.client)
    with pytest.raises(JsonRpcException) as caught:
        await run_command(session.client, "memls.supersede", "API KEYS", "vault")
    message = str(caught.value)
    assert "ambiguous" in message and "api-keys.md" in message and "b.md" in message
    assert {n: (session.root / n).read_text(encoding="utf-8") for n in files} == files


async def test_new_memory_refuses_a_name_an_entry_already_has_naming_its_file(start):
    session = await start({"cafe-notes.md": entry("café-notes")})
    await wait_until_scanned(session.client)
    with pytest.raises(JsonRpcException, match="entry named 'café-notes' already exists: cafe-notes.md"):
        await run_command(session.client, "memls.newMemory", "café-notes", "d", "project")
    assert sorted(p.name for p in session.root.glob("*.md")) == ["cafe-notes.md"]
