"""Completion inside an entry's frontmatter: link names, status and type values, keys.

The candidates, their order and the text each one inserts are the engine's
(:func:`memls.store.completion.completions`); this module turns them into
``CompletionItem``s the client can use: a ``textEdit`` over the span the
engine says a candidate replaces, documentation in a format the client
reads, the deprecated mark the client supports, and a kind the client
knows (``EnumMember`` only where declared, ``Value`` otherwise).

A large root can offer thousands of names; the list is cut at
:data:`MAX_ITEMS` and marked incomplete, so the client asks again as the
user types instead of filtering a truncated list as if it were whole.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from memls.store.spans import split_lines

from ..document_request import document_request

if TYPE_CHECKING:
    from memls.store.completion import CompletionCandidate

    from ..client_features import ClientFeatures
    from ..server import MemlsServer
    from ..state import ServerState

MAX_ITEMS = 200
# A space after ``key:`` or ``-`` starts a value; ``:`` ends a key; ``-`` starts a list item.
TRIGGER_CHARACTERS = [" ", ":", "-"]


def _kind(candidate: CompletionCandidate, client: ClientFeatures) -> types.CompletionItemKind:
    if candidate.kind == "entry":
        return types.CompletionItemKind.Reference
    if candidate.kind == "key":
        return types.CompletionItemKind.Property
    return types.CompletionItemKind.EnumMember if client.completion_enum_member else types.CompletionItemKind.Value


def _documentation(text: str, client: ClientFeatures):
    if not text:
        return None
    if client.completion_markdown:
        return types.MarkupContent(kind=types.MarkupKind.Markdown, value=text)
    return text


def completion_result(state: ServerState, path: Path, position: types.Position) -> types.CompletionList | None:
    """The client's completion list at a position (engine thread)."""
    # The engine's module loads with the first completion, not with the server.
    from memls.store.completion import completions

    positions = state.positions(path)
    line, col = positions.from_client(position)
    candidates = completions(state.workspace, path, line, col)
    client = state.client
    if not candidates:
        return None
    if len(candidates) > MAX_ITEMS:
        candidates = _narrowed(candidates, state.text(path), line, col)
    items = []
    for candidate in candidates[:MAX_ITEMS]:
        item = types.CompletionItem(
            label=candidate.label,
            kind=_kind(candidate, client),
            detail=candidate.detail or None,
            documentation=_documentation(candidate.documentation, client),
            sort_text=candidate.sort_text,
            # The inserted text may start with a space the user has not typed;
            # filter on it so the client's fuzzy match still finds the item.
            filter_text=candidate.insert_text if candidate.insert_text != candidate.label else None,
        )
        if candidate.replace_span is not None:
            item.text_edit = types.TextEdit(
                range=positions.range(candidate.replace_span), new_text=candidate.insert_text
            )
        else:
            item.insert_text = candidate.insert_text
        if candidate.deprecated:
            if client.completion_deprecated_tag:
                item.tags = [types.CompletionItemTag.Deprecated]
            elif client.completion_deprecated_property:
                item.deprecated = True
        items.append(item)
    return types.CompletionList(is_incomplete=len(candidates) > MAX_ITEMS, items=items)


def _narrowed(candidates: list[CompletionCandidate], text: str | None, line: int, col: int
              ) -> list[CompletionCandidate]:
    """Candidates matching what is typed so far, those starting with it first.

    A list cut at MAX_ITEMS is marked incomplete, so the client asks again as
    the user types; without narrowing by the typed text, names past the cut
    could never be offered.
    """
    span = next((c.replace_span for c in candidates if c.replace_span is not None), None)
    if text is None or span is None or span.start_line != line:
        return candidates
    lines = split_lines(text)
    typed = lines[line][span.start_col:col].strip().casefold() if line < len(lines) else ""
    if not typed:
        return candidates
    matching = [c for c in candidates if typed in c.label.casefold()]
    return sorted(matching, key=lambda c: not c.label.casefold().startswith(typed))


def register(server: MemlsServer) -> None:
    options = types.CompletionOptions(trigger_characters=TRIGGER_CHARACTERS)

    @document_request(server, types.TEXT_DOCUMENT_COMPLETION, options)
    def completion(ls: MemlsServer, path: Path, params: types.CompletionParams):
        return completion_result(ls.state, path, params.position)
