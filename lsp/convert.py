"""Conversions between the engine's plain data and LSP types.

The engine counts columns in code points of the normalised text, where
``\r\n``, a lone ``\r`` and ``\n`` each end a line -- the LSP's own rule, so
line ``n`` of the engine is line ``n`` of the client's buffer whatever its
line endings (:func:`split_lines`). A client counts columns in UTF-16 units (VS Code), or UTF-8/UTF-32 when it offered them and
the server chose one at ``initialize``. Every position that crosses the wire
goes through :class:`Positions`, built from the text of the file it refers
to (which for a related location or a cross-file edit is not the document
being edited).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from memls.store.catalogue import spec
from memls.store.diagnostics import CreateFile, Problem, RenameFile, TextEdit
from memls.store.spans import Span, split_lines

SOURCE = "memls"
_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}
_TAGS = {"deprecated": types.DiagnosticTag.Deprecated, "unnecessary": types.DiagnosticTag.Unnecessary}


def path_to_uri(path: Path) -> str:
    uri = from_fs_path(str(path))
    assert uri is not None
    return uri


def uri_to_path(uri: str) -> Path | None:
    """The file system path of a ``file:`` URI; None for other schemes.

    ``file://localhost/p`` is ``file:///p`` (RFC 8089): some clients spell
    a local file so, and taken as a network path it would name no open
    buffer and no root.
    """
    if not uri.startswith("file:"):
        return None
    if uri[:17].lower() == "file://localhost/":
        uri = "file:///" + uri[17:]
    fs_path = to_fs_path(uri)
    return Path(fs_path) if fs_path else None


def _length_in_units(text: str, encoding: str) -> int:
    """``text``'s length in the client's units: what summing :func:`_units` over it gives, at C speed.

    A ``MEMORY.md`` line holds an em dash, so its positions are never plain
    code points for a UTF-16 client; counting character by character made
    converting a large index's diagnostics the slowest part of a keystroke.
    """
    if text.isascii():
        return len(text)
    if encoding == types.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _units(char: str, encoding: str) -> int:
    if encoding == types.PositionEncodingKind.Utf8:
        return len(char.encode("utf-8"))
    if encoding == types.PositionEncodingKind.Utf32:
        return 1
    return 2 if ord(char) > 0xFFFF else 1


class Positions:
    """Converts code-point positions of one text to and from client units."""

    def __init__(self, text: str, encoding: str = types.PositionEncodingKind.Utf16):
        self.lines = split_lines(text)
        self.length = len(text)
        self.encoding = encoding
        self._ascii = text.isascii()

    def _line(self, line: int) -> str | None:
        return self.lines[line] if 0 <= line < len(self.lines) else None

    def to_client(self, line: int, col: int) -> types.Position:
        line, character = self.units(line, col)
        return types.Position(line=line, character=character)

    def units(self, line: int, col: int) -> tuple[int, int]:
        """A code-point position as the client's (line, character): what :meth:`to_client` answers."""
        text = self._line(line)
        if text is None:
            return (len(self.lines), 0) if line >= len(self.lines) else (0, 0)
        col = max(0, min(col, len(text)))
        if self._ascii or self.encoding == types.PositionEncodingKind.Utf32:
            return line, col
        return line, _length_in_units(text[:col], self.encoding)

    def from_client(self, position: types.Position) -> tuple[int, int]:
        text = self._line(position.line)
        if text is None:
            last = len(self.lines) - 1
            return (last, len(self.lines[last])) if position.line > last else (0, 0)
        if self._ascii or self.encoding == types.PositionEncodingKind.Utf32:
            return position.line, min(position.character, len(text))
        units = 0
        for index, char in enumerate(text):
            if units >= position.character:
                return position.line, index
            units += _units(char, self.encoding)
        return position.line, len(text)

    def range_json(self, span: Span) -> dict:
        """:meth:`range` in its wire form (what the protocol's converter makes of it)."""
        start_line, start = self.units(span.start_line, span.start_col)
        end_line, end = self.units(span.end_line, span.end_col)
        return {"start": {"line": start_line, "character": start}, "end": {"line": end_line, "character": end}}

    def range(self, span: Span) -> types.Range:
        return types.Range(
            start=self.to_client(span.start_line, span.start_col),
            end=self.to_client(span.end_line, span.end_col),
        )

    def span(self, rng: types.Range) -> Span:
        start = self.from_client(rng.start)
        end = self.from_client(rng.end)
        return Span(*start, *end)


class PlainPositions:
    """:class:`Positions` of a text whose positions in question are the same in every unit, not read.

    For problems :func:`memls.store.check_cache.plain_length` vouches for:
    an ASCII text, every span inside its lines, so :meth:`Positions.units`
    would answer each position as it is. Only its length is known.
    """

    def __init__(self, length: int):
        self.length = length

    def range_json(self, span: Span) -> dict:
        start_line, start, end_line, end = span
        return {"start": {"line": start_line, "character": start}, "end": {"line": end_line, "character": end}}


