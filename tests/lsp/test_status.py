"""``memls/status``: the counts an editor's status item shows, right after every change.

The VS Code extension asks for the notification (``initializationOptions.client.statusNotification``)
and shows the last one. Each test changes the workspace the way a user does
(a new memory, a save from another program, ``rm``, a folder added) and
waits for a status that counts it; a client that did not ask gets none.
Also here: the start-up report the output channel shows.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from memls.lsp.convert import path_to_uri

from .conftest import (
    CURRENT_VSCODE,
    SERVER_ENV,
    act_as_editor,
    capabilities_of,
    entry,
    folder_of,
    run_command,
    wait_until_scanned,
    write_root,
)

pytestmark = pytest.mark.timeout(60)
STATUS = "memls/status"


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "memls.lsp"],
        server_env=SERVER_ENV,
    ),
    params=[CURRENT_VSCODE, "neovim"],
)
async def status_client(request, lsp_client: LanguageClient):
    lsp_client.memls_profile = request.param  # type: ignore[attr-defined]
    act_as_editor(lsp_client)
    lsp_client.statuses = []  # type: ignore[attr-defined]

    lsp_client.errors_held = []  # type: ignore[attr-defined]

    @lsp_client.feature(STATUS)
    def status(params) -> None:
        lsp_client.statuses.append(params if isinstance(params, dict) else params._asdict())  # type: ignore[attr-defined]
        # The errors the client holds as each status arrives.
        lsp_client.errors_held.append(sum(  # type: ignore[attr-defined]
            d.severity == types.DiagnosticSeverity.Error for diags in lsp_client.diagnostics.values() for d in diags))

    yield
    await lsp_client.shutdown_session()


async def start(client: LanguageClient, folders: list[Path], *, asks: bool = True) -> None:
    await client.initialize_session(types.InitializeParams(
        capabilities=capabilities_of(client.memls_profile),  # type: ignore[attr-defined]
        workspace_folders=[folder_of(f) for f in folders],
        root_uri=path_to_uri(folders[0]),
        initialization_options={"settings": {}, "client": {"statusNotification": asks}},
        process_id=os.getpid(),
    ))


async def status_where(client: LanguageClient, what: str, **expected) -> dict:
    """The first status (already received or coming) whose fields equal ``expected``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 10.0
    while True:
        for status in client.statuses:  # type: ignore[attr-defined]
            if all(status.get(k) == v for k, v in expected.items()):
                return status
        if loop.time() > deadline:
            raise AssertionError(f"no status with {what}; got {client.statuses[-3:]}")  # type: ignore[attr-defined]
        await asyncio.sleep(0.05)


def two_problems() -> dict[str, str]:
    return {
        "a.md": entry("a"),
        "b.md": entry("b", extra="supersedes:\n  - ghost\n"),  # an error
        "c.md": entry("c", extra="superseded_by: a\n"),  # living with a successor: a warning (+ asymmetry error)
    }


async def test_status_after_the_scan_counts_memories_errors_and_warnings(status_client, tmp_path):
    write_root(tmp_path / "w", two_problems())
    await start(status_client, [tmp_path / "w"])
    await wait_until_scanned(status_client)
    done = await status_where(status_client, "3 memories, scan done", memories=3, scanning=False)
    assert done["errors"] >= 2 and done["warnings"] >= 1
    assert done["roots"] == 1 and (done["scanned"], done["total"]) == (0, 0)


async def test_the_counts_never_run_ahead_of_the_problems_published(status_client, tmp_path):
    """Two folders (checked after the scan, not replayed): each status counts only errors the client already holds."""
    for name in ("w1", "w2"):
        write_root(tmp_path / name, two_problems())
    await start(status_client, [tmp_path / "w1", tmp_path / "w2"])
    if "+pull" in status_client.memls_profile:  # type: ignore[attr-defined]
        pytest.skip("a client that pulls diagnostics holds them when it asks; the counts are of everything")
    await wait_until_scanned(status_client)
    done = await status_where(status_client, "6 memories, scan done", memories=6, scanning=False)
    assert done["errors"] >= 4
    # The scan is done once its check is out: the first status saying so counts every error.
    assert status_client.errors_held[status_client.statuses.index(done)] == done["errors"]  # type: ignore[attr-defined]
    for status, held in zip(status_client.statuses, status_client.errors_held):  # type: ignore[attr-defined]
        assert status["errors"] <= held, (status, held)


