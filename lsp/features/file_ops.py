"""File operations from the editor's explorer: keep links right, keep the model current.

``workspace/willRenameFiles`` arrives *before* the editor renames an entry's
file: the answer is a workspace edit, applied by the editor together with
the rename, holding what the engine plans for it
(``memls.store.rename_plan.plan_file_rename``): an entry named after its file
keeps that bond (its name and every link follow the new stem), and the
index line and the policy's filename follow the file. A rename the engine
refuses (a reserved name, leaving the root, a collision) is not blocked --
the editor renames anyway -- but the user is told why the links were not
updated, and the checks then report what broke.

``workspace/didCreateFiles``, ``didRenameFiles`` and ``didDeleteFiles``
re-read the paths involved from disk (an open buffer still wins) and
re-check what they affect. The same changes may also arrive as watched-file
events; reading a file twice is harmless.

Only VS Code's profile declares file operations; pygls advertises each
operation only to clients that declare it, and the others rely on watched
files or the server's own watcher.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from memls.store.diagnostics import TextEdit
from memls.store.rename_plan import plan_file_rename
from memls.store.text import one_line

from .client_edits import edit_of, planned_on_current_files

if TYPE_CHECKING:
    from ..server import MemlsServer
    from ..state import ServerState

ENTRY_FILES = types.FileOperationFilter(
    scheme="file",
    pattern=types.FileOperationPattern(glob="**/*.md", matches=types.FileOperationPatternKind.File),
)
POLICY_FILES = types.FileOperationFilter(
    scheme="file",
    pattern=types.FileOperationPattern(glob="**/.memory-index.json", matches=types.FileOperationPatternKind.File),
)


def rename_edits(state: ServerState, renames: list[tuple[Path, Path]]) -> tuple[list[TextEdit], list[str]]:
    """Edits keeping links right for each rename, and why any rename got none.

    Several renames in one request are planned against the same model, so a
    rename whose edits would touch a file an earlier one already edits is
    left out (and reported) rather than sent as overlapping edits.
    """
    edits: list[TextEdit] = []
    touched: set[Path] = set()
    refused: list[str] = []
    for old, new in renames:
        if state.workspace.document(old) is None:
            continue
        try:
            planned = plan_file_rename(state.workspace, old, new)
        except ValueError as exc:
            refused.append(one_line(str(exc)))
            continue
        paths = {e.path for e in planned}
        if paths & touched:
            refused.append(f"links of {old.name} not updated: another renamed file's edits touch the same files")
            continue
        touched |= paths
        edits.extend(planned)
    return edits, refused


def will_rename(state: ServerState, renames: list[tuple[Path, Path]]):
    edits, refused = rename_edits(state, renames)
    return (edit_of(state, edits) if edits else None), refused


def _pairs(ls: MemlsServer, files) -> list[tuple[Path, Path]]:
    out = []
    for f in files:
        old, new = ls.path_of(f.old_uri), ls.path_of(f.new_uri)
        if old is not None and new is not None:
            out.append((old, new))
    return out


def _paths(ls: MemlsServer, files) -> list[Path]:
    return [p for f in files if (p := ls.path_of(f.uri)) is not None]


def register(server: MemlsServer) -> None:
    will_options = types.FileOperationRegistrationOptions(filters=[ENTRY_FILES])
    did_options = types.FileOperationRegistrationOptions(filters=[ENTRY_FILES, POLICY_FILES])

    @server.feature(types.WORKSPACE_WILL_RENAME_FILES, will_options)
    async def will_rename_files(ls: MemlsServer, params: types.RenameFilesParams):
        edit, refused = await planned_on_current_files(ls, will_rename, ls.state, _pairs(ls, params.files))
        for message in refused:
            ls.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Warning, message=f"memls: links not updated: {message}"))
        return edit

    @server.feature(types.WORKSPACE_DID_RENAME_FILES, did_options)
    async def did_rename_files(ls: MemlsServer, params: types.RenameFilesParams) -> None:
        paths = [p for pair in _pairs(ls, params.files) for p in pair]
        ls.after_change(await ls.engine.run(ls.state.disk_changes, paths))

    @server.feature(types.WORKSPACE_DID_CREATE_FILES, did_options)
    async def did_create_files(ls: MemlsServer, params: types.CreateFilesParams) -> None:
        ls.after_change(await ls.engine.run(ls.state.disk_changes, _paths(ls, params.files)))

    @server.feature(types.WORKSPACE_DID_DELETE_FILES, did_options)
    async def did_delete_files(ls: MemlsServer, params: types.DeleteFilesParams) -> None:
        ls.after_change(await ls.engine.run(ls.state.disk_changes, _paths(ls, params.files)))
