"""End-to-end fixtures: the real server over stdio, driven by pytest-lsp.

Every test runs once per client profile captured from a real editor
(VS Code 1.65, Neovim 0.11, Emacs 29.1 eglot), so the push/pull choice,
watcher fallback and edit capabilities are exercised the way each editor
meets them. ``LspSpecificationWarning`` is an error (see pyproject.toml).
"""

from __future__ import annotations

import asyncio
import atexit
import os
import re
import shutil
import sys
import tempfile
import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Union

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from memls.lsp.convert import path_to_uri

# The servers' environment, fixed when this module is imported (the fixtures'
# configuration is): the per-test cache directory of tests/conftest.py is set
# later, so the servers get one cache directory of their own for the run
# rather than the real ~/.cache, which test roots (a parse cache and a lease
# file each) filled by the thousand.
_SERVERS_CACHE = tempfile.mkdtemp(prefix="memls-test-servers-cache-")
atexit.register(shutil.rmtree, _SERVERS_CACHE, ignore_errors=True)
SERVER_ENV = {**os.environ, "MEMLS_MEMORY_DIRS": "", "GPTME_MEMORY_DIRS": "", "MEMLS_CACHE_DIR": _SERVERS_CACHE}

PROFILES = ("visual-studio-code", "neovim", "emacs")
WAIT = 10.0


def entry(name: str, description: str = "d", extra: str = "", body: str = "", type_: str = "project") -> str:
    """A valid entry; ``extra`` is raw YAML appended to the frontmatter."""
    return (
        f'---\nname: {name}\ndescription: "{description}"\nmetadata:\n  type: {type_}\n'
        + textwrap.dedent(extra) + "---\n\n" + body
    )



def act_as_editor(lsp_client: LanguageClient) -> None:
    """Answer the server's requests as an editor does, and record them.

    ``client/registerCapability`` is accepted (kept in ``registrations``, until
    ``client/unregisterCapability`` takes it back),
    ``workspace/applyEdit`` is applied (kept in ``applied_edits``) and
    ``workspace/codeLens/refresh`` is counted (``code_lens_refreshes``).
    """
    lsp_client.registrations = []  # type: ignore[attr-defined]
    lsp_client.applied_edits = []  # type: ignore[attr-defined]
    lsp_client.code_lens_refreshes = 0  # type: ignore[attr-defined]
    tell_commands_from_code_actions(lsp_client)

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: types.RegistrationParams) -> None:
        lsp_client.registrations.extend(params.registrations)  # type: ignore[attr-defined]

    @lsp_client.feature(types.CLIENT_UNREGISTER_CAPABILITY)
    def unregister_capability(params: types.UnregistrationParams) -> None:
        gone = {u.id for u in params.unregisterations}
        lsp_client.registrations[:] = [  # type: ignore[attr-defined]
            r for r in lsp_client.registrations if r.id not in gone]  # type: ignore[attr-defined]

    @lsp_client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        lsp_client.applied_edits.append(params)  # type: ignore[attr-defined]
        return types.ApplyWorkspaceEditResult(applied=True)

    @lsp_client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def code_lens_refresh(params: None) -> None:
        lsp_client.code_lens_refreshes += 1  # type: ignore[attr-defined]


def tell_commands_from_code_actions(lsp_client: LanguageClient) -> None:
    """Read a code action that carries a command as a ``CodeAction``, as editors do.

    lsprotocol takes any item with a ``command`` key for a ``Command``; the
    spec tells them apart by the type of ``command`` (a string only in a
    ``Command``), and so do VS Code and Neovim.
    """
    converter = lsp_client.protocol._converter

    def structure(obj, _type):
        kind = types.Command if isinstance(obj.get("command"), str) else types.CodeAction
        return converter.structure(obj, kind)

    converter.register_structure_hook(types.Command | types.CodeAction, structure)
    converter.register_structure_hook(Union[types.Command, types.CodeAction], structure)  # noqa: UP007


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "memls.lsp"],
        server_env=SERVER_ENV,
    ),
    params=PROFILES,
)
async def client(request, lsp_client: LanguageClient):
    lsp_client.memls_profile = request.param  # type: ignore[attr-defined]
    act_as_editor(lsp_client)
    yield
    await lsp_client.shutdown_session()


