"""Workspace folders: several at once, and folders that come and go while the server runs.

Each folder is its own project: two folders' ``memory/`` roots never shadow
each other or count as each other's "other root". A folder added after
start is served at once (its problems appear without opening a file); a
removed one leaves the model and the editor's problem list. Every profile,
plus today's VS Code (pull diagnostics, relative watchers).
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from memls.lsp.convert import path_to_uri

from .conftest import (
    SERVER_ENV,
    ProblemList,
    act_as_editor,
    entry,
    folder_of,
    initialize_folders,
    run_command,
    wait_until_scanned,
    write_root,
)

pytestmark = pytest.mark.timeout(60)


def alpha_and_beta(tmp_path: Path) -> tuple[Path, Path]:
    alpha, beta = tmp_path / "alpha", tmp_path / "beta"
    write_root(alpha, {
        "shared-style.md": entry("shared-style"),
        "old.md": entry("old", extra="status: superseded\nsuperseded_by: only-in-beta\n"),
    })
    # No MEMORY.md: the root is known as beta's memory/, not by its look.
    write_root(beta, {
        "shared-style.md": entry("shared-style"),
        "only-in-beta.md": entry("only-in-beta", extra="supersedes:\n  - ghost\n"),
        "prev.md": entry("prev", extra="status: superseded\nsuperseded_by: only-in-beta\n"),
    })
    return alpha, beta


def root_paths(info: dict) -> set[str]:
    return {r["path"] for r in info["roots"]}


def change_folders(client, *, added: list[Path] = (), removed: list[Path] = ()) -> None:
    client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(added=[folder_of(f) for f in added],
                                                removed=[folder_of(f) for f in removed])))


async def wait_for(condition, what: str, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"never saw {what}")
        await asyncio.sleep(0.05)


def codes(diags: list[types.Diagnostic]) -> set[str]:
    return {str(d.code) for d in diags}


async def test_two_folders_are_two_projects_not_two_layers(editor_client, tmp_path):
    alpha, beta = alpha_and_beta(tmp_path)
    session, _ = await initialize_folders(editor_client, [alpha, beta])
    await wait_until_scanned(editor_client)
    problems = ProblemList(session)
    old = await problems.wait(alpha / "memory" / "old.md", lambda d: "dangling-superseded-by" in codes(d))
    assert "cross-root-link" not in codes(old)
    assert "shadowed-entry" not in codes(await problems.shown(alpha / "memory" / "shared-style.md"))
    assert "shadowed-entry" not in codes(await problems.shown(beta / "memory" / "shared-style.md"))


async def test_a_folder_added_after_start_is_served_at_once(editor_client, tmp_path):
    alpha, beta = alpha_and_beta(tmp_path)
    session, = await initialize_folders(editor_client, [alpha])
    await wait_until_scanned(editor_client)
    change_folders(editor_client, added=[beta])
    problems = ProblemList(session)
    # Nothing of beta's is open: its problems appear as for the first folders.
    await problems.wait(beta / "memory" / "only-in-beta.md", lambda d: "dangling-supersedes" in codes(d))
    assert str(beta / "memory") in root_paths(await run_command(editor_client, "memls.debugInfo"))
    # Still two projects: alpha's old.md does not "cross roots" into beta.
    assert "cross-root-link" not in codes(await problems.shown(alpha / "memory" / "old.md"))
    prev = beta / "memory" / "prev.md"
    editor_client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=path_to_uri(prev), language_id="markdown", version=1, text=prev.read_text(encoding="utf-8"))))
    # ``superseded_by: only-in-beta`` is line 6; the value starts at column 15.
    found = await editor_client.text_document_definition_async(types.DefinitionParams(
        text_document=types.TextDocumentIdentifier(uri=path_to_uri(prev)),
        position=types.Position(line=6, character=17)))
    assert found, "definition found nothing in the added folder"
    target = found[0]
    uri = target.target_uri if isinstance(target, types.LocationLink) else target.uri
    assert uri == path_to_uri(beta / "memory" / "only-in-beta.md")


async def test_a_document_opened_before_its_folder_was_added_keeps_its_buffer(editor_client, tmp_path):
    alpha, beta = alpha_and_beta(tmp_path)
    session, = await initialize_folders(editor_client, [alpha])
    await wait_until_scanned(editor_client)
    prev = beta / "memory" / "prev.md"
    buffer = entry("prev", extra="supersedes:\n  - typed-in-the-buffer\n")
    editor_client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=path_to_uri(prev), language_id="markdown", version=1, text=buffer)))
    change_folders(editor_client, added=[beta])
    problems = ProblemList(session)
    found = await problems.wait(prev, lambda d: "dangling-supersedes" in codes(d))
    assert any("typed-in-the-buffer" in d.message for d in found)


async def test_a_removed_folder_is_unloaded_and_leaves_the_problem_list(editor_client, tmp_path):
    alpha, beta = alpha_and_beta(tmp_path)
    # A MEMORY.md makes beta's memory/ a root by its look too: it must not come back by it.
    (beta / "memory" / "MEMORY.md").write_text("# Memory\n", encoding="utf-8")
    session, _ = await initialize_folders(editor_client, [alpha, beta])
    await wait_until_scanned(editor_client)
    problems = ProblemList(session)
    broken = beta / "memory" / "only-in-beta.md"
    await problems.wait(broken, lambda d: "dangling-supersedes" in codes(d))
    refreshes = editor_client.diagnostic_refresh_count
    change_folders(editor_client, removed=[beta])
    await problems.wait(broken, lambda d: d == [])
    if problems.pull:
        await wait_for(lambda: editor_client.diagnostic_refresh_count > refreshes, "a refresh request")
    info = await run_command(editor_client, "memls.debugInfo")
    assert str(beta / "memory") not in root_paths(info)
    assert str(alpha / "memory") in root_paths(info)
    # The folder that stays keeps its problems.
    await problems.wait(alpha / "memory" / "old.md", lambda d: "dangling-superseded-by" in codes(d))


async def test_an_edit_of_a_document_left_open_in_a_removed_folder_does_not_bring_its_root_back(
        editor_client, tmp_path):
    alpha, beta = alpha_and_beta(tmp_path)
    # A MEMORY.md: beta's memory/ would be a root by its look, were its buffers adopted.
    (beta / "memory" / "MEMORY.md").write_text("# Memory\n", encoding="utf-8")
    session, _ = await initialize_folders(editor_client, [alpha, beta])
    await wait_until_scanned(editor_client)
    problems = ProblemList(session)
    broken = beta / "memory" / "only-in-beta.md"
    uri = path_to_uri(broken)
    editor_client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="markdown", version=1, text=broken.read_text(encoding="utf-8"))))
    await problems.wait(broken, lambda d: "dangling-supersedes" in codes(d))
    change_folders(editor_client, removed=[beta])
    await problems.wait(broken, lambda d: d == [])
    # The user keeps typing in the buffer the editor still shows.
    editor_client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(
            text=entry("only-in-beta", extra="supersedes:\n  - ghost\n  - another-ghost\n"))]))
    if problems.pull:  # the editor pulls the open document's diagnostics after the edit
        report = await editor_client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri)))
        assert list(report.items) == []
    info = await run_command(editor_client, "memls.debugInfo")
    assert str(beta / "memory") not in root_paths(info)
    assert await problems.shown(broken) == []
    assert await problems.shown(beta / "memory" / "prev.md") == []
    # Adding the folder back serves the buffer as the editor has it.
    change_folders(editor_client, added=[beta])
    await problems.wait(broken, lambda d: any("another-ghost" in x.message for x in d))


async def test_workspace_symbols_of_several_folders_say_which_folder(editor_client, tmp_path):
    alpha, beta = alpha_and_beta(tmp_path)
    await initialize_folders(editor_client, [alpha, beta])
    await wait_until_scanned(editor_client)
    found = await editor_client.workspace_symbol_async(types.WorkspaceSymbolParams(query="shared-style"))
    where = {}
    for symbol in found or []:
        uri = symbol.location.uri
        where[uri] = symbol.container_name or ""
    alpha_uri = path_to_uri(alpha / "memory" / "shared-style.md")
    beta_uri = path_to_uri(beta / "memory" / "shared-style.md")
    assert set(where) >= {alpha_uri, beta_uri}, found
    assert "alpha" in where[alpha_uri] and "beta" not in where[alpha_uri]
    assert "beta" in where[beta_uri]


# The working directory of the server below: its memory/ is what the server
# would serve with no folder open at all.
SERVER_CWD = Path(tempfile.mkdtemp(prefix="memls-cwd-"))


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=[sys.executable, "-c", "import os, runpy, sys; os.chdir(sys.argv[1]); "
                    "runpy.run_module('memls.lsp', run_name='__main__')", str(SERVER_CWD)],
    server_env=SERVER_ENV,
))
async def client_in_a_memory_cwd(lsp_client: LanguageClient):
    lsp_client.memls_profile = "visual-studio-code"  # type: ignore[attr-defined]
    act_as_editor(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def test_closing_the_last_folder_does_not_serve_the_servers_working_directory(client_in_a_memory_cwd, tmp_path):
    client = client_in_a_memory_cwd
    write_root(SERVER_CWD, {"stray.md": entry("stray")})
    alpha, _ = alpha_and_beta(tmp_path)
    await initialize_folders(client, [alpha])
    await wait_until_scanned(client)
    change_folders(client, removed=[alpha])
    for _ in range(40):  # the folder change is handled on the engine, in order
        info = await run_command(client, "memls.debugInfo")
        if str(alpha / "memory") not in root_paths(info):
            break
        await asyncio.sleep(0.05)
    assert str(alpha / "memory") not in root_paths(info)
    assert str(SERVER_CWD / "memory") not in root_paths(info), info
