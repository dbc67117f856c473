"""The server's own file watcher, for clients that will not watch for us.

Neovim on Linux declares no dynamic ``didChangeWatchedFiles`` registration
and sends no file-operation notifications, so without this an agent writing
a memory while the user edits another would leave stale diagnostics. The
watcher polls each root's directory listing and the (size, mtime) of its
memory documents; polling a few thousand ``stat`` calls twice a second is
cheap and needs no extra dependency. Changes go through the same engine
path as editor notifications; open buffers still win.
"""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from memls.store.model import document_kind

if TYPE_CHECKING:
    from .server import MemlsServer

POLL_SECONDS = 0.5
Signature = tuple[int, int]


def snapshot(directory: Path) -> dict[Path, Signature]:
    """(size, mtime) of every memory document directly in ``directory``."""
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
                out[Path(item.path)] = (st.st_size, st.st_mtime_ns)
    except OSError:
        pass
    return out


class PollingWatcher:
    def __init__(self, server: MemlsServer) -> None:
        self.server = server
        self.loop = asyncio.get_running_loop()
        self._stop = threading.Event()
        self._seen: dict[Path, dict[Path, Signature]] = {}
        self._thread = threading.Thread(target=self._run, name="memls-watcher", daemon=True)

    def prime(self) -> None:
        """Remember how the roots look now; changes from here on are reported."""
        for directory in self._directories():
            self._seen[directory] = snapshot(directory)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _directories(self) -> list[Path]:
        # Copying the list is atomic; a root's path never changes. Roots are
        # only ever added, so a stale copy misses a new root for one round.
        return [root.path for root in list(self.server.state.workspace.roots)]

    def _run(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            changed: list[Path] = []
            for directory in self._directories():
                now = snapshot(directory)
                before = self._seen.get(directory)
                self._seen[directory] = now
                if before is None:  # a root added since: it was read from disk when added
                    continue
                for path in now.keys() | before.keys():
                    if now.get(path) != before.get(path):
                        changed.append(path)
            if changed:
                asyncio.run_coroutine_threadsafe(self._deliver(changed), self.loop)

    async def _deliver(self, paths: list[Path]) -> None:
        affected = await self.server.engine.run(self.server.state.disk_changes, paths)
        self.server.after_change(affected)
