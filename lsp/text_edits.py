"""Bringing an open buffer to a new text with the smallest edit.

Formatting, an index refresh on save and the commands that write a file the
editor has open all end the same way: the buffer must hold a new text. Sent
as one edit replacing the whole document, that text makes the editor move
the cursor to the top, drop folds and selections, and record the whole
document as changed. So the edit covers only what differs: the common
prefix and the common suffix of the two texts stay untouched, and one
``TextEdit`` replaces the middle.

Positions are the client's: lines are split at ``\\r\\n``, ``\\r`` and ``\\n``
(the protocol's line endings; an edit never starts or ends between the two
characters of a ``\\r\\n``), columns are counted in the position encoding
chosen at ``initialize`` (UTF-16 code units unless the client offered
another).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from .state import ServerState


def _common_prefix(a: str, b: str) -> int:
    """Length of the longest common prefix (binary search: C-speed slice compares)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: str, b: str, limit: int) -> int:
    """Length of the longest common suffix, at most ``limit``."""
    lo, hi = 0, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid:] == b[len(b) - mid:]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _units(text: str, encoding: str) -> int:
    if encoding == types.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8", "surrogatepass"))
    if encoding == types.PositionEncodingKind.Utf32 or text.isascii():
        return len(text)
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def position_at(text: str, offset: int, encoding: str) -> types.Position:
    """The client position of a code-point offset into ``text``."""
    head = text[:offset]
    line = head.count("\n") + head.count("\r") - head.count("\r\n")
    line_start = max(head.rfind("\n"), head.rfind("\r")) + 1
    return types.Position(line=line, character=_units(head[line_start:], encoding))


def _splits_crlf(text: str, offset: int) -> bool:
    return 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n"


def minimal_edit(
    old: str, new: str, encoding: str = types.PositionEncodingKind.Utf16
) -> types.TextEdit | None:
    """One edit turning ``old`` into ``new`` that leaves their common ends alone; None if equal."""
    if old == new:
        return None
    prefix = _common_prefix(old, new)
    suffix = _common_suffix(old, new, min(len(old), len(new)) - prefix)
    if _splits_crlf(old, prefix):
        prefix -= 1
    if _splits_crlf(old, len(old) - suffix):
        suffix -= 1
    start, end = prefix, len(old) - suffix
    return types.TextEdit(
        range=types.Range(start=position_at(old, start, encoding), end=position_at(old, end, encoding)),
        new_text=new[prefix:len(new) - suffix],
    )


def buffer_edit(state: ServerState, path: Path, text: str) -> types.WorkspaceEdit | None:
    """The workspace edit bringing the client's text of ``path`` to ``text`` (engine thread).

    Versioned when the client takes ``documentChanges``, so an edit computed
    for a buffer the user has changed since is rejected instead of misapplied.
    """
    edit = minimal_edit(state.text(path), text, state.client.position_encoding)
    if edit is None:
        return None
    uri = state.uris.uri(path)
    if state.client.document_changes:
        return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=state.version(path)),
            edits=[edit])])
    return types.WorkspaceEdit(changes={uri: [edit]})
