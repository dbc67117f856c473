"""The memls language server: wiring between the protocol and the engine.

This module owns the lifecycle (initialize, the first scan with progress,
settings, shutdown, exit when the parent process dies) and document
synchronisation. Each editor feature lives in its own module under
:mod:`memls.lsp.features` and registers its handlers here. Nothing in ``lsp/``
decides what is wrong with a memory; it asks :mod:`store`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import FeatureNotificationError
from pygls.lsp.server import LanguageServer

from memls.store.cache import RACY_WINDOW_NS, ParseCache, paused_gc
from memls.store.frontmatter import import_yaml
from memls.store.model import RootState, document_kind
from memls.store.warm_start import StartListing, WarmStart, check_started, start_listing, warm_start

from . import __version__
from .client_features import ClientFeatures
from .convert import uri_to_path
from .diagnostics import DiagnosticsPublisher
from .engine import Engine
from .errors import log_refusals_quietly
from .model_changes import ModelChangeNotices
from .protocol import MemlsProtocol
from .state import RootsChange, ServerState
from .status import StatusReporter, startup_report
from .unapplied import UnappliedChanges
from .watcher import Watching

if TYPE_CHECKING:
    from memls.store.diagnostics import Problem

log = logging.getLogger(__name__)
SCAN_BATCH = 1000
# Files read again per engine job once the racy window has passed: a few milliseconds, what a
# keystroke arriving meanwhile waits.
CONFIRM_BATCH = 100
PARENT_POLL_SECONDS = 1.0
CONFIGURATION_TIMEOUT = 5.0
# How soon a root created after the start is served, and a root whose serving
# server exited is taken over (memls.store.lease).
ROOTS_FOLLOW_SECONDS = 2.0


class MemlsServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("memls", __version__, protocol_cls=MemlsProtocol)
        self.engine = Engine()
        self.state = ServerState()
        self.diagnostics = DiagnosticsPublisher(self)
        self.status = StatusReporter(self)
        self.watching = Watching(self)
        self.model_changes = ModelChangeNotices(self)
        self.timings: dict[str, float] = {}
        # The texts of documents whose changes the engine has not taken yet.
        self.unapplied = UnappliedChanges()
        # The jobs taking those changes in, held until done (the loop keeps only weak references).
        self.changes_in_flight: set[asyncio.Future[None]] = set()
        # Per open file the server edits (an index with unsaved changes): held while
        # an edit of it is built, sent and answered, so the next is built from the
        # text the last one made (memls.lsp.features.save.edit_open_index).
        self.buffer_edit_locks: dict[Path, asyncio.Lock] = {}
        # Set by ``shutdown``: work still running (the first scan) stops
        # instead of writing to a client that is going away.
        self.stopping = False
        # Set by ``exit`` (memls.lsp.protocol): 0 after ``shutdown``, else 1.
        self.exit_code = 0

    def report_server_error(self, error: Exception, source: Any) -> None:
        """A body that is not JSON gets its ``ParseError`` answer; other errors as pygls reports them."""
        if isinstance(error, (json.JSONDecodeError, UnicodeDecodeError)) and isinstance(self.protocol, MemlsProtocol):
            self.protocol.answer_parse_error(error)
            return
        super().report_server_error(error, source)

    # -- helpers for features ------------------------------------------------------

    def path_of(self, uri: str) -> Path | None:
        """The path a ``file:`` URI names, spelled as the model spells it (memls.lsp.client_uris)."""
        path = uri_to_path(uri)
        return self.state.model_path(path) if path is not None else None

    def memory_path(self, uri: str) -> Path | None:
        """The path of a document this server handles, else None."""
        path = uri_to_path(uri)
        if path is None or document_kind(path.name) is None:
            return None
        return self.state.model_path(path)

    def after_change(self, affected: set[Path]) -> None:
        """Re-check what a change affected (push or pull)."""
        if affected:
            self.diagnostics.schedule(affected)
            self.model_changes.schedule(affected)

    async def files_changed(self, paths: list[Path]) -> None:
        """Files changed on disk (the client's watcher or the server's): a folder's settings, memories."""
        settings_change = await self.engine.run(self.state.settings_files_changed, paths)
        if settings_change is not None:
            await self.roots_changed(settings_change)
        self.after_change(await self.engine.run(self.state.disk_changes, paths))

    async def reconfigure(self, settings: dict | None = None) -> None:
        """Settings or folders changed: take the editor's settings again and follow them."""
        await reconfigure(self, settings)

    async def roots_changed(self, change: RootsChange) -> None:
        """Folders or settings changed the roots: re-check, clear what left, watch what came.

        Documents the editor has open in a root that came (or came back)
        join the model with their buffer text, whatever brought the root:
        a folder, a setting, a settings file, the directory made.
        """
        documents = []
        for doc in list(self.workspace.text_documents.values()):
            if (path := self.memory_path(doc.uri)) is not None:
                self.state.uris.opened(path, doc.uri)  # an added folder may name it anew
                documents.append((path, doc.source, doc.version))
        adopted = await self.engine.run(self.state.adopt_open_documents, documents)
        self.after_change(change.affected | change.gone | adopted)
        self.diagnostics.left_model(change.gone)
        await self.watching.register()


