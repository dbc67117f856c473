"""``MEMORY.md`` on save: the root's index follows a saved memory.

The decision (regenerate, upsert one line, or leave alone) is the engine's
(:func:`memls.store.index_sync.index_after_save`); this module supplies the
entries as they are on disk and delivers the result. Written through the
engine's locked commit, only when the bytes change. When ``MEMORY.md`` is
open in the editor without unsaved changes, the file is written and the
editor reloads it (an edit would leave the buffer modified though it equals
the disk); only a buffer with unsaved changes gets the new lines as a
workspace edit, so the server never writes behind a user's unsaved work --
unless another tool already changed the file under that buffer (see
:func:`update_index_on_save`).

A line sent into a buffer is memls's on disk only once the buffer is
saved: the entry's line counts as memls's text for every version memls
wrote or sent a line for that may still stand in the file or the buffer
(:meth:`ServerState.line_versions`), and once the buffer has no unsaved
changes (closed unsaved, reloaded, memls's edit undone) the lines it never
took to the file are written (:func:`bring_lines_left_in_buffer`).

An automatic save (``willSave`` reason ``AfterDelay`` or ``FocusOut``: the
editor saved on a pause, not the user) of an entry that is not whole leaves
its index line as it was, as the engine decides
(:func:`memls.store.index_sync.autosave_keeps_index_line`); the entry then
shows ``index-line-kept`` until a manual save or a whole autosave.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from memls.store.checks import check_paths
from memls.store.entry import MemoryEntry
from memls.store.errors import ChangedMeanwhile
from memls.store.index import IndexPolicy
from memls.store.reader import disk_text, read_root
from memls.store.structs import struct
from memls.store.text import one_line

from ..errors import reason
from ..state import HeldIndexLine, same_line

if TYPE_CHECKING:
    from memls.store.index_sync import RootAroundSave

    from ..server import MemlsServer
    from ..state import ServerState
    from ..unapplied import UnappliedChanges

log = logging.getLogger(__name__)


@struct(frozen=False)
class IndexUpdate:
    """What a save does to its root's ``MEMORY.md``: written to disk, or an edit of the open buffer."""

    index_path: Path
    written: bool  # False: MEMORY.md is open with unsaved changes; the caller edits the buffer
    # For the buffer: its new text from its text when the edit is made (None: no change).
    # A function, not a text: the user types on between the save and the edit.
    buffer_text: Callable[[str], str | None] | None = None
    # Written though the open buffer has unsaved changes: the file changed under
    # it (another tool), so the buffer is left alone and the user is told
    # (``tell``: once while that lasts).
    beside_unsaved: bool = False
    tell: bool = False
    # The server's own write the buffer's text was typed under, merged in by
    # the edit (:meth:`ServerState.memls_wrote_under`); taken as absorbed once applied.
    absorbs: str | None = None
    # For the buffer: whether its text of the save's moment needs an edit. One that
    # does not is still built from the buffer's text when its turn comes: an
    # earlier save's edit, on its way to the editor then, may have landed since
    # (the entry's line then describes that save's text, which this one replaces).
    edits_buffer_now: bool = True
    # For the buffer: what to remember when its edit never lands (the editor declined it, or
    # takes no edits): the entry's line still describes its version before the save, and the
    # save the user is told to make again must find that line memls's text (engine thread).
    unapplied: Callable[[], None] | None = None
    # For the buffer: the file written instead, when the buffer was closed before its
    # edit's turn came (engine thread; the paths whose checks changed).
    write_closed: Callable[[], set[Path]] | None = None
    # For the buffer: the entry's line there is the user's (changed by them, unsaved),
    # while memls would have changed it: left as it is, and the user told of it.
    kept_users_line: str | None = None