# The real server, but taking a change of ``busy.md`` in takes 0.5 s, as any job may on
# a loaded machine: the changes sent meanwhile wait for the engine together.
BUSY_ENGINE_SOURCE = """
import time
from memls.lsp.state import ServerState
change = ServerState.change
def slow_change(self, path, text, version):
    if path.name == "busy.md":
        time.sleep(0.5)
    if path.name == "fails.md" and "fail now" in text:
        raise RuntimeError("injected failure taking a change")
    return change(self, path, text, version)
ServerState.change = slow_change
from memls.lsp.server import main
main()
"""


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-c", BUSY_ENGINE_SOURCE],
                                              server_env=SERVER_ENV))
async def busy_client(lsp_client: LanguageClient):
    """A Neovim-like client of a server whose engine is busy while ``busy.md`` changes.

    Taking in a change of ``fails.md`` whose text says "fail now" raises.
    """
    lsp_client.memls_profile = "neovim"  # type: ignore[attr-defined]
    act_as_editor(lsp_client)
    yield
    await lsp_client.shutdown_session()


class Session:
    """A workspace folder with a memory root, and the client that opened it."""

    def __init__(self, client: LanguageClient, folder: Path):
        self.client = client
        self.folder = folder
        self.root = folder / "memory"

    @property
    def profile(self) -> str:
        return self.client.memls_profile  # type: ignore[attr-defined]

    @property
    def pull(self) -> bool:
        return self.profile == "visual-studio-code" and False

    def uri(self, name: str) -> str:
        return path_to_uri(self.root / name)

    def open(self, name: str, text: str | None = None, version: int = 1) -> str:
        path = self.root / name
        if text is None:
            text = path.read_text(encoding="utf-8")
        uri = path_to_uri(path)
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="markdown", version=version, text=text)))
        return uri

    def change(self, name: str, text: str, version: int) -> None:
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=self.uri(name), version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))

    async def diagnostics(self, name: str, predicate: Callable[[list[types.Diagnostic]], bool] = bool,
                          timeout: float = WAIT) -> list[types.Diagnostic]:
        """The diagnostics of a file once ``predicate`` holds (push or pull, as the client does)."""
        uri = self.uri(name)
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            current = await self._current(uri)
            if predicate(current):
                return current
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"diagnostics of {name} never matched; last: {current}")
            await asyncio.sleep(0.05)

    async def _current(self, uri: str) -> list[types.Diagnostic]:
        caps = self.client.capabilities
        pull = bool(caps and caps.text_document and caps.text_document.diagnostic
                    and caps.workspace and caps.workspace.diagnostics
                    and caps.workspace.diagnostics.refresh_support)
        if pull:
            report = await self.client.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri)))
            return list(getattr(report, "items", None) or [])
        return list(self.client.diagnostics.get(uri, []))

    def codes(self, diagnostics: list[types.Diagnostic]) -> set[str]:
        return {str(d.code) for d in diagnostics}


@pytest.fixture
def start(client: LanguageClient, tmp_path: Path):
    """``await start({"a.md": text, ...})`` writes the root and initializes the session.

    The server's ``InitializeResult`` is kept as ``session.initialize_result``.
    """

    async def _start(files: Mapping[str, str], *, settings: dict | None = None,
                     index: str | None = None) -> Session:
        folder = tmp_path / "workspace"
        root = folder / "memory"
        root.mkdir(parents=True)
        for name, text in files.items():
            (root / name).write_text(text, encoding="utf-8")
        if index is not None:
            (root / "MEMORY.md").write_text(index, encoding="utf-8")
        profile = client.memls_profile  # type: ignore[attr-defined]
        result = await client.initialize_session(types.InitializeParams(
            capabilities=client_capabilities(profile),
            workspace_folders=[types.WorkspaceFolder(uri=path_to_uri(folder), name="workspace")],
            root_uri=path_to_uri(folder),
            initialization_options=initialization_options(profile, settings),
            process_id=os.getpid(),
        ))
        session = Session(client, folder)
        session.initialize_result = result  # type: ignore[attr-defined]
        return session

    return _start