def create_server() -> MemlsServer:
    log_refusals_quietly()
    server = MemlsServer()

    @server.feature(types.INITIALIZE)
    async def initialize(ls: MemlsServer, params: types.InitializeParams) -> None:
        folders = [uri_to_path(f.uri) for f in params.workspace_folders or []]
        if not folders and params.root_uri:
            folders = [uri_to_path(params.root_uri)]
        ls.state.folders = ls.state.uris.folders(f for f in folders if f is not None)
        options = params.initialization_options if isinstance(params.initialization_options, dict) else {}
        ls.state.client = ClientFeatures.read(
            params.capabilities, encoding=ls.workspace.position_encoding or "utf-16", options=options)
        ls.state.editor = str(params.process_id) if params.process_id else None
        settings = options.get("settings", options)
        # The roots are known before any document opens, so a document opened
        # before the scan starts joins its root with the right scope and layer
        # order, and does not load the whole root on its own.
        await ls.engine.run(_configure_and_add_roots, ls.state, settings if isinstance(settings, dict) else {})
        # Until the first scan has loaded the roots, work on the model waits (memls.lsp.engine).
        ls.engine.hold()
        if ls.state.client.pull_diagnostics:
            ls.diagnostics.pull = True
            _register_pull(ls)
        if params.process_id:
            _watch_parent(params.process_id)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: MemlsServer, params: types.InitializedParams) -> None:
        if ls.state.client.configuration:
            await _pull_configuration(ls)
        # After the settings: roots they name outside the workspace are watched too.
        await ls.watching.register()
        asyncio.ensure_future(_first_scan(ls))

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: MemlsServer, params: Any) -> None:
        ls.stopping = True
        ls.watching.stop()
        # A server started in this one's place (an editor's restart) takes the roots over at once.
        await ls.engine.run_now(ls.state.release_leases)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: MemlsServer, params: types.DidOpenTextDocumentParams) -> None:
        path = ls.memory_path(params.text_document.uri)
        if path is None:
            return
        doc = params.text_document
        ls.state.uris.opened(path, doc.uri)
        if ls.engine.held:  # the first scan runs: its own problems now, the rest when the model is whole
            asyncio.ensure_future(ls.diagnostics.publish_alone(path, doc.text, doc.version))
        affected = await ls.engine.run(ls.state.open, path, doc.text, doc.version)
        ls.after_change(affected)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: MemlsServer, params: types.DidChangeTextDocumentParams) -> None:
        # Not a coroutine: pygls runs it right after applying this change to its
        # document, before the next message, so the text stored is this change's.
        path = ls.memory_path(params.text_document.uri)
        if path is None:
            return
        # Only an open document's change gets here (memls.lsp.protocol): looked up, not made
        # of the file as pygls's ``get_text_document`` would.
        document = ls.workspace.text_documents[unquote(params.text_document.uri)]
        version = document.version if document.version is not None else params.text_document.version
        ticket = ls.unapplied.add(path, document.source, version)
        task = asyncio.ensure_future(_take_change(ls, path, ticket))
        ls.changes_in_flight.add(task)
        task.add_done_callback(partial(_change_taken, ls))

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    async def did_close(ls: MemlsServer, params: types.DidCloseTextDocumentParams) -> None:
        path = ls.memory_path(params.text_document.uri)
        if path is None:
            return
        affected = await ls.engine.run(ls.state.close, path)
        if ls.state.index_lines_in_buffer.get(path):  # closed unsaved: the file is the index again
            from .features.save import bring_lines_left_in_buffer

            affected |= await ls.engine.run(bring_lines_left_in_buffer, ls.state, path, True)
        ls.state.uris.closed(path)
        # A client may drop a closed document's diagnostics (Neovim does, and its
        # `:edit` of the current file closes and reopens it): send them again.
        ls.diagnostics.forget(path)
        ls.after_change(affected | {path})

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: MemlsServer, params: types.DidChangeConfigurationParams) -> None:
        settings = params.settings
        if isinstance(settings, dict) and "memls" in settings:
            settings = settings["memls"]
        await reconfigure(ls, settings if isinstance(settings, dict) else None)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def did_change_watched_files(ls: MemlsServer, params: types.DidChangeWatchedFilesParams) -> None:
        await ls.files_changed([p for change in params.changes if (p := ls.path_of(change.uri)) is not None])

    from .features import register_all

    register_all(server)
    return server


