"""The server's view of the memory workspace: model, buffers, settings, roots.

One :class:`ServerState` lives in the engine thread (see :mod:`memls.lsp.engine`);
every method here runs there, so the model never sees two writers. The
protocol side hands it buffer texts and asks it questions.

Open buffers win over disk: a file open in the editor is only ever updated
from the editor, and a watcher event for it is ignored until it is closed --
except for whether the file exists. A buffer without unsaved changes whose
file is deleted follows the disk (the document is gone, as for ``memls
check``) until the file comes back; unsaved text of a deleted file stays the
user's, as an entry no index line can point at yet.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any

from memls.store.checks import CheckContext
from memls.store.entry import MemoryEntry
from memls.store.frontmatter import normalize_text
from memls.store.lease import RootLease, lease_editor, take_leases
from memls.store.model import Document, RootState, StackChange, Workspace, document_kind
from memls.store.reader import disk_text
from memls.store.roots import MemoryRoot, editor_stacks, is_memory_root
from memls.store.settings import CONFIG_FILES, Settings, load_settings
from memls.store.structs import struct

from .client_features import ClientFeatures
from .client_uris import ClientUris
from .convert import Positions


@struct(frozen=False)
class Buffer:
    """A document the editor has open: its text and version, and the texts its file and index line may follow."""

    text: str
    version: int | None
    # The text last read from or written to disk (what a save turned into), or
    # the disk's text the buffer took whole (the editor reloaded it).
    saved_text: str | None = None
    # Another text the entry may have been indexed from: the buffer's text at
    # open when it differed from the disk's, or the saved text a reload replaced.
    earlier_text: str | None = None
    # Whether its file exists, as last seen (open, watcher event, save).
    on_disk: bool = True
    # The text another tool wrote under the buffer, as a watcher event or a
    # save's catch-up last found it. The editor's reload of it can reach the
    # server after the disk moved on again (the user saved), and the entry's
    # index line may have been written for it whether the editor reloads or not.
    disk_seen: str | None = None
    # ``MEMORY.md`` only. The text the editor held when the server wrote the file
    # under the unmodified buffer and took the write as reloaded: until the
    # editor's reload arrives, it may still hold this text (Neovim reloads only
    # on ``:checktime``), and the user may type on it.
    unreloaded: str | None = None
    # ``MEMORY.md`` only: (the text the editor loaded, the text the server last
    # wrote) while the user's unsaved changes were typed on the first and the
    # file holds the second, which differs from it by memls's lines alone.
    # The next save merges those lines into the buffer (features/save.py).
    wrote_under: tuple[str, str] | None = None
    # The user was told the file changed under the buffer's unsaved changes:
    # not again until that is resolved (the buffer saved, reloaded or closed).
    told_changed_under: bool = False
    # The texts :meth:`saved_versions` gave before the last change taken as the
    # editor's reload (:func:`_take_reload`), kept while the buffer holds that
    # text unchanged. The editor's own save of its first change since a load
    # looks the same when the change and the save arrive together: the file is
    # written before the server takes the change in (:meth:`versions_for_save`).
    before_reload: list[str] | None = None

    @property
    def modified(self) -> bool:
        """Whether the buffer differs from what the editor last loaded or saved (line ends and BOM aside)."""
        return normalize_text(self.text) != normalize_text(self.saved_text or "")

    def saved_versions(self) -> list[str]:
        """The texts the entry's index line may have been written for, the latest first."""
        return list(dict.fromkeys(t for t in (self.saved_text, self.earlier_text, self.disk_seen) if t is not None))

    def versions_for_save(self, text: str, automatic: bool) -> list[str]:
        """:meth:`saved_versions` for a save of ``text``, the latest first.

        A change whose text the disk already held was taken as the editor's
        reload of another tool's write. When an automatic save of that very
        text follows, the write was most likely the save's own -- an editor
        that flushes a change right before saving (focus-out) writes the
        file before the server takes the change in -- and the index then
        still follows the texts before it. Editors save on their own only
        buffers with unsaved changes, never a reloaded one, so the texts
        before the apparent reload come first; the reloaded text stays a
        version the line may describe. A manual save keeps the reload's order.
        """
        versions = self.saved_versions()
        if (not automatic or self.before_reload is None
                or normalize_text(text) != normalize_text(self.saved_text or "")):
            return versions
        return list(dict.fromkeys([*self.before_reload, *versions]))

    def see_disk(self, text: str | None) -> None:
        """A watcher event or a catch-up read the file's text: keep it if another tool wrote it."""
        if text is not None and text != normalize_text(self.saved_text or ""):
            self.disk_seen = text


@struct
class RootsChange:
    """After folders or settings changed the roots: what to re-check, what left the model."""

    affected: set[Path]
    gone: set[Path]


@struct
class DiskCatchUp:
    """What :meth:`ServerState.catch_up_with_disk` took in from a root's files."""

    affected: set[Path]
    # The index entries of the files taken in since the root's index was last
    # judged -- by this catch-up or by watcher events (:meth:`index_lag`) -- as
    # the model held them before (by filename; None: no entry): the root the
    # index last followed.
    entries_before: dict[str, MemoryEntry | None]


@struct(frozen=False)
class HeldIndexLine:
    """An entry whose ``MEMORY.md`` line an automatic save left alone (features/save.py)."""

    reason: str
    # The entry's texts the index may last have followed, the latest first
    # (empty: it never had one on disk).
    synced_texts: list[str]

    @property
    def synced_text(self) -> str | None:
        return self.synced_texts[0] if self.synced_texts else None