# -- shared helpers for the server-core tests ------------------------------------------


def vscode_with_pull() -> types.ClientCapabilities:
    """VS Code 1.65's capabilities plus pull diagnostics and refresh (as later VS Code declares)."""
    caps = client_capabilities("visual-studio-code")
    caps.text_document.diagnostic = types.DiagnosticClientCapabilities(  # type: ignore[union-attr]
        dynamic_registration=True, related_document_support=False)
    caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(  # type: ignore[union-attr]
        refresh_support=True)
    return caps


async def initialize_in(client: LanguageClient, folder: Path, capabilities: types.ClientCapabilities, *,
                        settings: dict | None = None) -> Session:
    """Initialize ``client`` on an already written workspace ``folder`` (its root is ``folder/memory``).

    The server's ``InitializeResult`` is kept as ``session.initialize_result``.
    """
    result = await client.initialize_session(types.InitializeParams(
        capabilities=capabilities,
        workspace_folders=[types.WorkspaceFolder(uri=path_to_uri(folder), name="workspace")],
        root_uri=path_to_uri(folder),
        initialization_options={"settings": settings or {}},
        process_id=os.getpid(),
    ))
    session = Session(client, folder)
    session.initialize_result = result  # type: ignore[attr-defined]
    return session


async def barrier(session: Session, name: str = "zz-probe.md") -> None:
    """Open a probe memory with a problem of its own and wait for its diagnostics.

    The server handles notifications and delivers diagnostics in order, so once
    the probe's arrive, everything sent before it has been checked and delivered.
    """
    stem = name.removesuffix(".md")
    session.open(name, entry(stem, extra=f"supersedes:\n  - {stem}-nothing\n"))
    await session.diagnostics(name, lambda d: "dangling-supersedes" in session.codes(d))


def write_root(folder: Path, files: Mapping[str, str | bytes]) -> Path:
    """Write ``folder/memory`` with ``files`` (bytes are written as they are)."""
    root = folder / "memory"
    root.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        if isinstance(content, bytes):
            (root / name).write_bytes(content)
        else:
            (root / name).write_text(content, encoding="utf-8")
    return root


class PublishLog(dict):
    """``client.diagnostics`` that also remembers every publish, in order, with its version."""

    def __init__(self) -> None:
        super().__init__()
        self.history: list[tuple[str, list[types.Diagnostic]]] = []

    def __setitem__(self, uri: str, diagnostics) -> None:
        self.history.append((uri, list(diagnostics)))
        super().__setitem__(uri, diagnostics)


def record_publishes(client: LanguageClient) -> PublishLog:
    log = PublishLog()
    log.update(client.diagnostics)
    client.diagnostics = log
    return log


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "memls.lsp"],
        server_env=SERVER_ENV,
    ),
)
async def pull_client(lsp_client: LanguageClient):
    """A client with VS Code's capabilities plus pull diagnostics (``vscode_with_pull``)."""
    lsp_client.memls_profile = "visual-studio-code+pull"  # type: ignore[attr-defined]
    act_as_editor(lsp_client)

    yield
    await lsp_client.shutdown_session()


# -- workspace edits applied the way an editor applies them ------------------------------


def answer_as_editor(session: Session, method: str, handler) -> None:
    """Replace how the test editor answers ``method`` (it declines, fails, types meanwhile...)."""
    features = session.client.protocol.fm._features
    del features[method]
    session.client.feature(method)(handler)


def char_units(char: str, encoding: str) -> int:
    """How many position units ``char`` takes in ``encoding`` (a UTF-8 byte, a UTF-16 unit, a code point).

    Counted here, not with memls.lsp.convert: the tests' count is an independent check on that code.
    """
    if encoding == types.PositionEncodingKind.Utf8:
        return len(char.encode("utf-8"))
    if encoding == types.PositionEncodingKind.Utf32:
        return 1
    return 2 if ord(char) > 0xFFFF else 1


