"""A restart over files no one changed: the last check's problems at once, the model completed after.

Two real server processes over stdio, one after the other, sharing a cache
directory (memls.store.warm_start). The files are dated in the past, as
files are that nobody touched for a while: files changed within the racy
window are never replayed.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, client_capabilities

from memls.lsp.convert import path_to_uri
from memls.store.cache import RACY_WINDOW_NS

from .conftest import act_as_editor, entry, run_command, wait_until_scanned, write_root

pytestmark = pytest.mark.timeout(120)


def write_workspace(folder: Path) -> Path:
    root = write_root(folder, {
        "a.md": entry("a", "first", extra="supersedes:\n  - ghost\n"),
        "b.md": entry("b", "second", extra="status: superseded\nsuperseded_by: c\n"),
        "c.md": entry("c", "third"),
        "broken.md": "---\nname: broken\ndescription: [unclosed\n---\n",
        "d.md": entry("d", "fourth"),
    })
    (root / "MEMORY.md").write_text("# Memory\n\n- [a](a.md) \u2014 first\n- [gone](gone.md) \u2014 gone\n",
                                    encoding="utf-8")
    return root


async def settle() -> None:
    """Wait out the racy window (memls.store.cache): a file's identity vouches for its bytes only after it."""
    await asyncio.sleep(RACY_WINDOW_NS / 1e9 + 0.1)


async def server(cache: Path, profile: str = "neovim"):
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "memls.lsp"],
        server_env={**os.environ, "MEMLS_MEMORY_DIRS": "", "GPTME_MEMORY_DIRS": "", "MEMLS_CACHE_DIR": str(cache)})
    client = await config.start()
    client.memls_profile = profile  # type: ignore[attr-defined]
    act_as_editor(client)
    return client


async def run_server(cache: Path, folder: Path, *, settings: dict | None = None, then=None,
                     whole: bool = False) -> tuple[dict, dict]:
    """Start a server on ``folder``, wait until it is whole and quiet; its diagnostics by URI and its debug info.

    ``whole``: each URI's diagnostics as the client holds them, every field
    (related information, tags, data, code description), not a summary.
    """
    client = await server(cache)
    try:
        await client.initialize_session(types.InitializeParams(
            capabilities=client_capabilities("neovim"),
            workspace_folders=[types.WorkspaceFolder(uri=path_to_uri(folder), name=folder.name)],
            root_uri=path_to_uri(folder), process_id=os.getpid(),
            initialization_options={"settings": settings or {}}))
        info = await wait_until_scanned(client, timeout=30)
        if then is not None:
            await then(client)
        await asyncio.sleep(0.5)  # the scan's problems are published
        info = await run_command(client, "memls.debugInfo")
        if whole:
            return {uri: list(diags) for uri, diags in client.diagnostics.items() if diags}, info
        diagnostics = {uri: sorted((d.range.start.line, d.range.start.character, str(d.code), d.message)
                                   for d in diags)
                       for uri, diags in client.diagnostics.items() if diags}
        return diagnostics, info
    finally:
        await client.shutdown_session()


async def checked_once(tmp_path: Path) -> tuple[Path, Path, Path]:
    """The workspace, settled and checked by one server: the folder, its root, and the cache the next start reads."""
    folder, cache = tmp_path / "repo", tmp_path / "cache"
    root = write_workspace(folder)
    await settle()
    await run_server(cache, folder)
    return folder, root, cache


def replayed(info: dict) -> bool:
    return "replayed_start_seconds" in info["timings"]


def rechecked_from_stored(info: dict) -> bool:
    """The start brought the last check's results up to date from the stored facts, without the model."""
    return "incremental_start_seconds" in info["timings"]


async def test_a_restart_over_unchanged_files_shows_at_once_the_problems_a_cold_start_shows(tmp_path):
    folder = tmp_path / "repo"
    write_workspace(folder)
    await settle()
    cold, cold_info = await run_server(tmp_path / "cache", folder)
    assert not replayed(cold_info)
    assert len(cold) >= 3  # a dangling link, an asymmetric pair, invalid YAML, the index
    warm, warm_info = await run_server(tmp_path / "cache", folder)
    assert replayed(warm_info)
    assert warm == cold


