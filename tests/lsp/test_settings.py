"""Settings from ``initializationOptions``, ``workspace/configuration`` and
``didChangeConfiguration`` reach the checks and the roots, in every client profile."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from memls.lsp.convert import path_to_uri
from memls.lsp.server import _configure_and_load_new_roots

from .conftest import (
    ProblemList,
    Session,
    entry,
    initialize_folders,
    unit_state,
    wait_until_scanned,
    write_root,
)

DANGLING = entry("old", extra="status: superseded\nsuperseded_by: nwe\ncolour: red\n")
OFF = {"severity": {"dangling-superseded-by": "off"}}


def checked_without_dangling(session):
    """The document was checked (its unknown key is reported) and the dangling link is not."""
    return lambda d: "unknown-key" in session.codes(d) and "dangling-superseded-by" not in session.codes(d)


async def test_a_severity_override_in_initialization_options_turns_a_check_off(start):
    session = await start({"old.md": DANGLING}, settings=OFF)
    session.open("old.md")
    await session.diagnostics("old.md", checked_without_dangling(session))


async def test_a_severity_override_from_workspace_configuration_turns_a_check_off(client, start):
    client.set_configuration(OFF, section="memls")
    session = await start({"old.md": DANGLING})
    await wait_until_scanned(client)
    session.open("old.md")
    await session.diagnostics("old.md", checked_without_dangling(session))


async def test_did_change_configuration_turns_a_check_off_live(start):
    session = await start({"old.md": DANGLING})
    session.open("old.md")
    await session.diagnostics("old.md", lambda d: "dangling-superseded-by" in session.codes(d))
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"memls": OFF}))
    await session.diagnostics("old.md", checked_without_dangling(session))


def far_root(tmp_path: Path) -> Path:
    """A directory that is no memory root by its look: only settings make it one."""
    far = tmp_path / "elsewhere" / "notes"
    far.mkdir(parents=True)
    (far / "far.md").write_text(entry("far-away", description="lives outside the workspace"), encoding="utf-8")
    return far


async def far_symbols(client):
    await wait_until_scanned(client)
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="far-away"))
    return [s.location.uri for s in found]


async def test_an_extra_root_in_initialization_options_is_scanned(start, tmp_path):
    far = far_root(tmp_path)
    session = await start({"a.md": entry("a")}, settings={"roots": [str(far)]})
    assert await far_symbols(session.client) == [path_to_uri(far / "far.md")]


async def test_an_extra_root_from_workspace_configuration_is_scanned(client, start, tmp_path):
    far = far_root(tmp_path)
    client.set_configuration({"roots": [str(far)]}, section="memls")
    await start({"a.md": entry("a")})
    assert await far_symbols(client) == [path_to_uri(far / "far.md")]


def test_a_root_added_by_changed_settings_is_loaded_at_once(tmp_path, monkeypatch):
    for var in ("MEMLS_MEMORY_DIRS", "GPTME_MEMORY_DIRS", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no user-level roots of this machine
    far = far_root(tmp_path)
    state = unit_state(tmp_path, {"a.md": entry("a")})
    _configure_and_load_new_roots(state, {"roots": [str(far)]})
    doc = state.workspace.document(far / "far.md")
    assert doc is not None and doc.name == "far-away"
    assert state.settings.roots == (far,)


def two_folders_with_a_dangling_link(tmp_path: Path) -> tuple[Path, Path]:
    alpha, beta = tmp_path / "alpha", tmp_path / "beta"
    for folder in (alpha, beta):
        write_root(folder, {"old.md": DANGLING})
    return alpha, beta


async def _shown(client, folder: Path):
    problems = ProblemList(Session(client, folder))
    return await problems.wait(folder / "memory" / "old.md", lambda d: "unknown-key" in {str(x.code) for x in d})


async def test_a_folders_own_settings_from_the_editor_apply_to_that_folder_only(client, tmp_path):
    alpha, beta = two_folders_with_a_dangling_link(tmp_path)
    client.set_configuration(OFF, section="memls", scope_uri=path_to_uri(beta))
    await initialize_folders(client, [alpha, beta])
    await wait_until_scanned(client)
    assert "dangling-superseded-by" in {str(d.code) for d in await _shown(client, alpha)}
    assert "dangling-superseded-by" not in {str(d.code) for d in await _shown(client, beta)}


async def test_a_folders_settings_file_applies_to_that_folder_only(client, tmp_path):
    alpha, beta = two_folders_with_a_dangling_link(tmp_path)
    (beta / ".memls.toml").write_text('[severity]\n"dangling-superseded-by" = "off"\n', encoding="utf-8")
    await initialize_folders(client, [alpha, beta])
    await wait_until_scanned(client)
    assert "dangling-superseded-by" in {str(d.code) for d in await _shown(client, alpha)}
    assert "dangling-superseded-by" not in {str(d.code) for d in await _shown(client, beta)}


def report_written(session: Session, path: Path, change: types.FileChangeType) -> None:
    """What an editor with a watcher sends; Neovim watches nothing (the server polls the folder)."""
    caps = session.client.capabilities
    if caps and caps.workspace and caps.workspace.did_change_watched_files \
            and caps.workspace.did_change_watched_files.dynamic_registration:
        session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=path_to_uri(path), type=change)]))


async def test_a_settings_file_written_while_the_server_runs_changes_the_diagnostics(start):
    """As ``memls check`` reads ``.memls.toml`` and ``pyproject.toml`` on every run, the server reads them again."""
    session = await start({"old.md": DANGLING})
    session.open("old.md")
    await session.diagnostics("old.md", lambda d: "dangling-superseded-by" in session.codes(d))
    own = session.folder / ".memls.toml"
    own.write_text('[severity]\n"dangling-superseded-by" = "off"\n', encoding="utf-8")
    report_written(session, own, types.FileChangeType.Created)
    await session.diagnostics("old.md", checked_without_dangling(session))
    own.unlink()
    report_written(session, own, types.FileChangeType.Deleted)
    await session.diagnostics("old.md", lambda d: "dangling-superseded-by" in session.codes(d))
    pyproject = session.folder / "pyproject.toml"
    pyproject.write_text('[tool.memls.severity]\n"dangling-superseded-by" = "hint"\n', encoding="utf-8")
    report_written(session, pyproject, types.FileChangeType.Created)
    await session.diagnostics("old.md", lambda d: any(
        str(x.code) == "dangling-superseded-by" and x.severity == types.DiagnosticSeverity.Hint for x in d))


async def test_a_client_that_watches_for_the_server_is_asked_to_watch_the_settings_files(start):
    session = await start({"old.md": DANGLING})
    await wait_until_scanned(session.client)
    globs = {w["globPattern"] for r in session.client.registrations  # type: ignore[attr-defined]
             if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES  # options arrive as JSON
             for w in r.register_options["watchers"] if isinstance(w["globPattern"], str)}
    caps = session.client.capabilities
    dynamic = bool(caps and caps.workspace and caps.workspace.did_change_watched_files
                   and caps.workspace.did_change_watched_files.dynamic_registration)
    assert ({"**/.memls.toml", "**/pyproject.toml"} <= globs) is dynamic


async def test_a_root_dropped_by_settings_and_named_again_serves_the_open_buffer_and_its_edits(start, tmp_path):
    far = far_root(tmp_path)
    session = await start({"a.md": entry("a")}, settings={"roots": [str(far)]})
    await wait_until_scanned(session.client)
    uri = path_to_uri(far / "far.md")
    typed = entry("far-away", description="lives outside the workspace", extra="supersedes:\n  - ghost1\n")

    def change(text: str, version: int) -> None:
        session.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))

    def settings(roots: list[str]) -> None:
        session.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"memls": {"roots": roots}}))

    session.client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="markdown", version=1, text=(far / "far.md").read_text(encoding="utf-8"))))
    change(typed, 2)
    problems = ProblemList(session)
    await problems.wait(far / "far.md", lambda d: any("ghost1" in x.message for x in d))
    settings([])
    await problems.wait(far / "far.md", lambda d: d == [])
    settings([str(far)])
    # The buffer, not the file, as when the root first came; and the edits after it.
    await problems.wait(far / "far.md", lambda d: any("ghost1" in x.message for x in d))
    change(typed.replace("ghost1", "ghost2"), 3)
    await problems.wait(far / "far.md", lambda d: any("ghost2" in x.message for x in d))