def update_index_on_save(
    state: ServerState, path: Path, previous_texts: list[str], affected: set[Path]
) -> IndexUpdate | None:
    """Bring the root's index up to date after ``path`` was saved (engine thread).

    ``previous_texts`` are the entry's texts before this save, the latest
    first (the saved text; another version its line may describe). The
    paths whose checks changed as the model caught up with the disk are
    added to ``affected``.

    An open ``MEMORY.md`` without unsaved changes -- even one the editor
    has not reloaded after another tool wrote the file -- is the disk's
    business: the index is computed from the disk and written, and no edit
    is sent (an edit would turn a stale buffer into a modified one that a
    later ``:wall!`` writes over the other tool's lines). Only a buffer with
    unsaved changes over the text on disk gets the new lines as an edit.
    When the file changed on disk under such a buffer, its text is no base
    to edit from: the disk is written, the buffer left to the user (told
    once while that lasts) -- unless what changed it was the server's own
    write, which the editor had not reloaded when the user typed on
    (:meth:`ServerState.memls_wrote_under`): memls's lines are then merged
    into the buffer with the save's (:func:`memls.store.index_merge.rebase_buffer`),
    as the reload would have brought them; a line both changed leaves the
    buffer to the user, as another tool's write does.
    """
    from memls.store.index_merge import rebase_buffer  # loaded with the first save, as:
    from memls.store.index_sync import commit_index, index_after_save

    root = state.workspace.root_of(path)
    doc = state.document(path)
    if root is None or doc is None or doc.kind != "entry":
        return None
    mode = state.settings_for(path).index_on_save
    if mode == "off":
        return None
    versions = [e for text in previous_texts if (e := _index_entry(state, doc.path, text)) is not None]
    previous = versions[0] if versions else None
    # Other versions the index may have been rendered for (None: no line), the
    # entry as the index last followed it joins them once the model caught up.
    others: list[MemoryEntry | None] = list(versions[1:])
    # And every version memls wrote or sent a line for that may still stand (:meth:`ServerState.line_versions`).
    line_versions = state.line_versions(root, doc.path.name)
    for version in line_versions:
        if not any(same_line(version, v) for v in (previous, *others)):
            others.append(version)
    saved = doc.index_entry
    index_path = root.index_path
    edit_buffer = beside_unsaved = tell = False
    absorbs: str | None = None
    on_disk: str | None = None  # the file's text as the write found it
    followed: list[MemoryEntry | None] = [previous, *others]  # the versions the index may follow before it
    # Set inside the root lock, once the model has caught up with the disk.
    around: RootAroundSave | None = None
    policy: IndexPolicy | None = None

    def compute(current: str | None, unsaved: bool = False) -> str | None:
        assert around is not None
        return index_after_save(
            around=around, saved=saved, previous=previous, removed_filename=path.name,
            policy=policy, current=current, mode=mode, earlier=[e for e in others if e is not None],
            unsaved=unsaved, root_dir=root.path, unlisted=root.unlisted_entry_files,
        )

    def compute_on_disk(current: str | None) -> str | None:
        # Decided inside the root lock, against the bytes the write replaces
        # and the entries on disk: files other tools wrote that no watcher
        # event has told of yet are taken in first, as such an event would.
        nonlocal around, policy, edit_buffer, beside_unsaved, tell, absorbs, on_disk
        on_disk, edit_buffer, beside_unsaved = current, False, False
        caught_up = state.catch_up_with_disk(root)
        affected.update(caught_up.affected)
        # Another tool wrote (or made) the saved file itself since the index was
        # last judged: the index memls rendered then followed the entry before that
        # write, not the text the editor opened, and is memls's rendering still.
        lagged = caught_up.entries_before.get(doc.path.name, previous)
        if lagged != previous and lagged not in others:
            others.append(lagged)
        followed[:] = [lagged, previous, *others]
        around = _around_save(state, root, doc.path, previous, caught_up.entries_before, others)
        policy = IndexPolicy.read(root.path)
        if state.has_unsaved_changes(index_path):
            beside_unsaved = state.changed_under(index_path, current)
            own = state.memls_wrote_under(index_path, current) if beside_unsaved else None
            if own is not None and rebase_buffer(*own, state.text(index_path)) is not None:
                # memls itself wrote the file under the buffer the user typed on: not another
                # tool's text, so its lines join the buffer's, with the save's (one edit).
                beside_unsaved, absorbs = False, own[1]
            edit_buffer = not beside_unsaved
        text = None if edit_buffer else compute(current)
        if text is not None or not beside_unsaved:  # told when it is written; forgotten once it is over
            tell = state.tell_changed_under(index_path, beside_unsaved)
        others_lagged = {k: v for k, v in caught_up.entries_before.items() if k != doc.path.name}
        state.keep_index_lag(root, others_lagged, state.text(index_path) if edit_buffer else text or current)
        if beside_unsaved and text is not None:
            state.wrote_under_unsaved(index_path, current, text)
        return text

    def buffer_text(current: str) -> str | None:
        # memls's own writes the buffer has not taken yet come first, as the editor's
        # reload would have brought them; then the save's lines (engine thread).
        own = state.memls_wrote_under(index_path, disk_text(index_path)) if absorbs is not None else None
        base = (rebase_buffer(*own, current) if own is not None else None) or current
        new = compute(base, unsaved=True)
        new = base if new is None else new
        return None if new == current else new

    def remember(disk: str | None) -> None:
        # The save's line is in the file or on its way to the buffer; the lines before it may stand in either.
        kept = saved if saved is not None and saved.is_living else None
        # memls sent this entry a line the file lacks: the last one sent is the last save's own version.
        sent = line_versions and doc.path.name in state.index_lines_in_buffer.get(index_path, ())
        state.keep_line_versions(root, doc.path.name, kept, followed, (disk, *state.editor_texts(index_path)),
                                 in_flight=line_versions[0] if sent else None)

    def write_closed() -> set[Path]:
        # The buffer was closed before the edit's turn came: the file is the index's home again.
        written = commit_index(root.path, compute_on_disk)
        if written is None:
            remember(on_disk)
            return set()
        state.memls_wrote_index(index_path, on_disk, written)
        remember(written)
        return state.wrote_open_file(index_path, written)

    written = commit_index(root.path, compute_on_disk)
    if edit_buffer:  # the user's unsaved changes stay; the entry's line joins them as an edit
        state.index_lines_in_buffer.setdefault(index_path, set()).add(doc.path.name)
        remember(on_disk)
        now = state.text(index_path)
        edits_now = buffer_text(now) is not None
        return IndexUpdate(index_path, written=False, buffer_text=buffer_text, absorbs=absorbs,
                           edits_buffer_now=edits_now,
                           unapplied=lambda: state.index_line_not_updated(root, doc.path, followed),
                           write_closed=write_closed,
                           kept_users_line=None if edits_now else _users_line(
                               now, on_disk, compute, doc.path.name, saved))
    if beside_unsaved and written is not None:  # the buffer lacks the line: saved over the file, it is put back
        state.index_lines_in_buffer.setdefault(index_path, set()).add(doc.path.name)
    else:
        state.index_lines_in_buffer.get(index_path, set()).discard(doc.path.name)
    if written is None:
        remember(on_disk)
        return None
    state.memls_wrote_index(index_path, on_disk, written)
    remember(written)
    state.wrote_open_file(index_path, written)
    if state.editor_texts(index_path)[1:]:  # the editor may show the text before: saved, it takes the line back
        state.index_lines_in_buffer.setdefault(index_path, set()).add(doc.path.name)
    return IndexUpdate(index_path, written=True, beside_unsaved=beside_unsaved, tell=tell)


