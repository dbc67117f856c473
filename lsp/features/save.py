"""``MEMORY.md`` on save: the root's index follows a saved memory.

The decision (regenerate, upsert one line, or leave alone) is the engine's
(:func:`memls.store.index_sync.index_after_save`); this module supplies the
entries as they are on disk and delivers the result. Written through the
engine's locked commit, only when the bytes change. When ``MEMORY.md`` is
open in the editor, the new text goes to the buffer as a workspace edit, so
the server never writes behind an open document.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from memls.store.index import IndexPolicy
from memls.store.index_sync import commit_index, index_after_save
from memls.store.parse import parse_document
from memls.store.reader import read_root
from memls.store.text import one_line

from ..text_edits import buffer_edit

if TYPE_CHECKING:
    from ..server import MemlsServer
    from ..state import ServerState

log = logging.getLogger(__name__)


@dataclass
class IndexUpdate:
    index_path: Path
    text: str
    written: bool  # False: MEMORY.md is open; the caller edits the buffer


def update_index_on_save(state: ServerState, path: Path, previous_text: str | None) -> IndexUpdate | None:
    """Bring the root's index up to date after ``path`` was saved (engine thread)."""
    root = state.workspace.root_of(path)
    doc = state.document(path)
    if root is None or doc is None or doc.kind != "entry":
        return None
    mode = state.settings.index_on_save
    if mode == "off":
        return None
    after = _saved_entries(state, root)
    before = [e for e in after if e.path != doc.path]
    previous = (
        parse_document(previous_text, path=doc.path, scope=root.scope).entry
        if previous_text is not None else None
    )
    if previous is not None:
        position = next((i for i, e in enumerate(after) if e.path == doc.path), len(before))
        before.insert(position, previous)
    policy = IndexPolicy.read(root.path)

    def compute(current: str | None) -> str | None:
        return index_after_save(
            before=before, after=after, saved=doc.entry, removed_filename=path.name,
            policy=policy, current=current, mode=mode,
        )

    index_path = root.index_path
    buffer = state.buffers.get(index_path)
    if buffer is not None:
        new = compute(buffer.text)
        return IndexUpdate(index_path, new, written=False) if new is not None else None
    written = commit_index(root.path, compute)
    if written is None:
        return None
    state.workspace.update_from_disk(index_path)
    return IndexUpdate(index_path, written, written=True)


def _saved_entries(state: ServerState, root) -> list:
    """The root's entries as saved on disk: open buffers count with their saved text.

    While the first scan is still loading this root the model holds only part
    of it, and an index computed from a part would lose the other entries'
    lines: the root is then read from disk by the store's reader. A buffer
    that was never saved (no file yet) is not an entry on disk, so it is left out.
    """
    if state.scanning and root.path in state.scan_roots:
        return read_root(root.path, root.scope).entries_for_index
    out = []
    for doc in root.entry_documents():
        buffer = state.buffers.get(doc.path)
        if buffer is not None and buffer.saved_text is None:
            continue
        if buffer is not None and buffer.saved_text is not None and buffer.saved_text != buffer.text:
            saved = parse_document(buffer.saved_text, path=doc.path, scope=root.scope).entry
            if saved is not None:
                out.append(saved)
            continue
        out.append(doc.entry)
    # Files too large to read keep their index line (their headline).
    out.extend(d.headline for d in root.documents.values() if d.headline is not None)
    return sorted(out, key=lambda e: str(e.path))


def register(server: MemlsServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=True))
    async def did_save(ls: MemlsServer, params: types.DidSaveTextDocumentParams) -> None:
        path = ls.memory_path(params.text_document.uri)
        if path is None:
            return

        def on_save():
            buffer = ls.state.buffers.get(path)
            previous = buffer.saved_text if buffer is not None else None
            affected = set()
            if params.text is not None and buffer is not None and params.text != buffer.text:
                affected = ls.state.change(path, params.text, buffer.version)
            ls.state.saved(path, params.text)
            try:
                update = update_index_on_save(ls.state, path, previous)
            except (OSError, ValueError) as exc:
                return affected, None, one_line(str(exc))
            if update is not None:
                affected |= {update.index_path}
            return affected, update, None

        affected, update, error = await ls.engine.run(on_save)
        if error is not None:
            ls.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Warning, message=f"memls: MEMORY.md not updated: {error}"))
        if update is not None and not update.written:
            await edit_open_index(ls, update)
        ls.after_change(affected)


async def edit_open_index(ls: MemlsServer, update: IndexUpdate) -> None:
    """Bring the open ``MEMORY.md`` buffer to the new index (the changed lines only)."""
    if not ls.state.client.apply_edit:
        return
    edit = await ls.engine.run(buffer_edit, ls.state, update.index_path, update.text)
    if edit is not None:
        await ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(
            edit=edit, label="memls: update MEMORY.md"))
