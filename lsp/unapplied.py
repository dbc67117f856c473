"""The texts the editor sent that the engine thread has not taken in yet.

The loop thread stores each change's text the moment it arrives; the engine
thread takes them (memls.lsp.server._apply_change). Of an entry only the
latest text counts: a burst of keystrokes is parsed once. Of ``MEMORY.md``
every text is kept, in order: whether the buffer took the file from disk
(``:e!``) or was typed back to it is a moment of its history the server
acts on (:meth:`memls.lsp.state.ServerState.change`), and the keystroke that
follows at once would hide it if only the latest text were taken.
"""

from __future__ import annotations

import threading
from pathlib import Path

from memls.store.model import document_kind

Change = tuple[str, int | None]  # a document's text and its version


class UnappliedChanges:
    """Per document, the changes not taken yet: the latest alone, or every one for ``MEMORY.md``.

    A lock, because the two threads each look and then change: without it the
    engine could take a list in the instant the loop thread appends to it,
    and that text would be lost.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._changes: dict[Path, list[Change]] = {}

    def add(self, path: Path, text: str, version: int | None) -> None:
        """The editor changed ``path`` (loop thread)."""
        with self._lock:
            waiting = self._changes.setdefault(path, [])
            if document_kind(path.name) != "index":
                waiting.clear()
            waiting.append((text, version))

    def take(self, path: Path) -> list[Change]:
        """The changes of ``path`` waiting, oldest first, now the engine's (engine thread)."""
        with self._lock:
            return self._changes.pop(path, [])

    def latest(self, path: Path) -> Change | None:
        """The last change of ``path`` the editor sent, if the engine has not taken it yet."""
        with self._lock:
            waiting = self._changes.get(path)
            return waiting[-1] if waiting else None