async def _take_change(ls: MemlsServer, path: Path, ticket: int) -> None:
    affected = await ls.engine.run(_apply_change, ls, path, ticket)
    ls.after_change(affected)


def _change_taken(ls: MemlsServer, task: asyncio.Future[None]) -> None:
    """Forget a finished change job; a failure is told as pygls tells a failing notification handler.

    The job is no handler of pygls's, so without this its exception would
    reach only asyncio's log when the task is collected, and the user would
    see diagnostics stop following their typing with no word why.
    """
    ls.changes_in_flight.discard(task)
    if task.cancelled():
        return
    error = task.exception()
    if error is None:
        return
    log.error("taking a change in failed", exc_info=error)
    if isinstance(error, Exception):
        ls.report_server_error(error, FeatureNotificationError)


def _apply_change(ls: MemlsServer, path: Path, ticket: int) -> set[Path]:
    """Take the changes of ``path`` up to ``ticket`` into the model (engine thread); nothing if taken already.

    Every change queues this job after storing its text, and jobs run in
    the order their messages came, on the one engine thread: the job of the
    last change takes the last text, and one that finds only a later change
    than its own waiting leaves it to that change's job, so a save in
    between reaches the model first. An entry keeps only its latest change
    waiting, so a burst of keystrokes is parsed once, by its last job.
    """
    affected: set[Path] = set()
    for text, version in ls.unapplied.take(path, ticket):
        affected |= ls.state.change(path, text, version)
        if ls.state.index_lines_in_buffer.get(path) and not ls.state.has_unsaved_changes(path):
            # Reloaded (``:e!``) or typed back: the lines memls sent there are not on disk.
            from .features.save import bring_lines_left_in_buffer

            affected |= bring_lines_left_in_buffer(ls.state, path)
    return affected


def _register_pull(ls: MemlsServer) -> None:
    options = types.DiagnosticOptions(
        identifier="memls", inter_file_dependencies=True, workspace_diagnostics=True
    )

    @ls.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, options)
    async def document_diagnostic(ls: MemlsServer, params: types.DocumentDiagnosticParams):
        path = ls.memory_path(params.text_document.uri)
        if path is None:
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        return await ls.diagnostics.document_report(path, params.previous_result_id)

    @ls.feature(types.WORKSPACE_DIAGNOSTIC)
    async def workspace_diagnostic(ls: MemlsServer, params: types.WorkspaceDiagnosticParams):
        previous = {p.uri: p.value for p in params.previous_result_ids or []}
        return await ls.diagnostics.workspace_report(previous)


