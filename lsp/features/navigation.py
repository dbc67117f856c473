"""Navigation: definition, references, hover, document and workspace symbols.

What a link means, where it lands and what an outline holds are the
engine's decisions (:mod:`memls.store.links`, :mod:`memls.store.hover`,
:mod:`memls.store.symbols`); this module converts positions
to and from the client's units and shapes the results to what the client
declared (``LocationLink`` or ``Location``, Markdown or plain text,
hierarchical or flat symbols, symbol tags; see :mod:`memls.lsp.client_features`).

Body headings: an editor that outlines Markdown headings itself (VS Code's
built-in Markdown support; the client declares ``markdownOutline``) would
list each heading twice, so for it entry outlines keep only the frontmatter
symbol and ``MEMORY.md`` outlines list the pointer lines without their
``## Type`` headings; every other client gets the whole outline.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from memls.store.spans import Span

from ..document_request import document_request
from ..protocol import WireResult

if TYPE_CHECKING:
    from memls.store.symbols import SymbolInfo

    from ..convert import Positions
    from ..server import MemlsServer
    from ..state import ServerState

# Each outline kind's ``SymbolKind``, as the number the wire carries.
_SYMBOL_KIND = {
    "entry": int(types.SymbolKind.Object),
    "key": int(types.SymbolKind.Property),
    "heading": int(types.SymbolKind.String),
}
# Markdown emphasis and code marks, dropped for a client that shows plain text.
_MARKUP = re.compile(r"\*\*|`")


# -- definition and references ------------------------------------------------------


def _cursor(state: ServerState, path: Path, position: types.Position) -> tuple[int, int]:
    return state.positions(path).from_client(position)


def _location(state: ServerState, location) -> types.Location:
    return types.Location(
        uri=state.uris.uri(location.path), range=state.positions(location.path).range(location.span)
    )


def definition_result(
    state: ServerState, path: Path, position: types.Position
) -> list[types.LocationLink] | types.Location | None:
    """The target's ``name:`` value for the reference under the cursor (engine thread)."""
    # The engine's navigation modules load with the first request that needs them, not with the server.
    from memls.store.links import definition, reference_at

    line, col = _cursor(state, path, position)
    ref = reference_at(state.workspace, path, line, col)
    if ref is None:
        return None
    target = definition(state.workspace, path, line, col)
    if target is None:
        return None
    if not state.client.location_links:
        return _location(state, target)
    positions = state.positions(target.path)
    span = target.span
    line_text = positions.lines[span.start_line] if span.start_line < len(positions.lines) else ""
    whole_line = Span(span.start_line, 0, span.start_line, max(len(line_text), span.end_col))
    return [
        types.LocationLink(
            target_uri=state.uris.uri(target.path),
            target_range=positions.range(whole_line),
            target_selection_range=positions.range(span),
            origin_selection_range=state.positions(path).range(ref.span),
        )
    ]


def references_result(
    state: ServerState, path: Path, position: types.Position, include_declaration: bool
) -> list[types.Location] | None:
    from memls.store.links import reference_at, references

    line, col = _cursor(state, path, position)
    found = references(
        state.workspace, path, line, col, include_declaration=include_declaration
    )
    if not found and reference_at(state.workspace, path, line, col) is None:
        return None
    return [_location(state, location) for location in found]


# -- hover ----------------------------------------------------------------------------


def hover_result(state: ServerState, path: Path, position: types.Position) -> types.Hover | None:
    from memls.store.hover import hover

    line, col = _cursor(state, path, position)
    info = hover(state.workspace, path, line, col)
    if info is None:
        return None
    if state.client.hover_markdown:
        contents = types.MarkupContent(kind=types.MarkupKind.Markdown, value=info.markdown)
    else:
        contents = types.MarkupContent(
            kind=types.MarkupKind.PlainText, value=_MARKUP.sub("", info.markdown)
        )
    return types.Hover(contents=contents, range=state.positions(path).range(info.span))


# -- document symbols ---------------------------------------------------------------


def _outline(state: ServerState, path: Path) -> list[SymbolInfo] | None:
    from memls.store.symbols import document_symbols

    doc = state.document(path)
    if doc is None:
        return None
    symbols = document_symbols(doc)
    if not state.client.markdown_outline:
        return symbols
    if doc.kind == "index":  # pointer lines only; the editor lists the headings
        out: list[SymbolInfo] = []
        for symbol in symbols:
            out.extend(symbol.children if symbol.kind == "heading" else (symbol,))
        return out
    return [s for s in symbols if s.kind != "heading"]


