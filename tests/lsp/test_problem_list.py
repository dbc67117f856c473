"""A file that leaves the model leaves the editor's problem list.

Deleted on disk, renamed by a fix: push clients get an empty publish; a
pull client (today's VS Code keeps whatever a workspace report leaves out)
gets the file once more with an empty full report, and a refresh request.
"""

from __future__ import annotations

import pytest
from lsprotocol import types

from memls.lsp.convert import path_to_uri

from .conftest import (
    CURRENT_VSCODE,
    ProblemList,
    apply_workspace_edit,
    entry,
    initialize_folders,
    wait_until_scanned,
    write_root,
)

pytestmark = pytest.mark.timeout(60)
# Profiles whose edits may rename files (documentChanges + resource operations).
FILE_OPS = ("visual-studio-code", CURRENT_VSCODE)


def codes(diags: list[types.Diagnostic]) -> set[str]:
    return {str(d.code) for d in diags}


def watched(client) -> bool:
    return any(r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in client.registrations)


async def test_a_file_deleted_on_disk_leaves_the_problem_list(editor_client, tmp_path):
    folder = tmp_path / "workspace"
    root = write_root(folder, {"ok.md": entry("ok"), "broken.md": entry("broken", extra="supersedes:\n  - ghost\n")})
    session, = await initialize_folders(editor_client, [folder])
    await wait_until_scanned(editor_client)
    problems = ProblemList(session)
    await problems.wait(root / "broken.md", lambda d: "dangling-supersedes" in codes(d))
    (root / "broken.md").unlink()
    if watched(editor_client):  # else the server's own watcher sees it
        editor_client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=path_to_uri(root / "broken.md"), type=types.FileChangeType.Deleted)]))
    await problems.wait(root / "broken.md", lambda d: d == [])


async def test_a_file_renamed_by_the_reserved_name_fix_leaves_the_problem_list(editor_client, tmp_path):
    folder = tmp_path / "workspace"
    root = write_root(folder, {"memory-notes.md": entry("memory-notes")})
    session, = await initialize_folders(editor_client, [folder])
    if editor_client.memls_profile not in FILE_OPS:
        pytest.skip("this profile cannot rename files through an edit, so the fix is not offered")
    await wait_until_scanned(editor_client)
    old = root / "memory-notes.md"
    session.open("memory-notes.md")
    problems = ProblemList(session)
    await problems.wait(old, lambda d: "reserved-name" in codes(d))
    diags = await session.diagnostics("memory-notes.md", lambda d: "reserved-name" in codes(d))
    diag = next(d for d in diags if d.code == "reserved-name")
    actions = await editor_client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=path_to_uri(old)), range=diag.range,
        context=types.CodeActionContext(diagnostics=[diag], only=[types.CodeActionKind.QuickFix])))
    action = next(a for a in actions if a.title.startswith("Rename 'memory-notes' to 'notes'"))
    if action.edit is None:
        action = await editor_client.code_action_resolve_async(action)
    apply_workspace_edit(action.edit, buffers={old: old.read_text(encoding="utf-8")})
    # As VS Code does after renaming an open file: the old document closes, the new one opens.
    editor_client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=path_to_uri(old))))
    session.open("notes.md")
    editor_client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=path_to_uri(old), type=types.FileChangeType.Deleted),
        types.FileEvent(uri=path_to_uri(root / "notes.md"), type=types.FileChangeType.Created)]))
    await problems.wait(old, lambda d: d == [])
    assert "reserved-name" not in codes(await problems.shown(root / "notes.md"))
