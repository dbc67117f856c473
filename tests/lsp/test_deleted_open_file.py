"""A file deleted while its tab stays open: the server follows the disk, as ``memls check`` does.

An agent runs ``memls delete a`` while ``a.md`` is open in the editor; the
editor sends the watcher's Deleted event and keeps the tab (VS Code's
default: no ``didClose``). A buffer without unsaved changes holds nothing of
the user's: the document is gone, and every file shows what ``memls check``
says of the disk. A buffer with unsaved changes is the user's work: it stays
an entry, but no fix may write an index line to the file that is gone.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from lsprotocol import types

from memls.lsp.convert import path_to_uri

from .conftest import Session, barrier, entry, folder_of
from .test_saved_unloadable_entry import assert_server_agrees_with_check

# The profile whose server watches the disk itself (no watcher registration).
POLLED = {"neovim"}
A, B = entry("a", "alpha"), entry("b", "bravo")


def memls(session: Session, *args: str) -> None:
    """Run the real CLI in the session's folder, as an agent beside the editor would."""
    env = {**os.environ, "MEMLS_MEMORY_DIRS": "", "GPTME_MEMORY_DIRS": ""}
    done = subprocess.run([sys.executable, "-m", "memls", *args], cwd=session.folder, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


async def disk_changed(session: Session, changes: dict[Path, types.FileChangeType], probe: str) -> None:
    """Tell the server as the profile's editor would, and wait until it has taken the changes in."""
    if session.profile in POLLED:
        await asyncio.sleep(1.5)  # three rounds of the server's own watcher
    else:
        session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=path_to_uri(p), type=t) for p, t in changes.items()]))
    await barrier(session, probe)


async def index_fixes(session: Session) -> list[types.CodeAction]:
    """Every code action the server offers anywhere in MEMORY.md, resolved to its edit."""
    diags = await session.diagnostics("MEMORY.md", lambda d: True)
    actions = await session.client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri("MEMORY.md")),
        range=types.Range(start=types.Position(0, 0), end=types.Position(100, 0)),
        context=types.CodeActionContext(diagnostics=diags)))
    out = []
    for action in actions or []:
        if isinstance(action, types.CodeAction) and action.edit is None and action.data is not None:
            action = await session.client.code_action_resolve_async(action)
        out.append(action)
    return out


def writes_a_line_for(action: types.CodeAction, filename: str) -> bool:
    edit = action.edit
    if edit is None:
        return False
    texts = [e.new_text for edits in (edit.changes or {}).values() for e in edits]
    for change in edit.document_changes or []:
        texts += [e.new_text for e in getattr(change, "edits", [])]
    return any(f"({filename})" in text for text in texts)


async def test_a_clean_open_entry_deleted_by_another_tool_is_gone_as_memls_check_finds(start):
    session = await start({"a.md": A, "b.md": B})
    memls(session, "index", "--write")
    session.open("a.md")
    await barrier(session, "zz-probe0.md")

    memls(session, "delete", "a")
    await disk_changed(session, {session.root / "a.md": types.FileChangeType.Deleted,
                                 session.root / "MEMORY.md": types.FileChangeType.Changed}, "zz-probe.md")

    await assert_server_agrees_with_check(session, ("a.md", "b.md", "MEMORY.md"))
    assert not [a.title for a in await index_fixes(session) if writes_a_line_for(a, "a.md")]

    # The file comes back (another tool writes it again): the clean tab follows the disk again.
    (session.root / "a.md").write_text(A, encoding="utf-8")
    await disk_changed(session, {session.root / "a.md": types.FileChangeType.Created}, "zz-probe2.md")
    await session.diagnostics("MEMORY.md", lambda d: "index-missing-entry" in session.codes(d))
    await assert_server_agrees_with_check(session, ("a.md", "b.md", "MEMORY.md"))