async def _first_scan(ls: MemlsServer) -> None:
    """The first scan, then what it leaves for the next start: the check's results and the parses.

    Both once the scan has ended, the editor's waiting requests first:
    storing the results of a full check is 0.6 s at 50k entries, and
    before the end it held up the end of a start with a document reopened
    unsaved by that much. The parses (about 3 s of pickling at 50k) are
    written in the background (``_write_caches``), and now only from then:
    started when the last file was read, the engine's short pauses while
    the problems are published let the writer in.
    """
    caches: list[ParseCache] = []
    try:
        if (keep := await _initial_scan(ls, caches)) is not None:
            await ls.engine.run(keep)
    finally:
        _write_caches(caches, ls.engine.wait_until_quiet)


async def _initial_scan(ls: MemlsServer, caches: list[ParseCache]) -> Callable[[], None] | None:
    """Load every root in batches on the engine thread, reporting progress.

    The engine is held meanwhile (memls.lsp.engine): requests and document
    changes wait for the whole model instead of being answered from part of
    it, and are taken in the order they came as soon as the scan ends. The
    open documents are checked first (memls.lsp.diagnostics), then every
    document of the roots.

    When the last check's results still hold, or hold once the files changed
    since are re-checked from the stored facts (memls.store.warm_start), they
    are shown at once and the scan's progress ends there: the model
    is loaded afterwards, still holding every request that needs it, and
    checked in full only if a file changed meanwhile. An open document whose
    text is not its file's (an editor restoring unsaved tabs) makes the
    replay wrong for it and the files connected to it: those are re-checked
    with the buffers' texts from the stored results (``WarmStart.with_texts``),
    and only when that cannot tell (an unsaved index, a managed root's index
    to judge again) does the end wait for the model, which checks those
    first. Otherwise the model,
    loaded from files listed before any was read, is checked at the end of
    the scan (and the results kept for the next start once shown).

    The parse caches the roots were read through are handed to ``caches``
    when every file is read. What stores a full check's results for the
    next start is returned, for the caller to run once the scan has ended
    (storing 50k files' records takes 0.6 s).
    """
    started = time.perf_counter()
    state = ls.state
    token = f"memls-scan-{os.getpid()}"
    progress = False
    # A client that shows memls/status gets the progress there (one item, not two).
    if state.client.work_done_progress and not state.client.status_notification:
        try:
            await ls.work_done_progress.create_async(token)
            progress = True
        except Exception:  # noqa: BLE001 - progress is a courtesy
            progress = False
    watcher = ls.watching.make_poller()
    warm: WarmStart | None = None
    checked: dict[Path, list[Problem]] | None = None  # every problem of the roots as loaded (push mode)
    keep_checked: Callable[[], None] | None = None  # stores ``checked`` for the next start, once it is out
    open_paths: set[Path] = set()
    start: StartListing | None = None
    # Open documents whose text is not their file's: the replay is not what the client must hold for
    # them and the files connected to them, so the scan ends only once the model has checked those.
    reopened: list[tuple[Path, str, int | None]] = []
    buffers_waiting = False
    try:
        try:
            start = await ls.engine.run_now(_start_listing, state)
        except Exception:  # noqa: BLE001 - a start that cannot replay loads and checks in full
            log.exception("listing the roots failed")
        if watcher is not None:  # before anything is read: a write during the scan is then seen
            await ls.engine.run_now(watcher.prime, start.observation if start is not None else None)
        try:
            if start is not None:
                warm = await ls.engine.run_now(warm_start, start, state.settings)
        except Exception:  # noqa: BLE001 - a start that cannot replay loads and checks in full
            log.exception("replaying the last check failed")
            start = warm = None
        if warm is not None:
            if not ls.diagnostics.pull:
                open_paths = ls.diagnostics.open_paths()
                try:
                    buffers: dict[Path, tuple[str, int | None]] = {}
                    if open_paths:  # (an editor restoring unsaved tabs): the buffers unlike their files
                        reopened, same = await ls.engine.run_now(_against_disk, state, _open_documents(ls))
                        # A document open with its file's text gets the replay, as a closed one does.
                        ls.diagnostics.checked_whole(same)
                        open_paths -= same
                    if reopened:
                        # What the buffers touch, re-checked from the stored results when that can tell.
                        texts = {path: text for path, text, _ in reopened}
                        asked = time.perf_counter()
                        rechecked = await ls.engine.run_now(warm.with_texts, state.settings, texts)
                        if rechecked is not None:
                            ls.timings["reopened_rechecked_seconds"] = time.perf_counter() - asked
                            warm = rechecked
                            buffers = {path: (text, version) for path, text, version in reopened}
                            open_paths -= buffers.keys()
                            reopened = []
                    await ls.diagnostics.publish_checked(warm.results, open_paths, warm.plain, buffers)
                except Exception:  # noqa: BLE001 - everything is checked once the model is whole
                    log.exception("publishing the replayed check failed")
                    warm = None
        if warm is not None and not reopened:
            if progress:
                entries = warm.entries
                ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(
                    title="memls: indexing memories", message=f"0/{entries}", percentage=0, cancellable=False))
                ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=f"{entries} memories"))
                progress = False
            ls.timings[f"{warm.how}_start_seconds"] = time.perf_counter() - started
            # Nothing was parsed yet: the parser's library loads with the model, not on the first keystroke.
            await ls.engine.run_now(import_yaml)
        elif warm is not None:
            ls.timings[f"{warm.how}_start_seconds"] = time.perf_counter() - started
        if warm is not None:  # the results are out: stored now, for the next start to replay
            await ls.engine.run_now(warm.keep)
        listed = await ls.engine.run_now(_list_roots, state)
        total = state.scan_total = len(listed)
        if progress:
            ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(
                title="memls: indexing memories", message=f"0/{total}", percentage=0, cancellable=False))
        for batch_start in range(0, total, SCAN_BATCH):
            if ls.stopping:
                return None
            batch = listed[batch_start:batch_start + SCAN_BATCH]
            await ls.engine.run_now(_load_batch, state, batch)
            state.scanned_files = min(total, batch_start + SCAN_BATCH)
            await ls.engine.run_now(ls.status.model_counts, state)
            ls.status.send()
            if progress:
                ls.work_done_progress.report(token, types.WorkDoneProgressReport(
                    message=f"{state.scanned_files}/{total}",
                    percentage=int(100 * state.scanned_files / max(total, 1))))
    finally:
        caches.extend(await ls.engine.run_now(_end_scan, state))
        # What the stored facts could not tell (an unsaved MEMORY.md, a new file): the model's check of those buffers.
        buffers_waiting = warm is not None and bool(reopened)
        if not ls.stopping:
            if warm is not None:
                if not await ls.engine.run_now(warm.still_current):
                    warm = None  # a file changed since the replay: everything is checked below
            elif start is not None:
                # The model is the files as listed (every request waits): checked once, and kept.
                try:
                    if (started_check := await ls.engine.run_now(
                            check_started, start, state.settings, state.workspace)) is not None:
                        checked, keep_checked = started_check
                except Exception:  # noqa: BLE001 - checked as usual below
                    log.exception("checking the loaded model failed")
                if checked is not None and not ls.diagnostics.pull:
                    open_paths = ls.diagnostics.open_paths()
                    try:
                        unlike, same = await ls.engine.run_now(_against_disk, state, _open_documents(ls))
                        # A document open with its file's text gets the check's problems, as a closed one does.
                        ls.diagnostics.checked_whole(same)
                        open_paths -= same
                        # Buffers unlike their files (an editor restoring unsaved tabs): their didOpen and
                        # the changes after it wait for the release; the end waits for them (below).
                        buffers_waiting = bool(unlike)
                    except Exception:  # noqa: BLE001 - their own didOpen still checks them
                        log.exception("comparing the open documents with their files failed")
                    await ls.diagnostics.publish_checked(checked, open_paths)
        if (warm is not None or checked is not None or ls.diagnostics.pull) and not buffers_waiting:
            if progress and not ls.stopping:
                # The model is whole and its problems are out: the end never comes before what it found.
                await _end_progress(ls, token)
                progress = False
        else:  # checked after the release (below): the status says scanning until that check is out
            ls.status.first_check_pending = True
        ls.engine.release()
    ls.timings["initial_scan_seconds"] = time.perf_counter() - started
    if watcher is not None:
        watcher.start()
    await startup_report(ls, ls.timings["initial_scan_seconds"])
    paths = await ls.engine.run(state.all_paths)
    asyncio.ensure_future(_follow_roots(ls))
    asyncio.ensure_future(_confirm_unsettled_reads(ls))
    if ls.diagnostics.pull:
        ls.workspace_diagnostic_refresh(None)
        ls.model_changes.schedule(paths)
        if ls.status.enabled:  # the client pulls what it shows; the status counts everything
            await ls.diagnostics.count_only(paths)
    elif warm is not None or checked is not None:
        # Every document's problems are out already; the open ones get their own check
        # (their buffers may differ from the files the results are of).
        ls.model_changes.schedule(paths)
        ls.status.send()
        ls.after_change(open_paths | ls.diagnostics.open_paths())
        if buffers_waiting:
            # Not taken in before the release: a buffer adopted while its didOpen, changes
            # and saves still waited broke a save sent right after the open (its index
            # line was not updated). The engine takes waiting jobs in the order they asked,
            # so once a job asked now has run, those handlers have; then their checks are out.
            await ls.engine.run(_nothing)
            await ls.diagnostics.idle()
            ls.status.first_check_pending = False
            ls.status.send()
            if progress:
                await _end_progress(ls, token)
    else:
        # Checked only now (several folders, folder settings): the end follows their problems.
        ls.after_change(paths)
        await ls.diagnostics.idle()
        ls.status.first_check_pending = False
        ls.status.send()
        if progress:
            await _end_progress(ls, token)
    return keep_checked


