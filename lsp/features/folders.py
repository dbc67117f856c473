"""Workspace folders that come and go while the server runs.

VS Code multi-root workspaces and Neovim's ``add_workspace_folder`` send
``workspace/didChangeWorkspaceFolders``. Each folder is its own project
(:func:`memls.store.roots.editor_stacks`): an added folder's roots are loaded
at once and checked, so its problems appear without opening a file, as for
the folders of ``initialize``; a removed folder's roots leave the model and
the client is told to stop showing their diagnostics. Documents the editor
already had open in an added folder join the model with their buffer text.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from ..convert import uri_to_path

if TYPE_CHECKING:
    from ..server import MemlsServer
    from ..state import ServerState


def _folders(state: ServerState, items: Sequence[types.WorkspaceFolder] | None) -> list[Path]:
    """The folders named, resolved as the model names them (memls.lsp.client_uris)."""
    return state.uris.folders(p for f in items or [] if (p := uri_to_path(f.uri)) is not None)


def _adopt_open_documents(state: ServerState, documents: list[tuple[Path, str, int | None]]) -> set[Path]:
    """Buffers the editor opened before their folder was added: the buffer wins over disk."""
    affected: set[Path] = set()
    for path, text, version in documents:
        if path not in state.buffers and state.workspace.root_of(path) is not None:
            affected |= state.open(path, text, version)
    return affected


def register(server: MemlsServer) -> None:
    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def did_change_workspace_folders(ls: MemlsServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        event = params.event
        change = await ls.engine.run(
            ls.state.change_folders, _folders(ls.state, event.added), _folders(ls.state, event.removed))
        documents = []
        for doc in list(ls.workspace.text_documents.values()):
            if (path := ls.memory_path(doc.uri)) is not None:
                ls.state.uris.opened(path, doc.uri)  # the added folder may name it anew
                documents.append((path, doc.source, doc.version))
        adopted = await ls.engine.run(_adopt_open_documents, ls.state, documents)
        ls.after_change(adopted)
        await ls.roots_changed(change)
        if event.added and ls.state.client.configuration:
            await ls.reconfigure()  # an added folder may have settings of its own in the editor