def _offset(text: str, position: types.Position, encoding: str = types.PositionEncodingKind.Utf16) -> int:
    """A client position (columns in ``encoding``'s units) as an offset.

    Lines end as the LSP says they do: at ``\\r\\n``, a lone ``\\r`` or ``\\n``.
    """
    pieces = re.split(r"(\r\n|\r|\n)", text)
    lines, breaks = pieces[0::2], pieces[1::2]
    line = min(position.line, len(lines))
    start = sum(len(x) + len(b) for x, b in zip(lines[:line], breaks))
    if line >= len(lines):
        return len(text)
    units, col = 0, 0
    for col, char in enumerate(lines[line]):
        if units >= position.character:
            return start + col
        units += char_units(char, encoding)
    return start + len(lines[line])


def apply_text_edits(text: str, edits: list[types.TextEdit],
                     encoding: str = types.PositionEncodingKind.Utf16) -> str:
    """Apply edits that all refer to ``text`` as it was (LSP semantics), columns in ``encoding``."""
    spans = sorted(((_offset(text, e.range.start, encoding), _offset(text, e.range.end, encoding), i, e.new_text)
                    for i, e in enumerate(edits)), reverse=True)
    for start, end, _, new in spans:
        text = text[:start] + new + text[end:]
    return text


class EditAborted(Exception):
    """A resource operation failed; the client stopped applying the edit there."""

    def __init__(self, message: str, touched: dict):
        super().__init__(message)
        self.touched = touched


def apply_workspace_edit(edit: types.WorkspaceEdit, *, buffers: Mapping[Path, str] | None = None) -> dict[Path, str | None]:
    """Carry out ``edit`` on disk like an editor; returns each touched file's new text (None: gone).

    ``buffers`` are open documents' texts: text edits to them apply to the
    buffer (and are then written, as a save would). Resource operations
    follow the spec: ``CreateFile``/``RenameFile`` onto an existing file fail
    unless ``overwrite`` or ``ignoreIfExists`` says otherwise (an ignored one
    is skipped and the edits after it still apply), and a failure aborts the
    rest of the edit (``failureHandling: abort``; what ran before stays),
    raising :class:`EditAborted`.
    """
    from memls.lsp.convert import uri_to_path

    texts: dict[Path, str] = dict(buffers or {})
    touched: dict[Path, str | None] = {}

    def current(path: Path) -> str:
        if path not in texts:
            texts[path] = path.read_text(encoding="utf-8") if path.exists() else ""
        return texts[path]

    def edit_file(uri: str, edits: list) -> None:
        path = uri_to_path(uri)
        assert path is not None
        new = apply_text_edits(current(path), list(edits))
        path.write_text(new, encoding="utf-8")
        texts[path] = touched[path] = new

    if edit.document_changes is None:
        for uri, edits in (edit.changes or {}).items():
            edit_file(uri, edits)
        return touched
    for change in edit.document_changes:
        if isinstance(change, types.TextDocumentEdit):
            edit_file(change.text_document.uri, change.edits)
        elif isinstance(change, types.CreateFile):
            path = uri_to_path(change.uri)
            assert path is not None
            options = change.options or types.CreateFileOptions()
            if path.exists() and not options.overwrite:
                if not options.ignore_if_exists:
                    raise EditAborted(f"cannot create {path.name}: it exists", touched)
                continue
            path.write_text("", encoding="utf-8")
            texts[path] = touched[path] = ""
        elif isinstance(change, types.RenameFile):
            old, new = uri_to_path(change.old_uri), uri_to_path(change.new_uri)
            assert old is not None and new is not None
            options = change.options or types.RenameFileOptions()
            if new.exists() and not options.overwrite:
                if options.ignore_if_exists:
                    continue
                raise EditAborted(f"cannot rename onto {new.name}: it exists", touched)
            old.rename(new)
            texts[new] = texts.pop(old, None) or new.read_text(encoding="utf-8")
            touched[old], touched[new] = None, texts[new]
        else:
            raise AssertionError(f"unexpected change {change!r}")
    return touched


# -- navigation / command helpers ------------------------------------------------------------


async def run_command(client: LanguageClient, command: str, *arguments):
    """``workspace/executeCommand`` with positional arguments; returns its result."""
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command, arguments=list(arguments)))


