"""``textDocument/formatting``: the engine's canonical text, or nothing, in every client profile."""

from __future__ import annotations

import pytest
from lsprotocol import types

from memls.store.index import render_index
from memls.store.parse import parse_document

from .conftest import apply_text_edits, entry, scan_done

SHUFFLED = (
    "---\nzz_custom: keep me\nstatus: living\ndescription: 'hello'\nname: foo\n"
    "metadata:\n  type: project\n---\n\nBody.\n"
)


async def format_document(session, name: str) -> list[types.TextEdit]:
    edits = await session.client.text_document_formatting_async(types.DocumentFormattingParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri(name)),
        options=types.FormattingOptions(tab_size=2, insert_spaces=True)))
    return list(edits or [])


@pytest.mark.timeout(30)
async def test_an_index_of_pointer_lines_with_its_own_hooks_is_curated_and_left_alone(start):
    # Not memls's rendering, so curated (issue 11, defect 4): formatting never regenerates it.
    session = await start({"a.md": entry("a"), "b.md": entry("b", type_="user")},
                          index="# Persistent Memory\n\n- [a](a.md) \u2014 my own hook\n")
    await scan_done(session)
    session.open("MEMORY.md")
    assert await format_document(session, "MEMORY.md") == []


@pytest.mark.timeout(30)
async def test_a_drifted_managed_index_formats_to_its_policy_view(start):
    session = await start({"a.md": entry("a"), "b.md": entry("b", type_="user"),
                           ".memory-index.json": '{"version": 1, "budget": 1000, "selected": ["a.md"]}'},
                          index="# Persistent Memory\n\n- [a](a.md) \u2014 stale\n")
    await scan_done(session)
    session.open("MEMORY.md")
    edits = await format_document(session, "MEMORY.md")
    assert len(edits) == 1
    a = parse_document((session.root / "a.md").read_text(), path=session.root / "a.md").entry
    rendered = apply_text_edits((session.root / "MEMORY.md").read_text(), edits)
    assert rendered == render_index([a])


@pytest.mark.timeout(30)
async def test_hand_curated_index_is_left_alone(start):
    curated = "# Persistent Memory\n\nMy own notes about this project.\n\n- [a](a.md) \u2014 d\n"
    session = await start({"a.md": entry("a")}, index=curated)
    await scan_done(session)
    session.open("MEMORY.md")
    assert await format_document(session, "MEMORY.md") == []


@pytest.mark.timeout(30)
async def test_entry_with_shuffled_keys_formats_to_canonical_text_keeping_unknown_keys_and_explicit_status(start):
    session = await start({"foo.md": SHUFFLED})
    await scan_done(session)
    session.open("foo.md")
    edits = await format_document(session, "foo.md")
    assert len(edits) == 1
    assert apply_text_edits(SHUFFLED, edits) == (
        '---\nname: foo\ndescription: "hello"\nmetadata:\n  type: project\nstatus: living\n'
        "zz_custom: keep me\n---\n\nBody.\n"
    )


@pytest.mark.timeout(30)
async def test_canonical_entry_gets_no_edits(start):
    session = await start({"a.md": entry("a", body="Body.\n")})
    await scan_done(session)
    session.open("a.md")
    assert await format_document(session, "a.md") == []


@pytest.mark.timeout(30)
async def test_broken_entry_gets_no_edits(start):
    broken = "---\nname: foo\ndescription: [unclosed\nstatus: living\n---\n\nBody.\n"
    session = await start({"foo.md": broken})
    await scan_done(session)
    session.open("foo.md")
    assert await format_document(session, "foo.md") == []


@pytest.mark.timeout(30)
async def test_entry_failing_the_strict_parse_gets_no_edits(start):
    odd = "---\nstatus: bogus\nname: foo\ndescription: d\n---\n"
    session = await start({"foo.md": odd})
    await scan_done(session)
    session.open("foo.md")
    assert await format_document(session, "foo.md") == []


COMMENTED_CRLF = (
    "---\r\n# owner: alice\r\n\r\nstatus: living\r\nname: foo\r\ndescription: x  # short\r\n"
    "supersedes: [a, b]  # b was wrong\r\n---\r\n\r\nBody line\r\nsecond\r\n"
)


@pytest.mark.timeout(30)
async def test_format_on_save_keeps_comments_explicit_status_and_crlf_and_adds_no_key(start):
    session = await start({})
    (session.root / "foo.md").write_bytes(COMMENTED_CRLF.encode())
    await scan_done(session)
    session.open("foo.md", COMMENTED_CRLF)
    edits = await format_document(session, "foo.md")
    formatted = apply_text_edits(COMMENTED_CRLF, edits)
    assert formatted == (
        "---\r\n# owner: alice\r\nname: foo\r\ndescription: x  # short\r\nstatus: living\r\n"
        "supersedes: [a, b]  # b was wrong\r\n---\r\n\r\nBody line\r\nsecond\r\n"
    )
    session.change("foo.md", formatted, 2)
    assert await format_document(session, "foo.md") == []