async def _end_progress(ls: MemlsServer, token: str) -> None:
    """End the first scan's progress, saying how many memories the model holds."""
    entries = await ls.engine.run_now(ls.state.workspace.entry_count)
    ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=f"{entries} memories"))


def _nothing() -> None:
    """An engine job that does nothing: awaited, every job that asked before it has run."""


def _open_documents(ls: MemlsServer) -> list[tuple[Path, str, int | None]]:
    """The memory documents the editor has open: path, text and version (event loop)."""
    documents = []
    for doc in list(ls.workspace.text_documents.values()):
        if (path := ls.memory_path(doc.uri)) is not None:
            documents.append((path, doc.source, doc.version))
    return documents


def _against_disk(state: ServerState, documents: list[tuple[Path, str, int | None]],
                  ) -> tuple[list[tuple[Path, str, int | None]], set[Path]]:
    """The open documents of the roots whose text is not their file's, and the paths of those whose is (engine thread)."""
    unlike: list[tuple[Path, str, int | None]] = []
    same: set[Path] = set()
    for document in documents:
        path = document[0]
        if state.workspace.root_of(path) is None:
            continue
        if state.differs_from_disk(path, document[1]):
            unlike.append(document)
        else:
            same.add(path)
    return unlike, same


def _start_listing(state: ServerState) -> StartListing | None:
    """The roots of the start listed before any file is read (memls.store.warm_start); None: no replay."""
    if state.buffers or state.root_settings:
        return None
    return start_listing(state.workspace.stacks())