async def test_a_replayed_start_publishes_every_field_a_cold_start_publishes(tmp_path):
    """The replay's problems go out in wire form built directly (memls.lsp.diagnostics.publish_checked).

    What the client holds must be what the LSP objects of a cold start give:
    positions in its units past a character UTF-16 counts twice, related
    information, tags, the code's page and the data code actions read.
    """
    folder = tmp_path / "repo"
    root = write_workspace(folder)
    (root / "wide.md").write_text(entry("wide", "\U0001F600 wide", extra='supersedes:\n  - "\U0001F600 ghost"\n'),
                                  encoding="utf-8")
    # ASCII up to its problem, wide after it: placed from its text, as a wholly ASCII file is placed without it.
    (root / "later.md").write_text(entry("later", "later", extra="supersedes:\n  - phantom\n") + "\U0001F600 body\n",
                                   encoding="utf-8")
    # f names g as its successor, but g is superseded in turn: a reference tagged deprecated.
    for name, extra in (("f", "status: superseded\nsuperseded_by: g\n"),
                        ("g", "status: superseded\nsuperseded_by: h\nsupersedes:\n  - f\n"),
                        ("h", "supersedes:\n  - g\n")):
        (root / f"{name}.md").write_text(entry(name, name, extra=extra), encoding="utf-8")
    await settle()
    cold, cold_info = await run_server(tmp_path / "cache", folder, whole=True)
    assert not replayed(cold_info)
    warm, warm_info = await run_server(tmp_path / "cache", folder, whole=True)
    assert replayed(warm_info)
    assert warm == cold
    diags = [d for diags in warm.values() for d in diags]
    assert any(d.related_information for d in diags) and any(d.tags for d in diags)
    assert all(d.data and d.code_description for d in diags)
    wide = warm[path_to_uri(root / "wide.md")]
    # The client counts UTF-8 bytes: the emoji is four of them, one code point.
    assert [d.range.end.character for d in wide if d.code == "dangling-supersedes"] \
        == [len('  - "\U0001F600 ghost"'.encode("utf-8"))]
    assert [d.code for d in warm[path_to_uri(root / "later.md")]] == ["dangling-supersedes"]


async def test_a_file_changed_while_no_server_ran_is_rechecked_from_the_stored_results_not_replayed(tmp_path):
    """The start shows the re-check's answer, then stores it: the next start replays it."""
    folder, root, cache = await checked_once(tmp_path)
    (root / "d.md").write_text(entry("d", "fourth", extra="supersedes:\n  - phantom\n"), encoding="utf-8")
    await settle()
    warm, info = await run_server(tmp_path / "cache", folder)
    assert not replayed(info) and rechecked_from_stored(info)
    assert "dangling-supersedes" in {code for _, _, code, _ in warm[path_to_uri(root / "d.md")]}
    cold, _ = await run_server(tmp_path / "other-cache", folder)
    assert warm == cold
    again, info = await run_server(tmp_path / "cache", folder)
    assert replayed(info) and again == cold


async def test_a_file_changed_just_now_is_never_replayed_even_with_its_old_size_and_date_kept(tmp_path):
    folder, root, cache = await checked_once(tmp_path)
    # Same size, same mtime: only the ctime (and the racy window) can tell.
    before = (root / "c.md").stat()
    text = (root / "c.md").read_text(encoding="utf-8").replace("third", "thirD")
    (root / "c.md").write_text(text, encoding="utf-8")
    os.utime(root / "c.md", ns=(before.st_atime_ns, before.st_mtime_ns))
    await settle()
    _, info = await run_server(tmp_path / "cache", folder)
    assert not replayed(info) and rechecked_from_stored(info)


async def test_an_added_file_a_deleted_file_and_a_rewritten_index_are_rechecked_not_replayed(tmp_path):
    folder, root, cache = await checked_once(tmp_path)
    (root / "e.md").write_text(entry("e", "fifth", extra="supersedes:\n  - nowhere\n"), encoding="utf-8")
    await settle()
    added, info = await run_server(cache, folder)
    assert not replayed(info) and rechecked_from_stored(info) and path_to_uri(root / "e.md") in added
    (root / "a.md").unlink()
    await settle()
    deleted, info = await run_server(cache, folder)
    assert not replayed(info) and rechecked_from_stored(info) and path_to_uri(root / "a.md") not in deleted
    index = root / "MEMORY.md"
    index.write_text(index.read_text(encoding="utf-8").replace("- [gone](gone.md) \u2014 gone\n", ""),
                     encoding="utf-8")
    await settle()
    rewritten, info = await run_server(cache, folder)
    assert not replayed(info) and rechecked_from_stored(info)
    assert rewritten == (await run_server(tmp_path / "other-cache", folder))[0]


