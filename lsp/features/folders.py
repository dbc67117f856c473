"""Workspace folders that come and go while the server runs.

VS Code multi-root workspaces and Neovim's ``add_workspace_folder`` send
``workspace/didChangeWorkspaceFolders``. Each folder is its own project
(:func:`memls.store.roots.editor_stacks`): an added folder's roots are loaded
at once and checked, so its problems appear without opening a file, as for
the folders of ``initialize``; a removed folder's roots leave the model and
the client is told to stop showing their diagnostics. Documents the editor
already had open in an added folder join the model with their buffer text
(:meth:`memls.lsp.server.MemlsServer.roots_changed`).
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


def register(server: MemlsServer) -> None:
    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def did_change_workspace_folders(ls: MemlsServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        event = params.event
        change = await ls.engine.run(
            ls.state.change_folders, _folders(ls.state, event.added), _folders(ls.state, event.removed))
        await ls.roots_changed(change)  # documents open in an added folder join with their buffers
        if event.added and ls.state.client.configuration:
            await ls.reconfigure()  # an added folder may have settings of its own in the editor
