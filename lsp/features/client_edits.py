"""Workspace edits for the client, made from the files as they are on disk now.

An edit the server sends for a document the editor has open carries that
document's version, and the editor refuses it once the buffer moved on. An
edit for a file the editor does not have open carries no version: the
editor applies it to whatever the file holds, at the lines and columns the
server computed from its model. The model learns of other tools' writes
through watcher events, which editors deliver late (seconds, or never
outside the workspace folders), so a rename or fix planned in between
placed its edits on the lines of the file as it was: ``status: superseded``
became ``status: supersebravo`` after a line was added above it. So before
an edit goes out, every file it touches that no buffer holds is compared
with its file on disk (a ``stat``; a read only when that moved): a file
that changed is taken in as a watcher event would take it, and the request
is planned again from the new model (:func:`planned_on_current_files`).
A fix the server carries out on disk itself is planned the same way: the
store refuses to write over a file that is not the text the fix was
computed from, so planning it from a stale model only failed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types

from memls.store.diagnostics import operation_paths

from ..convert import workspace_edit
from ..errors import RequestFailed

if TYPE_CHECKING:
    from ..server import MemlsServer
    from ..state import ServerState

# How many times a request is planned again while the files it edits keep changing under it.
PLANNING_ATTEMPTS = 3

Answer = TypeVar("Answer")


class FilesChanged(Exception):
    """Files an edit touches changed on disk since the model read them; taken in, to plan again."""

    def __init__(self, affected: set[Path]) -> None:
        super().__init__(f"{len(affected)} files changed on disk")
        self.affected = affected


def catch_up(state: ServerState, paths: Iterable[Path]) -> None:
    """Take in the files among ``paths`` that no buffer holds and that changed on disk (engine thread).

    Raises :class:`FilesChanged` when any did: what was planned from them is stale.
    """
    affected = state.disk_changes(sorted((p for p in set(paths) if p not in state.buffers), key=str))
    if affected:
        raise FilesChanged(affected)


def edit_of(state: ServerState, operations: Iterable[Any]) -> types.WorkspaceEdit:
    """Engine operations as a workspace edit for this client (engine thread).

    Raises :class:`FilesChanged` when a file an operation touches, not open
    in the editor, is not what the model holds (see the module's docstring),
    and ``RequestFailed`` when a buffer it touches still shows the text from
    before the server wrote its file (:meth:`ServerState.awaits_reload`).
    """
    ops = list(operations)
    paths = operation_paths(ops)
    catch_up(state, paths)
    waiting = sorted(p.name for p in paths if state.awaits_reload(p))
    if waiting:
        raise RequestFailed(f"memls rewrote {', '.join(waiting)} and the editor has not reloaded it yet; "
                            "try again in a moment")
    return workspace_edit(
        ops, state.positions,
        versions={p: state.version(p) for p in paths},
        document_changes=state.client.document_changes,
        resource_operations=state.client.resource_operations,
        uri_of=state.uris.uri,
    )


async def planned_on_current_files(ls: MemlsServer, plan: Callable[..., Answer], *args: Any) -> Answer:
    """``plan(*args)`` on the engine thread, planned again while the files its edits touch change on disk.

    What changed is re-checked and published, as after a watcher event.
    """
    for _ in range(PLANNING_ATTEMPTS):
        try:
            return await ls.engine.run(plan, *args)
        except FilesChanged as changed:
            ls.after_change(changed.affected)
    raise RequestFailed("the memory files this edit touches keep changing on disk; try again")
