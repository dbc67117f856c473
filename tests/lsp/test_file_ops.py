"""File operations: willRenameFiles keeps links right; did* operations update the model.

Profile-specific: only VS Code declares workspace file operations, so only
there does the server advertise them; the requests below are what VS Code
sends when a file is renamed, created or deleted in its explorer. The
handlers are exercised in every profile (the server must not depend on the
client for them); only the advertisement differs.
"""

from __future__ import annotations

import os

import pytest
from lsprotocol import types
from pytest_lsp import client_capabilities

from memls.lsp.convert import path_to_uri
from memls.store import MemoryStore
from memls.store.roots import MemoryRoot

from .conftest import apply_as_client, entry, scan_done, write_root

FILES = {
    "a.md": entry("a", extra="status: superseded\nsuperseded_by: c\n"),
    "c.md": entry("c", extra="supersedes:\n- a\n"),
}
INDEX = "# Persistent Memory\n\n## Project\n\n- [c](c.md) \u2014 d\n"


@pytest.mark.timeout(30)
async def test_file_operations_are_advertised_only_to_clients_that_send_them(client, tmp_path):
    profile = client.memls_profile
    write_root(tmp_path, FILES)
    result = await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities(profile),
        workspace_folders=[types.WorkspaceFolder(uri=path_to_uri(tmp_path), name="workspace")],
        process_id=os.getpid(),
    ))
    workspace = result.capabilities.workspace
    ops = workspace.file_operations if workspace else None
    if profile == "visual-studio-code":
        assert ops is not None and ops.will_rename and ops.did_rename and ops.did_create and ops.did_delete
        assert ops.will_rename.filters[0].pattern.glob == "**/*.md"
    else:
        assert ops is None or not (ops.will_rename or ops.did_rename or ops.did_create or ops.did_delete)


@pytest.mark.timeout(30)
async def test_will_rename_files_keeps_links_and_index_right(start):
    session = await start(FILES, index=INDEX)
    await scan_done(session)
    old, new = session.root / "c.md", session.root / "b.md"
    edit = await session.client.workspace_will_rename_files_async(types.RenameFilesParams(
        files=[types.FileRename(old_uri=session.uri("c.md"), new_uri=session.uri("b.md"))]))
    assert edit is not None
    await apply_as_client(session, edit, {})  # the edits, against the files before the move
    old.rename(new)  # then the editor renames the file itself
    session.client.workspace_did_rename_files(types.RenameFilesParams(
        files=[types.FileRename(old_uri=session.uri("c.md"), new_uri=session.uri("b.md"))]))
    assert "name: b" in new.read_text()
    assert "superseded_by: b" in (session.root / "a.md").read_text()
    assert "[b](b.md)" in (session.root / "MEMORY.md").read_text()
    assert MemoryStore([MemoryRoot("explicit", session.root)]).audit() == []


@pytest.mark.timeout(30)
async def test_did_delete_files_updates_diagnostics_of_linking_documents(start):
    session = await start(FILES, index=INDEX)
    await scan_done(session)
    session.open("a.md")
    await session.diagnostics("a.md", lambda d: not d)
    (session.root / "c.md").unlink()
    session.client.workspace_did_delete_files(types.DeleteFilesParams(
        files=[types.FileDelete(uri=session.uri("c.md"))]))
    await session.diagnostics("a.md", lambda d: "dangling-superseded-by" in session.codes(d))


@pytest.mark.timeout(30)
async def test_did_create_files_updates_diagnostics_of_linking_documents(start):
    session = await start({"a.md": FILES["a.md"]})
    await scan_done(session)
    session.open("a.md")
    await session.diagnostics("a.md", lambda d: "dangling-superseded-by" in session.codes(d))
    (session.root / "c.md").write_text(FILES["c.md"], encoding="utf-8")
    session.client.workspace_did_create_files(types.CreateFilesParams(
        files=[types.FileCreate(uri=session.uri("c.md"))]))
    await session.diagnostics("a.md", lambda d: "dangling-superseded-by" not in session.codes(d))
