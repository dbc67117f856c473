"""Telling the client that what it shows about the model may be stale.

Lenses and the Memories view read across files: saving one entry changes the
lenses of those it supersedes and the tree of its root. Neither has a
per-document refresh, so after any change the client is asked to ask again:

* ``workspace/codeLens/refresh``, when the client declares it can take one;
* ``memls/memoriesChanged`` (no parameters), when the client asked for it in
  ``initializationOptions.client.memoriesView`` (the VS Code extension does):
  an editor that has no such view must not get notifications it does not know.

A burst of changes (typing, a scan) gives one notice per ``QUIET_SECONDS``:
the first change starts the timer, later ones ride along.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .server import MemlsServer

log = logging.getLogger(__name__)
MEMORIES_CHANGED = "memls/memoriesChanged"
QUIET_SECONDS = 0.3


class ModelChangeNotices:
    def __init__(self, server: MemlsServer) -> None:
        self.server = server
        self._timer: asyncio.TimerHandle | None = None

    def schedule(self) -> None:
        client = self.server.state.client
        if self._timer is not None or not (client.code_lens_refresh or client.memories_view):
            return
        self._timer = asyncio.get_running_loop().call_later(QUIET_SECONDS, self._send)

    def _send(self) -> None:
        self._timer = None
        if self.server.stopping:
            return
        client = self.server.state.client
        if client.memories_view:
            self.server.protocol.notify(MEMORIES_CHANGED, None)
        if client.code_lens_refresh:
            self.server.workspace_code_lens_refresh(None).add_done_callback(_log_failure)


def _log_failure(future) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.info("workspace/codeLens/refresh failed: %s", future.exception())