async def test_a_client_that_shows_the_status_gets_no_separate_scan_progress(status_client, tmp_path):
    write_root(tmp_path / "w", {"a.md": entry("a")})
    await start(status_client, [tmp_path / "w"])
    await wait_until_scanned(status_client)
    await status_where(status_client, "the scan's end", memories=1, scanning=False)
    assert not [t for t in status_client.progress_reports if "scan" in str(t)]


async def test_new_memory_is_counted_at_once(status_client, tmp_path):
    write_root(tmp_path / "w", {"a.md": entry("a")})
    await start(status_client, [tmp_path / "w"])
    await wait_until_scanned(status_client)
    await status_where(status_client, "1 memory", memories=1)
    await run_command(status_client, "memls.newMemory", "fresh", "when it is fresh", "project")
    await status_where(status_client, "2 memories after New memory", memories=2)


async def test_a_save_by_another_program_and_an_rm_are_counted(status_client, tmp_path):
    root = write_root(tmp_path / "w", {"a.md": entry("a")})
    await start(status_client, [tmp_path / "w"])
    await wait_until_scanned(status_client)
    await status_where(status_client, "1 memory", memories=1)
    (root / "b.md").write_text(entry("b", extra="supersedes:\n  - ghost\n"), encoding="utf-8")
    tell_watched(status_client, {root / "b.md": types.FileChangeType.Created})
    await status_where(status_client, "the external save", memories=2, errors=1)
    (root / "b.md").unlink()
    tell_watched(status_client, {root / "b.md": types.FileChangeType.Deleted})
    await status_where(status_client, "the rm", memories=1, errors=0)


async def test_a_folder_added_is_counted(status_client, tmp_path):
    write_root(tmp_path / "w", {"a.md": entry("a")})
    write_root(tmp_path / "v", {"x.md": entry("x"), "y.md": entry("y")})
    await start(status_client, [tmp_path / "w"])
    await wait_until_scanned(status_client)
    await status_where(status_client, "1 memory", memories=1)
    status_client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(added=[folder_of(tmp_path / "v")], removed=[])))
    await status_where(status_client, "the added folder's memories", memories=3, roots=2)


async def test_a_client_that_did_not_ask_gets_no_status(status_client, tmp_path):
    write_root(tmp_path / "w", {"a.md": entry("a")})
    await start(status_client, [tmp_path / "w"], asks=False)
    await wait_until_scanned(status_client)
    await run_command(status_client, "memls.newMemory", "fresh", "when it is fresh", "project")
    await asyncio.sleep(0.3)
    assert status_client.statuses == []


async def test_the_output_says_version_interpreter_roots_and_scan_time(status_client, tmp_path):
    root = write_root(tmp_path / "w", {"a.md": entry("a")})
    await start(status_client, [tmp_path / "w"])
    await wait_until_scanned(status_client)
    await status_where(status_client, "the scan's end", scanning=False)
    [report] = [m.message for m in status_client.log_messages if m.message.startswith("memls ")]
    assert sys.executable in report and "scanned in" in report
    assert f"project  {root} (1 memories)" in report or f"{root} (1 memories)" in report


def tell_watched(client: LanguageClient, changes: dict[Path, types.FileChangeType]) -> None:
    """What an editor's file watcher sends (Neovim's profile has the server watch by itself)."""
    if client.memls_profile == "neovim":  # type: ignore[attr-defined]
        return
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        changes=[types.FileEvent(uri=path_to_uri(p), type=t) for p, t in changes.items()]))
