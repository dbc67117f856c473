"""Two memls servers on one memory root: the second is harmless.

Neovim with markers that stop at ``memory/`` starts one client rooted there
and another at the repository top; an editor and a second editor on the
same repository do the same. Both servers answer their own client. Only the
first, which holds the root's lease (memls.store.lease), lists every file's
problems and edits an open ``MEMORY.md`` after a save; the second reports
the documents its client opened, and takes over when the first exits. A
second editor's open ``MEMORY.md`` is seen by its own server alone, which
edits it.
Two real server processes over stdio.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, client_capabilities

from memls.lsp.convert import path_to_uri

from .conftest import Session, act_as_editor, entry, run_command, wait_until_scanned, write_root

pytestmark = pytest.mark.timeout(90)
INDEX = "# Memory\n\nCurated notes.\n\n- [a](a.md) \u2014 first\n"


async def server(tmp_path: Path):
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "memls.lsp"],
        server_env={**os.environ, "MEMLS_MEMORY_DIRS": "", "GPTME_MEMORY_DIRS": "",
                    "MEMLS_CACHE_DIR": str(tmp_path / "cache")})
    client = await config.start()
    client.memls_profile = "neovim"  # type: ignore[attr-defined]
    act_as_editor(client)
    return client


async def initialize(client, folder: Path, editor: int | None = None) -> None:
    """``editor``: the process id the client gives (by default this process's: one editor, two clients)."""
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("neovim"),
        workspace_folders=[types.WorkspaceFolder(uri=path_to_uri(folder), name=folder.name)],
        root_uri=path_to_uri(folder), process_id=editor or os.getpid()))
    await wait_until_scanned(client)


async def until(condition, what: str, timeout: float = 20.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"never saw {what}")
        await asyncio.sleep(0.05)


def dangling(client, path: Path) -> bool:
    return any(d.code == "dangling-supersedes" for d in client.diagnostics.get(path_to_uri(path), []))


async def test_a_second_server_on_the_same_root_reports_only_its_open_documents_and_takes_over(tmp_path):
    folder = tmp_path / "repo"
    root = write_root(folder, {
        "a.md": entry("a", "first"),
        "open-here.md": entry("open-here", extra="supersedes:\n  - ghost\n"),
        "elsewhere.md": entry("elsewhere", extra="supersedes:\n  - phantom\n"),
    })
    (root / "MEMORY.md").write_text(INDEX, encoding="utf-8")
    first = await server(tmp_path)
    second = await server(tmp_path)
    try:
        await initialize(first, folder)  # rooted at the repository top
        await until(lambda: dangling(first, root / "elsewhere.md"), "the first server list the root")
        await initialize(second, root)  # rooted at memory/ (it holds MEMORY.md)
        at_second = Session(second, folder)
        at_second.open("open-here.md")
        # The second answers for what its client opened: diagnostics, and requests.
        await until(lambda: dangling(second, root / "open-here.md"), "the second server's open document")
        hover = await second.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=at_second.uri("open-here.md")),
            position=types.Position(line=1, character=7)))
        assert hover is not None
        info = await run_command(second, "memls.debugInfo")
        assert [r["lease"] for r in info["roots"] if r["path"] == str(root)] == [False]
        # ...but does not list the rest of the root, which the first server does.
        await asyncio.sleep(1.0)
        assert path_to_uri(root / "elsewhere.md") not in second.diagnostics
        assert dangling(first, root / "elsewhere.md")

        # A save with MEMORY.md open and modified in both clients: one edit of the buffer, not two.
        typed = INDEX.replace("Curated notes.", "Curated notes, being edited.")
        revised = entry("a", "first, revised")
        sessions = [Session(client, folder) for client in (first, second)]
        for session in sessions:  # one editor, two clients: each is told the same
            session.open("MEMORY.md", typed)
            session.open("a.md")
            session.change("a.md", revised, 2)
            await run_command(session.client, "memls.debugInfo")  # both read the disk before the save
        (root / "a.md").write_text(revised, encoding="utf-8")
        for session in sessions:
            session.client.text_document_did_save(types.DidSaveTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=session.uri("a.md")), text=revised))
        await until(lambda: first.applied_edits, "the first server edit MEMORY.md")
        await asyncio.sleep(1.0)
        assert second.applied_edits == []
        assert (root / "MEMORY.md").read_text(encoding="utf-8") == INDEX  # the buffers hold the change

        # The first server exits: the second takes the root over and lists it.
        await first.shutdown_session()
        first = None
        await until(lambda: dangling(second, root / "elsewhere.md"), "the second server take over")
    finally:
        for client in (first, second):
            if client is not None:
                await client.shutdown_session()


async def test_a_second_editors_server_edits_its_own_open_index_after_a_save(tmp_path):
    """Two editors (two processes) on one repository: the leaseholder never sees the second's buffer."""
    folder = tmp_path / "repo"
    root = write_root(folder, {"a.md": entry("a", "first"), "b.md": entry("b", "second")})
    (root / "MEMORY.md").write_text(INDEX, encoding="utf-8")
    first, second = await server(tmp_path), await server(tmp_path)
    try:
        await initialize(first, folder)
        await initialize(second, folder, editor=os.getppid())  # another editor process
        info = await run_command(second, "memls.debugInfo")
        assert [r["lease"] for r in info["roots"] if r["path"] == str(root)] == [False]
        at_second = Session(second, folder)
        typed = INDEX.replace("Curated notes.", "Curated notes, being edited.")
        at_second.open("MEMORY.md", typed)
        revised = entry("a", "first, revised")
        at_second.open("a.md")
        at_second.change("a.md", revised, 2)
        await run_command(second, "memls.debugInfo")
        (root / "a.md").write_text(revised, encoding="utf-8")
        second.text_document_did_save(types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=at_second.uri("a.md")), text=revised))
        await until(lambda: second.applied_edits, "the second server edit its editor's MEMORY.md")
        assert first.applied_edits == []
        assert (root / "MEMORY.md").read_text(encoding="utf-8") == INDEX  # the buffer holds the change
    finally:
        for client in (first, second):
            await client.shutdown_session()