async def wait_until_scanned(client: LanguageClient, timeout: float = WAIT) -> dict:
    """Wait for the server's first scan to finish (``memls.debugInfo``); returns that info."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        info = await run_command(client, "memls.debugInfo")
        if not info["scanning"]:
            return info
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"the first scan never finished: {info}")
        await asyncio.sleep(0.05)


async def apply_as_client(session: Session, edit: types.WorkspaceEdit, open_docs: dict[str, int]) -> dict[Path, str | None]:
    """Apply ``edit`` as the session's editor would, then tell the server.

    ``open_docs`` maps the names of documents open in the editor to their
    versions (updated here). An open document gets ``didChange`` + ``didSave``
    (the user saves it); any other file is written on disk and announced as
    a watched-file change when the client registered watchers (VS Code,
    Emacs), else found by the server's own watcher (Neovim).
    """
    buffers = {session.root / name: (session.root / name).read_text(encoding="utf-8") for name in open_docs}
    touched = apply_workspace_edit(edit, buffers=buffers)
    changes = []
    for path, text in touched.items():
        name = path.name
        if name in open_docs and text is not None and path.parent == session.root:
            open_docs[name] += 1
            session.change(name, text, open_docs[name])
            session.client.text_document_did_save(types.DidSaveTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=session.uri(name)), text=text))
            continue
        kind = types.FileChangeType.Deleted if text is None else types.FileChangeType.Changed
        changes.append(types.FileEvent(uri=path_to_uri(path), type=kind))
    watching = any(r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
                   for r in session.client.registrations)  # type: ignore[attr-defined]
    if changes and watching:
        session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=changes))
    return touched


async def scan_done(session: Session, timeout: float = WAIT) -> None:
    """Wait until the server's first scan has ended (its ``$/progress`` end; every profile takes progress)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not any(reports and isinstance(reports[-1], types.WorkDoneProgressEnd)
                  for reports in session.client.progress_reports.values()):
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("the first scan never reported its end")
        await asyncio.sleep(0.02)


# A real editor names itself in ``clientInfo``; the server decides nothing by it.
CLIENT_NAMES = {"visual-studio-code": "Visual Studio Code", "neovim": "Neovim", "emacs": "Eglot"}


def initialization_options(profile: str, settings: dict | None = None) -> dict:
    """What each profile's editor sends: the settings, and for VS Code (whose Markdown
    support outlines headings itself) what the memls extension declares about that."""
    options: dict = {"settings": settings or {}}
    if profile.startswith("visual-studio-code"):
        options["client"] = {"markdownOutline": True}
    return options


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "memls.lsp"],
        server_env=SERVER_ENV,
    ),
    params=PROFILES,
    scope="module",
)
async def shared_client(request, lsp_client: LanguageClient, tmp_path_factory):
    """One server per client profile for a whole test module (read-only tests).

    Use with ``pytestmark = pytest.mark.asyncio(loop_scope="module")`` and
    :func:`open_session`, which initializes it on a fresh workspace.
    """
    lsp_client.memls_profile = request.param  # type: ignore[attr-defined]
    lsp_client.memls_folder = tmp_path_factory.mktemp("shared") / "workspace"  # type: ignore[attr-defined]
    act_as_editor(lsp_client)

    yield
    await lsp_client.shutdown_session()


async def open_session(client: LanguageClient, files: Mapping[str, str], *,
                       opened: tuple[str, ...] = ()) -> Session:
    """Write ``files`` into the shared client's root, initialize, wait for the scan, open ``opened``."""
    folder = client.memls_folder  # type: ignore[attr-defined]
    write_root(folder, files)
    profile = client.memls_profile  # type: ignore[attr-defined]
    result = await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities(profile),
        client_info=types.ClientInfo(name=CLIENT_NAMES[profile]),
        initialization_options=initialization_options(profile),
        workspace_folders=[types.WorkspaceFolder(uri=path_to_uri(folder), name="workspace")],
        root_uri=path_to_uri(folder),
        process_id=os.getpid(),
    ))
    await wait_until_scanned(client)
    session = Session(client, folder)
    session.server_capabilities = result.capabilities  # type: ignore[attr-defined]
    for name in opened:
        session.open(name)
    return session