async def _confirm_unsettled_reads(ls: MemlsServer) -> None:
    """Once the racy window has passed, read again in the background what the scan read while racy.

    After a checkout or a copy, every file the scan read proves nothing by
    its ``stat`` (memls.store.model.Workspace.unsettled_reads), and the first
    save would read them all again before rendering the index (0.3-0.4 s at
    10k). Read again here, in batches the keystrokes' jobs pass between,
    each file still holding its text is proved; one changed meanwhile is
    taken in as a watcher event would be. A file still racy then is left
    to the save, as before.
    """
    await asyncio.sleep(RACY_WINDOW_NS / 1e9)
    try:
        paths = [] if ls.stopping else await ls.engine.run(ls.state.workspace.unsettled_reads)
        for start in range(0, len(paths), CONFIRM_BATCH):
            if ls.stopping:
                return
            changed = await ls.engine.run(ls.state.workspace.confirm_reads, paths[start:start + CONFIRM_BATCH])
            if changed:
                await ls.files_changed(changed)
    except Exception:  # noqa: BLE001 - a courtesy: the first save reads what is left
        log.exception("reading again the files the scan read while racy failed")


async def _follow_roots(ls: MemlsServer) -> None:
    """Serve roots created after the start, and take over roots another server let go of.

    A root that did not exist when the roots were resolved (Claude Code's
    memory directory appears at its first memory) is loaded, checked and
    watched as soon as it exists; a root whose lease another server held
    (it exited) is listed again (memls.store.lease).
    """
    while not ls.stopping:
        await asyncio.sleep(ROOTS_FOLLOW_SECONDS)
        try:
            if await ls.engine.run(ls.state.roots_appeared):
                await ls.roots_changed(await ls.engine.run(ls.state.apply_roots))
            ls.after_change(await ls.engine.run(ls.state.retry_leases))
        except Exception:  # noqa: BLE001 - tried again next round
            log.exception("following the roots failed")