def _users_line(buffer: str, disk: str | None, compute: Callable[[str | None], str | None], filename: str,
                saved: MemoryEntry | None) -> str | None:
    """The entry's line the unsaved buffer keeps as the user wrote it, where the file's would follow the save."""
    from memls.store.index_sync import line_kept_for_user  # loaded with the first save

    if disk is None or saved is None or not saved.is_living:
        return None
    new = compute(disk)
    return None if new is None else line_kept_for_user(buffer, disk, new, filename)


def bring_lines_left_in_buffer(state: ServerState, index_path: Path, closed: bool = False) -> set[Path]:
    """Write the lines saves sent into ``index_path``'s buffer that never reached the file (engine thread).

    The buffer was closed unsaved, reloaded (``:e!``), or saved with
    memls's edit undone -- or saved over the file memls wrote beside it
    (another tool had changed the file; the user was told): the file holds
    those entries' lines as they were before their saves. Once the buffer has no unsaved changes, each
    such entry's line is brought up to date on disk as its save would have
    written it (its line is memls's text for a version it had:
    :meth:`ServerState.line_versions`); a line the user wrote stays theirs.
    Entries with unsaved changes or a held line wait for their own save.
    An entry the file has no line for gets one only once the buffer is
    ``closed``: a buffer without unsaved changes that lacks the line may be
    the user's, saved without it (its change and its save can arrive in
    either order), and is not overruled (``index-missing-entry`` says so).
    Returns the paths whose checks changed.
    """
    from memls.store.index import pointers_to  # loaded with the first save

    names = state.index_lines_in_buffer.get(index_path)
    if not names or state.has_unsaved_changes(index_path):
        return set()
    root = state.workspace.root_of(index_path)
    state.index_lines_in_buffer.pop(index_path, None)
    if root is None:
        return set()
    affected: set[Path] = set()
    on_disk = disk_text(index_path) or ""
    for name in sorted(names):
        if not closed and not pointers_to(on_disk, {name}):
            continue
        path = root.path / name
        buffer = state.buffers.get(path)
        doc = state.document(path)
        if doc is None or doc.kind != "entry" or path in state.held_index_lines or (
                buffer is not None and (buffer.modified or buffer.saved_text is None)):
            continue
        text = buffer.saved_text if buffer is not None else doc.text
        assert text is not None
        now = _index_entry(state, path, text)
        if now is not None and now.is_living and now.index_line() in on_disk:  # the file has the line already
            continue
        try:
            update_index_on_save(state, path, [text], affected)
        except (OSError, ValueError, ChangedMeanwhile) as exc:
            log.warning("%s: %s's line not brought: %s", index_path, name, one_line(str(exc)))
    return affected


