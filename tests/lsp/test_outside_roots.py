"""Roots outside the workspace folders still hear about other tools' writes.

Editors apply plain watcher globs only inside workspace folders. A root
outside them (here: ``roots`` from settings) gets a ``RelativePattern``
watcher when the client supports one, and is polled by the server when it
does not; either way the real gptme writing there updates the open documents.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig

from memls.lsp.convert import path_to_uri
from memls.lsp.watcher import BACKOFF_FILES, POLL_SECONDS, poll_interval
from memls.store.roots import claude_code_memory_dir

from .conftest import (
    CURRENT_VSCODE,
    EDITOR_PROFILES,
    ProblemList,
    act_as_editor,
    entry,
    initialize_folders,
    run_command,
    wait_until_scanned,
    write_root,
)

pytestmark = pytest.mark.timeout(60)
GPTME_UTIL = Path(sys.executable).parent / "gptme-util"


def relative_watchers(client) -> set[tuple[str, str]]:
    """(baseUri, pattern) of every relative watcher registered with the client (options arrive as JSON)."""
    out = set()
    for r in client.registrations:
        if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES:
            for w in r.register_options["watchers"]:
                glob = w["globPattern"]
                if isinstance(glob, dict):
                    out.add((glob["baseUri"], glob["pattern"]))
    return out


async def registered(client, watcher: tuple[str, str], timeout: float = 5.0) -> bool:
    """Whether the relative watcher is registered within ``timeout``: the registration is a request of the
    server's own, which may reach the client after the diagnostics it sent first (seen in a loaded CI run)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while watcher not in relative_watchers(client):
        if loop.time() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


def outside_workspace(tmp_path: Path, files: dict[str, str]) -> tuple[Path, Path]:
    folder = tmp_path / "workspace"
    write_root(folder, {"inside.md": entry("inside")})
    outside = tmp_path / "elsewhere" / "notes"
    outside.mkdir(parents=True)
    for name, text in files.items():
        (outside / name).write_text(text, encoding="utf-8")
    return folder, outside


async def old_entry_open(editor_client, tmp_path: Path, others: dict[str, str]) -> tuple[Path, ProblemList]:
    """An outside root holding ``old`` (superseded by ``newer``) and ``others``, ``old`` open in the editor."""
    old = entry("old", extra="status: superseded\nsuperseded_by: newer\n")
    folder, outside = outside_workspace(tmp_path, {"old.md": old, **others})
    session, = await initialize_folders(editor_client, [folder], settings={"roots": [str(outside)]})
    await wait_until_scanned(editor_client)
    editor_client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=path_to_uri(outside / "old.md"), language_id="markdown", version=1, text=old)))
    return outside, ProblemList(session)


async def test_a_root_outside_the_folders_gets_a_relative_watcher_when_the_client_has_them(editor_client, tmp_path):
    folder, outside = outside_workspace(tmp_path, {"a.md": entry("a")})
    await initialize_folders(editor_client, [folder], settings={"roots": [str(outside)]})
    await wait_until_scanned(editor_client)
    bases = relative_watchers(editor_client)
    if editor_client.memls_profile == CURRENT_VSCODE:
        assert bases == {(path_to_uri(outside), "*.md"), (path_to_uri(outside), ".memory-index.json")}
    else:  # no relativePatternSupport: the server polls that root itself
        assert bases == set()


@pytest.mark.skipif(not GPTME_UTIL.exists(), reason="the real gptme-util is not installed in this venv")
async def test_gptme_saving_into_an_outside_root_clears_a_stale_dangling_link(editor_client, tmp_path):
    outside, problems = await old_entry_open(editor_client, tmp_path, {})
    await problems.wait(outside / "old.md", lambda d: "dangling-superseded-by" in {str(x.code) for x in d})
    subprocess.run([str(GPTME_UTIL), "memory", "save", "newer", "The newer entry", "--type", "project"],
                   input="body\n", text=True, check=True, capture_output=True,
                   env={**os.environ, "GPTME_MEMORY_DIRS": str(outside), "MEMLS_MEMORY_DIRS": ""})
    assert (outside / "newer.md").is_file()
    if relative_watchers(editor_client):  # the editor watches that root for us and says so
        editor_client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=path_to_uri(outside / "newer.md"), type=types.FileChangeType.Created)]))
    await problems.wait(outside / "old.md", lambda d: "dangling-superseded-by" not in {str(x.code) for x in d})


def test_polling_backs_off_past_ten_thousand_files():
    assert poll_interval(500, 0.001) == POLL_SECONDS
    assert poll_interval(2 * BACKOFF_FILES, 0.001) == 2 * POLL_SECONDS
    # A slow disk: a round never takes more than a tenth of the time.
    assert poll_interval(500, 0.2) == pytest.approx(2.0)


@pytest.mark.parametrize("profile", EDITOR_PROFILES)
async def test_a_claude_code_root_created_after_the_start_is_served(profile, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    folder = tmp_path / "workspace"
    write_root(folder, {"inside.md": entry("inside")})
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "memls.lsp"],
        server_env={**os.environ, "MEMLS_MEMORY_DIRS": "", "GPTME_MEMORY_DIRS": "", "HOME": str(home),
                    "XDG_CONFIG_HOME": str(home / ".config"), "MEMLS_CACHE_DIR": str(tmp_path / "cache")})
    client = await config.start()
    try:
        client.memls_profile = profile  # type: ignore[attr-defined]
        act_as_editor(client)
        session, = await initialize_folders(client, [folder])
        await wait_until_scanned(client)
        cc = claude_code_memory_dir(folder, home=home)
        assert not cc.exists()
        # Claude Code saves its first memory for this project.
        cc.mkdir(parents=True)
        (cc / "from-claude.md").write_text(entry("from-claude", extra="supersedes:\n  - ghost\n"),
                                          encoding="utf-8")
        await ProblemList(session).wait(cc / "from-claude.md",
                                        lambda d: "dangling-supersedes" in {str(x.code) for x in d})
        info = await run_command(client, "memls.debugInfo")
        assert {"scope": "cc", "path": str(cc)}.items() <= next(
            r for r in info["roots"] if r["path"] == str(cc)).items()
        if profile == CURRENT_VSCODE:  # outside the folder: watched by the editor for the server
            assert await registered(client, (path_to_uri(cc), "*.md")), relative_watchers(client)
    finally:
        await client.shutdown_session()


async def test_a_rewrite_of_an_outside_root_file_keeping_its_size_and_mtime_is_seen(editor_client, tmp_path):
    """The name of a successor changes in place, the file's size kept and its mtime set back: the link dangles.

    Only the ctime tells (no process can set it back), so the server's poller
    compares it, as the editor's watcher reports any write.
    """
    back = "supersedes:\n  - old\n"
    outside, problems = await old_entry_open(editor_client, tmp_path, {"newer.md": entry("newer", extra=back)})
    await problems.wait(outside / "old.md", lambda d: not d)
    newer = outside / "newer.md"
    before = newer.stat()
    newer.write_text(entry("newes", extra=back), encoding="utf-8")
    os.utime(newer, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert newer.stat().st_size == before.st_size
    if relative_watchers(editor_client):  # the editor watches that root for us and says so
        editor_client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=path_to_uri(newer), type=types.FileChangeType.Changed)]))
    await problems.wait(outside / "old.md", lambda d: "dangling-superseded-by" in {str(x.code) for x in d})
