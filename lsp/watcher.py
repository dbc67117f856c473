"""How the server learns of other tools' writes: the client's watchers and its own polling.

An agent (gptme, Claude Code) writes memories while the user edits others;
without word of those writes the open documents keep stale diagnostics.
Editors watch files for a server only where it asks, and only where they
can:

- a client with dynamic ``didChangeWatchedFiles`` registration gets the plain
  globs ``**/*.md`` and ``**/.memory-index.json``, which editors apply only
  inside the workspace folders, and the settings files ``**/.memls.toml`` and
  ``**/pyproject.toml`` (a folder's are read again when they change, as
  ``memls check`` reads them on every run);
- roots outside every folder (Claude Code's ``~/.claude/projects/.../memory``,
  ``MEMLS_MEMORY_DIRS``, ``roots`` from settings, the user root) get a
  ``RelativePattern`` each (base: the root) when the client declares
  ``relativePatternSupport``, and are polled by the server otherwise;
- a client with no dynamic registration at all (Neovim on Linux) has every
  root polled, and each workspace folder's settings files.

Polling lists each root's directory and ``stat``-s its memory documents:
a few thousand ``stat`` calls twice a second are cheap and need no extra
dependency. Past 10k files the interval grows with the file count, and a
round never takes more than a tenth of the time. Changes go through the
same engine path as editor notifications; open buffers still win. When
folders or settings change the set of roots, the registration is replaced
and the poller follows on its next round.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from pathlib import Path
from stat import S_ISREG
from typing import TYPE_CHECKING

from lsprotocol import types

from memls.store.model import document_kind
from memls.store.settings import CONFIG_FILES

if TYPE_CHECKING:
    from memls.store.replay import Observation

    from .server import MemlsServer
    from .state import ServerState

log = logging.getLogger(__name__)
POLL_SECONDS = 0.5
# Up to this many files a round every POLL_SECONDS; beyond, proportionally slower.
BACKOFF_FILES = 10_000
# A round of polling may take at most this share of the time.
MAX_POLL_SHARE = 0.1
WATCH_GLOBS = ("**/*.md", "**/.memory-index.json", *(f"**/{name}" for name in CONFIG_FILES))
ROOT_GLOBS = ("*.md", ".memory-index.json")
REGISTRATION_ID = "memls-watched-files"
# (size, mtime, ctime, inode): a rewrite that keeps the size and sets the mtime back still moves the
# ctime, which no process can set; a replace by rename moves the inode.
Signature = tuple[int, int, int, int]


def client_watchers(state: ServerState) -> list[types.FileSystemWatcher]:
    """What to ask a client with dynamic registration to watch (engine thread)."""
    watchers = [types.FileSystemWatcher(glob_pattern=glob) for glob in WATCH_GLOBS]
    if state.client.relative_patterns:
        for root in state.outside_roots():
            base = state.uris.uri(root.path)
            watchers.extend(
                types.FileSystemWatcher(glob_pattern=types.RelativePattern(base_uri=base, pattern=glob))
                for glob in ROOT_GLOBS
            )
    return watchers


def polled_directories(state: ServerState) -> list[Path]:
    """The roots nobody watches for us (any thread: reads lists that are replaced, not changed)."""
    if not state.client.dynamic_watchers:
        return [root.path for root in list(state.workspace.roots)]
    if state.client.relative_patterns:
        return []
    return [root.path for root in state.outside_roots()]


def polled_settings_files(state: ServerState) -> list[Path]:
    """The folders' settings files, when the client watches nothing for us (any thread)."""
    if state.client.dynamic_watchers:
        return []
    return [folder / name for folder in list(state.folders) for name in CONFIG_FILES]


def poll_interval(files: int, elapsed: float) -> float:
    """Seconds until the next round after one that saw ``files`` files in ``elapsed`` seconds."""
    return max(POLL_SECONDS * max(1.0, files / BACKOFF_FILES), elapsed / MAX_POLL_SHARE)


