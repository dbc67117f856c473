"""Bringing an open buffer to a new text with the smallest edit.

Formatting, an index refresh on save and the commands that write a file the
editor has open all end the same way: the buffer must hold a new text. Sent
as one edit replacing the whole document, that text makes the editor move
the cursor to the top, drop folds and selections, and record the whole
document as changed. So the edit covers only what differs: the common
prefix and the common suffix of the two texts stay untouched, and one
``TextEdit`` replaces the middle (:func:`minimal_edit`); an edit of a buffer
the user may be typing in touches the changed lines alone (:func:`line_edits`).

Positions are the client's: lines are split at ``\\r\\n``, ``\\r`` and ``\\n``
(the protocol's line endings; an edit never starts or ends between the two
characters of a ``\\r\\n``), columns are counted in the position encoding
chosen at ``initialize`` (UTF-16 code units unless the client offered
another).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from .state import ServerState
    from .unapplied import UnappliedChanges


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


# A line with its break (``\r\n``, ``\r`` or ``\n``), or the text after the last break.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def line_edits(
    old: str, new: str, encoding: str = types.PositionEncodingKind.Utf16
) -> list[types.TextEdit]:
    """Edits turning ``old`` into ``new`` that touch only the lines that differ, each as little as it can.

    Unlike :func:`minimal_edit` (one edit from the first difference to the
    last), lines that stay between two changed ones are outside every edit:
    a buffer the user types in gets its changed lines replaced and nothing
    else rewritten, not even with the same text.
    """
    a, b = _LINE.findall(old), _LINE.findall(new)
    starts = [0]
    for line in a:
        starts.append(starts[-1] + len(line))
    edits = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        start, end, text = starts[i1], starts[i2], "".join(b[j1:j2])
        piece = minimal_edit(old[start:end], text, encoding)
        if piece is None:
            continue
        # The piece's positions are relative to the hunk, which starts a line: shift its line numbers.
        first = position_at(old, start, encoding).line
        edits.append(types.TextEdit(range=types.Range(
            start=_shifted(piece.range.start, first), end=_shifted(piece.range.end, first)), new_text=piece.new_text))
    return edits


def _shifted(position: types.Position, lines: int) -> types.Position:
    return types.Position(line=position.line + lines, character=position.character)


def buffer_edit(
    state: ServerState, path: Path, new_text: Callable[[str], str | None],
    unapplied: UnappliedChanges | None = None,
) -> tuple[types.WorkspaceEdit, int | None] | None:
    """The edit bringing the client's text of ``path`` to ``new_text(that text)``, and that text's version
    (engine thread; None: no change).

    The text is read, the new one computed and the edit built in this one
    engine step, so the edit is made for the buffer as it is now: an edit
    computed for an earlier text and diffed against a later one removes
    what the user typed in between. ``unapplied`` holds the text and version
    the client sent last for documents whose change the model has not taken
    in yet (:attr:`memls.lsp.server.MemlsServer.unapplied`). Versioned
    when the client takes ``documentChanges``, so an edit the user's typing
    overtakes in transit is rejected instead of misapplied (the caller
    computes it anew).
    """
    latest = unapplied.latest(path) if unapplied is not None else None
    old, version = latest if latest is not None else (state.text(path), state.version(path))
    new = new_text(old)
    edits = line_edits(old, new, state.client.position_encoding) if new is not None else []
    if not edits:
        return None
    uri = state.uris.uri(path)
    if state.client.document_changes:
        return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
            edits=edits)]), version
    return types.WorkspaceEdit(changes={uri: edits}), version
