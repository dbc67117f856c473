"""Files changed on disk by another process update diagnostics; open buffers win over disk.

Neovim declares no dynamic ``didChangeWatchedFiles`` registration, so the
server's own watcher notices the write; VS Code and Emacs get a watcher
registration and send the notification (sent here by the test client, as
the editor would).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import client_capabilities

from memls.lsp.convert import path_to_uri

from .conftest import Session, entry, initialize_in, run_command, wait_until_scanned

OWN_WATCHER = {"visual-studio-code": False, "neovim": True, "emacs": False}


def registered_watcher(session: Session) -> bool:
    return any(r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
               for r in session.client.registrations)  # type: ignore[attr-defined]


def notify(session: Session, changes: dict[Path, types.FileChangeType]) -> None:
    """What an editor with a registered watcher sends; nothing for the server-watched profile."""
    if OWN_WATCHER[session.profile]:
        return
    session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        changes=[types.FileEvent(uri=path_to_uri(p), type=t) for p, t in changes.items()]))


def write_from_another_process(path: Path, text: str) -> None:
    subprocess.run([sys.executable, "-c", "import sys, pathlib; pathlib.Path(sys.argv[1]).write_text(sys.argv[2])",
                    str(path), text], check=True)


async def test_watcher_is_registered_only_where_the_client_allows(start):
    session = await start({"a.md": entry("a")})
    await session.diagnostics("MEMORY.md", lambda d: "index-missing" in session.codes(d))
    assert registered_watcher(session) is not OWN_WATCHER[session.profile]


async def test_file_written_by_another_process_updates_its_diagnostics(start):
    session = await start({"a.md": entry("a")})
    await session.diagnostics("MEMORY.md", lambda d: "index-missing" in session.codes(d))
    path = session.root / "a.md"
    write_from_another_process(path, entry("a", extra="supersedes:\n  - ghost\n"))
    notify(session, {path: types.FileChangeType.Changed})
    await session.diagnostics("a.md", lambda d: "dangling-supersedes" in session.codes(d))


async def test_deleting_a_file_on_disk_breaks_the_links_to_it(start):
    session = await start({"old.md": entry("old", extra="status: superseded\nsuperseded_by: new\n"),
                           "new.md": entry("new", extra="supersedes:\n  - old\n")})
    session.open("old.md")
    await session.diagnostics("old.md", lambda d: "dangling-superseded-by" not in session.codes(d))
    (session.root / "new.md").unlink()
    notify(session, {session.root / "new.md": types.FileChangeType.Deleted})
    await session.diagnostics("old.md", lambda d: "dangling-superseded-by" in session.codes(d))


async def test_open_buffer_wins_over_a_disk_change(start):
    session = await start({"a.md": entry("a"), "b.md": entry("b")})
    session.open("a.md")
    await session.diagnostics("MEMORY.md", lambda d: "index-missing" in session.codes(d))
    a, b = session.root / "a.md", session.root / "b.md"
    write_from_another_process(a, entry("a", extra="supersedes:\n  - ghost-a\n"))
    write_from_another_process(b, entry("b", extra="supersedes:\n  - ghost-b\n"))
    notify(session, {a: types.FileChangeType.Changed, b: types.FileChangeType.Changed})
    # b.md was written after a.md: once b's change is seen, a's has been seen too.
    await session.diagnostics("b.md", lambda d: "dangling-supersedes" in session.codes(d))
    assert "dangling-supersedes" not in session.codes(session.client.diagnostics.get(session.uri("a.md"), []))


async def test_a_memory_folder_made_after_the_start_joins_as_the_folders_project_root(client, tmp_path):
    """Found through a watched-file event first, it is still the folder's ``project`` root, not an ``explicit`` one."""
    folder = tmp_path / "workspace"
    folder.mkdir()
    await initialize_in(client, folder, client_capabilities(client.memls_profile))  # type: ignore[attr-defined]
    session = Session(client, folder)
    await wait_until_scanned(client)
    path = folder / "memory" / "a.md"
    path.parent.mkdir()
    write_from_another_process(path, entry("a"))
    notify(session, {path: types.FileChangeType.Created})
    for _ in range(200):
        scopes = {r["path"]: r["scope"] for r in (await run_command(client, "memls.debugInfo"))["roots"]}
        if str(path.parent) in scopes:
            break
        await asyncio.sleep(0.05)
    assert scopes.get(str(path.parent)) == "project", scopes


async def test_a_file_rewritten_unannounced_after_a_start_over_just_written_files_is_taken_in_once_they_settle(
        start):
    """A start right after a checkout reads every file while racy (its ``stat`` proves nothing yet).

    Once the racy window has passed the server reads those files again in the
    background, so the first save does not; one rewritten meanwhile with no
    watcher event (an editor's watcher is late or missed it) is taken in then.
    """
    session = await start({"a.md": entry("a", "alpha"), "c.md": entry("c", "charlie one")})
    await wait_until_scanned(session.client)
    assert "dangling-supersedes" not in session.codes(await session.diagnostics("a.md", lambda d: True))
    (session.root / "a.md").write_text(entry("a", "alpha", extra="supersedes:\n  - ghos\n"), encoding="utf-8")
    await session.diagnostics("a.md", lambda d: "dangling-supersedes" in session.codes(d), timeout=10)


def change_nothing_in(session: Session, path: Path) -> None:
    """A ``didChange`` with no changes for a document the client never opened (a confused or racing client)."""
    session.client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=path_to_uri(path), version=5),
        content_changes=[]))


@pytest.mark.timeout(60)  # the bug this pins blocked every later request until a writer opened the FIFO
async def test_a_change_to_a_fifo_never_opened_leaves_the_server_answering(start):
    session = await start({"a.md": entry("a")})
    await wait_until_scanned(session.client)
    fifo = session.root / "pipe.md"
    os.mkfifo(fifo)
    change_nothing_in(session, fifo)
    uri = session.open("a.md")
    hover = await asyncio.wait_for(session.client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=1, character=7))), 20)
    assert hover is not None


async def test_a_typed_change_to_a_document_never_opened_shows_the_user_nothing_and_changes_nothing(start):
    """A confused client's edit to a closed file or an ``untitled:`` buffer is dropped in silence.

    pygls looked the document up unchecked and showed "Error in server:
    KeyError" with the URI, a message that asks something of the user when
    nothing is wrong with their memory.
    """
    session = await start({"a.md": entry("a"), "b.md": entry("b")})
    await wait_until_scanned(session.client)
    for uri in (path_to_uri(session.root / "b.md"), "untitled:Untitled-1"):
        session.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=5),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="name: x\n")]))
    uri = session.open("a.md")
    hover = await asyncio.wait_for(session.client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=1, character=7))), 20)
    assert hover is not None
    assert [m.message for m in session.client.messages if "Error" in m.message] == []
    assert (session.root / "b.md").read_text(encoding="utf-8") == entry("b")


async def test_after_a_change_to_a_closed_file_its_diagnostics_still_follow_the_disk(start):
    # The change named no buffer: the file must not be taken as one, frozen at its text of that moment.
    session = await start({"a.md": entry("a")})
    await session.diagnostics("MEMORY.md", lambda d: "index-missing" in session.codes(d))
    path = session.root / "a.md"
    change_nothing_in(session, path)
    write_from_another_process(path, entry("a", extra="supersedes:\n  - ghost\n"))
    notify(session, {path: types.FileChangeType.Changed})
    await session.diagnostics("a.md", lambda d: "dangling-supersedes" in session.codes(d))