async def test_unsaved_work_in_a_deleted_entry_gets_no_fix_that_links_to_the_missing_file(start):
    session = await start({"a.md": A, "b.md": B})
    memls(session, "index", "--write")
    session.open("a.md")
    session.change("a.md", A.replace("alpha", "alpha, edited"), 2)
    await barrier(session, "zz-probe0.md")

    memls(session, "delete", "a")
    await disk_changed(session, {session.root / "a.md": types.FileChangeType.Deleted,
                                 session.root / "MEMORY.md": types.FileChangeType.Changed}, "zz-probe.md")

    # The index and the other entries are judged by the files that exist.
    await assert_server_agrees_with_check(session, ("b.md", "MEMORY.md"))
    assert not [a.title for a in await index_fixes(session) if writes_a_line_for(a, "a.md")]

    # Saving the unsaved work makes the file again, and its index line with it.
    (session.root / "a.md").write_text(A.replace("alpha", "alpha, edited"), encoding="utf-8")
    session.client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri("a.md")), text=A.replace("alpha", "alpha, edited")))
    await barrier(session, "zz-probe3.md")
    assert "[a](a.md) — alpha, edited" in (session.root / "MEMORY.md").read_text(encoding="utf-8")
    await assert_server_agrees_with_check(session, ("a.md", "b.md", "MEMORY.md"))


async def test_a_clean_open_index_deleted_by_another_tool_is_missing_as_memls_check_finds(start):
    session = await start({"a.md": A, "b.md": B})
    memls(session, "index", "--write")
    session.open("MEMORY.md")
    await barrier(session, "zz-probe0.md")

    (session.root / "MEMORY.md").unlink()
    await disk_changed(session, {session.root / "MEMORY.md": types.FileChangeType.Deleted}, "zz-probe.md")

    await session.diagnostics("MEMORY.md", lambda d: "index-missing" in session.codes(d))
    await assert_server_agrees_with_check(session, ("a.md", "b.md", "MEMORY.md"))


async def test_a_save_before_the_deleted_event_arrives_does_not_bring_back_the_deleted_entrys_line(start):
    session = await start({"a.md": A, "b.md": B})
    memls(session, "index", "--write")
    session.open("a.md")
    session.open("b.md")
    await barrier(session, "zz-probe0.md")

    memls(session, "delete", "a")  # the editor's watcher event is still on its way
    edited = B.replace("bravo", "bravo, edited")
    (session.root / "b.md").write_text(edited, encoding="utf-8")
    session.change("b.md", edited, 2)
    session.client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri("b.md")), text=edited))
    await barrier(session, "zz-probe.md")

    text = (session.root / "MEMORY.md").read_text(encoding="utf-8")
    assert "bravo, edited" in text and "(a.md)" not in text
    await assert_server_agrees_with_check(session, ("a.md", "b.md", "MEMORY.md"))


def change_folder(session: Session, *, added: bool) -> None:
    folder = [folder_of(session.folder)]
    session.client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(added=folder if added else [], removed=[] if added else folder)))


async def test_a_clean_tab_of_a_deleted_entry_stays_gone_when_its_folder_is_removed_and_added_again(start):
    successor = entry("x", extra="supersedes:\n  - y\n")
    session = await start({"x.md": successor, "y.md": entry("y", extra="status: superseded\nsuperseded_by: x\n")})
    memls(session, "index", "--write")
    session.open("x.md")
    await barrier(session, "zz-probe0.md")

    (session.root / "x.md").unlink()
    await disk_changed(session, {session.root / "x.md": types.FileChangeType.Deleted}, "zz-probe.md")
    await session.diagnostics("y.md", lambda d: "dangling-superseded-by" in session.codes(d))

    change_folder(session, added=False)
    await session.diagnostics("y.md", lambda d: not d)
    change_folder(session, added=True)
    # The tab is still unchanged and its file still gone: x is no entry, as `memls check` finds.
    await assert_server_agrees_with_check(session, ("y.md", "MEMORY.md"))
    assert "dangling-superseded-by" in session.codes(await session.diagnostics("y.md"))


async def test_unsaved_work_in_a_deleted_entry_stays_an_entry_when_its_folder_is_removed_and_added_again(start):
    successor = entry("x", extra="supersedes:\n  - y\n")
    session = await start({"x.md": successor, "y.md": entry("y", extra="status: superseded\nsuperseded_by: x\n")})
    session.open("x.md")
    session.change("x.md", successor.replace('"d"', '"d, edited"'), 2)
    await barrier(session, "zz-probe0.md")

    (session.root / "x.md").unlink()
    await disk_changed(session, {session.root / "x.md": types.FileChangeType.Deleted}, "zz-probe.md")
    change_folder(session, added=False)
    change_folder(session, added=True)
    await barrier(session, "zz-probe2.md")
    assert "dangling-superseded-by" not in session.codes(await session.diagnostics("y.md", lambda d: True))