@struct(frozen=False)
class ServerState:
    """Everything the server knows of its session: folders, settings, roots, open buffers, leases."""

    folders: list[Path] = field(default_factory=list)
    # The editor closed its last folder: the server's working directory does
    # not stand in for one (it does only for an editor that opened none).
    folders_closed: bool = False
    # The first folder's settings (what applies where no folder's own do).
    settings: Settings = field(default_factory=Settings)
    editor_settings: Mapping[str, Any] = field(default_factory=dict)
    # Per workspace folder: the editor's settings for it (``workspace/configuration``
    # with the folder as ``scopeUri``) and the settings that result.
    folder_editor_settings: Mapping[Path, Mapping[str, Any]] = field(default_factory=dict)
    folder_settings: dict[Path, Settings] = field(default_factory=dict)
    # Per root directory, with several folders: the settings of the first folder
    # whose stack holds it, and every folder whose stack holds it.
    root_settings: dict[Path, Settings] = field(default_factory=dict)
    root_folders: dict[Path, list[Path]] = field(default_factory=dict)
    client: ClientFeatures = field(default_factory=ClientFeatures)
    # How the client spells the paths it named (a folder opened through a symlink).
    uris: ClientUris = field(default_factory=ClientUris)
    workspace: Workspace = field(default_factory=lambda: Workspace([]))
    buffers: dict[Path, Buffer] = field(default_factory=dict)
    scanning: bool = False
    # Roots the first scan loads; a document opened in one of them meanwhile
    # is parsed alone, and the scan fills in the rest.
    scan_roots: set[Path] = field(default_factory=set)
    scanned_files: int = 0
    scan_total: int = 0
    home: Path | None = None
    held_index_lines: dict[Path, HeldIndexLine] = field(default_factory=dict)
    # Per root directory: the index entries files had before other tools changed
    # them on disk, by filename (None: no entry), since the root's MEMORY.md
    # was last judged (:meth:`index_lag`).
    index_lags: dict[Path, dict[str, MemoryEntry | None]] = field(default_factory=dict)
    # Per root directory, by filename: the entry's versions memls wrote or sent a
    # MEMORY.md line for that may still stand in the file or in its open buffer
    # (:meth:`line_versions`).
    index_line_versions: dict[Path, dict[str, list[MemoryEntry]]] = field(default_factory=dict)
    # Per MEMORY.md path: (the texts memls's own writes replaced, in order, the text
    # it wrote last), while each write followed the one before (:meth:`memls_wrote_index`).
    index_writes: dict[Path, tuple[list[str], str]] = field(default_factory=dict)
    # Per MEMORY.md path: the files of the entries whose line a save sent into its
    # buffer with unsaved changes and no save has written to the file since, or wrote
    # to the file beside that buffer, which lacks it (features/save.py,
    # :func:`bring_lines_left_in_buffer`).
    index_lines_in_buffer: dict[Path, set[str]] = field(default_factory=dict)
    # Notices shown to the user once per session (a key per notice).
    told: set[str] = field(default_factory=set)
    # Documents still open in a root that left the model (its folder was
    # removed, its setting dropped): served no more until the editor opens
    # them afresh, so an edit does not bring their root back by its look.
    # Each with its buffer as it was then: what the editor had last loaded
    # or saved still counts when the folder comes back (:meth:`open`).
    released: dict[Path, Buffer] = field(default_factory=dict)
    # The root directories the folders and settings resolved to at the last sync.
    synced_roots: frozenset[Path] = frozenset()
    # Per root: whether this server speaks for all of it (memls.store.lease);
    # no more leases are taken once shut down.
    leases: dict[Path, RootLease] = field(default_factory=dict)
    leasing: bool = True
    # The editor this server serves: the process id its client gave (None: not given).
    editor: str | None = None

    # -- settings and roots ---------------------------------------------------

    def configure(self, editor_settings: Mapping[str, Any] | None,
                  folder_editor_settings: Mapping[Path, Mapping[str, Any]] | None = None) -> None:
        """Each folder's settings: its files (``.memls.toml``...), the editor's, the editor's for that folder.

        None keeps what the editor said before.
        """
        if editor_settings is not None:
            self.editor_settings = editor_settings
        if folder_editor_settings is not None:
            self.folder_editor_settings = dict(folder_editor_settings)
        self.folder_settings = {
            folder: load_settings(folder).merged(
                {**self.editor_settings, **self.folder_editor_settings.get(folder, {})}, base_dir=folder)
            for folder in self.folders
        }
        self.settings = (self.folder_settings[self.folders[0]] if self.folders
                         else Settings().merged(self.editor_settings))

    def settings_for(self, path: Path) -> Settings:
        """The settings that apply to a document: those of its root's folder."""
        root = self.workspace.root_of(path)
        return self.root_settings.get(root.path, self.settings) if root is not None else self.settings

    def where(self, path: Path) -> str | None:
        """With several folders, which one a document belongs to: its folder's name, else its root's scope."""
        root = self.workspace.root_of(path)
        if len(self.folders) < 2 or root is None:
            return None
        holders = self.root_folders.get(root.path, [])
        return holders[0].name if len(holders) == 1 else root.scope

    def folder_stacks(self) -> dict[tuple[str, Path], list[MemoryRoot]]:
        """Each workspace folder's roots (its own project's layers, its own ``roots`` setting), keyed for the model."""
        if not self.folders:
            stacks = editor_stacks([], extra=self.settings.roots, home=self.home)
            if self.folders_closed:
                stacks = {folder: [r for r in roots if r.scope not in FOLDER_SCOPES]
                          for folder, roots in stacks.items()}
        else:
            stacks = {}
            for folder in self.folders:
                stacks.update(editor_stacks([folder], extra=self.folder_settings.get(folder, self.settings).roots,
                                            home=self.home))
        return {("folder", folder): roots for folder, roots in stacks.items()}

    def sync_roots(self) -> StackChange:
        """Make the model's stacks those of the current folders and settings.

        New roots are added empty (the caller loads them, or the first scan
        does); roots no folder resolves to any more are unloaded, and the
        buffers open in them released: their edits are ignored until the
        editor opens them again (see :attr:`released`).
        """
        wanted = self.folder_stacks()
        stale = [k for k in self.workspace.stacks() if _is_folder_key(k) and k not in wanted]
        change = self.workspace.set_stacks(wanted, remove=stale)
        self.synced_roots = _root_paths(wanted)
        self.root_settings, self.root_folders = {}, {}
        if len(self.folder_settings) > 1:
            for (_, folder), roots in wanted.items():
                for layer in roots:
                    self.root_settings.setdefault(layer.path, self.folder_settings.get(folder, self.settings))
                    self.root_folders.setdefault(layer.path, []).append(folder)
        for root in change.removed:
            for path in [p for p in self.buffers if p.parent == root.path]:
                self.released[path] = self.buffers.pop(path)
            if (lease := self.leases.pop(root.path, None)) is not None:
                lease.release()
        return change

    def apply_roots(self) -> RootsChange:
        """After folders or settings changed: load new roots now, unload dropped ones.

        Everything is re-checked (a root joining or leaving a stack changes
        what its neighbours shadow); the documents of unloaded roots are
        ``gone``, for the client to stop showing.
        """
        change = self.sync_roots()
        for root in change.added:
            self._load_root(root)
        return RootsChange(self.all_paths(), gone_paths(change.removed))

    def change_folders(self, added: Iterable[Path], removed: Iterable[Path]) -> RootsChange:
        """``workspace/didChangeWorkspaceFolders``: each folder its own project, served at once."""
        removed_set = set(removed)
        folders = [f for f in self.folders if f not in removed_set]
        folders += [f for f in added if f not in folders]
        self.folders = folders
        self.folders_closed = not folders
        self.configure(None)
        return self.apply_roots()

    def settings_files_changed(self, paths: Iterable[Path]) -> RootsChange | None:
        """A folder's ``.memls.toml`` or ``pyproject.toml`` changed: its settings are read again.

        As ``memls check`` reads them on every run; the roots they name are
        followed. None when no path is a folder's settings file.
        """
        if not any(p.name in CONFIG_FILES and p.parent in self.folders for p in paths):
            return None
        self.configure(None)
        return self.apply_roots()

    def roots_appeared(self) -> bool:
        """Whether the folders and settings resolve to other roots than at the last sync.

        Claude Code creates ``~/.claude/projects/<project>/memory`` at its
        first memory, which may be long after the editor started; a folder's
        ``memory/`` can be made (or deleted) at any time too. A few ``stat``
        calls per folder.
        """
        return _root_paths(self.folder_stacks()) != self.synced_roots

    def outside_roots(self) -> list[RootState]:
        """Loaded roots that lie in no workspace folder (an editor watches only inside them)."""
        return [r for r in self.workspace.roots
                if not any(_within(r.path, folder) for folder in self.folders)]

    def root_for(self, path: Path) -> RootState | None:
        """The root a file belongs to, adding a root found by its look (not loaded).

        A released document (its root left the model while it was open) adopts nothing.
        """
        state = self.workspace.root_of(path)
        if state is not None or document_kind(path.name) is None or path in self.released:
            return state
        parent = path.parent
        if self._is_root_dir(parent):
            return self.workspace.add_root(MemoryRoot("explicit", parent))
        return None

    def _join_new_folder_root(self, path: Path) -> set[Path]:
        """A file in a workspace folder's ``memory/`` made after the start: the roots follow the folders now.

        That directory is the folder's ``project`` root, layered with the
        folder's other roots; found by its look alone it would join alone as
        an ``explicit`` one. The paths to re-check (all: a new layer changes
        what its neighbours shadow).
        """
        if (self.workspace.root_of(path) is not None or document_kind(path.name) is None
                or not any(path.parent == folder / "memory" for folder in self.folders)
                or not self.roots_appeared()):
            return set()
        return self.apply_roots().affected

    def _is_root_dir(self, directory: Path) -> bool:
        if is_memory_root(directory, home=self.home):
            return True
        return any(directory == folder / "memory" for folder in self.folders)

    def is_memory_document(self, path: Path) -> bool:
        return self.root_for(path) is not None

    def model_path(self, path: Path) -> Path:
        """A path the client named, spelled as the model spells it (:mod:`memls.lsp.client_uris`).

        Read-only: runs on the event loop too.
        """
        path = self.uris.from_client(path)
        root = self.workspace.root_of(path)
        if root is None or root.path == path.parent:
            return path
        return root.path / path.name

    # -- several servers on one root ----------------------------------------------

    def speaks_for(self, path: Path) -> bool:
        """Whether this server holds the lease of ``path``'s root (taken on first ask).

        Without it, another memls server already serves the root: it lists
        the root's problems and edits its open ``MEMORY.md``; this one
        answers for the documents its own editor opened.
        """
        root = self.workspace.root_of(path)
        if root is None:
            return True
        if not self.leasing:
            return False
        lease = self.leases.get(root.path)
        if lease is None:
            # Every root not asked about yet, in one round (memls.store.lease: asked one by one,
            # two servers started together could each take one root of a folder).
            fresh = [RootLease(r.path, self.editor) for r in self.workspace.roots if r.path not in self.leases]
            self.leases.update((new.root_dir, new) for new in fresh)
            take_leases(fresh)
            lease = self.leases[root.path]
        return lease.held

    def edits_open_index(self, path: Path) -> bool:
        """Whether this server brings an open ``MEMORY.md`` of ``path``'s root to a save's index.

        The leaseholder does, and so does a server whose editor is known not to
        be the leaseholder's: no other server sees that editor's buffer
        (:mod:`memls.store.lease`).
        """
        if self.speaks_for(path):
            return True
        root = self.workspace.root_of(path)
        holder = lease_editor(root.path) if root is not None else None
        return self.editor is not None and holder is not None and holder != self.editor

    def publishes(self, path: Path) -> bool:
        """Whether to tell the client about ``path`` unasked: it opened it, or this server speaks for its root."""
        return path in self.buffers or self.speaks_for(path)

    def release_leases(self) -> None:
        """At shutdown: let another server take this one's roots; none is taken again."""
        for lease in self.leases.values():
            lease.release()
        self.leases.clear()
        self.leasing = False

    def retry_leases(self) -> set[Path]:
        """Take the leases other servers let go of; the paths to publish now."""
        waiting = [(root, lease) for root in self.workspace.roots
                   if (lease := self.leases.get(root.path)) is not None and not lease.held]
        take_leases([lease for _, lease in waiting])
        gained: set[Path] = set()
        for root, lease in waiting:
            if lease.held:
                gained.update(root.documents)
                gained.add(root.index_path)
        return gained

    # -- documents --------------------------------------------------------------

    def context(self) -> CheckContext:
        held = {path: h.reason for path, h in self.held_index_lines.items()}
        return CheckContext(self.workspace, self.settings, held_index_lines=held, root_settings=self.root_settings)

    def open(self, path: Path, text: str, version: int | None) -> set[Path]:
        """The editor opened ``path`` (or its folder came back): served again whatever happened before.

        A buffer whose folder comes back after its file was deleted is judged
        as before the folder left, by what the editor had last loaded or
        saved: unchanged, the document is gone (as every reader of the disk
        finds); with unsaved changes, it is the user's entry. Taken afresh,
        a text whose file does not exist could only count as unsaved work.
        """
        before = self.released.pop(path, None)
        joined = self._join_new_folder_root(path)
        state = self.root_for(path)
        if state is None:
            return set()
        disk = disk_text(path)
        if path not in self.buffers:
            self._take_unannounced_write(state, path, disk)
        opened = text if disk is not None and normalize_text(text) != disk else None
        buffer = self.buffers[path] = Buffer(text=text, version=version, saved_text=disk, earlier_text=opened,
                                             on_disk=os.path.lexists(path))
        if disk is not None and opened is not None and document_kind(path.name) == "index" and (
                self._opened_before_memls_wrote(path, text, disk)):
            # Unmodified, not yet reloaded: as if memls had written the file under the open buffer.
            buffer.saved_text, buffer.earlier_text, buffer.wrote_under = text, None, (text, disk)
        if before is not None and not buffer.on_disk:
            buffer.saved_text, buffer.earlier_text = before.saved_text, before.earlier_text
            buffer.disk_seen, buffer.before_reload = before.disk_seen, before.before_reload
        affected = joined | self._load_new_root(state)
        return affected | self._model_buffer(path, buffer)

    def differs_from_disk(self, path: Path, text: str) -> bool:
        """Whether a buffer's text is not what its file holds (as :meth:`open` compares them); no file: it is."""
        disk = disk_text(path)
        return disk is None or normalize_text(text) != disk

    def adopt_open_documents(self, documents: Iterable[tuple[Path, str, int | None]]) -> set[Path]:
        """Buffers the editor has open (path, text, version) in roots that joined the model: the buffer wins over disk.

        Those opened before their root was served, and those released when
        their root left (:attr:`released`) and now back.
        """
        affected: set[Path] = set()
        for path, text, version in documents:
            if path not in self.buffers and self.workspace.root_of(path) is not None:
                affected |= self.open(path, text, version)
        return affected

    def _take_unannounced_write(self, state: RootState, path: Path, disk: str | None) -> None:
        """A file opened whose text on disk is not what the model read: another tool wrote it unannounced.

        Its entry as the model held it is what the root's index last
        followed (:meth:`_remember_index_lag`), as a watcher event would
        have recorded it: the buffer about to stand for the file holds the
        other tool's text, and a save of it must still find the index memls
        rendered before that write generated.
        """
        if disk is None or not state.documents or (self.scanning and state.path in self.scan_roots):
            return  # nothing on disk, or a root the model has not read yet
        doc = state.documents.get(state.path / path.name)
        if doc is None or (doc.disk is not None and not doc.too_large and doc.text != disk):
            self._remember_index_lag([path])

    def change(self, path: Path, text: str, version: int | None) -> set[Path]:
        buffer = self.buffers.get(path)
        if buffer is None:
            return set() if path in self.released else self.open(path, text, version)
        if buffer.unreloaded is not None and text != buffer.text:
            _typed_or_reloaded(buffer, path, text)
        elif not buffer.modified and text != buffer.text:
            _take_reload(buffer, path, text)
        elif buffer.modified and (_reloads_disk(buffer, path, text) or (
                self.index_lines_in_buffer.get(path) and normalize_text(text) == disk_text(path))):
            # The user took the file that changed under the buffer (``:e!``): it is what the editor loaded now.
            # (Read while lines memls sent there wait for the file: another tool's write may be unannounced.)
            buffer.saved_text, buffer.wrote_under, buffer.told_changed_under = text, None, False
        elif text == buffer.text:
            buffer.unreloaded = None  # the editor's reload of what the server wrote
        if not buffer.on_disk:  # (a stat only while the file is missing)
            buffer.on_disk = os.path.lexists(path)
        buffer.text, buffer.version = text, version
        if buffer.modified:  # typed on since: no save can be the write an apparent reload took
            buffer.before_reload = None
        affected = self._model_buffer(path, buffer)
        if not buffer.modified:  # reloaded from disk, or typed back to it
            affected |= self.workspace.saved(path)
        return affected

    def _model_buffer(self, path: Path, buffer: Buffer) -> set[Path]:
        """Give the model an open buffer's text, as far as its file's existence lets it count.

        A buffer without unsaved changes whose file is gone holds nothing of
        the user's: the document is gone, as every reader of the disk finds.
        Unsaved text of a file that does not exist is the user's work: it
        counts as the entry it is, as no file an index line may point at.
        """
        if not buffer.on_disk and not buffer.modified:
            return self.workspace.remove(path)
        return self.workspace.update(path, buffer.text, version=buffer.version, file_absent=not buffer.on_disk)

    def close(self, path: Path) -> set[Path]:
        """The buffer is gone: the disk is the truth again."""
        self.released.pop(path, None)
        if self.buffers.pop(path, None) is None:
            return set()
        return self.workspace.update_from_disk(path)

    def saved(self, path: Path, text: str | None) -> set[Path]:
        """The editor saved ``path``: the buffer is the file now (the paths whose checks changed)."""
        buffer = self.buffers.get(path)
        if buffer is None:
            return set()
        if text is not None:
            buffer.text = text
        buffer.saved_text = buffer.text
        buffer.earlier_text = buffer.disk_seen = buffer.unreloaded = buffer.wrote_under = None
        buffer.before_reload = None
        buffer.told_changed_under = False
        affected: set[Path] = set()
        if not buffer.on_disk:  # the save made the file
            buffer.on_disk = True
            affected = self._model_buffer(path, buffer)
        return affected | self.workspace.saved(path)

    def has_unsaved_changes(self, path: Path) -> bool:
        """Whether ``path`` is open with changes the user has not saved.

        Compared with what the editor last loaded or saved, not with the
        disk: another tool may have rewritten the file under an unmodified
        buffer the editor has not reloaded (Neovim does not, until asked),
        and that buffer holds nothing of the user's.
        """
        buffer = self.buffers.get(path)
        return buffer is not None and buffer.modified

    def changed_under(self, path: Path, disk: str | None) -> bool:
        """Whether ``path`` is open and its file (``disk``, None: absent) is no longer what the editor loaded."""
        buffer = self.buffers.get(path)
        return buffer is not None and normalize_text(disk or "") != normalize_text(buffer.saved_text or "")

    def wrote_open_file(self, path: Path, text: str) -> set[Path]:
        """The server wrote a file that is open in the editor.

        The editor reloads an unmodified buffer whose file changed (and then
        sends the change), so the server takes the new text now instead of
        editing the buffer: an edit would leave the buffer modified though it
        equals the disk (in Neovim, ``:qa`` then stops on it).
        """
        buffer = self.buffers.get(path)
        if buffer is None:
            return self.workspace.update_from_disk(path)
        if buffer.modified:  # the user's unsaved text stays; the editor tells them the file changed
            if document_kind(path.name) == "index":
                buffer.disk_seen = text  # what a reload would take (:func:`_reloads_disk`)
            return set()
        held = buffer.unreloaded if buffer.unreloaded is not None else buffer.text
        buffer.unreloaded = None
        affected = self.change(path, text, buffer.version)
        affected |= self.saved(path, text)
        if document_kind(path.name) == "index" and normalize_text(held) != normalize_text(text):
            buffer.unreloaded = held  # until the editor's reload says otherwise
        return affected

    def wrote_under_unsaved(self, path: Path, before: str | None, text: str) -> None:
        """The server wrote ``text`` over ``before`` under ``path``'s buffer with unsaved changes.

        When ``before`` was the server's own text (:attr:`Buffer.wrote_under`),
        the file still differs from what the editor loaded by memls's lines alone.
        """
        buffer = self.buffers.get(path)
        if buffer is not None and (wrote := self.memls_wrote_under(path, before)) is not None:
            buffer.wrote_under = (wrote[0], text)

    def memls_wrote_under(self, path: Path, disk: str | None) -> tuple[str, str] | None:
        """(what the editor loaded, what memls wrote) when ``disk`` is the server's own write under ``path``'s buffer.

        Its unsaved changes were typed on a text the file left only by memls's
        writes: merged into the buffer, those do not come back when it is saved.
        Another tool's write since then makes it None: the buffer is no base to
        edit from any more.
        """
        buffer = self.buffers.get(path)
        wrote = buffer.wrote_under if buffer is not None else None
        if wrote is None or disk is None or normalize_text(disk) != normalize_text(wrote[1]):
            return None
        return wrote

    def absorbed_write(self, path: Path, written: str) -> None:
        """An edit brought what memls wrote (``written``) into ``path``'s buffer: its base is that text now."""
        buffer = self.buffers.get(path)
        if buffer is not None and buffer.wrote_under is not None and buffer.wrote_under[1] == written:
            buffer.wrote_under = (written, written)

    def tell_changed_under(self, path: Path, conflict: bool) -> bool:
        """Whether to tell the user that ``path`` changed on disk under its unsaved buffer (once per conflict)."""
        buffer = self.buffers.get(path)
        if buffer is None:
            return conflict
        told, buffer.told_changed_under = buffer.told_changed_under, conflict
        return conflict and not told

    def disk_changed(self, path: Path) -> set[Path]:
        """A file changed on disk (watcher, another process): ignored while open, but for its existence."""
        buffer = self.buffers.get(path)
        if buffer is not None:
            buffer.see_disk(disk_text(path))
            return self._existence_changed(path, buffer)
        joined = self._join_new_folder_root(path)
        state = self.root_for(path)
        if state is None:
            return joined
        return joined | self._load_new_root(state) | self.workspace.update_from_disk(path)

    def _existence_changed(self, path: Path, buffer: Buffer) -> set[Path]:
        """An open file was deleted or made again: the model follows (see :meth:`_model_buffer`).

        A file that comes back under a buffer without unsaved changes is
        read from disk, as a closed one would be; the editor's reload, if
        it makes one, arrives as a change.
        """
        on_disk = os.path.lexists(path)
        if on_disk == buffer.on_disk:
            return set()
        buffer.on_disk = on_disk
        if on_disk and not buffer.modified:
            return self.workspace.update_from_disk(path)
        return self._model_buffer(path, buffer)

    def disk_changes(self, paths: Iterable[Path]) -> set[Path]:
        paths = list(paths)
        self._remember_index_lag(paths)
        affected: set[Path] = set()
        for path in paths:
            affected |= self.disk_changed(path)
        return affected

    def _remember_index_lag(self, paths: list[Path]) -> None:
        """Before taking in files other tools changed: each entry as the root's index last followed it.

        A ``MEMORY.md`` memls rendered before another tool added, changed
        or deleted an entry is still memls's rendering, and a save renders
        it anew -- whether the watcher's word of that write came before the
        save or not (:meth:`catch_up_with_disk`). The earliest entry of a
        file is kept. An index another tool rewrote meanwhile then differs
        from the rendering of these entries, so it counts as curated and
        keeps its bytes: never a line lost, at worst one not refreshed.
        An entry whose line an autosave holds counts as its held text.
        """
        for path in paths:
            root = self.workspace.root_of(path)
            if root is None or path in self.held_index_lines or document_kind(path.name) != "entry":
                continue
            lag = self.index_lags.setdefault(root.path, {})
            if path.name in lag:
                continue
            path = root.path / path.name
            buffer = self.buffers.get(path)
            if buffer is not None and buffer.modified and buffer.saved_text is not None:
                # The index follows the saved text, not the unsaved one.
                saved = self.workspace.detached(path, buffer.saved_text)
                lag[path.name] = saved.index_entry if saved is not None else None
            else:
                lag.update(root.index_entries_of([path]))

    def index_line_not_updated(self, root: RootState, path: Path, versions: Sequence[MemoryEntry | None]) -> None:
        """A save's edit of the open index never landed: the entry's line still describes an earlier version.

        The user is told to save or revert the buffer and save the entry
        again; that save must find the line memls's text (the first of
        ``versions`` whose line the index holds), not a line the user
        wrote, or it leaves it stale.
        """
        texts = [t for t in (self.text(root.index_path), disk_text(root.index_path)) if t is not None]
        for entry in versions:
            if entry is not None and any(entry.index_line() in t for t in texts):
                # Over what a watcher event of the saved file took as followed: the edit never landed.
                self.index_lags.setdefault(root.path, {})[path.name] = entry
                return

    def line_versions(self, root: RootState, filename: str) -> list[MemoryEntry]:
        """The versions of ``filename``'s entry memls wrote or sent a ``MEMORY.md`` line for that may still stand.

        A save's line reaches the file only once it is written: sent as an
        edit into a buffer with unsaved changes, it is on disk when the
        buffer is saved, and never when the buffer is closed unsaved,
        reloaded (``:e!``), its edit undone, or the file rewritten by
        another tool. So there is no one "text memls wrote" for a line:
        the disk may hold the line of the version before the save while the
        buffer holds the save's, or either may be put back later. A save
        counts a part of the entry's line as memls's text (and so follows
        the entry) when it is memls's text for any of these versions, not
        for the one before the save alone -- else a line memls wrote would
        pass for the user's and never be updated again, silently.
        """
        return list(self.index_line_versions.get(root.path, {}).get(filename, ()))

    def keep_line_versions(self, root: RootState, filename: str, saved: MemoryEntry | None,
                           versions: Iterable[MemoryEntry | None], texts: Iterable[str | None],
                           in_flight: MemoryEntry | None = None) -> None:
        """After a save of ``filename``: remember the versions whose line may still stand (:meth:`line_versions`).

        ``saved`` is the save's own version (its line was just written or
        sent); of the ``versions`` before it, those a line in one of
        ``texts`` (the file, the buffer) still describes
        (:func:`memls.store.index.line_may_describe`), a few at most.
        ``in_flight`` is kept without looking: the version whose line an
        earlier save sent into the buffer, in no text yet while its edit is
        on its way (two saves in a burst), and back in the buffer when the
        user undoes the later edit.
        """
        from memls.store.index import line_may_describe  # loaded with the first save

        present = [t for t in texts if t]
        kept: list[MemoryEntry] = [saved] if saved is not None else []
        if in_flight is not None and not any(same_line(in_flight, k) for k in kept):
            kept.append(in_flight)
        for version in versions:
            if (version is not None and len(kept) < LINE_VERSIONS_KEPT
                    and not any(same_line(version, k) for k in kept)
                    and any(line_may_describe(t, version, saved) for t in present)):
                kept.append(version)
        by_name = self.index_line_versions.setdefault(root.path, {})
        if kept:
            by_name[filename] = kept
        else:
            by_name.pop(filename, None)

    def editor_texts(self, path: Path) -> list[str]:
        """The texts the editor may show for open ``path``: the buffer's, then those it may not have left yet.

        The text before the server's write under an unmodified buffer the
        editor has not reloaded (:attr:`Buffer.unreloaded`), and the one the
        user's unsaved changes were typed on (:attr:`Buffer.wrote_under`).
        """
        buffer = self.buffers.get(path)
        if buffer is None:
            return []
        base = buffer.wrote_under[0] if buffer.wrote_under is not None else None
        return [buffer.text, *(t for t in (buffer.unreloaded, base) if t is not None and t != buffer.text)]

    def memls_wrote_index(self, path: Path, before: str | None, written: str) -> None:
        """The server wrote ``written`` over ``before`` in ``path`` (a ``MEMORY.md``): remembered for :meth:`open`."""
        befores, last = self.index_writes.get(path, ([], None))
        follows = before is not None and last is not None and normalize_text(before) == normalize_text(last)
        chain = [*(befores if follows else []), *([before] if before is not None else [])]
        self.index_writes[path] = (chain[-LINE_VERSIONS_KEPT:], written)

    def _opened_before_memls_wrote(self, path: Path, text: str, disk: str | None) -> bool:
        """Whether an editor opened ``path`` (a ``MEMORY.md``) with a text the server's own writes replaced.

        The editor read the file just before memls wrote it (a close and a
        reopen racing a save): nothing of the user's, the file holds only
        memls's lines over it.
        """
        record = self.index_writes.get(path)
        if record is None or disk is None or normalize_text(disk) != normalize_text(record[1]):
            return False
        return any(normalize_text(text) == normalize_text(before) for before in record[0])

    def index_lag(self, root: RootState) -> dict[str, MemoryEntry | None]:
        """The entries of :meth:`_remember_index_lag` for ``root``, forgotten as its index is judged now."""
        return self.index_lags.pop(root.path, {})

    def keep_index_lag(self, root: RootState, lagged: Mapping[str, MemoryEntry | None], index: str | None) -> None:
        """After a save judged ``root``'s index: remember again the entries whose lines it left as they were.

        A save changes its own entry's line (a curated index, a buffer with
        unsaved changes); another entry's line rendered for its version before
        another tool's write still describes that version, and a later save
        of that entry must find it memls's text. A line rendered anew
        (the index regenerated) names no earlier version any more.

        An entry that is still the file's, as the model holds it, lags
        nothing: counting it before a save renders what counting the file
        renders, and its next change is remembered as it comes
        (:meth:`_remember_index_lag`). Kept, such entries pile up -- a save
        right after a bulk copy finds every file too fresh for its ``stat``
        to prove it unchanged -- and every later save would carry them all
        and look each up in the whole index (at 10k files 0.6 s a save).
        An open or held file counts with another text than the model's, so
        its entry is kept.
        """
        if index is None:
            return
        open_names = {p.name for p in (*self.buffers, *self.held_index_lines)}
        kept = {}
        for name, e in lagged.items():
            if e is None:
                continue
            if name not in open_names:
                doc = root.documents.get(root.path / name)
                if doc is not None and ((now := doc.index_entry) is e or now == e):
                    continue
            if e.index_line() in index:
                kept[name] = e
        if kept:
            lag = self.index_lags.setdefault(root.path, {})
            for name, entry in kept.items():
                lag.setdefault(name, entry)

    def catch_up_with_disk(self, root: RootState) -> DiskCatchUp:
        """Take in what other tools changed in ``root`` that no watcher event has told of yet.

        Before the model stands for the whole root (a save renders its
        index): editors deliver watcher events late, sometimes by seconds.
        The files the store finds changed go the watchers' way
        (:meth:`disk_changes`: open buffers win, but for their file's
        existence); the event that follows
        finds the file already read and costs nothing.
        """
        if self.scanning and root.path in self.scan_roots:  # the scan is reading it
            return DiskCatchUp(set(), self.index_lag(root))
        # An open file counts only when it was deleted or made (:meth:`_existence_changed`).
        changed = []
        for p in self.workspace.paths_changed_on_disk(root):
            buffer = self.buffers.get(p)
            if buffer is None or buffer.on_disk != os.path.lexists(p):
                changed.append(p)
            else:
                buffer.see_disk(disk_text(p))
        affected = self.disk_changes(changed)
        return DiskCatchUp(affected, self.index_lag(root))

    def all_paths(self) -> set[Path]:
        """Every document of every root, and each root's index path."""
        paths: set[Path] = set()
        for root in self.workspace.roots:
            paths.update(root.documents)
            paths.add(root.index_path)
        return paths

    def _load_new_root(self, state: RootState) -> set[Path]:
        """Load a root seen for the first time, unless the first scan will."""
        if state.documents or (self.scanning and state.path in self.scan_roots):
            return set()
        return self._load_root(state)

    def _load_root(self, state: RootState) -> set[Path]:
        for doc_path in self.workspace.scan(state):
            if doc_path not in self.buffers:
                self.workspace.load_document(doc_path)
        return set(state.documents) | {state.index_path}

    def document(self, path: Path) -> Document | None:
        return self.workspace.document(path)

    def text(self, path: Path) -> str:
        """A path's current text as the client has it: its buffer, else the model's, else the disk's."""
        buffer = self.buffers.get(path)
        if buffer is not None:
            return buffer.text
        doc = self.workspace.document(path)
        if doc is not None:
            return doc.text
        return disk_text(path) or ""

    def texts(self, paths: Iterable[Path], near: Path) -> dict[Path, str]:
        """The current texts of ``paths`` (as :meth:`text`), most of them documents of ``near``'s root.

        Looked up in that root first: the entries a ``MEMORY.md``'s problems
        point at, thousands for a curated index, are asked for at every
        keystroke, and finding each one's root again cost more than the check.
        """
        root = self.workspace.root_of(near)
        documents = root.documents if root is not None else {}
        buffers = self.buffers
        texts: dict[Path, str] = {}
        for path in paths:
            buffer = buffers.get(path)
            if buffer is not None:
                texts[path] = buffer.text
            elif (doc := documents.get(path)) is not None:
                texts[path] = doc.text
            else:
                texts[path] = self.text(path)
        return texts

    def positions(self, path: Path) -> Positions:
        """Position conversion for a path's current text (buffer, model or disk)."""
        return Positions(self.text(path), self.client.position_encoding)

    def version(self, path: Path) -> int | None:
        """The editor's version that the model's text of ``path`` is; None when no buffer holds that text.

        Also None while the editor has not reloaded a ``MEMORY.md`` the server
        wrote under its unmodified buffer (:meth:`awaits_reload`): the model
        holds the written text, and the buffer's version names the text before.
        """
        buffer = self.buffers.get(path)
        if buffer is None or buffer.unreloaded is not None:
            return None
        return buffer.version

    def awaits_reload(self, path: Path) -> bool:
        """Whether the server wrote ``path`` under a buffer whose editor has not reloaded it yet.

        Until it does, the editor's lines are not the model's: an edit planned
        on the model's would land on other lines of the buffer (``edit_of``).
        """
        buffer = self.buffers.get(path)
        return buffer is not None and buffer.unreloaded is not None

    def open_paths(self) -> Iterable[Path]:
        return list(self.buffers)

    def stats(self) -> dict[str, Any]:
        return {
            "folders": [str(f) for f in self.folders],
            "roots": [
                {"scope": s.scope, "path": str(s.path), "entries": len(s.by_name),
                 "documents": len(s.documents), "lease": self.speaks_for(s.index_path)}
                for s in self.workspace.roots
            ],
            "entries": self.workspace.entry_count(),
            "open_documents": len(self.buffers),
            "scanning": self.scanning,
        }


