"""``MEMORY.md`` on save when the editor has not reloaded what the server itself wrote there.

The server writes an open ``MEMORY.md`` without unsaved changes on disk and
sends no edit: the editor reloads it (VS Code at once, Neovim only on
``:checktime``). Until it does, the user may type into the old text. The
next save must still reach that buffer -- memls's own lines merged in, the
user's kept -- or, where the user changed a line memls changed too, reach
the file and tell the user; never nothing.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import client_capabilities

from .conftest import (
    Session,
    answer_as_editor,
    apply_text_edits,
    barrier,
    entry,
    initialize_in,
    write_root,
)
from .test_index_edit_while_typing import EditorBuffer
from .test_index_on_save import rendered, save

CURATED = ("# Memory\n\nHand-written notes: ask Sam before touching the deploy entries.\n\n"
           "- [a](a.md) \u2014 v0\n- [b](b.md) \u2014 second\n")
TYPED = "- typed into the old text, unsaved\n"


def index_on_disk(session: Session) -> str:
    return (session.root / "MEMORY.md").read_text(encoding="utf-8")


async def save_entry(session: Session, name: str, description: str, version: int, probe: str) -> None:
    text = entry(name, description)
    session.change(f"{name}.md", text, version)
    save(session, f"{name}.md", text)
    await barrier(session, probe)


async def until(condition, what: str) -> None:
    for _ in range(200):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(what)


async def start_with_index(start, tmp_path: Path, kind: str) -> Session:
    files = {"a.md": entry("a", "v0"), "b.md": entry("b", "second")}
    if kind == "curated":
        return await start(files, index=CURATED)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    for name, text in files.items():
        (scratch / name).write_text(text, encoding="utf-8")
    return await start(files, index=rendered(scratch))


def warnings(session: Session) -> list[str]:
    return [m.message for m in session.client.messages if "changed on disk" in m.message]


@pytest.mark.parametrize("kind", ["curated", "generated"])
async def test_saves_after_typing_into_an_index_buffer_not_reloaded_since_memls_wrote_it_edit_that_buffer(
        start, tmp_path, kind):
    session = await start_with_index(start, tmp_path, kind)
    before = index_on_disk(session)
    buffer = EditorBuffer(session, before)  # a Neovim buffer: not reloaded until :checktime
    answer_as_editor(session, types.WORKSPACE_APPLY_EDIT, lambda params: buffer.apply(params))
    session.open("a.md")
    await save_entry(session, "a", "v1", 2, "zz-probe-1.md")
    assert "- [a](a.md) \u2014 v1\n" in index_on_disk(session)  # written on disk, no edit: the buffer was clean
    assert buffer.text == before
    buffer._changed(buffer.text + TYPED)  # the user types into the text the editor still shows
    await barrier(session, "zz-probe-typed.md")
    for version in (2, 3):
        await save_entry(session, "a", f"v{version}", version + 1, f"zz-probe-{version}.md")
        line = f"\u2014 v{version}\n"
        await until(lambda line=line: line in buffer.text, f"the buffer never got v{version}: {buffer.text}")
        lines = buffer.text.splitlines(keepends=True)
        assert [x for x in lines if "](a.md)" in x] == [f"- [a](a.md) \u2014 v{version}\n"], buffer.text
        assert TYPED in lines and "- [b](b.md) \u2014 second\n" in lines
        if kind == "curated":
            assert "Hand-written notes: ask Sam before touching the deploy entries.\n" in lines
    assert "- [a](a.md) \u2014 v1\n" in index_on_disk(session)  # the buffer's save writes the rest
    assert warnings(session) == []
    save(session, "MEMORY.md", buffer.text)  # :w
    await barrier(session, "zz-probe-saved.md")
    on_disk = index_on_disk(session)
    assert "- [a](a.md) \u2014 v3\n" in on_disk and TYPED in on_disk and "v1" not in on_disk


async def test_lines_memls_wrote_for_another_entry_under_the_old_text_come_into_the_buffer_too(start):
    """Saved as it was, the old text would take back the line memls wrote for ``b``."""
    session = await start({"a.md": entry("a", "v0"), "b.md": entry("b", "second")}, index=CURATED)
    buffer = EditorBuffer(session, CURATED)
    answer_as_editor(session, types.WORKSPACE_APPLY_EDIT, lambda params: buffer.apply(params))
    session.open("a.md")
    session.open("b.md")
    await save_entry(session, "b", "second, revised", 2, "zz-probe-1.md")
    buffer._changed(buffer.text + TYPED)
    await save_entry(session, "a", "v1", 2, "zz-probe-2.md")
    await until(lambda: "\u2014 v1\n" in buffer.text, f"the buffer never got a's line: {buffer.text}")
    lines = buffer.text.splitlines(keepends=True)
    assert "- [b](b.md) \u2014 second, revised\n" in lines and "- [b](b.md) \u2014 second\n" not in lines
    assert TYPED in lines and "Hand-written notes: ask Sam before touching the deploy entries.\n" in lines
    assert buffer.text == CURATED.replace("\u2014 v0", "\u2014 v1").replace("second", "second, revised") + TYPED


async def test_a_line_both_the_user_and_memls_changed_is_left_to_the_user_the_file_written_and_the_user_told(start):
    session = await start({"a.md": entry("a", "v0"), "b.md": entry("b", "second")}, index=CURATED)
    buffer = EditorBuffer(session, CURATED)
    answer_as_editor(session, types.WORKSPACE_APPLY_EDIT, lambda params: buffer.apply(params))
    session.open("a.md")
    await save_entry(session, "a", "v1", 2, "zz-probe-1.md")
    mine = CURATED.replace("\u2014 v0", "\u2014 my own words for a") + TYPED
    buffer._changed(mine)
    await save_entry(session, "a", "v2", 3, "zz-probe-2.md")
    await until(lambda: warnings(session), "the user was never told")
    assert buffer.text == mine  # the user's line stays the user's
    on_disk = index_on_disk(session)
    assert "- [a](a.md) \u2014 v2\n" in on_disk and "Hand-written notes" in on_disk and "second" in on_disk


AGENT_LINE = "- [agentnote](agentnote.md) \u2014 written by the agent\n"


async def test_the_changed_on_disk_warning_comes_once_per_conflict(start):
    session = await start({"a.md": entry("a", "v0")}, index=CURATED)
    session.open("MEMORY.md")
    typed = CURATED + TYPED
    session.change("MEMORY.md", typed, 2)
    session.open("a.md")
    await barrier(session)

    async def agent_rewrites_the_index(n: int) -> None:
        (session.root / "agentnote.md").write_text(entry("agentnote", "written by the agent"), encoding="utf-8")
        (session.root / "MEMORY.md").write_text(index_on_disk(session) + AGENT_LINE.replace("agent\n", f"agent {n}\n"),
                                                 encoding="utf-8")

    await agent_rewrites_the_index(1)
    for version in (1, 2, 3):
        await save_entry(session, "a", f"v{version}", version + 1, f"zz-probe-{version}.md")
        assert f"- [a](a.md) \u2014 v{version}\n" in index_on_disk(session)
        await until(lambda: warnings(session), "the user was never told")
    assert len(warnings(session)) == 1, warnings(session)
    # Resolved: the user reloads, merges and saves the index; then the conflict arises anew.
    merged = index_on_disk(session) + TYPED
    session.change("MEMORY.md", merged, 3)
    save(session, "MEMORY.md", merged)
    session.change("MEMORY.md", merged + "- typed again\n", 4)
    await barrier(session, "zz-probe-resolved.md")
    await agent_rewrites_the_index(2)
    for version in (4, 5):
        await save_entry(session, "a", f"v{version}", version + 1, f"zz-probe-{version}.md")
        await until(lambda: len(warnings(session)) >= 2, "the new conflict was never told")
    assert len(warnings(session)) == 2, warnings(session)
    assert "- typed again\n" not in index_on_disk(session)  # the buffer is still the user's alone


async def told_of_an_agents_write(session: Session, *also_open: str) -> EditorBuffer:
    """``MEMORY.md`` typed into, then written by an agent: the next save writes the file and tells the user."""
    buffer = EditorBuffer(session, CURATED)
    answer_as_editor(session, types.WORKSPACE_APPLY_EDIT, lambda params: buffer.apply(params))
    buffer._changed(CURATED + TYPED)
    for name in ("a.md", *also_open):
        session.open(name)
    await barrier(session)
    (session.root / "agentnote.md").write_text(entry("agentnote", "written by the agent"), encoding="utf-8")
    (session.root / "MEMORY.md").write_text(CURATED + AGENT_LINE, encoding="utf-8")
    await save_entry(session, "a", "v1", 2, "zz-probe-1.md")
    await until(lambda: warnings(session), "the user was never told")
    assert buffer.text == CURATED + TYPED
    return buffer


async def test_an_index_buffer_reloaded_after_the_warning_gets_edits_again(start):
    session = await start({"a.md": entry("a", "v0")}, index=CURATED)
    buffer = await told_of_an_agents_write(session)
    buffer._changed(index_on_disk(session))  # :e! -- the user takes the file, then types again
    buffer._changed(buffer.text + TYPED)
    await save_entry(session, "a", "v2", 3, "zz-probe-2.md")
    await until(lambda: "\u2014 v2\n" in buffer.text, f"the reloaded buffer never got the line: {buffer.text}")
    assert AGENT_LINE in buffer.text and TYPED in buffer.text
    assert "\u2014 v1\n" in index_on_disk(session)  # the buffer is the user's to save
    assert len(warnings(session)) == 1, warnings(session)


async def test_a_reload_followed_at_once_by_typing_still_ends_the_conflict(busy_client, tmp_path):
    """The reload and the first keystroke after it reach a busy server together: both count, in order.

    Taken as one change, the typed text would be the only one the server
    saw: the buffer never took the file, the conflict never ended, and the
    next save would write the disk and leave the buffer without its line.
    """
    write_root(tmp_path, {"a.md": entry("a", "v0"), "busy.md": entry("busy", "x")}).joinpath(
        "MEMORY.md").write_text(CURATED, encoding="utf-8")
    session = await initialize_in(busy_client, tmp_path, client_capabilities("neovim"))
    buffer = await told_of_an_agents_write(session, "busy.md")
    session.change("busy.md", entry("busy", "y"), 2)  # the engine is busy for a while
    buffer._changed(index_on_disk(session))  # :e! ...
    buffer._changed(buffer.text + TYPED)  # ... and a keystroke, before the engine is free
    await save_entry(session, "a", "v2", 3, "zz-probe-2.md")
    await until(lambda: "\u2014 v2\n" in buffer.text, f"the reloaded buffer never got the line: {buffer.text}")
    assert AGENT_LINE in buffer.text and TYPED in buffer.text
    assert len(warnings(session)) == 1, warnings(session)


async def test_a_fix_of_an_index_buffer_the_editor_has_not_reloaded_yet_is_refused_not_placed_on_its_old_lines(start):
    # Until the editor reloads the MEMORY.md memls wrote under its clean buffer,
    # the buffer's lines are not the model's: a fix planned on the file, stamped
    # with the buffer's version, removed a living entry's line from the buffer.
    curated = "# Memory\n\n- [a](a.md) \u2014 v0\n- [b](b.md) \u2014 second\n- [c](c.md) \u2014 third\n"
    files = {"a.md": entry("a", "v0"), "b.md": entry("b", "second", extra="status: historical\n"),
             "c.md": entry("c", "third")}
    session = await start(files, index=curated)
    session.open("MEMORY.md")
    session.open("a.md")
    await session.diagnostics("MEMORY.md", lambda d: "index-lists-non-living" in session.codes(d))
    retired = entry("a", "v0", extra="status: historical\n")
    session.change("a.md", retired, 2)
    save(session, "a.md", retired)
    await barrier(session)
    assert "](a.md)" not in index_on_disk(session)  # written on disk, under the clean buffer

    def fix_all(line: int):
        return session.client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=session.uri("MEMORY.md")),
            range=types.Range(start=types.Position(line=line, character=0), end=types.Position(line=line, character=0)),
            context=types.CodeActionContext(diagnostics=[], only=["source.fixAll"])))

    lazy = session.profile in ("visual-studio-code", "neovim")  # they resolve an action's edit when chosen
    line = curated.splitlines().index("- [b](b.md) \u2014 second")  # b's line in the text the editor shows
    if lazy:
        [action] = await fix_all(line)
        with pytest.raises(Exception, match="has not reloaded it yet"):
            await session.client.code_action_resolve_async(action)
    else:
        with pytest.raises(Exception, match="has not reloaded it yet"):
            await fix_all(line)

    session.change("MEMORY.md", index_on_disk(session), 2)  # the editor's reload
    await barrier(session, "zz-probe-reloaded.md")
    [action] = await fix_all(2)
    edit = (await session.client.code_action_resolve_async(action)).edit if lazy else action.edit
    if edit.document_changes:
        [change] = edit.document_changes
        assert change.text_document.version == 2
        edits = change.edits
    else:
        [edits] = edit.changes.values()
    assert apply_text_edits(index_on_disk(session), edits) == "# Memory\n\n- [c](c.md) \u2014 third\n"