async def test_other_settings_are_not_replayed(tmp_path):
    folder, root, cache = await checked_once(tmp_path)
    quiet, info = await run_server(tmp_path / "cache", folder, settings={"severity": {"dangling-supersedes": "off"}})
    assert not replayed(info)
    assert "dangling-supersedes" not in {code for _, _, code, _ in quiet.get(path_to_uri(root / "a.md"), [])}


async def test_a_file_another_process_writes_after_a_replayed_start_is_seen_by_the_servers_own_poller(tmp_path):
    """The Neovim profile watches nothing for the server: its poller's first look is the start's listing."""
    folder = tmp_path / "repo"
    root = write_workspace(folder)
    await settle()
    before, _ = await run_server(tmp_path / "cache", folder)

    async def written_after_the_start(client) -> None:
        subprocess.run([sys.executable, "-c", "import pathlib, sys; pathlib.Path(sys.argv[1]).write_text(sys.argv[2])",
                        str(root / "c.md"), entry("c", "third", extra="supersedes:\n  - ghost3\n")], check=True)
        uri = path_to_uri(root / "c.md")
        deadline = asyncio.get_running_loop().time() + 20
        while not any("ghost3" in d.message for d in client.diagnostics.get(uri, [])):
            assert asyncio.get_running_loop().time() < deadline, "the write was never seen"
            await asyncio.sleep(0.05)

    after, info = await run_server(tmp_path / "cache", folder, then=written_after_the_start)
    assert replayed(info)
    # Only what changed: every other file holds what the first server published.
    changed = path_to_uri(root / "c.md")
    assert any("ghost3" in message for *_, message in after.pop(changed))
    before.pop(changed, None)
    assert after == before


async def test_an_edit_right_after_a_replayed_start_waits_for_the_model_and_gets_the_whole_models_answer(tmp_path):
    folder = tmp_path / "repo"
    root = write_workspace(folder)
    for i in range(2000):  # enough that the model is still loading when the edit arrives
        (root / f"n{i}.md").write_text(entry(f"n{i}", f"note {i}"), encoding="utf-8")
    (root / "last.md").write_text(entry("zz-last", "loaded last"), encoding="utf-8")
    await settle()
    await run_server(tmp_path / "cache", folder)
    client = await server(tmp_path / "cache")
    try:
        await client.initialize_session(types.InitializeParams(
            capabilities=client_capabilities("neovim"),
            workspace_folders=[types.WorkspaceFolder(uri=path_to_uri(folder), name=folder.name)],
            root_uri=path_to_uri(folder), process_id=os.getpid()))
        uri = path_to_uri(root / "d.md")
        deadline = asyncio.get_running_loop().time() + 30
        while not any(reports and isinstance(reports[-1], types.WorkDoneProgressEnd)
                      for reports in client.progress_reports.values()):
            assert asyncio.get_running_loop().time() < deadline, "the scan never ended"
            await asyncio.sleep(0.01)
        # At once after the scan's end: d now supersedes the entry the model loads last, and a ghost.
        text = entry("d", "fourth", extra="supersedes:\n  - zz-last\n  - ghost2\n")
        client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=uri, language_id="markdown", version=1, text=text)))
        definition = await client.text_document_definition_async(types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=6, character=6)))
        assert definition, "the definition of zz-last is answered from the whole model"
        deadline = asyncio.get_running_loop().time() + 30
        while True:
            diags = client.diagnostics.get(uri, [])
            messages = [d.message for d in diags if d.code == "dangling-supersedes"]
            if messages:
                break
            assert asyncio.get_running_loop().time() < deadline, f"never checked: {diags}"
            await asyncio.sleep(0.05)
        assert all("zz-last" not in m for m in messages) and any("ghost2" in m for m in messages)
        info = await run_command(client, "memls.debugInfo")
        assert replayed(info)
        # The supersedes link names an entry that does not point back: the model knows zz-last.
        last = client.diagnostics.get(path_to_uri(root / "last.md"), [])
        assert all(d.code != "dangling-supersedes" for d in last)
    finally:
        await client.shutdown_session()


