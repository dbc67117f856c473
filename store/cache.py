"""A persistent cache of parses, one file per memory root and kind, outside the roots.

Parsing is most of what a read costs (about 40 µs a file against ~2.5 µs to
``stat`` it), and between two runs almost no file changes. So every complete
read of a root remembers each file's parse keyed by the file's identity on
disk, and the next process re-parses only the files whose identity moved.

Two kinds of record are kept, each in its own file, because their readers
need very different amounts: ``entries`` (what the store's read paths and
writes need: the lenient entry's fields or why the file is not one; about
40 ms to load for 10k files) and ``documents`` (the whole parse with text and
source spans, for the model behind ``check`` and the language server; about
ten times that).

Why each rule exists:

* **Identity = size, mtime, ctime, inode, device.** ``mtime`` alone can be set
  back by any tool (``touch -d``, ``rsync -t``, ``git checkout``); ``ctime``
  cannot, and a replace-by-rename (how memls, gptme and most editors save)
  gives a new inode.
* **Racy clean** (git's rule): a file whose mtime or ctime is within
  :data:`RACY_WINDOW_NS` of the moment it was looked at may still change
  inside the same timestamp tick, leaving the identity unchanged. Such files
  are never remembered; they are parsed again until they have settled.
* **Outside the roots**: ``$MEMLS_CACHE_DIR``, else ``$XDG_CACHE_HOME/memls``,
  else ``~/.cache/memls`` (directory 0700, files 0600). A memory root is shared
  with gptme, Claude Code and version control, none of which should see it.
* **Pickle is code**, so a cache file is loaded only when the current user owns
  it and nobody else may write to it (checked on the open descriptor, links
  not followed).
* **Sealed**: every pickle and marshal blob is written after its length and
  CRC-32 (:func:`_seal`), checked before it is loaded. A flipped or torn byte
  in a cache file would otherwise load as a different parse or view (a
  description one letter off, a line pointing at the wrong file), and the
  server renders ``MEMORY.md`` from what it loaded.
* **Never an error**: a missing, corrupt, foreign or out-of-date cache is
  ignored and the documents are parsed; a cache that cannot be written is not
  written. The header pins the cache format, Python's version, a
  fingerprint of the engine's sources (which every release changes) and the
  YAML library's files (:func:`_yaml_identity`), because a cached parse is
  only exact for the parser that made it.
* ``MEMLS_NO_CACHE=1`` turns it off (cold-path tests, benchmarks of the parser).
"""

from __future__ import annotations

import errno
import gc
import itertools
import marshal
import os
import re
import stat
import struct
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

try:  # hashlib's own blake2b, without loading OpenSSL's hashes (a tenth of a replayed command)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - an interpreter without the module
    from hashlib import blake2b

CACHE_FORMAT = 5
KINDS = ("entries", "documents")
MAGIC = b"memls-parse-cache\n"
MARSHAL_MAGIC = b"memls-marshal-cache\n"
CHUNKS_MAGIC = b"memls-parse-cache-chunks\n"
CHUNK_ENTRIES = 64
"""Parses pickled between two pauses of a background write (about 2 ms of CPU at 10k)."""
RETIRED_SUFFIXES = (".parse-cache",)
"""Cache files of earlier memls builds that nothing reads any more: deleted when a cache file is first written.

Not on every write: listing the cache directory costs with every file in it
(tens of milliseconds in a directory shared by many roots), and a build that
left retired files behind is followed by one whose first write of each cache
file is a new file."""
TEMP_PREFIX = ".tmp-"
STALE_TEMP_SECONDS = 15 * 60
"""A cache write's temp file untouched this long belongs to a process that died writing it.

A live write touches its temp file with every chunk (a few milliseconds
apart, pauses included), so only a writer killed mid-write (``kill -9``, a
crash, a power cut) leaves one this old. They are deleted with the retired
files: when a cache file is first written, or when the file a write replaces
is itself this old (a directory is then listed at most once per this long per
cache file, and a temp file left by a kill goes at the first such write)."""
# mkstemp's names: the prefix, eight characters of its alphabet, the cache file's suffix.
_TEMP_NAME = re.compile(rf"{re.escape(TEMP_PREFIX)}[a-z0-9_]{{8}}(?:\.[a-z]+)?")
_TEMP_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789_"
RACY_WINDOW_NS = 2_000_000_000
"""Files touched this recently are not trusted (covers 1 s and FAT's 2 s timestamps)."""

