"""What the client can do, read once at ``initialize``.

Every choice the server makes for a client -- push or pull diagnostics,
lazy or eager code actions, ``LocationLink`` or ``Location``, Markdown or
plain text -- follows from what the client *declared*, never from its name:
a capability is a promise the client makes, a name is a guess about a
version of an editor. The capabilities are read here and nowhere else, so a
feature module asks one boolean instead of walking the nested capability
objects (where any level may be missing).

Three choices are not capabilities: whether the editor already shows the
Markdown headings of a memory in its outline (VS Code's built-in Markdown
support does; a second copy from us would list every heading twice),
whether it shows the Memories view (and so wants ``memls/memoriesChanged``),
and whether it shows the ``memls/status`` notification
(:mod:`memls.lsp.status`). A client says so in
``initializationOptions.client.markdownOutline``, ``.memoriesView`` and
``.statusNotification``; the VS Code extension sends all three.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability

from memls.store.structs import struct


@struct(frozen=False)
class ClientFeatures:
    """What the client declared, reduced to the decisions the server makes."""

    pull_diagnostics: bool = False
    dynamic_watchers: bool = False
    # Watchers with a base directory: how roots outside the workspace folders are watched.
    relative_patterns: bool = False
    file_operations: bool = False
    document_changes: bool = False
    resource_operations: bool = False
    related_information: bool = True
    work_done_progress: bool = False
    apply_edit: bool = False
    configuration: bool = False
    show_document: bool = False
    position_encoding: str = "utf-16"
    # Code actions: sent without edits, resolved when chosen (the client keeps ``data``).
    resolve_code_action_edits: bool = False
    # Navigation results.
    location_links: bool = False
    hover_markdown: bool = True
    hierarchical_symbols: bool = False
    workspace_symbol_deprecated_tag: bool = False
    # The editor lists a Markdown document's headings itself.
    markdown_outline: bool = False
    document_link_tooltip: bool = False
    # Lenses read across files: the client is asked to re-ask after changes.
    code_lens_refresh: bool = False
    # The editor shows the Memories view and wants ``memls/memoriesChanged``.
    memories_view: bool = False
    # The client shows ``memls/status`` (and wants no ``$/progress`` for the scan).
    status_notification: bool = False
    # Completion items.
    completion_markdown: bool = False
    completion_deprecated_tag: bool = False
    completion_deprecated_property: bool = False
    completion_enum_member: bool = False

    @classmethod
    def read(cls, caps: types.ClientCapabilities, *, encoding: str = "utf-16",
             options: Mapping[str, Any] | None = None) -> ClientFeatures:
        """The features of a client from its capabilities and ``initializationOptions``."""

        def cap(field: str, default: Any = None) -> Any:
            return get_capability(caps, field, default)

        pull = bool(cap("text_document.diagnostic")) and bool(cap("workspace.diagnostics.refresh_support"))
        resource_operations = set(cap("workspace.workspace_edit.resource_operations", []))
        completion_formats = set(cap("text_document.completion.completion_item.documentation_format", []))
        client_options = (options or {}).get("client")
        return cls(
            pull_diagnostics=pull,
            dynamic_watchers=bool(cap("workspace.did_change_watched_files.dynamic_registration")),
            relative_patterns=bool(cap("workspace.did_change_watched_files.relative_pattern_support")),
            file_operations=bool(cap("workspace.file_operations.did_rename")
                                 or cap("workspace.file_operations.will_rename")),
            document_changes=bool(cap("workspace.workspace_edit.document_changes")),
            resource_operations={
                types.ResourceOperationKind.Create, types.ResourceOperationKind.Rename
            } <= resource_operations,
            related_information=bool(cap("text_document.publish_diagnostics.related_information")) or pull,
            work_done_progress=bool(cap("window.work_done_progress")),
            apply_edit=bool(cap("workspace.apply_edit")),
            configuration=bool(cap("workspace.configuration")),
            show_document=bool(cap("window.show_document.support")),
            position_encoding=str(encoding),
            resolve_code_action_edits=bool(cap("text_document.code_action.data_support"))
            and "edit" in cap("text_document.code_action.resolve_support.properties", []),
            location_links=bool(cap("text_document.definition.link_support")),
            hover_markdown=_prefers_markdown(cap("text_document.hover.content_format")),
            hierarchical_symbols=bool(
                cap("text_document.document_symbol.hierarchical_document_symbol_support")),
            workspace_symbol_deprecated_tag=types.SymbolTag.Deprecated
            in cap("workspace.symbol.tag_support.value_set", []),
            markdown_outline=isinstance(client_options, Mapping)
            and client_options.get("markdownOutline") is True,
            document_link_tooltip=bool(cap("text_document.document_link.tooltip_support")),
            code_lens_refresh=bool(cap("workspace.code_lens.refresh_support")),
            memories_view=isinstance(client_options, Mapping)
            and client_options.get("memoriesView") is True,
            status_notification=isinstance(client_options, Mapping)
            and client_options.get("statusNotification") is True,
            completion_markdown=types.MarkupKind.Markdown in completion_formats,
            completion_deprecated_tag=types.CompletionItemTag.Deprecated
            in cap("text_document.completion.completion_item.tag_support.value_set", []),
            completion_deprecated_property=bool(
                cap("text_document.completion.completion_item.deprecated_support")),
            completion_enum_member=types.CompletionItemKind.EnumMember
            in cap("text_document.completion.completion_item_kind.value_set", []),
        )


def _prefers_markdown(formats: list[str] | None) -> bool:
    """Markdown unless the client lists formats without it."""
    return not formats or types.MarkupKind.Markdown in formats