def unit_state(tmp_path: Path, files: Mapping[str, str], *, encoding: str = "utf-16"):
    """A loaded :class:`memls.lsp.state.ServerState` over ``tmp_path/memory`` (no server process)."""
    from memls.lsp.state import ServerState
    from memls.store.roots import MemoryRoot

    root = write_root(tmp_path, files)
    state = ServerState(folders=[tmp_path])
    state.client.position_encoding = encoding
    root_state = state.workspace.add_root(MemoryRoot("project", root))
    for path in state.workspace.scan(root_state):
        state.workspace.load_document(path)
    return state


# -- the editor as it is today, and workspaces of several folders --------------------------

# VS Code as the issue reports drove it (1.139): VS Code 1.65's capabilities plus pull
# diagnostics with refresh, and watchers with a base directory (``relativePatternSupport``).
CURRENT_VSCODE = "visual-studio-code+pull+relative"
EDITOR_PROFILES = (*PROFILES, CURRENT_VSCODE)


def capabilities_of(profile: str) -> types.ClientCapabilities:
    """A profile's capabilities: the captured ones, or :data:`CURRENT_VSCODE`'s."""
    if profile != CURRENT_VSCODE:
        return client_capabilities(profile)
    caps = vscode_with_pull()
    caps.workspace.did_change_watched_files.relative_pattern_support = True  # type: ignore[union-attr]
    return caps


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "memls.lsp"],
        server_env=SERVER_ENV,
    ),
    params=EDITOR_PROFILES,
)
async def editor_client(request, lsp_client: LanguageClient):
    """The shipped profiles plus today's VS Code (:data:`CURRENT_VSCODE`)."""
    lsp_client.memls_profile = request.param  # type: ignore[attr-defined]
    act_as_editor(lsp_client)
    yield
    await lsp_client.shutdown_session()


def folder_of(folder: Path) -> types.WorkspaceFolder:
    return types.WorkspaceFolder(uri=path_to_uri(folder), name=folder.name)


async def initialize_folders(client: LanguageClient, folders: list[Path], *,
                             settings: dict | None = None) -> list[Session]:
    """Initialize the client's profile on several workspace folders; one session per folder."""
    profile = client.memls_profile  # type: ignore[attr-defined]
    await client.initialize_session(types.InitializeParams(
        capabilities=capabilities_of(profile),
        workspace_folders=[folder_of(f) for f in folders],
        root_uri=path_to_uri(folders[0]),
        initialization_options=initialization_options(profile, settings),
        process_id=os.getpid(),
    ))
    return [Session(client, folder) for folder in folders]


class ProblemList:
    """What an editor's problem list shows, as each profile fills it.

    Push: the last publish per file. Pull: the results of successive
    ``workspace/diagnostic`` reports, kept the way VS Code keeps them -- a
    file the report leaves out keeps what it showed -- so a file that left
    the server's model must be cleared by an explicit empty report.
    """

    def __init__(self, session: Session):
        self.session = session
        self.pulled: dict[str, list[types.Diagnostic]] = {}
        self.result_ids: dict[str, str] = {}

    @property
    def pull(self) -> bool:
        return self.session.profile == CURRENT_VSCODE

    async def shown(self, path: Path) -> list[types.Diagnostic]:
        uri = path_to_uri(path)
        if not self.pull:
            return list(self.session.client.diagnostics.get(uri, []))
        report = await self.session.client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(
            previous_result_ids=[types.PreviousResultId(uri=u, value=v) for u, v in self.result_ids.items()]))
        for item in report.items:
            if item.result_id is not None:
                self.result_ids[item.uri] = item.result_id
            if isinstance(item, types.WorkspaceFullDocumentDiagnosticReport):
                self.pulled[item.uri] = list(item.items)
        return self.pulled.get(uri, [])

    async def wait(self, path: Path, predicate: Callable[[list[types.Diagnostic]], bool],
                   timeout: float = WAIT) -> list[types.Diagnostic]:
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            current = await self.shown(path)
            if predicate(current):
                return current
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"the problem list for {path.name} never matched; last: {current}")
            await asyncio.sleep(0.05)
