"""A root's last read, kept by a long-lived store for its next write.

Every write proves that no other file holds the name it writes, so it must
know every file of the root as it is now: each write lists the root and
``stat``-s every file (about 25 ms at 10k files, the floor of a correct
save). What a write need not redo is everything after that: unpickling the
parse cache (20 ms at 10k), building a read of 10k files, indexing their
names, and rendering a 1 MB ``MEMORY.md`` to learn whether it is generated
(60 ms). A :class:`WarmRoot` keeps those from the last write and moves only
the files whose identity changed since.

Why each rule exists:

* **The disk decides, every time.** A file is taken from the last read only
  when its identity (:data:`memls.store.cache.Stamp`) is the one it was read
  with and had settled then (git's racy-clean rule, as in
  :mod:`memls.store.cache`); any other file is read again. So a hand edit,
  another tool's write, a rename or a delete between two saves is seen
  exactly as a fresh read would see it.
* **A file too new to trust is re-read, not re-parsed, when its bytes are
  the ones parsed**: what the readers find in a file is a function of its
  bytes, so equal bytes give the same read. That covers the files the last
  write itself committed, which are all too new to trust by identity.
* **The index view follows the read.** The legacy rendering of the root
  (:class:`memls.store.index_view.IndexView`) is kept for the read, and a
  changed file moves only its own line; a write lays its staged files over
  it and takes them off again (:meth:`WarmRoot.renderings`).
* **Nothing survives an error half-applied**: a refresh that fails forgets
  everything, and the next one starts from a full read.
* Only writes use it, each under the root lock, so one write at a time
  moves it; ``MEMLS_NO_CACHE=1`` turns it off with the other caches.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from stat import S_ISREG

from .cache import Stamp, is_settled, now_ns, paused_gc, stamp_of
from .entry import MemoryEntry, entry_from_record
from .index_view import IndexView
from .reader import (
    MAX_DOCUMENT_BYTES,
    FileRead,
    RootRead,
    child_path_maker,
    entry_filenames,
    file_read_of,
    is_entry_filename,
    read_capped,
    read_root_stamped,
    unread_file,
    unreadable_why,
)

# A file too new to trust by its identity: the read of its bytes, and those bytes.
Pending = tuple[FileRead, bytes]


class WarmRoot:
    """One root's files as last read, its name index and its index view, refreshed per write."""

    def __init__(self, root_dir: Path, scope: str | None):
        self.root_dir = root_dir
        self.scope = scope
        # The files whose last read their identity vouches for: name -> identity.
        # Stamps alone, so the one lookup and compare a save makes per file
        # touches nothing else (at 10k files that compare was a quarter of the loop).
        self._trusted: dict[str, Stamp] = {}
        self._pending: dict[str, Pending] = {}  # files kept by their bytes until they settle
        self._files: dict[str, FileRead] = {}  # the last read's files by name
        # The files whose read a new process would find in the parse cache: those
        # settled when last read (a write's own files keep their read before it).
        # A change to one of them shows the state the root was in (RootRead.earlier).
        self._cache_holds: set[str] = set()
        self._read: RootRead | None = None
        self._view: IndexView | None = None

    def refresh(self) -> RootRead:
        """The root as a fresh :func:`memls.store.reader.read_root` would read it now."""
        try:
            with paused_gc():
                return self._refresh()
        except BaseException:
            self.forget()
            raise

    def forget(self) -> None:
        """Drop everything kept: the next refresh reads the root in full."""
        self._trusted, self._pending, self._files, self._cache_holds = {}, {}, {}, set()
        self._read, self._view = None, None

    def _refresh(self) -> RootRead:
        if self._read is None:
            read, stamps, observed_ns = read_root_stamped(self.root_dir, self.scope)
            self._trusted = {
                f.filename: stamps[f.filename] for f in read.files
                if f.filename in stamps and is_settled(stamps[f.filename], observed_ns)
            }
            self._pending = {}
            self._files = {f.filename: f for f in read.files}
            self._cache_holds = set(self._trusted)
            self._read, self._view = read, None
            return read
        previous, before = self._read, self._files
        changes, earlier = self._changes()
        if not changes:
            # As a new process reading now: its parse cache, written by the last read, holds every file.
            previous.earlier = {}
            return previous
        for filename, (_, now) in changes.items():
            if now is None:
                del before[filename]
            else:
                before[filename] = now
        read = previous.with_changes(changes)
        read.earlier = earlier
        if self._view is not None:
            self._move_lines(self._view, changes)
        self._read = read
        return read

    def _changes(self) -> tuple[dict[str, tuple[FileRead | None, FileRead | None]], dict[str, FileRead]]:
        """Each file whose read differs from the last read: name -> (read then, read now; None: none).

        And the earlier reads of those a new process would find in the parse
        cache (:attr:`RootRead.earlier`): a lagging index rendered from them
        is memls's, not a person's, as such a process would judge it.

        The listing and ``stat`` of :func:`memls.store.reader.entry_stats`
        in one loop with the lookup of the kept reads: at 10k files this loop
        is most of what a save costs, so a file whose identity vouches for its
        kept read costs its ``stat``, a lookup and a compare; only the names
        that are not trusted are asked whether they are entries' (filtering
        all 10k names first was a tenth of a save). (A kept read trusted by
        identity is always the last read's, so it is no change.)
        """
        observed_ns = now_ns()
        before, held = self._files, self._cache_holds
        changes: dict[str, tuple[FileRead | None, FileRead | None]] = {}
        earlier: dict[str, FileRead] = {}
        try:
            fd = os.open(self.root_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except (FileNotFoundError, NotADirectoryError):
            earlier = {filename: was for filename, was in before.items() if filename in held}
            held.clear()
            return {filename: (was, None) for filename, was in before.items()}, earlier
        listed = 0
        try:
            names = os.listdir(fd)
            trusted, stat_at = self._trusted, os.stat
            vouched = trusted.get
            for filename in names:
                stamp = vouched(filename)
                # A trusted name is an entry's (only entry files are read); any other is asked.
                if stamp is None and not is_entry_filename(filename):
                    continue
                try:
                    st = stat_at(filename, dir_fd=fd)
                except OSError as exc:
                    self._drop(filename)
                    read = FileRead(filename, None, unreadable_why(self.root_dir / filename, exc))
                else:
                    if stamp == (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev):
                        listed += 1
                        continue
                    if S_ISREG(st.st_mode):
                        read = self._read_file(filename, stamp_of(st), observed_ns)
                    else:
                        self._drop(filename)
                        read = FileRead(filename, None, unreadable_why(self.root_dir / filename, st))
                was = before.get(filename)
                listed += was is not None
                if was is not read and was != read:
                    changes[filename] = (was, read)
                    if was is not None and filename in held:
                        earlier[filename] = was
                if filename in self._trusted:
                    held.add(filename)
                else:
                    held.discard(filename)
        finally:
            os.close(fd)
        if listed < len(before):  # files gone since the last read
            present = set(entry_filenames(names))
            for filename, was in before.items():
                if filename not in present:
                    self._drop(filename)
                    changes[filename] = (was, None)
                    if filename in held:
                        earlier[filename] = was
                        held.discard(filename)
        return changes, earlier

    def _read_file(self, filename: str, stamp: Stamp, observed_ns: int) -> FileRead:
        """Read one file whose identity cannot vouch for the kept read, and keep what it gave."""
        pending = self._pending.get(filename)
        self._drop(filename)
        try:
            data = read_capped(self.root_dir / filename)
        except OSError as exc:
            return unread_file(filename, exc)
        if pending is not None and pending[1] == data:
            read = pending[0]
        else:
            read = file_read_of(self.root_dir, filename, data, self.scope)
        if is_settled(stamp, observed_ns):
            self._trusted[filename] = stamp
        else:
            self._pending[filename] = (read, data)
        return read

    def _drop(self, filename: str) -> None:
        """Keep nothing of ``filename``: its next refresh reads it."""
        self._trusted.pop(filename, None)
        self._pending.pop(filename, None)

    def committed(self, written: Mapping[str, tuple[bytes, FileRead]]) -> None:
        """A write committed these files (name -> bytes, and what the readers find in them).

        Their new identities are unknown until the next refresh looks, so
        each is kept by its bytes: read once, compared, not parsed again.
        """
        if self._read is None:
            return
        for filename, (data, read) in written.items():
            self._drop(filename)
            if len(data) <= MAX_DOCUMENT_BYTES:  # a larger one is read with a headline: left to the next refresh
                self._pending[filename] = (read, data)

    def view(self, read: RootRead) -> IndexView:
        """The legacy index view of ``read``, which must be this root's latest refresh."""
        assert read is self._read, "the view follows the latest refresh only"
        if self._view is None:
            self._view = IndexView.build(_index_entries(read))
        return self._view

    def rendering_with(self, read: RootRead, after: Mapping[str, MemoryEntry | None]) -> str:
        """The unbudgeted legacy index of ``read`` with ``after`` laid over it.

        ``after`` maps changed files to their index entry (None: none); the
        kept view still shows ``read`` afterwards.
        """
        view = self.view(read)
        try:
            return view.rendering_with(after)
        except BaseException:
            self._view = None
            raise

    def renders_with(self, read: RootRead, after: Mapping[str, MemoryEntry | None], text: str) -> bool:
        """Whether ``text`` is the unbudgeted legacy index of ``read`` with ``after`` laid over it.

        Compared piece by piece (:meth:`IndexView.renders`), nothing rendered;
        the kept view still shows ``read`` afterwards.
        """
        view = self.view(read)
        try:
            return view.renders_with(after, text)
        except BaseException:
            self._view = None
            raise

    def _move_lines(
        self, view: IndexView, changes: Mapping[str, tuple[FileRead | None, FileRead | None]]
    ) -> None:
        for filename, (was, now) in changes.items():
            old_record = _index_record(was)
            new_record = _index_record(now)
            if old_record is new_record or old_record == new_record:
                continue
            view.update(filename, None if new_record is None else entry_from_record(
                new_record, self.root_dir / filename, self.scope))
        view.take_changed()


def _index_record(read: FileRead | None) -> tuple | None:
    """What the index lists for a file: its entry, or a too-large file's headline."""
    if read is None:
        return None
    return read.record if read.record is not None else read.headline


def _index_entries(read: RootRead) -> Iterable[tuple[str, MemoryEntry]]:
    """``(filename, index entry)`` of every file the index lists, file order."""
    child = child_path_maker(read.root_dir)
    for f in read.files:
        record = _index_record(f)
        if record is not None:
            yield f.filename, entry_from_record(record, child(f.filename), read.scope)