def _configure_and_add_roots(state: ServerState, settings: dict | None,
                             per_folder: dict[Path, dict] | None = None) -> None:
    state.configure(settings, per_folder)
    state.scan_roots.update(root.path for root in state.sync_roots().added)
    state.scanning = True


async def _ask_configuration(ls: MemlsServer) -> tuple[dict | None, dict[Path, dict]] | None:
    """The ``memls`` section through ``workspace/configuration``: the editor's, and each folder's.

    One item without a scope, then one per workspace folder with the folder
    as ``scopeUri`` (VS Code answers a folder's effective settings there). A
    client that does not answer in time gives None.
    """
    folders = list(ls.state.folders)
    items = [types.ConfigurationItem(section="memls")]
    items += [types.ConfigurationItem(scope_uri=ls.state.uris.uri(f), section="memls") for f in folders]
    try:
        result = await asyncio.wait_for(
            ls.workspace_configuration_async(types.ConfigurationParams(items=items)), CONFIGURATION_TIMEOUT)
    except Exception:  # noqa: BLE001 - settings from the editor are optional
        log.warning("the client did not answer workspace/configuration")
        return None
    result = list(result or [])
    general = result[0] if result and isinstance(result[0], dict) else None
    per_folder = {f: r for f, r in zip(folders, result[1:]) if isinstance(r, dict) and r}
    return general, per_folder


async def _pull_configuration(ls: MemlsServer) -> None:
    """Read the settings through ``workspace/configuration`` before the first scan.

    The editor's answer is layered over ``initializationOptions`` (key by
    key), so roots it names are scanned with the others. A client that does
    not answer in time leaves the settings as they were.
    """
    answer = await _ask_configuration(ls)
    if answer is None:
        return
    general, per_folder = answer
    settings = {**ls.state.editor_settings, **general} if general else None
    await ls.engine.run_now(_configure_and_add_roots, ls.state, settings, per_folder)