def diagnostic(
    problem: Problem,
    positions: Positions,
    related_positions: Mapping[Path, Positions],
    *,
    related_support: bool = True,
    uri_of: Callable[[Path], str] = path_to_uri,
) -> types.Diagnostic:
    """An engine problem as an LSP diagnostic (``data`` keeps the code for code actions).

    ``uri_of`` spells a path as the client does (memls.lsp.client_uris).
    """
    related = None
    if related_support and problem.related:
        related = [
            types.DiagnosticRelatedInformation(
                location=types.Location(
                    uri=uri_of(r.location.path),
                    range=related_positions[r.location.path].range(r.location.span)
                    if r.location.path in related_positions else _zero_range(r.location.span),
                ),
                message=r.message,
            )
            for r in problem.related
        ]
    tags = [_TAGS[t] for t in problem.tags if t in _TAGS] or None
    return types.Diagnostic(
        range=positions.range(problem.span),
        message=problem.message,
        severity=_SEVERITY[problem.severity],
        code=problem.code,
        code_description=_code_description(problem.code),
        source=SOURCE,
        related_information=related,
        tags=tags,
        data={"code": problem.code, "span": list(_span_tuple(problem.span))},
    )


def diagnostic_json(
    problem: Problem,
    positions: Positions | PlainPositions,
    related_positions: Mapping[Path, Positions],
    *,
    related_support: bool = True,
    uri_of: Callable[[Path], str] = path_to_uri,
) -> dict[str, Any]:
    """:func:`diagnostic` in its wire form: what the protocol's converter makes of it, built directly.

    For publishing many files' problems at once (a start's: every file with
    problems), where building the LSP objects and having the converter take
    them apart again cost more than the rest of the start's own work.
    """
    out: dict[str, Any] = {
        "range": positions.range_json(problem.span),
        "message": problem.message,
        "severity": _SEVERITY[problem.severity].value,
        "code": problem.code,
        "codeDescription": {"href": _code_description(problem.code).href},
        "source": SOURCE,
    }
    tags = [_TAGS[t].value for t in problem.tags if t in _TAGS]
    if tags:
        out["tags"] = tags
    if related_support and problem.related:
        out["relatedInformation"] = [
            {"location": {"uri": uri_of(r.location.path),
                          "range": related_positions[r.location.path].range_json(r.location.span)
                          if r.location.path in related_positions else _zero_range_json(r.location.span)},
             "message": r.message}
            for r in problem.related
        ]
    out["data"] = {"code": problem.code, "span": list(_span_tuple(problem.span))}
    return out


def _zero_range_json(span: Span) -> dict:
    return {"start": {"line": span.start_line, "character": span.start_col},
            "end": {"line": span.end_line, "character": span.end_col}}


@functools.cache
def _code_description(code: str) -> types.CodeDescription:
    """The link to a code's page (a ``file:`` URI built once per code, not per diagnostic)."""
    return types.CodeDescription(href=spec(code).docs_url)


def _span_tuple(span: Span) -> tuple[int, int, int, int]:
    return (span.start_line, span.start_col, span.end_line, span.end_col)


def _zero_range(span: Span) -> types.Range:
    return types.Range(
        start=types.Position(line=span.start_line, character=span.start_col),
        end=types.Position(line=span.end_line, character=span.end_col),
    )


def workspace_edit(
    operations: Iterable[TextEdit | CreateFile | RenameFile],
    positions_of: Callable[[Path], Positions],
    *,
    versions: Mapping[Path, int | None],
    document_changes: bool,
    resource_operations: bool,
    uri_of: Callable[[Path], str] = path_to_uri,
) -> types.WorkspaceEdit:
    """Fix operations as one workspace edit.

    With ``documentChanges`` support, edits are versioned and file creates and
    renames are resource operations that never overwrite (no ``ignoreIfExists``,
    ``overwrite: false``: a quick fix must never destroy a file). Without it,
    only text edits can be expressed; the caller must not offer fixes that
    need file operations to such a client.
    """
    ops = list(operations)
    if not document_changes:
        changes: dict[str, list[types.TextEdit]] = {}
        for op in ops:
            if not isinstance(op, TextEdit):
                raise ValueError("this client cannot create or rename files")
            changes.setdefault(uri_of(op.path), []).append(
                types.TextEdit(range=positions_of(op.path).range(op.span), new_text=op.new_text)
            )
        return types.WorkspaceEdit(changes=changes)
    if not resource_operations and any(not isinstance(op, TextEdit) for op in ops):
        raise ValueError("this client cannot create or rename files")
    out: list = []
    pending: dict[Path, list[types.TextEdit]] = {}
    order: list[Path] = []

    def flush() -> None:
        for path in order:
            out.append(types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(
                    uri=uri_of(path), version=versions.get(path)
                ),
                edits=pending[path],
            ))
        pending.clear()
        order.clear()

    for op in ops:
        if isinstance(op, TextEdit):
            if op.path not in pending:
                pending[op.path] = []
                order.append(op.path)
            pending[op.path].append(
                types.TextEdit(range=positions_of(op.path).range(op.span), new_text=op.new_text)
            )
    # Text edits first (against the documents as they are), then file operations.
    flush()
    for op in ops:
        if isinstance(op, CreateFile):
            uri = uri_of(op.path)
            out.append(types.CreateFile(
                # Not ignoreIfExists: an ignored create would let the insert that
                # follows land in the existing file. Failing the create makes the
                # client abort the rest of the edit, and the file stays untouched.
                uri=uri, options=types.CreateFileOptions(overwrite=False, ignore_if_exists=False)
            ))
            out.append(types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
                edits=[types.TextEdit(
                    range=types.Range(start=types.Position(line=0, character=0),
                                      end=types.Position(line=0, character=0)),
                    new_text=op.text,
                )],
            ))
        elif isinstance(op, RenameFile):
            out.append(types.RenameFile(
                old_uri=uri_of(op.old), new_uri=uri_of(op.new),
                options=types.RenameFileOptions(overwrite=False, ignore_if_exists=False),
            ))
    return types.WorkspaceEdit(document_changes=out)

