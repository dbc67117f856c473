"""Completion inside an entry's frontmatter: link names, status and type values, keys.

The candidates, their order and the text each one inserts are the engine's
(:func:`memls.store.navigation.completions`); this module turns them into
``CompletionItem``s the client can use: a ``textEdit`` over the span the
engine says a candidate replaces, documentation in a format the client
reads, the deprecated mark the client supports, and a kind the client
knows (``EnumMember`` only where declared, ``Value`` otherwise).

A large root can offer thousands of names; the list is cut at
:data:`MAX_ITEMS` and marked incomplete, so the client asks again as the
user types instead of filtering a truncated list as if it were whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from memls.store import navigation

if TYPE_CHECKING:
    from ..server import MemlsServer
    from ..state import ServerState

MAX_ITEMS = 200
# A space after ``key:`` or ``-`` starts a value; ``:`` ends a key; ``-`` starts a list item.
TRIGGER_CHARACTERS = [" ", ":", "-"]


@dataclass(frozen=True)
class CompletionSupport:
    """What the client declared about completion items, reduced to our choices."""

    markdown_documentation: bool = False
    plain_documentation: bool = True
    deprecated_tag: bool = False
    deprecated_property: bool = False
    enum_member_kind: bool = False

    @classmethod
    def of(cls, caps: types.ClientCapabilities) -> CompletionSupport:
        text = caps.text_document
        completion = text.completion if text else None
        item = completion.completion_item if completion else None
        formats = set(item.documentation_format or ()) if item else set()
        kinds = completion.completion_item_kind if completion else None
        tags = item.tag_support if item else None
        return cls(
            markdown_documentation=types.MarkupKind.Markdown in formats,
            plain_documentation=not formats or types.MarkupKind.PlainText in formats,
            deprecated_tag=bool(tags and types.CompletionItemTag.Deprecated in tags.value_set),
            deprecated_property=bool(item and item.deprecated_support),
            enum_member_kind=bool(
                kinds and kinds.value_set and types.CompletionItemKind.EnumMember in kinds.value_set
            ),
        )


def _kind(candidate: navigation.CompletionCandidate, support: CompletionSupport) -> types.CompletionItemKind:
    if candidate.kind == "entry":
        return types.CompletionItemKind.Reference
    if candidate.kind == "key":
        return types.CompletionItemKind.Property
    return types.CompletionItemKind.EnumMember if support.enum_member_kind else types.CompletionItemKind.Value


def _documentation(text: str, support: CompletionSupport):
    if not text:
        return None
    if support.markdown_documentation:
        return types.MarkupContent(kind=types.MarkupKind.Markdown, value=text)
    return text


def completion_result(
    state: ServerState, path: Path, position: types.Position, support: CompletionSupport
) -> types.CompletionList | None:
    """The client's completion list at a position (engine thread)."""
    positions = state.positions(path)
    line, col = positions.from_client(position)
    candidates = navigation.completions(state.workspace, path, line, col)
    if not candidates:
        return None
    items = []
    for candidate in candidates[:MAX_ITEMS]:
        item = types.CompletionItem(
            label=candidate.label,
            kind=_kind(candidate, support),
            detail=candidate.detail or None,
            documentation=_documentation(candidate.documentation, support),
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
            if support.deprecated_tag:
                item.tags = [types.CompletionItemTag.Deprecated]
            elif support.deprecated_property:
                item.deprecated = True
        items.append(item)
    return types.CompletionList(is_incomplete=len(candidates) > MAX_ITEMS, items=items)


def register(server: MemlsServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=TRIGGER_CHARACTERS),
    )
    async def completion(ls: MemlsServer, params: types.CompletionParams):
        path = ls.memory_path(params.text_document.uri)
        if path is None:
            return None
        support = CompletionSupport.of(ls.client_capabilities)
        return await ls.engine.run(completion_result, ls.state, path, params.position, support)
