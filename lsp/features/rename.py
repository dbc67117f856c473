"""Rename a memory from its ``name:`` value or from any reference to it.

``prepareRename`` accepts a position on the document's own ``name:`` value,
a ``supersedes`` item, a ``superseded_by`` value or a ``MEMORY.md`` pointer
(``memls.store.links.reference_at``), answering the reference's range and
the entry's name as the placeholder. ``rename`` asks the engine for the
plan (``memls.store.rename_plan.plan_rename``: the name, every link in the root,
the index line, the policy's filename and one file rename) and sends it as
ONE workspace edit, so an undo in the editor undoes all of it.

The engine names a renamed entry by its slug and its file follows the name,
so a rename usually moves the file. A client that cannot rename files in a
workspace edit (no ``documentChanges`` or no rename resource operation:
the Neovim and Emacs profiles) must not be sent the text edits alone: the
entry would then be named differently from its file, and the next save by
gptme or memls would write a second file beside it. When it can apply
edits, the server carries the plan out on disk itself
(:mod:`memls.lsp.features.disk_fixes`) and answers with an empty edit; when
it cannot, ``prepareRename`` already refuses, before the user types a name,
with the CLI command to use instead. A rename that keeps the file (the slug
is already the file's stem) is a plain text edit for every client.

Invalid names (reserved ``memory*`` names, a name or slug another entry of
the root uses, an existing file) are refused with the engine's one-line
message as a ``RequestFailed`` error, which editors show to the user (they
name the server themselves, so the message does not).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from memls.store.diagnostics import Fix
from memls.store.model import Document
from memls.store.names import slugify
from memls.store.rename_plan import plan_rename

from ..document_request import document_request
from ..errors import RequestFailed
from ..notices import name_used
from .client_edits import catch_up, edit_of, planned_on_current_files
from .disk_fixes import can_move_files, carry_out, client_applies
from .save import saved_index_entries

if TYPE_CHECKING:
    from ..server import MemlsServer
    from ..state import ServerState

NO_FILE_RENAME = (
    "this editor cannot rename files through the language server, and the entry's "
    "file must follow its name; rename it with `memls rename {old} NEW-NAME` instead"
)


def _target(state: ServerState, path: Path, line: int, col: int) -> tuple[types.Range, str, Document] | None:
    """The reference under the cursor: its client range, its text and the entry it names."""
    from memls.store.links import definition, reference_at

    ws = state.workspace
    ref = reference_at(ws, path, line, col)
    if ref is None:
        return None
    if ref.kind == "name":
        doc = ws.document(path)  # the document's own name: this entry, even a hidden twin
    else:
        location = definition(ws, path, line, col)
        doc = ws.document(location.path) if location is not None else None
    if doc is None or doc.entry is None:
        raise RequestFailed(f"'{ref.name}' names no entry of this root; there is nothing to rename")
    return state.positions(path).range(ref.span), ref.name, doc


def prepare(state: ServerState, path: Path, position: types.Position):
    line, col = state.positions(path).from_client(position)
    found = _target(state, path, line, col)
    if found is None:
        return None
    rng, _text, doc = found
    assert doc.entry is not None
    if not can_move_files(state):
        raise RequestFailed(NO_FILE_RENAME.format(old=doc.entry.name))
    return types.PrepareRenamePlaceholder(range=rng, placeholder=doc.entry.name)


def plan(state: ServerState, path: Path, position: types.Position, new_name: str) -> Fix:
    """The engine's plan for renaming what is under the cursor (engine thread)."""
    line, col = state.positions(path).from_client(position)
    found = _target(state, path, line, col)
    if found is None:
        raise RequestFailed("there is no memory name here to rename")
    _rng, _text, doc = found
    assert doc.entry is not None
    try:
        # MEMORY.md on disk lists other open files as saved, not as their buffers show them.
        fix = plan_rename(state.workspace, doc, new_name, saved=saved_index_entries(state, doc.root))
    except ValueError as exc:
        raise RequestFailed(str(exc)) from None
    if not (client_applies(state, fix) or can_move_files(state)):
        raise RequestFailed(NO_FILE_RENAME.format(old=doc.entry.name))
    return fix


def planned(state: ServerState, path: Path, position: types.Position, new_name: str,
            ) -> tuple[Fix, types.WorkspaceEdit | None]:
    """The rename's plan, and its edit when the client applies it (else the server carries it out)."""
    fix = plan(state, path, position, new_name)
    if client_applies(state, fix):
        return fix, edit_of(state, fix.operations)
    catch_up(state, fix.paths)
    return fix, None


def register(server: MemlsServer) -> None:
    @document_request(server, types.TEXT_DOCUMENT_PREPARE_RENAME)
    def prepare_rename(ls: MemlsServer, path: Path, params: types.PrepareRenameParams):
        return prepare(ls.state, path, params.position)

    @server.feature(types.TEXT_DOCUMENT_RENAME)
    async def rename_request(ls: MemlsServer, params: types.RenameParams):
        path = ls.memory_path(params.text_document.uri)
        if path is None:
            return None
        fix, edit = await planned_on_current_files(ls, planned, ls.state, path, params.position, params.new_name)
        if (notice := name_used(params.new_name, slugify(params.new_name))) is not None:
            ls.window_show_message(notice)
        if edit is not None:
            return edit
        await carry_out(ls, fix)
        return types.WorkspaceEdit(changes={})  # done: the files are renamed, the buffers follow