async def reconfigure(ls: MemlsServer, general: dict | None = None) -> None:
    """Settings changed (or the folders did): follow them.

    Settings sent along (``didChangeConfiguration`` with a ``memls`` object)
    replace the editor's and keep each folder's; without them, a client that
    answers ``workspace/configuration`` is asked for both.
    """
    per_folder = None
    if general is None and ls.state.client.configuration:
        answer = await _ask_configuration(ls)
        if answer is not None:
            general, per_folder = answer
    if general is None and per_folder is None:
        return
    await ls.roots_changed(await ls.engine.run(_configure_and_load_new_roots, ls.state, general, per_folder))


def _configure_and_load_new_roots(state: ServerState, settings: dict | None,
                                  per_folder: dict[Path, dict] | None = None) -> RootsChange:
    """New settings after the scan: roots they add are loaded at once, roots they drop unloaded."""
    state.configure(settings, per_folder)
    return state.apply_roots()


ScanListing = list[tuple[RootState, Path, os.stat_result | None]]


def _list_roots(state: ServerState) -> ScanListing:
    """Every document of every root with its root and ``stat``, root by root in file order.

    Three objects a file (its ``Path``, ``stat`` and tuple) that live until
    the scan ends: built with the collector running, they set off full
    passes over everything the process holds (three at 50k entries, 0.15 s
    of CPU, none at 10k), so the listing is paused like the load (``_load_batch``).
    """
    listed: ScanListing = []
    with paused_gc(freeze=True):
        for root_state in state.workspace.roots:
            listed.extend((root_state, path, st) for path, st in state.workspace.listing(root_state))
    return listed


def _load_batch(state: ServerState, listed: ScanListing) -> None:
    # A bulk load builds many long-lived objects: keep the collector out of it
    # (store.cache.paused_gc says why). The model lives as long as this
    # process, so it is also frozen out of later passes.
    buffers, load = state.buffers, state.workspace.load_document
    with paused_gc(freeze=True):
        for root_state, path, st in listed:
            if path not in buffers:
                load(path, st, root=root_state)


def _end_scan(state: ServerState) -> list[ParseCache]:
    """Every file is read: the parse caches the roots were read through, for :func:`_write_caches`."""
    state.scanning = False
    return state.workspace.detach_caches()


def _write_caches(caches: list[ParseCache], pause: Callable[[], None] | None) -> None:
    """Write the parse caches for the next start, on a thread of their own.

    Writing them pickles every parse (about 0.3 s at 10k entries, 3 s at
    50k), so it does not hold up anything the editor waits for, and goes in
    chunks, each after ``pause`` returns: the engine's pauses, so the
    keystrokes of the first seconds are not answered at half speed. The
    thread is not a daemon, so an exit waits for the file rather than tearing it.
    """
    if caches:
        threading.Thread(target=_save_caches, args=(caches, pause), name="memls-cache-writer").start()


def _save_caches(caches: list[ParseCache], pause: Callable[[], None] | None) -> None:
    for cache in caches:
        cache.save(pause)


def _watch_parent(pid: int) -> None:
    """Exit when the editor that started us is gone (it cannot send ``exit`` then).

    Two signs, either is enough: the process is gone (or a zombie nobody
    reaped), or it was our parent and we have been handed to another one.
    """
    was_parent = os.getppid() == pid

    def gone() -> bool:
        if was_parent and os.getppid() != pid:
            return True
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        return _is_zombie(pid)

    def poll() -> None:
        while not gone():
            time.sleep(PARENT_POLL_SECONDS)
        log.warning("the editor process %d is gone; exiting", pid)
        os._exit(0)

    threading.Thread(target=poll, name="memls-parent-watch", daemon=True).start()


def _is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2:][:1] == b"Z"


def main(argv: list[str] | None = None, *, built: Callable[[], None] | None = None) -> None:
    """Serve over stdio (``memls serve`` / ``python -m memls serve``).

    ``built`` runs once the server is built, before it reads a message (memls.lsp.boot).
    """
    logging.basicConfig(level=os.environ.get("MEMLS_LOG_LEVEL", "WARNING"), stream=sys.stderr)
    server = create_server()
    if built is not None:
        built()
    server.start_io()
    sys.exit(server.exit_code)