async def start_with_buffers(cache: Path, folder: Path | list[Path], buffers: dict[Path, str],
                             undone: dict[Path, str] | None = None) -> tuple[dict, dict, dict]:
    """A start (of one workspace folder, or several) whose editor reopens ``buffers`` (unsaved tabs) right after ``initialized``.

    ``undone``: tabs the user then at once reverts to their files' text
    (``"revert"``) or closes (``"close"``), before the scan can end.

    The diagnostics the client holds when the scan's ``$/progress`` end
    arrives, those it holds once the server is whole and quiet, and the
    server's debug info (every field of every diagnostic).
    """
    client = await server(cache)
    at_end: dict = {}
    ended: list[bool] = []
    progress = client.protocol.fm.features[types.PROGRESS]

    def snapshot_at_end(params: types.ProgressParams) -> None:
        progress(params)
        if isinstance(client.progress_reports[params.token][-1], types.WorkDoneProgressEnd):
            at_end.update({uri: list(diags) for uri, diags in client.diagnostics.items() if diags})
            ended.append(True)

    client.protocol.fm.features[types.PROGRESS] = snapshot_at_end
    folders = folder if isinstance(folder, list) else [folder]
    try:
        await client.initialize_session(types.InitializeParams(
            capabilities=client_capabilities("neovim"),
            workspace_folders=[types.WorkspaceFolder(uri=path_to_uri(f), name=f.name) for f in folders],
            root_uri=path_to_uri(folders[0]), process_id=os.getpid()))
        for path, text in buffers.items():
            client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
                uri=path_to_uri(path), language_id="markdown", version=1, text=text)))
        for path, how in (undone or {}).items():
            document = types.VersionedTextDocumentIdentifier(uri=path_to_uri(path), version=2)
            if how == "revert":
                client.text_document_did_change(types.DidChangeTextDocumentParams(
                    text_document=document, content_changes=[
                        types.TextDocumentContentChangeWholeDocument(text=path.read_text(encoding="utf-8"))]))
            else:
                client.text_document_did_close(types.DidCloseTextDocumentParams(
                    text_document=types.TextDocumentIdentifier(uri=document.uri)))
        info = await wait_until_scanned(client, timeout=30)
        await asyncio.sleep(1.0)  # every check after the scan is published
        info = await run_command(client, "memls.debugInfo")
        assert ended, "the scan's end was never reported"
        whole = {uri: list(diags) for uri, diags in client.diagnostics.items() if diags}
        return at_end, whole, info
    finally:
        await client.shutdown_session()


async def test_a_replayed_start_with_reopened_unsaved_buffers_ends_holding_what_a_cold_start_holds(tmp_path):
    """Buffers unlike their files (an editor restoring unsaved tabs) are checked, with what they touch, before the end.

    On disk b is superseded by c, which does not list it back (b's problem, in
    the replay); the buffer of c lists it, so b's problem is stale. An unsaved
    new file names a successor no entry has: its problem involves the model.
    """
    folder = tmp_path / "repo"
    root = write_workspace(folder)
    await settle()
    cache = tmp_path / "cache"
    await run_server(cache, folder)  # the check the next start replays
    buffers = {root / "c.md": entry("c", "third", extra="supersedes:\n  - b\n"),
               root / "new.md": entry("new", "unsaved", extra="superseded_by: nobody\n")}
    at_end, warm, info = await start_with_buffers(cache, folder, buffers)
    assert replayed(info)
    _, cold, cold_info = await start_with_buffers(tmp_path / "other-cache", folder, buffers)
    assert not replayed(cold_info)
    b, new = path_to_uri(root / "b.md"), path_to_uri(root / "new.md")
    assert b not in cold and "dangling-superseded-by" in {d.code for d in cold[new]}
    assert warm == cold
    assert at_end == cold