def _around_save(
    state: ServerState, root, path: Path, previous, caught_up: Mapping[str, MemoryEntry | None],
    other_versions: Sequence[MemoryEntry | None] = (),
) -> RootAroundSave:
    """The root's index entries before and after the save of ``path`` (whose entry was ``previous``).

    "Before" is the root as the index last followed it: ``previous`` in the
    saved file's place, and each file the model just caught up with
    (``caught_up``: taken in by the save or by watcher events since the last one;
    its entry before, by filename) as it was -- an index
    memls rendered before another tool added, changed or removed a file
    behind the editor's back is still memls's rendering, and is rendered
    anew (as ``memls index --refresh`` judges it against the last commit).
    ``other_versions`` are the saved file's other entries the index may have
    been rendered for (None: it was no entry), each tried in its place; and
    when other files were caught up with, also the root as it is now with
    the saved file as before (or as each other version): another memls (the
    CLI's ``save``) rendered the index after its own writes.

    The entry lists are :func:`_saved_entries`, with those earlier entries
    in their files' places before. Once the first scan has loaded the root,
    the renderings come from the model's kept index lines with the few
    files whose saved text is not what the model holds moved
    (:func:`saved_index_entries`): the same two texts, without listing or
    rendering the whole root on every save.
    """
    from memls.store.index_sync import RootAroundSave  # loaded with the first save

    entries_before = {**caught_up, path.name: previous}

    @functools.cache
    def entries() -> tuple[list, list]:
        after = _saved_entries(state, root)
        before = [e for e in after if e.path.name not in entries_before]
        before.extend(e for e in entries_before.values() if e is not None)
        return sorted(before, key=lambda e: str(e.path)), after

    # Another memls (the CLI, a second editor) may have rendered the index after its own
    # writes: the root as it is now, with the saved file as before (or as any other version).
    now_versions = (previous, *other_versions) if any(name != path.name for name in caught_up) else ()

    @functools.cache
    def earlier_entries() -> tuple[list, ...]:
        before, after = entries()
        lists: list[list] = []
        for base, versions in ((before, other_versions), (after, now_versions)):
            others = [e for e in base if e.path.name != path.name]
            lists.extend(sorted([*others, e] if e is not None else others, key=lambda e: str(e.path))
                         for e in versions)
        return tuple(lists)

    if state.scanning and root.path in state.scan_roots:
        return RootAroundSave(entries, earlier_entries=earlier_entries)
    view = root.index_view
    after_changes = saved_index_entries(state, root)
    before_changes = {**after_changes, **entries_before}

    @functools.cache  # one answer for the save, also when an open index's edit asks again later
    def renderings() -> tuple[str, str]:
        return view.rendering_with(before_changes), view.rendering_with(after_changes)

    @functools.cache
    def earlier_renderings() -> tuple[str, ...]:
        return tuple(view.rendering_with({**base, path.name: e})
                     for base, versions in ((before_changes, other_versions), (after_changes, now_versions))
                     for e in versions)

    return RootAroundSave(entries, renderings, earlier_renderings, earlier_entries)


