"""A lone CR ends a line, as the LSP says: the store and the server count the same lines.

Old Mac files (and a stray ``\\r`` pasted into a buffer) use ``\\r`` alone as a
line break. The LSP counts ``\\r\\n``, ``\\r`` and ``\\n`` as line ends, so the
editor shows such a file on several lines; a diagnostic must sit on the line
the editor shows, whether the text came from disk or from the buffer, for an
entry and for ``MEMORY.md`` alike.
"""

from __future__ import annotations

import re

import pytest
from lsprotocol import types

from .conftest import entry

pytestmark = pytest.mark.timeout(60)


def spec_lines(text: str) -> list[str]:
    return re.split(r"\r\n|\r|\n", text)


def covered(text: str, rng: types.Range) -> str:
    """The text a single-line range covers (the test texts are ASCII)."""
    assert rng.start.line == rng.end.line
    return spec_lines(text)[rng.start.line][rng.start.character:rng.end.character]


def one(diags: list[types.Diagnostic], code: str) -> types.Diagnostic:
    found = [d for d in diags if d.code == code]
    assert len(found) == 1, diags
    return found[0]


@pytest.mark.parametrize("opened", [True, False], ids=["buffer", "disk"])
async def test_a_lone_cr_ends_a_line_for_an_entry_diagnostic(start, opened):
    text = entry("a", extra="colour: blue\n").replace("\n", "\r")
    session = await start({"a.md": text})
    if opened:
        session.open("a.md", text)
    found = one(await session.diagnostics("a.md", lambda d: "unknown-key" in session.codes(d)), "unknown-key")
    assert found.range.start.line == 5
    assert covered(text, found.range) in ("colour", "colour: blue")


@pytest.mark.parametrize("opened", [True, False], ids=["buffer", "disk"])
async def test_a_lone_cr_ends_a_line_for_a_memory_md_diagnostic(start, opened):
    index = "# Memory\r\r- [A](a.md) — d\r- [Gone](gone.md) — was here\r"
    session = await start({"a.md": entry("a")}, index=index)
    if opened:
        session.open("MEMORY.md", index)
    # Until the first scan has loaded a.md, its line is broken too: wait for gone.md's alone.
    diags = await session.diagnostics("MEMORY.md", lambda d: [x.code for x in d].count("index-broken-link") == 1)
    found = one(diags, "index-broken-link")
    assert found.range.start.line == 3
    assert "gone.md" in covered(index, found.range)