def same_line(a: MemoryEntry | None, b: MemoryEntry | None) -> bool:
    """Whether two versions of an entry give the index the same line in the same place (a body apart)."""
    if a is None or b is None:
        return a is b
    return a is b or (a.index_line(), a.type, a.status) == (b.index_line(), b.type, b.status)


# How many versions of one entry :meth:`ServerState.line_versions` keeps (and texts :attr:`ServerState.index_writes`).
LINE_VERSIONS_KEPT = 4

# The roots a workspace folder brings (its ``memory/``, its Claude Code directory).
FOLDER_SCOPES = ("project", "cc")


def _take_reload(buffer: Buffer, path: Path, text: str) -> None:
    """An unmodified buffer took a whole new text: when it is the disk's, the editor reloaded it.

    Another tool wrote the file and the editor, its buffer unmodified, read
    it again: that text is now what the editor loaded (saved), and the text
    before it stays a version the entry's index line may still describe.
    The disk may already hold a later text (the user saved right after the
    reload, before the server took it in): a text a watcher event found
    there (:attr:`Buffer.disk_seen`) counts as loaded too.
    One read, on the first change after a load or save only.
    """
    if normalize_text(text) in (disk_text(path), buffer.disk_seen):
        buffer.before_reload = buffer.saved_versions()
        buffer.earlier_text, buffer.saved_text = buffer.saved_text, text
        buffer.wrote_under = None  # (:meth:`ServerState.open`) the editor took memls's write