def saved_index_entries(state: ServerState, root) -> dict[str, MemoryEntry | None]:
    """Files of ``root`` whose saved entry (as :func:`_saved_entries` counts it) is not the model's.

    By filename: the entry as saved on disk, or None when it counts as no
    entry. Only open buffers and held index lines can differ, so this
    looks at those few, not at every document.
    """
    out: dict[str, MemoryEntry | None] = {}
    for path in {*state.buffers, *state.held_index_lines}:
        doc = root.documents.get(root.path / path.name)
        if doc is None or path.parent != root.path or doc.kind != "entry" or doc.index_entry is None:
            continue
        if doc.path in state.held_index_lines:
            out[path.name] = _held_version(state, root, doc.path, doc.index_entry)
            continue
        buffer = state.buffers[path]
        if buffer.saved_text is None:
            out[path.name] = None
        elif buffer.modified:
            out[path.name] = _index_entry(state, doc.path, buffer.saved_text)
    return out


def _saved_entries(state: ServerState, root) -> list:
    """The root's entries as saved on disk: open buffers count with their saved text.

    While the first scan is still loading this root the model holds only part
    of it, and an index computed from a part would lose the other entries'
    lines: the root is then read from disk by the store's reader. A buffer
    that was never saved (no file yet) is not an entry on disk, so it is left out.
    An entry whose line an autosave kept counts as the text the index last
    followed, so another entry's save does not publish it either.
    """
    if state.scanning and root.path in state.scan_roots:
        entries = [_held_version(state, root, e.path, e)
                   for e in read_root(root.path, root.scope).entries_for_index]
        return [e for e in entries if e is not None]
    out = []
    # Files too large to read count with their headline: they keep their index line.
    for doc in root.index_documents():
        path, entry = doc.path, doc.index_entry
        if path in state.held_index_lines:
            kept = _held_version(state, root, path, entry)
            if kept is not None:
                out.append(kept)
            continue
        buffer = state.buffers.get(path)
        saved_text = buffer.saved_text if buffer is not None else None
        if buffer is not None and saved_text is None:
            continue
        if buffer is not None and saved_text is not None and buffer.modified:
            saved = _index_entry(state, path, saved_text)
            if saved is not None:
                out.append(saved)
            continue
        out.append(entry)
    return out


def _held_version(state: ServerState, root, path, entry):
    """``entry`` as the index follows it: the kept text's entry while an autosave holds its line."""
    held = state.held_index_lines.get(path)
    if held is None:
        return entry
    return _index_entry(state, path, held.synced_text) if held.synced_text else None


def _index_entry(state: ServerState, path: Path, text: str) -> MemoryEntry | None:
    """The entry the index lists for ``path`` holding ``text``, as the model judges a buffer of it.

    Its entry, or the headline of a text too large to read: a saved version
    of such a file is judged as the file is, so no save drops its line.
    """
    doc = state.workspace.detached(path, text)
    return doc.index_entry if doc is not None else None


AUTOMATIC_SAVES = (types.TextDocumentSaveReason.AfterDelay, types.TextDocumentSaveReason.FocusOut)