REWRITE_FRACTION = 100
"""The cache file is rewritten once at least 1/REWRITE_FRACTION of its entries changed."""
GC_MOVE_MIN_OBJECTS = 20_000
"""A bulk read that built at least this many objects moves them out of the young generation (:func:`paused_gc`)."""

CACHE_DIR_ENV = "MEMLS_CACHE_DIR"
NO_CACHE_ENV = "MEMLS_NO_CACHE"

# (size, mtime_ns, ctime_ns, ino, dev): what must not have changed for a parse to hold.
Stamp = tuple[int, int, int, int, int]


def cache_enabled() -> bool:
    """False when ``MEMLS_NO_CACHE`` is set to anything but "" or "0"."""
    return os.environ.get(NO_CACHE_ENV, "") in ("", "0")


class CacheInsideRoot(OSError):
    """``MEMLS_CACHE_DIR`` names a directory inside a memory root: nothing is cached there."""


def cache_dir(roots: Iterable[str | os.PathLike[str]] = ()) -> Path:
    """Where the cache files of ``roots`` live: never inside a memory root.

    A memory root is shared with gptme, Claude Code and version control, so
    a ``MEMLS_CACHE_DIR`` inside one (inside any of ``roots``, or below a
    directory that is a root by its look: a ``MEMORY.md`` or a
    ``.memory-index.json``) is not used: :class:`CacheInsideRoot` is raised,
    which every cache treats as it treats an unwritable directory, nothing
    cached. Falling back to the default directory instead would write where
    the user did not ask. The default directory is outside the roots by
    construction and is not looked at (this runs in every replayed command).
    """
    explicit = os.environ.get(CACHE_DIR_ENV)
    if explicit:
        directory = Path(explicit)
        _refuse_inside_root(directory, roots)
        return directory
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "memls"


def _refuse_inside_root(directory: Path, roots: Iterable[str | os.PathLike[str]]) -> None:
    from .roots import MARKER_FILES

    resolved = os.path.realpath(directory)
    for root in roots:
        inside = os.path.realpath(root)
        if resolved == inside or resolved.startswith(inside.rstrip(os.sep) + os.sep):
            raise CacheInsideRoot(f"{CACHE_DIR_ENV} {directory} is inside the memory root {root}")
    ancestor, parent = resolved, os.path.dirname(resolved)
    while True:
        if any(os.path.isfile(os.path.join(ancestor, marker)) for marker in MARKER_FILES):
            raise CacheInsideRoot(f"{CACHE_DIR_ENV} {directory} is inside the memory root {ancestor}")
        if parent == ancestor:
            return
        ancestor, parent = parent, os.path.dirname(parent)


def cache_file(root_dir: Path, kind: str) -> Path:
    """The cache file of one root and kind: named by a hash of the root's resolved path."""
    if kind not in KINDS:
        raise ValueError(f"unknown cache kind {kind!r}")
    return cache_dir([root_dir]) / f"{root_digest(root_dir)}.{kind}"


def root_digest(root_dir: Path) -> str:
    """The name a root's files in the cache directory share: a hash of its resolved path."""
    import hashlib

    return hashlib.sha256(os.fsencode(resolved_path(root_dir))).hexdigest()[:32]


def stamp_of(st: os.stat_result) -> Stamp:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


def is_settled(stamp: Stamp, observed_ns: int) -> bool:
    """Whether a file looked at ``observed_ns`` had not changed in the racy window before."""
    return max(stamp[1], stamp[2]) < observed_ns - RACY_WINDOW_NS


