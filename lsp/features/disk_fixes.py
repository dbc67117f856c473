"""Renames and fixes that move or create files, carried out by the server itself.

Renaming an entry usually moves its file (the name decides the file), the
reserved-name fix renames a file and "Create entry" creates one. Sent as a
workspace edit, these need a client that declares ``documentChanges`` with
the create and rename resource operations (VS Code). Neovim 0.11 declares
no ``documentChanges`` and Emacs' eglot no resource operations; the text
edits alone would name an entry differently from its file, and the next
save by gptme or memls would write a second file beside it.

A fix that creates an entry ("Create entry" for a dangling link) brings the
new file up with its placeholder description selected (``window/showDocument``
with a selection), so the user types the description at once: the server
does it after carrying the fix out, and a client that applies the edit
itself gets the command ``memls.reveal`` on the action, which it runs after
the edit (the spec's order for an action with both).

Such a client still gets the whole operation when it can apply workspace
edits (``workspace/applyEdit``): the server applies the engine's plan on
disk itself, in one commit under the root's lock
(:func:`memls.store.apply.apply_fixes`, which refuses when a file changed
since it was checked); the editor reloads the open buffers it changed (they
had no unsaved changes, so no edit is sent, which would leave them
modified though they equal the disk), the server forgets a
buffer whose file moved away (its diagnostics are cleared), and shows the
file the open one moved to (``window/showDocument``); what the editor may
still show from before is named in a message (see :func:`carry_out`). A buffer with unsaved
changes among the files to change refuses the whole ("save ... first"):
writing behind it would fork its text. A rename runs this from
``textDocument/rename`` (the answer is then an empty edit, everything
having been done); a quick fix carries the command ``memls.applyFix`` instead
of an edit.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from memls.store.diagnostics import CreateFile, Fix, RenameFile, TextEdit
from memls.store.parse import placeholder_span

from ..convert import Positions
from ..errors import RequestFailed, reason
from .commands import write_through_store

if TYPE_CHECKING:
    from ..server import MemlsServer
    from ..state import ServerState

log = logging.getLogger(__name__)

APPLY_FIX = "memls.applyFix"
REVEAL = "memls.reveal"


def moves_files(fix: Fix) -> bool:
    """Whether ``fix`` creates or renames a file (not only edits text)."""
    return not all(isinstance(op, TextEdit) for op in fix.operations)


def client_applies(state: ServerState, fix: Fix) -> bool:
    """True when the client can carry out every operation of ``fix`` as a workspace edit."""
    return not moves_files(fix) or (state.client.document_changes and state.client.resource_operations)


def server_carries_out(state: ServerState, fix: Fix) -> bool:
    """True when the server must apply ``fix`` on disk for this client, and can."""
    return not client_applies(state, fix) and state.client.apply_edit


def can_move_files(state: ServerState) -> bool:
    """Whether a file-moving fix or rename can be done for this client in one way or the other."""
    return (state.client.document_changes and state.client.resource_operations) or state.client.apply_edit


def _apply_on_disk(
    state: ServerState, fix: Fix,
) -> tuple[set[Path], types.ShowDocumentParams | None, list[tuple[Path, Path]], list[Path]]:
    """Write ``fix`` on disk through the store and update the model (engine thread).

    Returns what to re-check, how to show the entry it created (if any), the
    open files that moved (old, new) and the other open files whose text
    changed on disk (the editor must reload them).
    """
    paths = sorted(fix.paths, key=str)
    root = state.workspace.root_of(paths[0])
    if root is None:
        raise RequestFailed(f"{paths[0].name} is not in a memory root")
    # What the fix was computed against: the client's text of each file that exists.
    texts = {p: state.text(p) for p in paths if p in state.buffers or p.is_file()}
    # The engine's writer (and its transaction) loads with the first fix a request writes, not with the server.
    from memls.store.apply import StaleFixError, apply_fixes

    try:
        _, affected = write_through_store(state, paths, lambda: apply_fixes([fix], texts, root=root.path))
    except (StaleFixError, FileExistsError, FileNotFoundError) as exc:
        raise RequestFailed(reason(exc)) from None
    created = created_entry(state, fix)
    moved: list[tuple[Path, Path]] = []
    for op in fix.operations:
        if isinstance(op, RenameFile) and op.old in state.buffers:
            # The editor's buffer still names the old file; the model follows the disk.
            affected |= state.close(op.old) | {op.old}
            moved.append((op.old, op.new))
    changed = [p for p in paths if p in state.buffers and state.text(p) != texts.get(p)]
    return affected, created, moved, changed


def created_entry(state: ServerState, fix: Fix) -> types.ShowDocumentParams | None:
    """How to show the entry ``fix`` creates: its file, the placeholder description selected."""
    created = next((op for op in fix.operations if isinstance(op, CreateFile)
                    and placeholder_span(op.text) is not None), None)
    if created is None:
        return None
    span = placeholder_span(created.text)
    assert span is not None
    selection = Positions(created.text, state.client.position_encoding).range(span)
    return types.ShowDocumentParams(uri=state.uris.uri(created.path), take_focus=True, selection=selection)


def reveal_command(shown: types.ShowDocumentParams) -> types.Command:
    """The command a client runs after applying a fix's edit, to show what it created."""
    selection = shown.selection
    where = None if selection is None else [selection.start.line, selection.start.character,
                                            selection.end.line, selection.end.character]
    return types.Command(title="Show the new entry", command=REVEAL, arguments=[shown.uri, where])


async def show(ls: MemlsServer, shown: types.ShowDocumentParams) -> bool:
    """``window/showDocument`` when the client supports it; whether it showed the file.

    Showing a file is a courtesy: a refusal or failure is only logged.
    """
    if not ls.state.client.show_document:
        return False
    try:
        result = await ls.window_show_document_async(shown)
    except Exception:  # noqa: BLE001 - showing the file is a courtesy
        log.warning("the client did not show %s", shown.uri)
        return False
    return bool(result is not None and result.success)


async def carry_out(ls: MemlsServer, fix: Fix) -> None:
    """Apply ``fix`` on disk, then bring the editor along (event loop).

    An entry the fix created is shown with its placeholder description
    selected, and the file an open buffer moved to is shown
    (``window/showDocument``).
    The user is told, in one message, what the editor may still show from
    before: a moved file the client did not show (it cannot, or declined),
    and other open files changed on disk -- an editor that does not reload
    them at once (Neovim until ``:checktime``) would otherwise write the old
    text back over the change at the next save.
    """
    affected, created, moved, changed = await ls.engine.run(_apply_on_disk, ls.state, fix)
    ls.after_change(affected)
    notes = []
    if created is not None:
        await show(ls, created)
    for old, new in moved:
        if not await show(ls, types.ShowDocumentParams(uri=ls.state.uris.uri(new), take_focus=True)):
            notes.append(f"{old.name} moved to {new} (its open buffer names a file that is gone)")
    if changed:
        notes.append(f"changed on disk, reload if the editor has not: {', '.join(p.name for p in changed)}")
    if notes:
        ls.window_show_message(types.ShowMessageParams(
            type=types.MessageType.Info, message=f"memls: {fix.title}: {'; '.join(notes)}"))


def fix_command(title: str, data: dict[str, Any]) -> types.Command:
    """The command a quick fix carries when the server applies it."""
    return types.Command(title=title, command=APPLY_FIX, arguments=[data])
