"""The texts the editor sent that the engine thread has not taken in yet.

The loop thread stores each change's text the moment it arrives; the engine
thread takes them (memls.lsp.server._apply_change). Of an entry only the
latest text counts: a burst of keystrokes is parsed once. Of ``MEMORY.md``
every text is kept, in order: whether the buffer took the file from disk
(``:e!``) or was typed back to it is a moment of its history the server
acts on (:meth:`memls.lsp.state.ServerState.change`), and the keystroke that
follows at once would hide it if only the latest text were taken.

Each change gets a ticket, and the engine job it queues takes the changes
up to that ticket only: a change the editor sent after a save must not
reach the model before that save does, which would take the buffer back
to the saved text while the editor holds the later one.
"""

from __future__ import annotations

import threading
from pathlib import Path

from memls.store.model import document_kind

Change = tuple[str, int | None]  # a document's text and its version
# How much of ``MEMORY.md``'s texts may wait at once (characters): each is a
# whole copy (0.6 MB at 10k entries), and while the first scan holds the
# engine a person may type hundreds. Beyond it the oldest go, as every
# text but the latest did before; the latest always waits.
WAITING_INDEX_CHARS = 8_000_000


class UnappliedChanges:
    """Per document, the changes not taken yet: the latest alone, or every one for ``MEMORY.md``.

    A lock, because the two threads each look and then change: without it the
    engine could take a list in the instant the loop thread appends to it,
    and that text would be lost.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tickets = 0
        self._changes: dict[Path, list[tuple[int, str, int | None]]] = {}

    def add(self, path: Path, text: str, version: int | None) -> int:
        """The editor changed ``path`` (loop thread): the change's ticket, for :meth:`take`."""
        with self._lock:
            self._tickets += 1
            waiting = self._changes.setdefault(path, [])
            if document_kind(path.name) != "index":
                waiting.clear()
            waiting.append((self._tickets, text, version))
            size = sum(len(change[1]) for change in waiting)
            while size > WAITING_INDEX_CHARS and len(waiting) > 1:
                size -= len(waiting.pop(0)[1])
            return self._tickets

    def take(self, path: Path, ticket: int) -> list[Change]:
        """The changes of ``path`` up to ``ticket``, oldest first, now the engine's (engine thread)."""
        with self._lock:
            waiting = self._changes.get(path, [])
            taken = 0
            while taken < len(waiting) and waiting[taken][0] <= ticket:
                taken += 1
            out = [(text, version) for _, text, version in waiting[:taken]]
            del waiting[:taken]
            if not waiting:
                self._changes.pop(path, None)
            return out

    def latest(self, path: Path) -> Change | None:
        """The last change of ``path`` the editor sent, if the engine has not taken it yet."""
        with self._lock:
            waiting = self._changes.get(path)
            return waiting[-1][1:] if waiting else None