def _reloads_disk(buffer: Buffer, path: Path, text: str) -> bool:
    """Whether ``MEMORY.md``'s modified buffer took the file that changed under it (``:e!``), as last seen.

    Then that is what the editor loaded: the conflict with the file is over.
    No read: only while such a text is known (a watcher event, a catch-up
    or the server's own write found it), and for the index alone.
    """
    seen = [t for t in (buffer.disk_seen, buffer.wrote_under[1] if buffer.wrote_under is not None else None)
            if t is not None]
    if not seen or document_kind(path.name) != "index":
        return False
    text = normalize_text(text)
    return any(text == normalize_text(t) for t in seen)


def _typed_or_reloaded(buffer: Buffer, path: Path, text: str) -> None:
    """The first change of a ``MEMORY.md`` buffer after the server wrote the file under it (:attr:`Buffer.unreloaded`).

    The server took its write as the text the editor loaded, as an editor
    that reloads makes it. A change to the disk's text is that reload
    (maybe of a later text). Any other came from the text the editor still
    held: the user typed on it. Then that text is what the editor loaded,
    and the file's difference from it is memls's (:attr:`Buffer.wrote_under`).
    """
    held, buffer.unreloaded = buffer.unreloaded, None
    assert held is not None
    if normalize_text(text) in (disk_text(path), buffer.disk_seen):
        _take_reload(buffer, path, text)
        return
    written = buffer.saved_text if buffer.saved_text is not None else buffer.text
    buffer.saved_text, buffer.earlier_text, buffer.wrote_under = held, None, (held, written)


def gone_paths(removed: Iterable[RootState]) -> set[Path]:
    """What the client may show for roots that left the model: their documents and index."""
    paths: set[Path] = set()
    for state in removed:
        paths.update(state.documents)
        paths.add(state.index_path)
    return paths


def _root_paths(stacks: Mapping[Any, list[MemoryRoot]]) -> frozenset[Path]:
    return frozenset(root.path for roots in stacks.values() for root in roots)


def _is_folder_key(key: object) -> bool:
    return isinstance(key, tuple) and len(key) == 2 and key[0] == "folder"


def _within(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except (ValueError, OSError):
        return False
    return True
