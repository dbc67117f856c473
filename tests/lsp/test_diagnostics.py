"""Live diagnostics: appear and disappear as the text changes, in every client profile."""

from __future__ import annotations

from conftest import entry


async def test_dangling_link_is_reported_then_cleared_when_fixed(start):
    session = await start({
        "old.md": entry("old", extra="status: superseded\nsuperseded_by: nwe\n"),
        "new.md": entry("new"),
    })
    session.open("old.md")
    diags = await session.diagnostics("old.md", lambda d: "dangling-superseded-by" in session.codes(d))
    problem = next(d for d in diags if d.code == "dangling-superseded-by")
    assert (problem.range.start.line, problem.range.start.character) == (6, 15)
    assert problem.code_description is not None
    session.change("old.md", entry("old", extra="status: superseded\nsuperseded_by: new\n"), 2)
    await session.diagnostics("old.md", lambda d: "dangling-superseded-by" not in session.codes(d))