class ParseCache:
    """The remembered parses of one root: file name -> (path, scope, stamp, record).

    A record is whatever the kind's reader stores (an entry's fields, a
    parsed document); the cache only decides whether it still holds.

    ``lookup`` and ``remember`` are what readers call per file; ``save`` writes
    the file back only when something was added, changed or dropped.

    A plain class, not a dataclass: this module is loaded by every replayed
    command (:mod:`memls.store.replay`), and ``dataclasses`` (with the
    ``inspect`` it loads) would cost a tenth of such a command.
    """

    def __init__(
        self,
        root_dir: Path,
        location: Path | None,  # None: caching is off
        entries: dict[str, tuple[str, str | None, Stamp, Any]] | None = None,
        *,
        # What a record is written as (a record may hold more in memory than on disk).
        portable: Callable[[Any], Any] | None = None,
    ) -> None:
        self.root_dir = root_dir
        self.location = location
        self.entries = {} if entries is None else entries
        self.portable = portable
        self.seen: set[str] = set()
        # Names whose entry was added, replaced or dropped since the cache was read.
        self.changed: set[str] = set()

    def __repr__(self) -> str:
        return f"ParseCache(root_dir={self.root_dir!r}, location={self.location!r}, {len(self.entries)} entries)"

    @classmethod
    def open(
        cls, root_dir: Path, kind: str, *, portable: Callable[[Any], Any] | None = None
    ) -> ParseCache:
        """The root's cache of ``kind`` as last saved; empty when absent, off, or not trusted."""
        if not cache_enabled():
            return cls(root_dir, None)
        try:
            location = cache_file(root_dir, kind)
        except (OSError, RuntimeError):
            return cls(root_dir, None)
        return cls(root_dir, location, _load(location, root_dir), portable=portable)

    @classmethod
    def disabled(cls, root_dir: Path) -> ParseCache:
        return cls(root_dir, None)

    def lookup(self, name: str, path: str, scope: str | None, stamp: Stamp) -> Any:
        """The remembered parse of ``name`` if the file is still the one parsed."""
        self.seen.add(name)
        cached = self.entries.get(name)
        if cached is None:
            return None
        if cached[0] != path or cached[1] != scope or cached[2] != stamp:
            del self.entries[name]
            self.changed.add(name)
            return None
        return cached[3]

    def lookup_listing(
        self, listing: list[tuple[str, os.stat_result]], prefix: str, scope: str | None,
        earlier: dict[str, Any] | None = None,
    ) -> list[tuple[str, Stamp, Any]]:
        """:meth:`lookup` for a whole directory listing: (name, stamp, record or None).

        One loop with everything bound locally: at 10k files the per-call
        overhead of ``lookup`` was a tenth of a warm ``list``.

        ``earlier`` receives what the cache held for each file of the same
        path that changed since, and for each it held that the listing lacks
        (gone since): the root as it was when the cache was written, as far
        as the cache knows it.
        """
        entries, changed = self.entries, self.changed
        self.seen.update(name for name, _ in listing)
        out = []
        misses = 0
        for name, st in listing:
            stamp = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)
            cached = entries.get(name)
            if cached is not None:
                if cached[2] == stamp and cached[1] == scope and cached[0] == prefix + name:
                    out.append((name, stamp, cached[3]))
                    continue
                if earlier is not None and cached[1] == scope and cached[0] == prefix + name:
                    earlier[name] = cached[3]
                del entries[name]
                changed.add(name)
            misses += 1
            out.append((name, stamp, None))
        if earlier is not None and len(entries) > len(out) - misses:  # some it held were not listed
            seen = self.seen
            for name, cached in entries.items():
                if name not in seen and cached[1] == scope and cached[0] == prefix + name:
                    earlier[name] = cached[3]
        return out

    def remember(
        self, name: str, path: str, scope: str | None, stamp: Stamp,
        record: Any, observed_ns: int,
    ) -> None:
        """Keep a fresh parse, unless the file may still change unseen (racy)."""
        self.seen.add(name)
        if self.location is None:
            return
        if not is_settled(stamp, observed_ns):
            if self.entries.pop(name, None) is not None:
                self.changed.add(name)
            return
        self.entries[name] = (path, scope, stamp, record)
        self.changed.add(name)

    def save(self, pause: Callable[[], None] | None = None) -> bool:
        """Write the cache back if enough changed (True: it tried, and what it held before is gone). Best effort: never raises for I/O.

        ``pause`` is called before each chunk of :data:`CHUNK_ENTRIES` entries
        is written; a caller writing in the background of other work blocks
        there until that work is done (``memls.lsp.engine``).

        Rewriting the whole file costs about as much as parsing 1% of the
        root again (10k entries: ~0.3 s against ~0.1 ms a file), so a handful
        of changed files (the usual case: a few saves since the last write)
        are left to be parsed again by the next reads rather than rewriting
        the cache after every save.
        """
        if self.location is None:
            return False
        for name in [n for n in self.entries if n not in self.seen]:
            if not _still_there(self.entries[name]):
                del self.entries[name]
                self.changed.add(name)
        if not self.changed or len(self.changed) < len(self.entries) // REWRITE_FRACTION:
            return False
        self.changed = set()
        if not self.entries and not self.location.exists():
            return False
        portable = self.portable
        items = list(self.entries.items())

        def chunks() -> Iterator[dict]:
            for start in range(0, len(items), CHUNK_ENTRIES):
                if pause is not None:
                    pause()
                chunk = items[start:start + CHUNK_ENTRIES]
                if portable is None:
                    yield dict(chunk)
                else:
                    yield {name: (*cached[:3], portable(cached[3])) for name, cached in chunk}

        store_private_chunks(self.location, resolved_path(self.root_dir), chunks())
        return True


