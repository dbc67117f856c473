"""What a reader sees in one memory root: the file set and the parsed entries.

Every read path (list, show, get, recall, match, search, index generation)
goes through :func:`read_root`, and so does every writer's round-trip
verification, with the staged bytes laid over what it read
(:meth:`RootRead.overlaid`). One reader means a write cannot succeed while
the readers would hide what it wrote.

The file set is explicit (gptme's glob quirks are not copied, see the
reference's §15.13): regular top-level ``*.md`` files, not index files
(``MEMORY*``, any case) and not dot-files (editor lock and backup files such
as Emacs's ``.#note.md`` live there; gptme's own policy refuses to select them).
"""

from __future__ import annotations

import errno
import os
import stat
from bisect import bisect_left, insort
from collections.abc import Callable, Iterable, Mapping
from dataclasses import field
from functools import cached_property
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from .cache import ParseCache, Stamp, now_ns, paused_gc
from .entry import DEFAULT_STATUS, EntryRecord, MemoryEntry, entry_from_record, entry_record
from .names import RESERVED_PREFIX
from .safe_read import MAX_INDEX_BYTES as _MAX_INDEX_BYTES
from .safe_read import read_at_most
from .structs import struct
from .text import may_break_index_line, one_line

if TYPE_CHECKING:
    from .parse import ParsedDocument

# The parser (and YAML) is imported where a file is parsed, not here: a read
# whose files all come from the cache never needs it.

ENTRY_SUFFIX = ".md"
# Memory entries are a few KB. A larger file is reported, never parsed, so a
# stray 50 MB file (or a YAML alias bomb) cannot stall every read.
MAX_DOCUMENT_BYTES = 1024 * 1024
TOO_LARGE = f"larger than {MAX_DOCUMENT_BYTES} bytes; not read"
# A generated MEMORY.md grows by about 110 bytes an entry, so a root of ten
# thousand entries passes the entry cap; its checks (drift, what Claude Code
# cannot see) matter most then. Only a file far beyond any real root's index
# is left unread, and the index checks say so.
MAX_INDEX_BYTES = _MAX_INDEX_BYTES


def max_document_bytes(kind: str) -> int:
    """The size past which a document of ``kind`` is reported, not read (``MEMORY.md``: larger)."""
    return MAX_INDEX_BYTES if kind == "index" else MAX_DOCUMENT_BYTES


def is_entry_filename(filename: str) -> bool:
    """True for a file name the readers treat as a memory entry."""
    return bool(entry_filenames((filename,)))


def entry_filenames(names: Iterable[str]) -> list[str]:
    """The names the readers treat as memory entries: ``*.md``, not dot-files, not indexes.

    One comprehension with the rule written out (:func:`memls.store.names.is_index_filename`
    for the index part), because a write filters every name of a 10k root
    and a function call per name was a tenth of its listing. A name is
    upper-cased (a new string) only when it starts with ``m`` or ``M``: no
    other character upper-cases to a string starting with ``M``
    (``tests/store/test_reader.py`` checks every code point), so the rest
    cannot be reserved.
    """
    return [
        name for name in names
        if name.endswith(ENTRY_SUFFIX) and name[:1] != "."
        and (name[:1] not in "mM" or not name.upper().startswith(RESERVED_PREFIX))
    ]


class Listing(NamedTuple):
    """The candidate files of one directory: the regular ones, and the ones no reader can open."""

    # Regular files (symlinks to one included) with their ``stat``, sorted by name.
    files: list[tuple[str, os.stat_result]]
    # Names that are not regular files, with why, sorted by name: a broken or
    # looping symlink, a directory named ``x.md``, a FIFO. gptme's readers
    # fail on each of them, and its audit reports ``invalid-entry``; skipping
    # them silently would make ``memls audit`` pass where gptme's fails.
    unreadable: list[tuple[str, str]]


def entry_stats(root_dir: Path) -> Listing:
    """Entry candidates of one root with their ``stat``, sorted by file name."""
    return stat_directory(root_dir, is_entry_filename)


