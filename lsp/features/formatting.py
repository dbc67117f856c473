"""``textDocument/formatting``: the engine's canonical text of a memory document.

What the canonical text is (and when a document has none) is decided by
:mod:`memls.store.formatting`: an entry becomes its gptme serialization when it
passes the strict parse, ``MEMORY.md`` becomes the engine's rendering of its
root unless it is hand-curated. This module only sends the difference as
one edit covering what changed (:func:`memls.lsp.text_edits.minimal_edit`, so
the cursor and folds elsewhere stay put), or no edit at all when the text is
already canonical or must be left alone -- so format-on-save never touches
a document that does not parse.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from ..document_request import document_request

if TYPE_CHECKING:
    from ..server import MemlsServer
    from ..state import ServerState


def format_edits(state: ServerState, path: Path) -> list[types.TextEdit]:
    """The edits formatting ``path`` (engine thread); [] when nothing changes."""
    # The formatter and the edit differ load with the first formatting request, not with the server.
    from memls.store.formatting import formatted_document

    from ..text_edits import minimal_edit

    doc = state.document(path)
    if doc is None:
        return []
    new = formatted_document(doc)
    if new is None or new == doc.text:
        return []
    edit = minimal_edit(state.text(path), new, state.client.position_encoding)
    return [edit] if edit is not None else []


def register(server: MemlsServer) -> None:
    @document_request(server, types.TEXT_DOCUMENT_FORMATTING)
    def formatting(ls: MemlsServer, path: Path, params: types.DocumentFormattingParams):
        return format_edits(ls.state, path)