async def test_a_replayed_start_with_reopened_unsaved_entries_rechecks_them_from_the_stored_results(tmp_path):
    """Unsaved buffers of existing entries: what they touch is re-checked without the model, and holds.

    The buffer of c lists b back (b's replayed problem is stale); the buffer
    of a links to d instead of a missing memory (a's replayed problem is
    stale) and has a new one of its own, a successor no entry has; the
    buffer of d is half typed (its YAML does not load).
    """
    folder, root, cache = await checked_once(tmp_path)
    buffers = {root / "c.md": entry("c", "third", extra="supersedes:\n  - b\n"),
               root / "a.md": entry("a", "first", extra="superseded_by: nobody\nsupersedes:\n  - d\n"),
               root / "d.md": "---\nname: d\ndescription: [half typed\n---\n"}
    at_end, warm, info = await start_with_buffers(cache, folder, buffers)
    assert replayed(info) and "reopened_rechecked_seconds" in info["timings"]
    _, cold, cold_info = await start_with_buffers(tmp_path / "other-cache", folder, buffers)
    assert not replayed(cold_info)
    a, b = path_to_uri(root / "a.md"), path_to_uri(root / "b.md")
    assert b not in cold and "dangling-superseded-by" in {d.code for d in cold[a]}
    assert warm == cold
    assert at_end == cold


async def test_a_start_after_files_changed_with_reopened_unsaved_entries_ends_holding_what_a_cold_start_holds(tmp_path):
    """Files changed while no server ran, and unsaved tabs over others: both re-checked from the stored facts.

    On disk since the last check: d gained a dangling link, and c lists b
    back (b's stored problem is stale). The buffer of a names a successor no
    entry has.
    """
    folder, root, cache = await checked_once(tmp_path)
    (root / "d.md").write_text(entry("d", "fourth", extra="supersedes:\n  - phantom\n"), encoding="utf-8")
    (root / "c.md").write_text(entry("c", "third", extra="supersedes:\n  - b\n"), encoding="utf-8")
    await settle()
    buffers = {root / "a.md": entry("a", "first", extra="superseded_by: nobody\n")}
    at_end, warm, info = await start_with_buffers(cache, folder, buffers)
    assert rechecked_from_stored(info) and "reopened_rechecked_seconds" in info["timings"]
    _, cold, cold_info = await start_with_buffers(tmp_path / "other-cache", folder, buffers)
    assert not rechecked_from_stored(cold_info) and not replayed(cold_info)
    a, b, d = (path_to_uri(root / f"{name}.md") for name in "abd")
    assert b not in cold and "dangling-supersedes" in {x.code for x in cold[d]}
    assert "dangling-superseded-by" in {x.code for x in cold[a]}
    assert warm == cold
    assert at_end == cold


@pytest.mark.parametrize("warm", [True, False], ids=["replayed", "checked-in-full"])
@pytest.mark.parametrize("how", ["revert", "close"])
async def test_a_restored_tab_reverted_or_closed_before_the_end_keeps_none_of_its_unsaved_problems(tmp_path, warm, how):
    """The first text's own problems, shown while the scan ran, are withdrawn by the end.

    The restored tab of d names it c (a duplicate, and a name unlike its
    file's), and the user reverts it or closes it at once: the end must hold
    what its file has (nothing), not the lone check of a text that is gone.
    """
    folder, root, cache = await checked_once(tmp_path)
    d = root / "d.md"
    buffers = {d: entry("c", "fourth")}
    at_end, whole, info = await start_with_buffers(cache if warm else tmp_path / "other-cache", folder, buffers,
                                                   undone={d: how})
    assert replayed(info) == warm
    assert path_to_uri(d) not in whole
    assert at_end == whole


async def test_a_replayed_start_with_documents_reopened_as_their_files_ends_holding_their_replayed_problems(tmp_path):
    """A buffer equal to its file: the replay is right for it, shown before the end like a closed file's.

    b (superseded by c, which does not list it back) and the index (a line
    to a gone file) have problems only the whole model finds; their own
    lone checks find none of those.
    """
    folder, root, cache = await checked_once(tmp_path)
    buffers = {path: path.read_text(encoding="utf-8") for path in (root / "b.md", root / "MEMORY.md")}
    at_end, warm, info = await start_with_buffers(cache, folder, buffers)
    assert replayed(info)
    _, cold, _ = await start_with_buffers(tmp_path / "other-cache", folder, buffers)
    assert path_to_uri(root / "b.md") in cold and path_to_uri(root / "MEMORY.md") in cold
    assert warm == cold
    assert at_end == cold