def signature(st: os.stat_result) -> Signature:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def snapshot(directory: Path) -> dict[Path, Signature]:
    """The :data:`Signature` of every memory document directly in ``directory``."""
    out: dict[Path, Signature] = {}
    try:
        with os.scandir(directory) as it:
            for item in it:
                if document_kind(item.name) is None:
                    continue
                try:
                    st = item.stat()
                except OSError:
                    continue
                if S_ISREG(st.st_mode):  # a directory named like a memory is none
                    out[Path(item.path)] = signature(st)
    except OSError:
        pass
    return out


def file_signature(path: Path) -> Signature | None:
    """The :data:`Signature` of one file; None when it is absent."""
    try:
        st = path.stat()
    except OSError:
        return None
    return signature(st)


class Watching:
    """The client's registration and the server's poller, kept in line with the roots."""

    def __init__(self, server: MemlsServer) -> None:
        self.server = server
        self.poller: PollingWatcher | None = None
        self._registered: list[types.FileSystemWatcher] | None = None

    async def register(self) -> None:
        """(Re-)register the client's watchers when what they should cover changed."""
        ls = self.server
        if not ls.state.client.dynamic_watchers:
            return
        # run_now: the first registration comes before the first scan (it reads the roots, not their documents).
        watchers = await ls.engine.run_now(client_watchers, ls.state)
        if watchers == self._registered:
            return
        try:
            if self._registered is not None:
                await ls.client_unregister_capability_async(types.UnregistrationParams(unregisterations=[
                    types.Unregistration(id=REGISTRATION_ID, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES)]))
            await ls.client_register_capability_async(types.RegistrationParams(registrations=[
                types.Registration(
                    id=REGISTRATION_ID,
                    method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                    register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
                )
            ]))
        except Exception:  # noqa: BLE001 - a client that refuses gets the server's own watcher
            log.warning("the client refused file watching; using the server's own watcher")
            ls.state.client.dynamic_watchers = False
            self._registered = None
            return
        self._registered = watchers

    def make_poller(self) -> PollingWatcher | None:
        """A poller when some root may need one (call on the event loop, before the first scan)."""
        client = self.server.state.client
        if client.dynamic_watchers and client.relative_patterns:
            return None
        self.poller = PollingWatcher(self.server)
        return self.poller

    def stop(self) -> None:
        if self.poller is not None:
            self.poller.stop()


class PollingWatcher:
    def __init__(self, server: MemlsServer) -> None:
        self.server = server
        self.loop = asyncio.get_running_loop()
        self._stop = threading.Event()
        self._seen: dict[Path, dict[Path, Signature]] = {}
        self._settings: dict[Path, Signature | None] = {}
        self._thread = threading.Thread(target=self._run, name="memls-watcher", daemon=True)

    def prime(self, listing: Observation | None = None) -> None:
        """Remember how the roots look now; changes from here on are reported.

        ``listing``: the start's listing of the roots, just taken: their files
        as it saw them, not ``stat``-ed again (a change after it is reported).
        """
        for directory in polled_directories(self.server.state):
            listed = listing.regular_files(directory) if listing is not None else None
            self._seen[directory] = (snapshot(directory) if listed is None
                                     else {directory / name: (size, mtime, ctime, ino) for name, size, mtime, ctime, ino in listed})
        self._settings = {path: file_signature(path) for path in polled_settings_files(self.server.state)}

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        interval = POLL_SECONDS
        while not self._stop.wait(interval):
            started = time.monotonic()
            changed: list[Path] = []
            seen: dict[Path, dict[Path, Signature]] = {}
            for directory in polled_directories(self.server.state):
                now = seen[directory] = snapshot(directory)
                before = self._seen.get(directory)
                if before is None:  # a root added since: it was read from disk when added
                    continue
                for path in now.keys() | before.keys():
                    if now.get(path) != before.get(path):
                        changed.append(path)
            # Roots that left (a folder closed) are forgotten: if one comes back it is read afresh.
            self._seen = seen
            settings = {path: file_signature(path) for path in polled_settings_files(self.server.state)}
            changed += [path for path, sig in settings.items()
                        if path in self._settings and self._settings[path] != sig]
            self._settings = settings
            if changed:
                asyncio.run_coroutine_threadsafe(self._deliver(changed), self.loop)
            interval = poll_interval(sum(len(s) for s in seen.values()), time.monotonic() - started)

    async def _deliver(self, paths: list[Path]) -> None:
        await self.server.files_changed(paths)
