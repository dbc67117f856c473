"""The open ``MEMORY.md`` keeps every line the user types while the server edits in the saved entry's line.

An entry is saved while ``MEMORY.md`` is open with unsaved changes: the
server sends the entry's new line as a ``workspace/applyEdit``. The user
types on meanwhile -- between the save and the moment the server builds
the edit, and (with versioned edits) between the moment the edit is sent
and the moment the editor takes it. The profiles cover both kinds of
client: VS Code and Emacs take ``documentChanges`` (versioned edits, a
stale one declined and sent anew), Neovim does not (plain ``changes``).
"""

from __future__ import annotations

import asyncio
import re

import pytest
from lsprotocol import types

from .conftest import Session, answer_as_editor, apply_text_edits, barrier, entry

INDEX = ("# Memory\n\nHand-written notes: ask Sam before touching the deploy entries.\n\n"
         "- [a](a.md) \u2014 round 0\n- [b](b.md) \u2014 second\n")
# Where the user types a line, relative to the saved entry's line.
WHERE = ("top", "just above", "just below", "end")


ENTRY_LINE = re.compile(r"^- \[a\]\(a\.md\).*$", re.MULTILINE)


def typed_into(text: str, where: str, line: str) -> str:
    """``text`` with ``line`` typed at ``where`` (the saved entry's line is found by its link)."""
    lines = text.splitlines(keepends=True)
    entry_line = next(i for i, x in enumerate(lines) if "](a.md)" in x)
    at = {"top": 0, "just above": entry_line, "just below": entry_line + 1, "end": len(lines)}[where]
    lines.insert(at, line + "\n")
    return "".join(lines)


def without_entry_line(text: str) -> str:
    return ENTRY_LINE.sub("- [a](a.md) ...", text)


class EditorBuffer:
    """``MEMORY.md`` as the editor holds it: typed into, and edited by the server as an editor does.

    ``users`` is the text with only the user's typing applied (the entry's
    line blanked out): the buffer must always be it plus the entry's line.
    """

    def __init__(self, session: Session, text: str):
        self.session, self.text, self.version = session, text, 1
        self.users = without_entry_line(text)
        self.typed: list[str] = []
        self.in_transit: str | None = None  # a line the user types as the server's edit travels
        self.declined = 0
        # Whether the change an applied edit made is told only after the answer to it.
        self.reports_late = False
        session.open("MEMORY.md", text)

    def type_line(self, where: str, line: str) -> None:
        self.users = typed_into(self.users, where, line)
        self._changed(typed_into(self.text, where, line))
        self.typed.append(line)

    def _changed(self, text: str) -> None:
        self.text, self.version = text, self.version + 1
        self.session.change("MEMORY.md", text, self.version)

    def apply(self, params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        if self.in_transit is not None:  # the keystroke reaches the buffer before the edit does
            self.type_line(*self.in_transit.split(":", 1))
            self.in_transit = None
        edit = params.edit
        if edit.document_changes:
            [change] = edit.document_changes
            assert isinstance(change, types.TextDocumentEdit)
            if change.text_document.version != self.version:
                self.declined += 1
                return types.ApplyWorkspaceEditResult(applied=False, failure_reason="the document changed")
            edits = list(change.edits)
        else:
            assert edit.changes is not None
            edits = list(edit.changes[self.session.uri("MEMORY.md")])
        encoding = self.session.initialize_result.capabilities.position_encoding  # type: ignore[attr-defined]
        text = apply_text_edits(self.text, edits, encoding or types.PositionEncodingKind.Utf16)
        if self.reports_late:  # as Neovim: the change is told on its debounce, after the answer
            self.text, self.version = text, self.version + 1
            asyncio.get_running_loop().call_later(0.2, self.session.change, "MEMORY.md", text, self.version)
        else:
            self._changed(text)
        return types.ApplyWorkspaceEditResult(applied=True)


async def test_lines_typed_into_the_open_index_while_the_server_edits_it_all_survive(start):
    session = await start({"a.md": entry("a", "round 0"), "b.md": entry("b", "second")}, index=INDEX)
    versioned = session.profile != "neovim"
    buffer = EditorBuffer(session, INDEX)
    answer_as_editor(session, types.WORKSPACE_APPLY_EDIT, lambda params: buffer.apply(params))
    buffer.type_line("top", "typed before any save")  # the buffer has unsaved changes
    session.open("a.md")
    for number, where in enumerate(WHERE, start=1):
        text = entry("a", f"round {number}")
        session.change("a.md", text, number + 1)
        # A plain (unversioned) edit names line numbers only: a line typed above the entry's
        # line while the edit travels to the editor shifts it, and nothing in the protocol can
        # tell. For such a client the lines above are typed just before the save.
        typed_after_save = versioned or where not in ("top", "just above")
        if not typed_after_save:
            buffer.type_line(where, f"typed before save {number}, {where}")
        (session.root / "a.md").write_text(text, encoding="utf-8")
        session.client.text_document_did_save(types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=session.uri("a.md")), text=text))
        if typed_after_save:  # right after the save, before the server has built its edit
            buffer.type_line(where, f"typed after save {number}, {where}")
        if versioned:  # and one more while the edit is on its way: that edit is declined and sent anew
            buffer.in_transit = f"{WHERE[-number]}:typed in transit {number}, {WHERE[-number]}"
        for _ in range(200):
            if f"round {number}\n" in buffer.text:
                break
            await asyncio.sleep(0.05)
        await barrier(session, f"zz-probe-{number}.md")
        lines = buffer.text.splitlines()
        assert [x for x in lines if "](a.md)" in x] == [f"- [a](a.md) \u2014 round {number}"], buffer.text
        assert all(line in lines for line in buffer.typed), (buffer.typed, buffer.text)
        # Nothing else changed: every other line is the user's, where the user put it.
        assert without_entry_line(buffer.text) == buffer.users
    assert (buffer.declined > 0) == versioned  # the in-transit keystrokes did overtake edits
    assert not [m.message for m in session.client.messages if "not updated" in m.message]


@pytest.mark.parametrize("reports_late", [False, True], ids=["change-told-first", "change-told-after-answer"])
async def test_two_saves_in_a_row_leave_the_open_index_with_the_last_saved_line(start, reports_late):
    """The second save comes before the editor has taken the first save's edit: its line still wins."""
    session = await start({"a.md": entry("a", "round 0"), "b.md": entry("b", "second")}, index=INDEX)
    buffer = EditorBuffer(session, INDEX)
    buffer.reports_late = reports_late
    answer_as_editor(session, types.WORKSPACE_APPLY_EDIT, lambda params: buffer.apply(params))
    buffer.type_line("top", "typed before any save")  # the buffer has unsaved changes
    session.open("a.md")
    await barrier(session)
    for number in (1, 2):  # back to back: no wait for the server between them
        text = entry("a", f"round {number}")
        session.change("a.md", text, number + 1)
        (session.root / "a.md").write_text(text, encoding="utf-8")
        session.client.text_document_did_save(types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=session.uri("a.md")), text=text))
    for _ in range(200):
        if "round 2\n" in buffer.text:
            break
        await asyncio.sleep(0.05)
    await barrier(session, "zz-probe-2.md")
    await asyncio.sleep(0.5)  # an edit that would come late has come
    assert [x for x in buffer.text.splitlines() if "](a.md)" in x] == ["- [a](a.md) \u2014 round 2"], buffer.text
    assert without_entry_line(buffer.text) == buffer.users
    assert not [m.message for m in session.client.messages if "not updated" in m.message]
