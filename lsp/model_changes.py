"""Telling the client that what it shows about the model may be stale.

Lenses and the Memories view read across files: saving one entry changes the
lenses of those it supersedes and the tree of its root. Neither has a
per-document refresh, so after a change the client is asked to ask again:

* ``workspace/codeLens/refresh`` after any change, when the client declares
  it can take one (it asks again only for the editors it shows: cheap);
* ``memls/memoriesChanged`` (no parameters), when the client asked for it in
  ``initializationOptions.client.memoriesView`` (the VS Code extension does),
  and only when the tree may look different: an entry's shown facts
  (:func:`memls.store.memories.node_key`) or its problem counts changed.
  Typing in a body sends none; a whole tree over 10k entries is not free.
  An editor without such a view never gets a notification it does not know.

A burst of changes (typing, a scan) gives one notice per ``QUIET_SECONDS``:
the first change starts the timer, later ones ride along.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .server import MemlsServer
    from .state import ServerState

log = logging.getLogger(__name__)
MEMORIES_CHANGED = "memls/memoriesChanged"
QUIET_SECONDS = 0.3


class ModelChangeNotices:
    def __init__(self, server: MemlsServer) -> None:
        self.server = server
        self._timer: asyncio.TimerHandle | None = None
        self._paths: set[Path] = set()
        self._problems_changed = False
        # What the tree last showed of each document (engine thread only).
        self._shown: dict[Path, tuple] = {}

    def schedule(self, paths: Iterable[Path] = ()) -> None:
        """The model changed at ``paths`` (event loop)."""
        client = self.server.state.client
        if not (client.code_lens_refresh or client.memories_view):
            return
        self._paths.update(paths)
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(
                QUIET_SECONDS, lambda: asyncio.ensure_future(self._send()))

    def problems_changed(self) -> None:
        """A document's error or warning count changed (event loop)."""
        self._problems_changed = True
        self.schedule()

    async def _send(self) -> None:
        self._timer = None
        paths, self._paths = self._paths, set()
        problems, self._problems_changed = self._problems_changed, False
        if self.server.stopping:
            return
        client = self.server.state.client
        try:
            if client.memories_view and (
                    await self.server.engine.run(self._tree_changed, self.server.state, paths) or problems):
                self.server.protocol.notify(MEMORIES_CHANGED, None)
            if client.code_lens_refresh:
                self.server.workspace_code_lens_refresh(None).add_done_callback(_log_failure)
        except Exception:  # noqa: BLE001 - a notice is a courtesy; the next change sends another
            log.exception("telling the client about a change failed")

    def _tree_changed(self, state: ServerState, paths: set[Path]) -> bool:
        # Loaded with the first change to tell a client that shows the Memories view, not with the server.
        from memls.store.memories import node_key

        changed = False
        for path in paths:
            key = node_key(state.workspace.document(path))
            if self._shown.get(path) != key:
                changed = True
                if key is None:
                    del self._shown[path]
                else:
                    self._shown[path] = key
        return changed


def _log_failure(future) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.info("workspace/codeLens/refresh failed: %s", future.exception())