def save_entry(state: ServerState, path: Path, text: str | None, automatic: bool):
    """A save of ``path`` (engine thread): the model, then the index unless an autosave holds it.

    Returns the affected paths, the index update (if any) and a one-line
    error when the index could not be written.
    """
    from memls.store.index_sync import save_keeps_index_line  # loaded with the first save

    buffer = state.buffers.get(path)
    held = state.held_index_lines.pop(path, None)
    # The texts the index follows: the last save's (and an earlier version), or those an autosave kept.
    previous = (held.synced_texts if held is not None
                else buffer.versions_for_save(text if text is not None else buffer.text, automatic)
                if buffer is not None else [])
    affected: set[Path] = {path} if held is not None else set()
    if text is not None and buffer is not None and text != buffer.text:
        affected |= state.change(path, text, buffer.version)
    affected |= state.saved(path, text)
    doc = state.document(path)
    if doc is not None and doc.kind == "entry" and state.settings_for(path).index_on_save != "off" and (
            automatic or not doc.loads):
        problems = check_paths(state.context(), [path]).get(path, [])
        synced = _index_entry(state, path, previous[0]) if previous else None
        reason = save_keeps_index_line(doc.entry, problems, loads=doc.loads, automatic=automatic, previous=synced)
        if reason is not None:
            state.held_index_lines[path] = HeldIndexLine(reason, previous)
            return affected | {path}, None, None
    try:
        update = update_index_on_save(state, path, previous, affected)
    except (OSError, ValueError, ChangedMeanwhile) as exc:  # the last: an editor kept writing MEMORY.md
        return affected, None, one_line(str(exc))
    if update is not None and update.edits_buffer_now:
        affected |= {update.index_path}
    return affected, update, None


def register(server: MemlsServer) -> None:
    # The reason of the save each document is about to have (``willSave``
    # comes right before its ``didSave``); a client that does not send it saves manually.
    reasons: dict[Path, types.TextDocumentSaveReason] = {}

    @server.feature(types.TEXT_DOCUMENT_WILL_SAVE)
    def will_save(ls: MemlsServer, params: types.WillSaveTextDocumentParams) -> None:
        path = ls.memory_path(params.text_document.uri)
        if path is not None:
            reasons[path] = params.reason

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=True))
    async def did_save(ls: MemlsServer, params: types.DidSaveTextDocumentParams) -> None:
        path = ls.memory_path(params.text_document.uri)
        if path is None:
            return
        automatic = reasons.pop(path, None) in AUTOMATIC_SAVES
        affected, update, error = await ls.engine.run(save_entry, ls.state, path, params.text, automatic)
        if ls.state.index_lines_in_buffer.get(path):  # MEMORY.md saved: with memls's edits undone?
            affected |= await ls.engine.run(bring_lines_left_in_buffer, ls.state, path)
        if error is not None:
            ls.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Warning, message=f"memls: MEMORY.md not updated: {error}"))
        if update is not None and not update.written:
            await edit_open_index(ls, update)
        if update is not None and update.kept_users_line is not None:
            ls.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Info,
                message=f"memls: {update.index_path.name} has unsaved changes to the line of {path.name}: "
                        f"left as you wrote it ({one_line(update.kept_users_line)}), not updated to the entry's "
                        "new text; save the buffer to keep it, or revert the line and save the memory again"))
        if update is not None and update.beside_unsaved and update.tell:
            ls.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Warning,
                message=f"memls: {update.index_path.name} changed on disk while its buffer has unsaved "
                        "changes: the file was updated, the buffer left as it is; reload it or merge by hand"))
        ls.after_change(affected)


NO_APPLY_EDIT = "no-apply-edit"
# How often an index edit the editor declines is computed anew and sent again before the user is told.
INDEX_EDIT_TRIES = 3
# How long an applied edit waits for the editor to tell the change it made (Neovim: on its
# debounce, 150 ms by default, after the answer) before the buffer's next edit is built.
CHANGE_TOLD_WITHIN = 1.0


