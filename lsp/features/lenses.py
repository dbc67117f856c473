"""CodeLens above an entry's frontmatter, and document links on ``MEMORY.md``.

What the lenses say and where they lead is the engine's decision
(:mod:`memls.store.lenses`); this module converts spans to the client's units
and packs each lens's targets into a command.

Which command: a lens's command is run by the *client*. VS Code's
language client turns every command the server lists in
``executeCommandProvider`` into an editor command that sends
``workspace/executeCommand``; Neovim's ``vim.lsp.codelens.run()`` does the same
for a command it has no local handler for; eglot always does. So the one
command that works everywhere is the server's own, ``memls.showLocations``,
which opens the target through ``window/showDocument`` (selecting the name
or the index line), and for several targets first asks which one with
``window/showMessageRequest``. An editor-specific command
(``editor.action.showReferences``) would need arguments of VS Code's own
types and do nothing elsewhere. A client without ``window/showDocument``
gets the locations as the command's result.

``memls.showLocations LOCATIONS`` with LOCATIONS a list of
``{"label", "uri", "range"}`` -> the location shown, or the list when the
client cannot be told to show one.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..convert import uri_to_path
from ..document_request import document_request
from ..errors import RequestFailed
from ..protocol import WireResult
from .commands import _command

if TYPE_CHECKING:
    from ..server import MemlsServer
    from ..state import ServerState

SHOW_LOCATIONS = "memls.showLocations"


def code_lenses(state: ServerState, path: Path) -> list[types.CodeLens]:
    """The lenses of one entry, each with the command that opens its targets (engine thread)."""
    # The engine's module loads with the first request, not with the server.
    from memls.store.lenses import entry_lenses

    doc = state.document(path)
    if doc is None:
        return []
    positions = state.positions(path)
    out = []
    for lens in entry_lenses(doc):
        targets = [
            {
                "label": target.label,
                "uri": state.uris.uri(target.location.path),
                "range": _range_json(state.positions(target.location.path).range(target.location.span)),
            }
            for target in lens.targets
        ]
        out.append(types.CodeLens(
            range=positions.range(lens.span),
            command=types.Command(title=lens.title, command=SHOW_LOCATIONS, arguments=[targets]),
        ))
    return out


def document_links(state: ServerState, path: Path) -> list[dict[str, Any]]:
    """``MEMORY.md``'s pointer targets, each linking to its entry file (engine thread).

    In their wire form, as document symbols are (:mod:`.navigation`): a
    10k-entry index has ten thousand links, asked for again after each change.
    """
    from memls.store.lenses import index_links

    doc = state.document(path)
    if doc is None:
        return []
    positions, uri = state.positions(path), state.uris.uri
    links = index_links(doc)
    out = [{"range": positions.range_json(link.span), "target": uri(link.path)} for link in links]
    if state.client.document_link_tooltip:
        for wire, link in zip(out, links):
            wire["tooltip"] = f"Open the memory {link.name}"
    return out


def _range_json(rng: types.Range) -> dict:
    return {"start": {"line": rng.start.line, "character": rng.start.character},
            "end": {"line": rng.end.line, "character": rng.end.character}}


def _locations(args: tuple) -> list[dict]:
    """The command's one argument, checked: a non-empty list of ``{label, uri, range}``."""
    items = args[0] if args else None
    if not isinstance(items, list) or not items:
        raise RequestFailed("memls.showLocations needs a non-empty list of locations")
    for item in items:
        if not (isinstance(item, dict) and isinstance(item.get("uri"), str)
                and isinstance(item.get("label"), str) and _position(item.get("range"), "start")
                and _position(item.get("range"), "end")):
            raise RequestFailed("each location needs a label, a uri and a range")
        path = uri_to_path(item["uri"])
        if path is None or not path.is_file():
            raise RequestFailed(f"memls.showLocations: not a file: URI of an existing file: {item['uri'][:200]}")
    return items


def _position(rng: Any, end: str) -> bool:
    point = rng.get(end) if isinstance(rng, dict) else None
    return (isinstance(point, dict) and all(
        isinstance(point.get(k), int) and not isinstance(point.get(k), bool) and 0 <= point[k] <= _UINTEGER_MAX
        for k in ("line", "character")))


_UINTEGER_MAX = 2**31 - 1  # the protocol's uinteger


def _to_range(rng: dict) -> types.Range:
    return types.Range(
        start=types.Position(line=rng["start"]["line"], character=rng["start"]["character"]),
        end=types.Position(line=rng["end"]["line"], character=rng["end"]["character"]))


def register(server: MemlsServer) -> None:
    @document_request(server, types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    def code_lens(ls: MemlsServer, path: Path, params: types.CodeLensParams):
        return code_lenses(ls.state, path)

    @document_request(server, types.TEXT_DOCUMENT_DOCUMENT_LINK,
                      types.DocumentLinkOptions(resolve_provider=False))
    def document_link(ls: MemlsServer, path: Path, params: types.DocumentLinkParams):
        return WireResult(document_links(ls.state, path))

    @_command(server, SHOW_LOCATIONS)
    async def show_locations(ls: MemlsServer, *args):
        items = _locations(args)
        if not ls.state.client.show_document:
            return items
        chosen: dict | None = items[0]
        if len(items) > 1:
            picked = await ls.window_show_message_request_async(types.ShowMessageRequestParams(
                type=types.MessageType.Info, message="Open which memory?",
                actions=[types.MessageActionItem(title=item["label"]) for item in items]))
            chosen = next((item for item in items if picked is not None and item["label"] == picked.title), None)
        if chosen is None:  # the user chose none
            return None
        rng = _to_range(chosen["range"])
        await ls.window_show_document_async(types.ShowDocumentParams(
            uri=chosen["uri"], take_focus=True, selection=rng))
        return chosen