@contextmanager
def paused_gc(*, freeze: bool = False) -> Iterator[None]:
    """Pause the cyclic garbage collector while a bulk read builds its objects.

    A 10k-entry root is about half a million small acyclic objects (documents,
    entries, spans). Built with the collector running, every few hundred
    allocations trigger a pass, and the passes over the growing older
    generations make a read 2-4x slower than the work itself (measured at
    10k: 1.8 s against 0.7 s cold, 1.3 s against 0.4 s from the cache). The
    objects are acyclic, so nothing is lost by collecting later.

    Left in the youngest generation, those objects would make the first
    collection after the pause walk all of them (0.15-0.2 s at 10k). So they
    are moved to the oldest generation at once (``gc.freeze`` then
    ``gc.unfreeze``, two list splices), where only a full collection looks
    at them and can still free any that become cyclic garbage. That move is
    skipped when something else in the process froze objects, since
    unfreezing would hand those back to the collector.

    ``freeze`` instead keeps every object of the process out of the collector
    for good. Only a process memls owns may ask for it (the language
    server's scan, whose model lives as long as the process): frozen objects
    that later become cyclic garbage are never collected, which in a host
    process using the store as a library would leak the host's objects.

    A pause that built fewer than :data:`GC_MOVE_MIN_OBJECTS` objects (a
    cache file's header, a replayed summary) leaves them where they are: the
    next young collection walks them in well under a millisecond, while
    asking whether anything is frozen (``gc.get_freeze_count``) walks every
    frozen object, and the language server freezes its protocol libraries
    at start: 50k objects, several milliseconds of a warm start.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    built_before = gc.get_count()[0]
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        elif (was_enabled and gc.get_count()[0] - built_before >= GC_MOVE_MIN_OBJECTS
              and gc.get_freeze_count() == 0):
            gc.freeze()
            gc.unfreeze()
        if was_enabled:
            gc.enable()


def _still_there(cached: tuple[str, str | None, Stamp, Any]) -> bool:
    try:
        return stamp_of(os.stat(cached[0])) == cached[2]
    except OSError:
        return False


def _header(identity: str) -> dict:
    return {
        "format": CACHE_FORMAT,
        "python": sys.version,
        "engine": _engine_fingerprint(),
        "yaml": _yaml_identity(),
        "identity": identity,
    }


def _load(location: Path, root_dir: Path) -> dict:
    """The cached entries, or {} for anything missing, foreign, corrupt or stale."""
    entries = load_private_chunks(location, resolved_path(root_dir))
    return entries if entries is not None else {}


def load_private(location: Path, identity: str) -> Any:
    """What :func:`store_private` wrote for ``identity``; None for anything missing,
    foreign, corrupt, or written by another engine."""
    return _load_pickled(location, MAGIC, identity, lambda load: load())


def _load_pickled(location: Path, magic: bytes, identity: str, read: Callable[[Callable[[], Any]], Any]) -> Any:
    """``read(load)`` on a trusted cache file of ours after its header, ``load`` giving its next pickle.

    None for anything missing, foreign, corrupt or written by another engine.
    """
    try:
        fd = os.open(location, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as f:
            if not _trusted(os.fstat(f.fileno())):
                return None
            if f.read(len(magic)) != magic:
                return None
            import pickle  # here: a replayed view is read with marshal alone

            if pickle.loads(_unseal(f)) != _header(identity):
                return None
            with paused_gc():
                return read(lambda: pickle.loads(_unseal(f)))
    except Exception:  # noqa: BLE001 - a broken cache is a cold cache, never an error
        return None


def store_private_chunks(location: Path, identity: str, chunks: Iterable[dict]) -> None:
    """Write a cache file of one dict given in chunks; best effort, as :func:`store_private`.

    A parse cache is written in the background of a server answering an
    editor, and pickling 10k parses in one call (0.3 s of CPU; 3 s at 50k)
    takes the interpreter's lock in turns with the threads that answer it:
    every keystroke's diagnostics waited. In chunks, the writer can stop
    between two of them (the iterable blocks) while the server works. Each
    chunk is a pickle of its own: one pickler for all of them would keep every
    object written in its memo until the end (30 MB more at the peak at 10k,
    for objects that chunks hardly share). ``None`` ends the stream, so a
    file missing its end is not taken as a smaller cache.
    """
    import pickle

    def write(f: Any) -> None:
        f.write(CHUNKS_MAGIC)
        # One chunk at a time, as the iterable gives them: unpacking it first
        # would take every pause before pickling anything, and then pickle the
        # whole cache in one go (1 s of CPU at 50k entries) while the editor types.
        for value in itertools.chain((_header(identity),), chunks, (None,)):
            f.write(_seal(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)))

    try:
        _store(location, write)
    except (OSError, pickle.PicklingError, TypeError, AttributeError, RecursionError):
        pass


def load_private_chunks(location: Path, identity: str) -> dict | None:
    """What :func:`store_private_chunks` wrote for ``identity``, merged; None as :func:`load_private`."""

    def merged(load: Callable[[], Any]) -> dict | None:
        out: dict = {}
        while (chunk := load()) is not None:
            if not isinstance(chunk, dict):
                return None
            out.update(chunk)
        return out

    return _load_pickled(location, CHUNKS_MAGIC, identity, merged)


def load_marshalled(location: Path, identity: str) -> Any:
    """What :func:`store_marshalled` wrote for ``identity``; None as :func:`load_private`.

    For payloads of plain values (str, int, bytes, tuples, lists, dicts):
    ``marshal`` builds them several times faster than ``pickle`` and never
    runs code, which matters for files read by every command.
    """
    try:
        fd = os.open(location, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as f:
            if not _trusted(os.fstat(f.fileno())):
                return None
            data = f.read()
        if not data.startswith(MARSHAL_MAGIC):
            return None
        sealed = memoryview(data)[len(MARSHAL_MAGIC):]
        blob = _unsealed(sealed[:_SEAL.size], sealed[_SEAL.size:])
        with paused_gc():
            header, payload = marshal.loads(blob)
        return payload if header == _header(identity) else None
    except Exception:  # noqa: BLE001 - a broken cache is a cold cache, never an error
        return None


def store_marshalled(location: Path, identity: str, payload: Any) -> None:
    """Write a cache file of plain values; best effort, as :func:`store_private`."""
    try:
        data = _seal(marshal.dumps((_header(identity), payload)))
        _store(location, lambda f: (f.write(MARSHAL_MAGIC), f.write(data)))
    except (OSError, ValueError):
        pass


def _trusted(st: os.stat_result) -> bool:
    """A regular file of ours that no one else can write (a pickle runs code)."""
    return (
        stat.S_ISREG(st.st_mode)
        and st.st_uid == os.geteuid()
        and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


def store_private(location: Path, identity: str, payload: Any) -> None:
    """Write a cache file; best effort, so a cache that cannot be written is not."""
    import pickle

    try:
        _store(location, lambda f: _write_pickled(f, identity, payload))
    except (OSError, pickle.PicklingError, TypeError, AttributeError, RecursionError):
        pass


def _write_pickled(f: Any, identity: str, payload: Any) -> None:
    import pickle

    f.write(MAGIC)
    for value in (_header(identity), payload):
        f.write(_seal(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)))


# A sealed blob: its length and CRC-32 (little-endian), then its bytes.
_SEAL = struct.Struct("<QI")


def _seal(blob: bytes) -> bytes:
    """``blob`` with what :func:`_unseal` checks: a torn or flipped byte is then a cold cache."""
    return _SEAL.pack(len(blob), zlib.crc32(blob)) + blob


def _unseal(f: Any) -> memoryview:
    """The next sealed blob of file ``f``; ValueError when it is cut short or altered."""
    head = f.read(_SEAL.size)
    size = _SEAL.unpack(head)[0] if len(head) == _SEAL.size else 0
    if size > os.fstat(f.fileno()).st_size - f.tell():  # no allocation for a length a flip made huge
        raise ValueError("cache blob cut short")
    return _unsealed(head, memoryview(f.read(size)))


def _unsealed(head: bytes | memoryview, blob: memoryview) -> memoryview:
    if len(head) != _SEAL.size:
        raise ValueError("cache blob cut short")
    size, crc = _SEAL.unpack(head)
    if len(blob) != size or zlib.crc32(blob) != crc:
        raise ValueError("cache blob altered")
    return blob


def write_private(location: Path, data: bytes) -> None:
    """Write ``data`` as a private file of the cache directory, atomically; OSError when it cannot."""
    _store(location, lambda f: f.write(data))


def _store(location: Path, write: Callable[[Any], Any]) -> None:
    """Write atomically (temp file + rename) into a private directory.

    Not ``memls.store.files.commit``: that keeps an existing file's mode and fsyncs
    for durability, while a cache wants mode 0600 always and may be lost in a
    crash (a torn or missing cache is just a cold one).
    """
    directory = location.parent
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)  # private when memls makes it
    # One the user made is left as made (a shared, sticky directory stays shared): each
    # file is 0600, and a file another user put there is never read (``_trusted``).
    if os.stat(directory).st_uid != os.geteuid():
        return
    fd, temp = _new_temp_file(directory, location.suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.chmod(temp, 0o600)
        try:
            sweep = time.time() - os.lstat(location).st_mtime > STALE_TEMP_SECONDS
        except FileNotFoundError:
            sweep = True  # the first write of this cache file
        os.replace(temp, location)
        if sweep:
            _delete_retired(directory)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def _new_temp_file(directory: Path, suffix: str) -> tuple[int, str]:
    """A file created (0600, exclusively) in ``directory`` under a fresh name :data:`_TEMP_NAME` matches.

    What ``tempfile.mkstemp`` does, without importing it: the module
    imports ``shutil``, ``random`` and the compression modules, 2 ms of a
    language server's start, which writes its lease's editor file.
    """
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_BINARY", 0)
    for _ in range(100):
        name = "".join(_TEMP_ALPHABET[byte % len(_TEMP_ALPHABET)] for byte in os.urandom(8))
        path = os.path.join(directory, f"{TEMP_PREFIX}{name}{suffix}")
        try:
            return os.open(path, flags, 0o600), path
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary file name", str(directory))


def _delete_retired(directory: Path) -> None:
    """Delete cache files in a layout no memls reads any more, and temp files of dead writers.

    A temp file goes only when it is a regular file of ours, named as
    :func:`_store` names them, and untouched for :data:`STALE_TEMP_SECONDS`:
    never one a live process is still writing.
    """
    stale_before = time.time() - STALE_TEMP_SECONDS
    uid = os.geteuid()
    for name in os.listdir(directory):
        try:
            if name.endswith(RETIRED_SUFFIXES):
                os.unlink(directory / name)
            elif _TEMP_NAME.fullmatch(name):
                st = os.lstat(directory / name)
                if stat.S_ISREG(st.st_mode) and st.st_uid == uid and st.st_mtime < stale_before:
                    os.unlink(directory / name)
        except OSError:
            pass


def _engine_fingerprint() -> str:
    """The identity of the engine's sources: a parse is exact only for the code that made it.

    The released version alone is not enough: a development checkout changes
    the parser without changing the version.
    """
    package = os.path.dirname(os.path.abspath(__file__))
    sources: list[str] = []
    for directory, subdirectories, files in os.walk(package):
        subdirectories[:] = [name for name in subdirectories if name != "__pycache__"]
        sources.extend(os.path.join(directory, name) for name in files if name.endswith(".py"))
    return sources_identity(sorted(sources), prefix=len(package))


def _yaml_identity() -> str:
    """The identity of the files of the PyYAML that ``import yaml`` would load, found without importing it.

    Parses are made by PyYAML's loader, so a cached one is exact only for that
    library; and two installs of one memls release (one whose PyYAML has
    libyaml's extension, one pure, like the editor extension's bundled
    libraries) share one cache directory. The extension is a file of the
    package, so neither install replays the other's answers. Found on
    ``sys.path`` rather than imported: a replayed command loads no YAML.
    """
    for entry in sys.path:
        package = os.path.join(entry or os.curdir, "yaml")
        try:
            names = os.listdir(package)
        except OSError:
            continue
        if "__init__.py" in names:
            files = sorted(os.path.join(package, name) for name in names if not name.startswith("__pycache__"))
            return sources_identity(files, prefix=len(package))
    return "no yaml"


def sources_identity(paths: Iterable[str], *, prefix: int = 0) -> str:
    """A digest of the identity (:data:`Stamp`) of each source file, named without its first ``prefix`` characters.

    By identity, as memory files are, not by their bytes: the key of every
    cached view is taken in every command, and stat-ing the engine's sixty
    files costs a fraction of reading them (a replayed command costs only a
    few times that). An edit, a checkout or an install changes a file's
    ctime and usually its inode, as it does a memory file's.
    """
    digest = blake2b(digest_size=32)
    for path in paths:
        try:
            stamp: tuple[int, ...] = stamp_of(os.stat(path))
        except OSError:
            stamp = ()
        digest.update(marshal.dumps((path[prefix:], stamp)))
    return digest.hexdigest()


def root_identity(root_dir: str | os.PathLike[str]) -> str:
    """A root as a cached answer is keyed by: as spelled (not normalized), from where if relative, and resolved.

    The directory is what the files are; the spelling is how answers name
    them (``check``'s ``path:line`` lines, paths inside messages such as an
    ``OSError``'s text or ``audit``'s details). An answer computed through a
    symlinked directory or a ``..`` is never replayed to a command that
    named the directory another way: re-basing paths inside free text could
    not be exact, and a new spelling costs one computation. A relative
    spelling names paths from the working directory, so that directory is
    part of it: an answer cached under ``mem`` once printed ``mem/x.md`` to
    a command that named the root ``/home/me/mem``, or ran elsewhere.
    """
    path = os.fspath(root_dir)
    where = ""
    if not os.path.isabs(path):
        try:
            where = os.getcwd()
        except OSError:  # the working directory is gone: the spelling alone
            pass
    return f"{path}\0{where}\0{resolved_path(Path(root_dir))}"


def resolved_path(root_dir: Path) -> str:
    try:
        return str(Path(root_dir).resolve())
    except (OSError, RuntimeError):
        return str(Path(root_dir).absolute())


def now_ns() -> int:
    """The wall clock, as file timestamps use it (the racy rule compares the two)."""
    return time.time_ns()