async def edit_open_index(ls: MemlsServer, update: IndexUpdate) -> None:
    """Bring the open ``MEMORY.md`` buffer, which has unsaved changes, to the new index (the changed lines only).

    One edit of a buffer at a time, in the order the saves came: a save
    right after another is computed from the text the first one's edit
    made, once the editor has taken it. Built from the text before it, the
    entry's line would still describe the text before the first save, which
    the second save's entry does not know: no edit, and the buffer would
    keep the first save's line.

    A client that cannot take edits from the server is told once why the
    index did not follow.
    """
    lock = ls.buffer_edit_locks.setdefault(update.index_path, asyncio.Lock())
    async with lock:
        await _edit_open_index(ls, update)


async def _edit_open_index(ls: MemlsServer, update: IndexUpdate) -> None:
    if not await ls.engine.run(ls.state.edits_open_index, update.index_path):
        # Another memls server of this editor serves this root and edits the buffer;
        # two edits computed from the same old text would insert the new line twice.
        log.info("%s left to the server that serves its root", update.index_path)
        return
    if not ls.state.client.apply_edit:
        if update.edits_buffer_now and update.unapplied is not None:
            await ls.engine.run(update.unapplied)
        if update.edits_buffer_now and NO_APPLY_EDIT not in ls.state.told:
            ls.state.told.add(NO_APPLY_EDIT)
            ls.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Warning,
                message=f"memls: {update.index_path.name} was not updated: it has unsaved changes, and this "
                        "editor does not accept edits from the server (workspace/applyEdit); "
                        "save or revert it, then save the memory again"))
        return
    declined = ""
    for _ in range(INDEX_EDIT_TRIES):
        # Read from the buffer and built in one engine step: the edit is for the text of this moment.
        built = await ls.engine.run(_edit_or_write, ls.state, update, ls.unapplied)
        if isinstance(built, set):  # closed meanwhile: the file was written instead
            ls.after_change(built)
            return
        if built is None:
            return
        edit, version = built
        latest = ls.unapplied.latest(update.index_path)
        if latest is not None and latest[1] != version:
            # The user typed while it was built: a plain (unversioned) edit would land on shifted lines.
            declined = "it changed while the edit was made"
            continue
        try:
            result = await ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(
                edit=edit, label="memls: update MEMORY.md"))
        except Exception as exc:  # noqa: BLE001 - the client's failure is told, not raised
            declined = reason(exc)
            break
        if result.applied:
            if update.absorbs is not None:
                await ls.engine.run(ls.state.absorbed_write, update.index_path, update.absorbs)
            await _until_change_told(ls, update.index_path, version)
            return
        # Most often the user typed on and the version moved: computed anew from the new text.
        declined = result.failure_reason or "the editor declined the edit"
    if update.unapplied is not None:
        await ls.engine.run(update.unapplied)
    ls.window_show_message(types.ShowMessageParams(
        type=types.MessageType.Warning,
        message=f"memls: {update.index_path.name} was not updated: it has unsaved changes and "
                f"{one_line(declined)}; save or revert it, then save the memory again"))


def _edit_or_write(state: ServerState, update: IndexUpdate, unapplied: UnappliedChanges):
    """The edit of the open buffer (:func:`buffer_edit`), or, once it is closed, the file written (engine thread).

    A buffer closed between the save and its edit's turn is gone: an
    unversioned edit of it would land in a hidden buffer the user never
    saves (VS Code, Neovim), so the file is written as for a closed index.
    """
    if update.index_path not in state.buffers and update.write_closed is not None:
        return update.write_closed()
    if update.buffer_text is None:
        return None
    from ..text_edits import buffer_edit  # the edit differ loads with the first edit, not the server

    return buffer_edit(state, update.index_path, update.buffer_text, unapplied)


async def _until_change_told(ls: MemlsServer, path: Path, version: int | None) -> None:
    """Wait until the editor has told the change an applied edit of ``path`` made (its version moved).

    Editors answer ``workspace/applyEdit`` and send the ``didChange`` it
    caused in either order. The buffer's next edit (a save right after this
    one) must be built from the text this edit made: built from the text
    before it, the saved entry's line there describes a text the next save
    does not know as its own, and no edit would follow.
    """
    if version is None:
        return
    uri = ls.state.uris.uri(path)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + CHANGE_TOLD_WITHIN
    while ls.workspace.get_text_document(uri).version == version and loop.time() < deadline:
        await asyncio.sleep(0.02)