def _symbol_name(symbol: SymbolInfo) -> str:
    # The protocol requires a non-empty name (VS Code rejects the whole outline).
    return symbol.name.strip() or symbol.detail or "#"


def _document_symbol(positions: Positions, symbol: SymbolInfo) -> dict[str, Any]:
    """A ``DocumentSymbol`` in its wire form (see :func:`document_symbols_result`)."""
    out: dict[str, Any] = {
        "name": _symbol_name(symbol),
        "kind": _SYMBOL_KIND[symbol.kind],
        "range": positions.range_json(symbol.span),
        "selectionRange": positions.range_json(symbol.selection_span),
    }
    if symbol.detail:
        out["detail"] = symbol.detail
    if symbol.children:
        out["children"] = [_document_symbol(positions, c) for c in symbol.children]
    return out


def document_symbols_result(state: ServerState, path: Path) -> list[dict[str, Any]] | None:
    """``DocumentSymbol``s, or flat ``SymbolInformation``s, in their wire form (engine thread).

    A 10k-entry ``MEMORY.md`` outlines ten thousand pointer lines, and an
    editor asks again after each change of it: built as protocol objects and
    converted for the wire, the answer took 0.3 s; as plain values, sent as
    they are (:class:`memls.lsp.protocol.WireResult`), it is the engine's
    outline and the positions' conversion.
    """
    symbols = _outline(state, path)
    if symbols is None:
        return None
    positions = state.positions(path)
    if state.client.hierarchical_symbols:
        return [_document_symbol(positions, s) for s in symbols]
    uri = state.uris.uri(path)
    flat: list[dict[str, Any]] = []

    def walk(symbol: SymbolInfo, container: str | None) -> None:
        information: dict[str, Any] = {
            "name": _symbol_name(symbol),
            "kind": _SYMBOL_KIND[symbol.kind],
            "location": {"uri": uri, "range": positions.range_json(symbol.span)},
        }
        if container is not None:
            information["containerName"] = container
        flat.append(information)
        for child in symbol.children:
            walk(child, _symbol_name(symbol))

    for symbol in symbols:
        walk(symbol, None)
    return flat


# -- workspace symbols ----------------------------------------------------------------


def workspace_symbols_result(state: ServerState, query: str) -> list[types.WorkspaceSymbol]:
    """Matching entries of every folder; with several folders each says which (its container)."""
    from memls.store.symbols import workspace_symbols

    out = []
    for symbol in workspace_symbols(state.workspace, query):
        where = state.where(symbol.location.path)
        container = " · ".join(part for part in (symbol.detail, where) if part)
        out.append(types.WorkspaceSymbol(
            name=symbol.name,
            kind=types.SymbolKind.Object,
            location=_location(state, symbol.location),
            container_name=container or None,
            tags=[types.SymbolTag.Deprecated] if state.client.workspace_symbol_deprecated_tag and not symbol.living else None,
        ))
    return out


def register(server: MemlsServer) -> None:
    @document_request(server, types.TEXT_DOCUMENT_DEFINITION)
    def definition_request(ls: MemlsServer, path: Path, params: types.DefinitionParams):
        return definition_result(ls.state, path, params.position)

    @document_request(server, types.TEXT_DOCUMENT_REFERENCES)
    def references_request(ls: MemlsServer, path: Path, params: types.ReferenceParams):
        return references_result(ls.state, path, params.position, params.context.include_declaration)

    @document_request(server, types.TEXT_DOCUMENT_HOVER)
    def hover_request(ls: MemlsServer, path: Path, params: types.HoverParams):
        return hover_result(ls.state, path, params.position)

    @document_request(server, types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbol(ls: MemlsServer, path: Path, params: types.DocumentSymbolParams):
        return WireResult(document_symbols_result(ls.state, path))

    @server.feature(types.WORKSPACE_SYMBOL)
    async def workspace_symbol(ls: MemlsServer, params: types.WorkspaceSymbolParams):
        return await ls.engine.run(workspace_symbols_result, ls.state, params.query)