def stat_directory(root_dir: Path, accept: Callable[[str], bool]) -> Listing:
    """The files of one directory whose names ``accept`` takes, with their ``stat``.

    Sorted by file name, which equals sorting the paths (one directory)
    without building and comparing 10k ``Path`` objects. Stat-ing relative to
    the open directory spares the kernel a path walk per file (10k files:
    25 ms against 37 ms). A missing root has no files; other errors (a root
    that cannot be listed) propagate.
    """
    try:
        fd = os.open(root_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        return Listing([], [])
    out = []
    unreadable = []
    try:
        for name in os.listdir(fd):
            if not accept(name):
                continue
            try:
                st = os.stat(name, dir_fd=fd)
            except OSError as exc:
                unreadable.append((name, unreadable_why(root_dir / name, exc)))
                continue
            if stat.S_ISREG(st.st_mode):
                out.append((name, st))
            else:
                unreadable.append((name, unreadable_why(root_dir / name, st)))
    finally:
        os.close(fd)
    out.sort(key=lambda item: item[0])
    unreadable.sort()
    return Listing(out, unreadable)


def unreadable_reason(path: Path) -> str | None:
    """Why no reader can open ``path`` as a file (as :class:`Listing` says), or None."""
    try:
        st = os.stat(path)
    except OSError as exc:
        return unreadable_why(path, exc)
    return None if stat.S_ISREG(st.st_mode) else unreadable_why(path, st)


def unread_file(filename: str, exc: OSError) -> FileRead:
    """The read of a file whose bytes could not be read (not a function of its bytes: never kept)."""
    return FileRead(filename, None, _error_line(exc), from_disk_error=True)


def unreadable_why(path: Path, found: os.stat_result | OSError) -> str:
    """The error a reader gets opening ``path`` (its stat, or the stat's error), worded as Python words it (gptme's detail)."""
    if isinstance(found, OSError):
        error = found if found.errno is None else OSError(found.errno, found.strerror, str(path))
    elif stat.S_ISDIR(found.st_mode):
        error = IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    else:
        return f"not a regular file: {path}"
    return _error_line(error)


def child_path_maker(root_dir: Path) -> Callable[[str], Path]:
    """A function making ``root_dir / filename`` for listed file names, fast.

    ``Path / str`` re-parses the whole path (~0.9 µs); CPython's own directory
    listing builds children from already-split parts (~0.2 µs), which at 10k
    entries is 7 ms against 45 ms of a 100 ms ``list``. Names come from
    ``listdir``, so they are single components, which is all that shortcut
    assumes; without it (another Python) the public operator is used.
    """
    return getattr(root_dir, "_make_child_relpath", root_dir.joinpath)


def decode_document(data: bytes) -> str:
    """Bytes on disk to the text every parser sees (UTF-8, BOM and CRLF normalised)."""
    from .frontmatter import normalize_text

    return normalize_text(data.decode("utf-8"))


def disk_text(path: Path) -> str | None:
    """A file's text as the parsers see it; None when absent, unreadable, not UTF-8 or past 64 MiB.

    Only a regular file is opened (:mod:`memls.store.safe_read`): a FIFO in a
    file's place blocks nothing, a symlink to ``/dev/zero`` is never read.
    """
    try:
        data = read_at_most(path, MAX_INDEX_BYTES)
        if len(data) > MAX_INDEX_BYTES:
            return None
        return decode_document(data)
    except (OSError, UnicodeDecodeError):
        return None


class FileRead(NamedTuple):
    """What the readers found in one entry file: the lenient entry's fields, or why not.

    Entries are kept as records (:func:`memls.store.entry.entry_record`) and built
    only when asked for: a write's round trip needs every file's name, not
    10k ``MemoryEntry`` objects.
    """

    filename: str
    record: EntryRecord | None
    error: str | None = None  # set when ``record`` is None
    # A file too large to read whose frontmatter ends within the cap: its
    # fields (body left empty), for the index alone (see :func:`headline`).
    headline: EntryRecord | None = None
    # The file could not be read at all (not remembered: the error is not a function of its bytes).
    from_disk_error: bool = False

    @property
    def name(self) -> str | None:
        """The entry's name, as every reader finds it; None when not an entry."""
        return self.record[0] if self.record is not None else None


@struct(frozen=False)
class RootRead:
    """Every entry file of one root as the readers see it, in file (shadowing) order."""

    root_dir: Path
    scope: str | None
    files: list[FileRead] = field(default_factory=list)
    # Entry name -> the files holding it, in file order (see :meth:`names`): built
    # when first asked, or handed over by a read that already knows it.
    by_name: dict[str, list[str]] | None = field(default=None, repr=False, compare=False)
    # What the parse cache held for the files that changed or went away since it was
    # written (:meth:`ParseCache.lookup_listing`): a state the root was in, which an
    # index rendered then still shows (:meth:`memls.store.transaction.RootTransaction._regenerate`).
    earlier: dict[str, FileRead] = field(default_factory=dict, repr=False, compare=False)
    # Whether this read rewrote the parse cache without that state: no later read will see
    # it (:func:`memls.store.index_provenance.remember_forgotten_rendering`).
    forgot_earlier: bool = field(default=False, repr=False, compare=False)

    @cached_property
    def entries(self) -> list[MemoryEntry]:
        """Every parsable entry, one per file, in file order."""
        child, scope = child_path_maker(self.root_dir), self.scope
        return [
            entry_from_record(f.record, child(f.filename), scope)
            for f in self.files if f.record is not None
        ]

    @cached_property
    def entries_for_index(self) -> list[MemoryEntry]:
        """What the index lists: every entry, and the headline of every file too large to read."""
        child, scope = child_path_maker(self.root_dir), self.scope
        return [
            entry_from_record(record, child(f.filename), scope)
            for f in self.files
            if (record := f.record if f.record is not None else f.headline) is not None
        ]

    def as_cached(self) -> RootRead | None:
        """The root as the parse cache held it before the files of :attr:`earlier` changed (None: none did).

        The state an index rendered before those changes shows, for a reader
        with no other earlier state to judge the index against (``memls
        index --refresh`` outside git).
        """
        if not self.earlier:
            return None
        now = {f.filename: f for f in self.files if f.filename in self.earlier}
        return self.with_changes({filename: (now.get(filename), was) for filename, was in self.earlier.items()})

    def unlisted_files(self) -> list[str]:
        """The memory files a rendering gives no line (:mod:`memls.store.unlisted_lines`), in file order.

        Those holding neither an entry nor a headline (no reader reads them),
        and those whose entry readers see and a rendering would list, but
        whose line would break the index (:meth:`MemoryEntry.index_line_hazards`).
        Only the few records a hazard could be in are built into entries.
        """
        visible = None
        out = []
        for f in self.files:
            record = f.record if f.record is not None else f.headline
            if record is None:
                out.append(f.filename)
                continue
            name, kind, title, status = record[0], record[2], record[4], record[5]
            if status != DEFAULT_STATUS or (may_break_index_line(title or name) is None
                                            and may_break_index_line(f.filename) is None
                                            and may_break_index_line(kind) is None):
                continue
            visible = self.visible_files() if visible is None else visible
            entry = entry_from_record(record, self.root_dir / f.filename, self.scope)
            if visible.get(name) == f.filename and entry.index_line_hazards():
                out.append(f.filename)
        return out

    def entry_of(self, file: FileRead) -> MemoryEntry:
        """The entry one of this read's files holds (its record must be set)."""
        assert file.record is not None
        return entry_from_record(file.record, self.root_dir / file.filename, self.scope)

    @property
    def errors(self) -> list[tuple[Path, str]]:
        """The files that are not entries, with why."""
        return [
            (self.root_dir / f.filename, f.error or "not a memory entry")
            for f in self.files if f.record is None
        ]

    def visible_files(self) -> dict[str, str]:
        """Entry name -> the file the readers take it from (the first of that name)."""
        return {name: files[0] for name, files in self.names().items()}

    def names(self) -> dict[str, list[str]]:
        """Entry name -> every file holding it, in file order: the first is the one readers see.

        Kept so that a write asks "who holds this name?" of the names it
        touches, not of every file. The lists are never changed in place (a
        change replaces the list), so an overlay shares all but the names it moves.
        """
        if self.by_name is None:
            by_name: dict[str, list[str]] = {}
            for f in self.files:
                if f.record is not None:
                    by_name.setdefault(f.record[0], []).append(f.filename)
            self.by_name = by_name
        return self.by_name

    def visible_file(self, name: str) -> str | None:
        """The file readers take ``name`` from, None when no file holds it."""
        files = self.names().get(name)
        return files[0] if files else None

    def file(self, filename: str) -> FileRead | None:
        """The read of ``filename`` (files are in file-name order), None when it is not one."""
        at = bisect_left(self.files, filename, key=_filename_of)
        if at < len(self.files) and self.files[at].filename == filename:
            return self.files[at]
        return None

    def overlaid(self, overlay: Mapping[Path, bytes | None]) -> RootRead:
        """This read with staged bytes laid over it (``None`` = deleted).

        Only the staged files are parsed: a writer asks "what would the readers
        see after this commit?" through exactly the rules of :func:`read_root`.
        """
        staged = {
            path.name: data for path, data in overlay.items()
            if path.parent == self.root_dir and is_entry_filename(path.name)
        }
        if not staged:
            return self
        changes = {
            filename: (self.file(filename), None if data is None else _file_read(
                filename, *parse_bytes(self.root_dir / filename, data, self.scope)))
            for filename, data in staged.items()
        }
        return self.with_changes(changes)

    def with_changes(self, changes: Mapping[str, tuple[FileRead | None, FileRead | None]]) -> RootRead:
        """This read with files changed: filename -> (its read here, its read now; None: no file)."""
        files = list(self.files)
        for filename, (_, now) in changes.items():
            at = bisect_left(files, filename, key=_filename_of)
            present = at < len(files) and files[at].filename == filename
            if now is None:
                if present:
                    del files[at]
            elif present:
                files[at] = now
            else:
                files.insert(at, now)
        return RootRead(self.root_dir, self.scope, files, _moved_names(self.names(), changes))


_filename_of = attrgetter("filename")


def _moved_names(
    by_name: dict[str, list[str]], changes: Mapping[str, tuple[FileRead | None, FileRead | None]]
) -> dict[str, list[str]]:
    """``by_name`` (see :meth:`RootRead.names`) after files changed: filename -> (read before, after).

    A copy: only the lists of the names the changed files held or hold are
    replaced, each kept in file order.
    """
    out = dict(by_name)
    for filename, (before, after) in changes.items():
        if before is not None and before.record is not None:
            name = before.record[0]
            kept = [f for f in out.get(name, ()) if f != filename]
            if kept:
                out[name] = kept
            else:
                out.pop(name, None)
        if after is not None and after.record is not None:
            files = list(out.get(after.record[0], ()))
            insort(files, filename)
            out[after.record[0]] = files
    return out


def read_root(root_dir: Path, scope: str | None, *, cache: bool = True) -> RootRead:
    """Read every entry file of one root.

    The file set is always listed and every file ``stat``-ed afresh; only the
    parsing is saved: a file comes from the persistent cache of entries
    (:mod:`memls.store.cache`) when its identity is unchanged and settled, else from
    parsing it. ``cache=False`` (or ``MEMLS_NO_CACHE=1``) parses every file.
    """
    with paused_gc():
        return _read_root(root_dir, scope, cache, None)


def read_root_stamped(root_dir: Path, scope: str | None) -> tuple[RootRead, dict[str, Stamp], int]:
    """:func:`read_root`, with the identity of each file it read and when it looked.

    For a reader that keeps the read and later asks which files changed
    (:mod:`memls.store.warm_root`); a file that could not be read has no stamp.
    """
    stamps: dict[str, Stamp] = {}
    observed_ns = now_ns()
    with paused_gc():
        return _read_root(root_dir, scope, True, stamps), stamps, observed_ns


def _read_root(
    root_dir: Path, scope: str | None, cache: bool, stamps: dict[str, Stamp] | None
) -> RootRead:
    observed_ns = now_ns()
    parse_cache = (
        ParseCache.open(root_dir, "entries") if cache else ParseCache.disabled(root_dir)
    )
    prefix = os.path.join(os.fspath(root_dir), "")
    result = RootRead(root_dir, scope)
    listing = entry_stats(root_dir)
    earlier: dict[str, tuple] = {}
    for filename, stamp, cached in parse_cache.lookup_listing(listing.files, prefix, scope, earlier):
        if stamps is not None:
            stamps[filename] = stamp
        if cached is not None:
            result.files.append(FileRead(filename, *cached))
            continue
        read = read_file(root_dir, filename, scope)
        if read.from_disk_error:
            if stamps is not None:
                del stamps[filename]
            result.files.append(read)
            continue
        # Every outcome is a function of the bytes (and the size, for the
        # cap), so a file that is not an entry is remembered as well.
        parse_cache.remember(
            filename, prefix + filename, scope, stamp, (read.record, read.error, read.headline),
            observed_ns,
        )
        result.files.append(read)
    rewrote = parse_cache.save()
    result.earlier = {filename: FileRead(filename, *held) for filename, held in earlier.items()}
    result.forgot_earlier = rewrote and bool(earlier)
    if listing.unreadable:
        result.files.extend(FileRead(filename, None, why) for filename, why in listing.unreadable)
        result.files.sort(key=lambda f: f.filename)
    return result


def read_file(root_dir: Path, filename: str, scope: str | None) -> FileRead:
    """One file of a root, read and parsed exactly as :func:`read_root` reads it from disk."""
    path = root_dir / filename
    try:
        data = read_capped(path)
    except OSError as exc:
        return unread_file(filename, exc)
    return file_read_of(root_dir, filename, data, scope)


def file_read_of(root_dir: Path, filename: str, data: bytes, scope: str | None) -> FileRead:
    """What the readers find in a file holding ``data`` (read as :func:`read_capped` reads it)."""
    path = root_dir / filename
    read = _file_read(filename, *parse_bytes(path, data, scope))
    if len(data) > MAX_DOCUMENT_BYTES:
        found = headline(path, data, scope)
        read = read._replace(headline=entry_record(found) if found is not None else None)
    return read


def _file_read(filename: str, doc: ParsedDocument | None, error: str | None) -> FileRead:
    if doc is None:
        return FileRead(filename, None, error or "not a memory entry")
    if doc.entry is None:
        return FileRead(filename, None, doc.not_entry or "not a memory entry")
    return FileRead(filename, entry_record(doc.entry))


def parse_bytes(
    path: Path, data: bytes | None, scope: str | None
) -> tuple[ParsedDocument | None, str | None]:
    """One file's bytes as every reader sees them: a parsed document, or why not.

    The size cap applies to staged bytes exactly as to bytes on disk, so a
    writer cannot prove a round trip that the readers would then refuse
    (``None`` stands for a file already found to be over the cap).
    """
    from .parse import parse_document

    if data is None or len(data) > MAX_DOCUMENT_BYTES:
        return None, TOO_LARGE
    try:
        text = decode_document(data)
    except UnicodeDecodeError as exc:
        return None, _error_line(exc)
    return parse_document(text, path=path, scope=scope), None


def text_over_cap(text: str, limit: int) -> bool:
    """Whether a file holding ``text`` (UTF-8) is larger than ``limit`` bytes.

    The readers' cap counts the bytes on disk, so an editor's buffer is
    measured as the file its save writes, not by its characters: 900k
    characters of CJK text are over the cap on disk, and must be in the
    buffer too. Encoding is skipped when the character count decides.
    """
    if len(text) > limit:
        return True
    if len(text) * 4 <= limit:  # UTF-8 takes at most four bytes a character
        return False
    return len(text.encode("utf-8", "surrogatepass")) > limit


def read_capped(path: Path, limit: int = MAX_DOCUMENT_BYTES) -> bytes:
    """A file's bytes, at most one more than ``limit`` (then it is too large).

    What is not a regular file is never opened (``OSError``, :mod:`memls.store.safe_read`).
    """
    return read_at_most(path, limit)


def headline(path: Path, data: bytes, scope: str | None) -> MemoryEntry | None:
    """The entry a file too large to read holds, as far as its index line goes; or None.

    gptme reads every file whole, so its index lists a 2 MiB entry. memls
    reads no file past the cap, but the frontmatter comes first: when it
    ends within the first :data:`MAX_DOCUMENT_BYTES`, the fields an index
    line is made of are known, so the index keeps the entry's line (no
    write drops it, and ``index --check`` agrees with gptme). The body is
    left empty; nothing but the index uses a headline.
    """
    from .parse import parse_document

    head = data[:MAX_DOCUMENT_BYTES]
    end = head.rfind(b"\n")
    if end < 0:
        return None
    try:
        text = decode_document(head[: end + 1])
    except UnicodeDecodeError:
        return None
    entry = parse_document(text, path=path, scope=scope).entry
    if entry is None:
        return None
    entry.body = ""
    return entry


def shadow_by_name(entries: Iterable[MemoryEntry]) -> list[MemoryEntry]:
    """Keep the first entry of each name (nearest root, then first file)."""
    seen: dict[str, MemoryEntry] = {}
    for entry in entries:
        seen.setdefault(entry.name, entry)
    return list(seen.values())


def _error_line(exc: BaseException) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text (byte {exc.start})"
    return one_line(str(exc))