@pytest.mark.parametrize("folders", [1, 2])
async def test_a_start_that_checks_in_full_ends_its_scan_once_the_problems_are_out(tmp_path, folders):
    """Nothing to replay (no cache; several folders never replay): the end still follows what the check found.

    A client that reads the workspace's problems when the scan ends (a
    script, a status line) must not find them missing for the moment the
    check takes to publish.
    """
    roots = [tmp_path / f"repo{i}" for i in range(folders)]
    for folder in roots:
        write_workspace(folder)
    at_end, whole, info = await start_with_buffers(tmp_path / "cache", roots, {})
    assert not replayed(info)
    assert len(whole) >= 3 * folders
    assert at_end == whole


@pytest.mark.parametrize("folders", [1, 2])
async def test_a_start_that_checks_in_full_ends_holding_the_problems_of_reopened_unsaved_buffers(tmp_path, folders):
    """Restored tabs at a start with nothing to replay: the end holds their problems too.

    The buffer of c lists b back (b's problem on disk is gone), an unsaved
    new file names a successor no entry has, and a's tab holds its file's
    text (its link to a missing memory is the check's problem, not its own
    check's after the end).
    """
    roots = [tmp_path / f"repo{i}" for i in range(folders)]
    for folder in roots:
        write_workspace(folder)
    root = roots[0] / "memory"
    buffers = {root / "c.md": entry("c", "third", extra="supersedes:\n  - b\n"),
               root / "new.md": entry("new", "unsaved", extra="superseded_by: nobody\n"),
               root / "a.md": (root / "a.md").read_text(encoding="utf-8")}
    at_end, whole, info = await start_with_buffers(tmp_path / "cache", roots, buffers)
    assert not replayed(info)
    a, b, new = (path_to_uri(root / name) for name in ("a.md", "b.md", "new.md"))
    assert b not in whole and "dangling-superseded-by" in {d.code for d in whole[new]}
    assert "dangling-supersedes" in {d.code for d in whole[a]}
    assert at_end == whole


async def test_a_start_that_checks_in_full_ends_holding_the_problems_of_tabs_reopened_as_their_files(tmp_path):
    """A tab holding its file's text gets the full check's problems at the end, not a lone check's after it."""
    folder = tmp_path / "repo"
    root = write_workspace(folder)
    buffers = {root / name: (root / name).read_text(encoding="utf-8") for name in ("a.md", "b.md")}
    at_end, whole, info = await start_with_buffers(tmp_path / "cache", folder, buffers)
    assert not replayed(info)
    assert "dangling-supersedes" in {d.code for d in at_end[path_to_uri(root / "a.md")]}
    assert at_end == whole


def test_the_server_starts_without_loading_the_yaml_library():
    """A start that replays the last check parses nothing; PyYAML loads with the first frontmatter read.

    Its import compiles the resolvers' patterns, a tenth of what memls adds to
    a warm start. Any module the server imports at start that imports ``yaml``
    at its top undoes that.
    """
    probe = "import sys; from memls.lsp.server import create_server; create_server(); print('yaml' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_server_starts_without_loading_what_only_requests_and_settings_files_need():
    """A replayed start answers no request before its scan ends: the engine's request modules load with the first.

    Navigation, hover, symbols, completion, lenses, recall, the Memories
    view and the TOML reader (a workspace without a settings file) together
    were a fifth of memls's imports at start; the index's writer loads with
    the first save, the fix writer (with its transaction) with the first fix
    written to disk, the formatter with the first formatting, "fix all" with
    the first such action and the edit differ with the first edit of a buffer.
    """
    later = ["memls.store.recall", "memls.store.completion", "memls.store.hover", "memls.store.symbols",
             "memls.store.lenses", "memls.store.links", "memls.store.memories", "memls.store.store", "tomllib",
             "memls.store.index_sync", "memls.store.apply", "memls.store.files", "memls.store.formatting",
             "memls.store.rewrite", "memls.store.fix_merge", "memls.lsp.text_edits"]
    probe = ("import sys; from memls.lsp.server import create_server; create_server(); "
             f"print([m for m in {later!r} if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
