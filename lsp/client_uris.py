"""The client's spelling of paths: which URI to send for a file the model names, and back.

The model names a file by its root's path, and a workspace folder's roots are
resolved (``memls.store.roots.resolve_workspace``: Claude Code keys its
directory by the real path). An editor keeps the path the user opened: a
folder opened through a symlink (``wslink -> ws``) is ``.../wslink`` to it,
and so is every document it opens there. Answered in the model's spelling,
the editor files diagnostics under a document it does not have open, finds
no edit for its buffer, and a path it names never matches the model's (an
open ``MEMORY.md`` looks closed, and a save writes the file under it).

So the server translates at its edge, both ways: a path the client names is
taken in the model's spelling (:meth:`ServerState.model_path`, which also
asks the model for roots reached through another spelling), and everything
sent about a file uses the URI the client opened it under, else the spelling
of the workspace folder it lies in, else the model's own.

Read from the event loop and the engine thread alike: the tables are small
and every change replaces one entry.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import quote

from .convert import path_to_uri


class ClientUris:
    def __init__(self) -> None:
        # Per open document (model spelling): the URI the client opened it under.
        self._opened: dict[Path, str] = {}
        # Per workspace folder as the client names it: the folder resolved.
        self._folders: dict[Path, Path] = {}
        # (resolved folder, client folder) where the two differ, deepest first.
        self._respelled: list[tuple[Path, Path]] = []
        # Per directory (its text): its URI, which its files' URIs extend (None: made whole).
        self._directory_uris: dict[str, str | None] = {}

    # -- what the client told us ------------------------------------------------------

    def folders(self, client_folders: Iterable[Path]) -> list[Path]:
        """The workspace folders the client named, resolved (remembering the client's spelling)."""
        resolved = []
        for folder in client_folders:
            if folder not in self._folders:
                self._folders[folder] = _resolved(folder)
            resolved.append(self._folders[folder])
        self._respelled = sorted(
            ((real, client) for client, real in self._folders.items() if real != client),
            key=lambda pair: len(pair[0].parts), reverse=True)
        return resolved

    def opened(self, path: Path, uri: str) -> None:
        """The client opened the model's ``path`` as ``uri``."""
        self._opened[path] = uri

    def closed(self, path: Path) -> None:
        self._opened.pop(path, None)

    # -- translating ------------------------------------------------------------------

    def from_client(self, path: Path) -> Path:
        """A path in a workspace folder named as the client names the folder: in the resolved folder."""
        for real, client in self._respelled:
            if path == client or _within(path, client):
                return real / path.relative_to(client)
        return path

    def uri(self, path: Path) -> str:
        """The URI to send for the model's ``path``: the client's spelling of it."""
        opened = self._opened.get(path)
        if opened is not None:
            return opened
        for real, client in self._respelled:
            if path == real or _within(path, real):
                return path_to_uri(client / path.relative_to(real))
        return self._uri_in_directory(path)

    def _uri_in_directory(self, path: Path) -> str:
        """``path_to_uri(path)``, its directory's part made once.

        A file's URI is its directory's and the file name percent-encoded
        (encoding is character by character): a start publishes the problems
        of 840 files of one directory, and each whole URI took 2-3 µs. Each
        directory's part is cut from its first file's whole URI, and only
        when that URI is exactly the two joined.
        """
        directory, _, name = str(path).rpartition(os.sep)
        prefix = self._directory_uris.get(directory, "")
        if prefix:
            return f"{prefix}/{quote(name)}"
        uri = path_to_uri(path)
        if prefix == "" and name and not (os.altsep and os.altsep in name):
            tail = "/" + quote(name)
            self._directory_uris[directory] = uri[:-len(tail)] if uri.endswith(tail) and len(uri) > len(tail) else None
        return uri


def _within(path: Path, folder: Path) -> bool:
    # A string compare: this runs for every path a check publishes.
    return str(path).startswith(str(folder).rstrip(os.sep) + os.sep)


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path
