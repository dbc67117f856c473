"""Safe writes: the root lock, atomic single-file writes, multi-file commits.

Every change memls makes to a memory root goes through this module, so the
"Nothing lost" invariant lives here:

* Writers serialise on ``<root>/.memory.lock`` with an exclusive ``flock``.
  That is the very file and the very lock gptme's own writers take, so memls
  and gptme exclude each other. The lock file is never deleted: a waiter that
  opened the old inode would otherwise lock a file nobody else sees.
* A multi-file change is validated, staged to sibling temp files (fsynced),
  then renamed into place one by one and the directories fsynced. Any
  exception at any step puts every destination back to its exact original
  bytes and permission bits, so a failed save or supersede never leaves an
  entry pointing at a file the index does not know (or the reverse).

This is not a crash-recovery journal: a power cut between two renames can
leave a mixed state, and stale ``.*.tmp`` files (which no reader takes for
entries, since they do not end in ``.md``) may remain.
"""

from __future__ import annotations

import errno
import math
import os
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from memls.store.errors import ChangedMeanwhile, LockTimeoutError
from memls.store.safe_read import MAX_INDEX_BYTES, read_whole

from .structs import struct

if TYPE_CHECKING:
    from filelock import UnixFileLock

LOCK_FILENAME = ".memory.lock"
"""Same name as gptme's lock file, so both tools serialise on one inode."""

LOCK_TIMEOUT_ENV = "MEMLS_LOCK_TIMEOUT"
DEFAULT_LOCK_TIMEOUT = 10.0


# --------------------------------------------------------------------------
# Root lock
# --------------------------------------------------------------------------


def _lock_timeout(timeout: float | None) -> float:
    """The wait allowed for the root lock, in seconds.

    gptme waits forever; memls gives up with a clear error instead, so a hung
    writer elsewhere cannot freeze an editor. The environment variable is read
    on every call so a test or a user can change it without a restart. The
    wait must be finite: filelock treats an unbounded wait on a path held by
    another lock object in the same thread as a deadlock and raises.
    """
    if timeout is None:
        raw = os.environ.get(LOCK_TIMEOUT_ENV, "").strip()
        if not raw:
            return DEFAULT_LOCK_TIMEOUT
        try:
            timeout = float(raw)
        except ValueError:
            raise ValueError(
                f"{LOCK_TIMEOUT_ENV} must be a number of seconds, got {raw!r}"
            ) from None
        source = LOCK_TIMEOUT_ENV
    else:
        source = "lock timeout"
    if not math.isfinite(timeout) or timeout < 0:
        raise ValueError(
            f"{source} must be a finite, non-negative number of seconds, got {timeout!r}"
        )
    return timeout


def _new_flock(lock_path: Path, timeout: float) -> UnixFileLock:
    """A fresh flock object for exactly one acquisition.

    Checked against the installed filelock: ``UnixFileLock`` opens the file
    (``O_RDWR | O_CREAT``, mode ``0o666`` filtered by the umask, like gptme's
    append-mode open), takes ``flock(LOCK_EX | LOCK_NB)`` in a polling loop
    and on release unlocks and closes without unlinking. The options below
    keep it that way:

    * ``preserve_lock_file=True`` and ``fallback_to_soft=False``: on a
      filesystem without flock filelock would otherwise switch to a marker
      file that it deletes on release, which gptme would not honour.
    * a new instance per acquisition with ``is_singleton=False``: filelock
      locks are reentrant per instance, and a shared instance would let a
      second thread or a nested writer walk straight in. Separate instances
      open separate descriptors, so flock makes them exclude each other, the
      same as gptme's separate ``open()`` calls.
    """
    from filelock import UnixFileLock  # here: a read that replays a view takes no lock's machinery

    return UnixFileLock(
        lock_path,
        timeout=timeout,
        thread_local=True,
        is_singleton=False,
        fallback_to_soft=False,
        preserve_lock_file=True,
    )


def _acquire(lock_path: Path, timeout: float) -> UnixFileLock:
    """Take the lock or raise ``LockTimeoutError`` naming the lock file."""
    from filelock import Timeout

    flock = _new_flock(lock_path, timeout)
    try:
        flock.acquire()
    except Timeout:
        raise LockTimeoutError(
            f"timed out after {timeout:g}s waiting for the memory root lock "
            f"{lock_path} (another writer holds it)"
        ) from None
    return flock


def _missing_root_error(root: Path) -> FileNotFoundError:
    return _clear_oserror(
        FileNotFoundError, errno.ENOENT, f"memory root {root} does not exist"
    )


@contextmanager
def root_lock(
    root: Path, *, timeout: float | None = None, create_root: bool = False
) -> Iterator[None]:
    """Hold the root's exclusive write lock for the body of the ``with``.

    Writers hold it across read-validate-commit so a concurrent writer (memls
    or gptme) cannot act on a snapshot that is already stale. The root is
    created only when asked: a writer passes ``create_root=True`` after every
    validation passed, so a refused write leaves no empty directory behind.
    """
    root = Path(root)
    wait = _lock_timeout(timeout)
    if create_root:
        root.mkdir(parents=True, exist_ok=True)
    elif not root.exists():
        raise _missing_root_error(root)
    if not root.is_dir():
        raise _clear_oserror(
            NotADirectoryError, errno.ENOTDIR, f"memory root {root} is not a directory"
        )
    lock_path = root / LOCK_FILENAME
    try:
        flock = _acquire(lock_path, wait)
    except LockTimeoutError:
        raise
    except OSError as exc:
        raise _described(exc, f"cannot take the lock {lock_path}") from exc
    try:
        yield
    finally:
        flock.release()


@contextmanager
def read_lock(root: Path, *, timeout: float | None = None) -> Iterator[bool]:
    """Take the root lock if possible; yield whether it was taken.

    Rendering or checking an index only reads, and must work on a root the
    user cannot write (a read-only mount, a missing root, a lock file that
    cannot be created). gptme once crashed there because its lock created
    directories and lock files; its fix, mirrored here, is to proceed
    unlocked. The root directory itself is never created. A lock that exists
    but stays held past the timeout still raises ``LockTimeoutError``: that is
    a busy writer, not a read-only root.
    """
    root = Path(root)
    wait = _lock_timeout(timeout)
    if not root.is_dir():
        # Checked here because filelock creates the lock file's parent
        # directory; a root removed in the instant between this check and
        # the open would be recreated, which only a racing delete can cause.
        yield False
        return
    try:
        flock = _acquire(root / LOCK_FILENAME, wait)
    except LockTimeoutError:
        raise
    except OSError:
        flock = None
    if flock is None:
        yield False
        return
    try:
        yield True
    finally:
        flock.release()


# --------------------------------------------------------------------------
# Atomic writes and multi-file commits
# --------------------------------------------------------------------------


NEW_FILE_MODE = 0o600
"""The permission bits of every file memls creates (before the umask): private.

Memories hold what an agent learned about a person and their work; gptme
creates its entries ``0600`` for that reason, and a file memls creates in the
same root should not be the one readable by every account on the machine.
Existing files keep their mode on every write.
"""


@struct
class FileWrite:
    """Replace (or create) ``path`` with ``data``.

    ``create_only`` makes the write fail with ``FileExistsError`` (and change
    nothing) if the path exists when the commit runs: the editor creates new
    files this way and must never overwrite one a harness wrote meanwhile.

    ``mode`` sets the permission bits of a file that does not exist yet
    (default: :data:`NEW_FILE_MODE` minus the umask). A rename passes the old
    file's mode, so an entry keeps its mode through a rename. An existing file
    always keeps its own mode.
    """

    path: Path
    data: bytes
    create_only: bool = False
    mode: int | None = None
    # The bytes ``data`` was computed from. Programs that take no memls lock (an
    # editor saving MEMORY.md) can write between that read and the commit; the
    # commit then raises :class:`ChangedMeanwhile` and changes nothing, so no
    # line they wrote is replaced unseen. None: no such check.
    expected: bytes | None = None
    # The file was read as absent: it is created only where it still is (a hard
    # link, which cannot overwrite), and one that appeared since (an editor's new
    # file) makes the commit raise ChangedMeanwhile instead of being replaced.
    expect_absent: bool = False


@struct
class FileDelete:
    """Remove ``path``, which must be an existing regular file."""

    path: Path


Change = FileWrite | FileDelete


@struct(frozen=False)
class _Original:
    """What a destination held before the commit, for a byte-exact restore."""

    data: bytes | None  # None: the destination did not exist
    mode: int = 0
    stamp: tuple[int, ...] | None = None  # its identity when read, for a guarded write


def read_bytes_if_exists(path: Path) -> bytes | None:
    """The file's bytes, or ``None`` if there is no file at ``path``."""
    return read_whole(path, MAX_INDEX_BYTES)


def atomic_write(path: Path, data: bytes) -> None:
    """Replace one file atomically, keeping its mode (see ``commit``)."""
    commit([FileWrite(Path(path), data)])


def commit(changes: Sequence[Change], *, root: Path | None = None) -> None:
    """Apply several file changes so that they all happen or none does.

    Steps: validate everything; snapshot each destination; stage every write
    in a fsynced sibling temp file; rename the temps into place and move
    deleted files aside; fsync each directory; drop the moved-aside files.
    Staging first means a full disk fails before any destination changes.
    On any exception every destination gets back its original bytes and mode
    (or disappears again if it was new), every temp is removed, and the
    error is re-raised; an ``OSError`` is re-raised with the same class and
    errno but a one-line message that names the file.

    ``root``, when given, confines every destination to that directory after
    resolving symlinks, so no write escapes a memory root.
    """
    changes = list(changes)
    if not changes:
        return
    _validate(changes, root)
    originals = [_snapshot(change) for change in changes]
    for change, original in zip(changes, originals, strict=True):
        if isinstance(change, FileWrite) and (
            change.expected is not None and original.data != change.expected
            or change.expect_absent and os.path.lexists(change.path)
        ):
            raise ChangedMeanwhile(Path(change.path))
    _Transaction(changes, originals).run()


def _validate(changes: list[Change], root: Path | None) -> None:
    """Refuse a change set that cannot be applied safely, before any write."""
    resolved_root = Path(root).resolve() if root is not None else None
    seen: set[tuple[Path, str]] = set()
    for change in changes:
        if not isinstance(change, (FileWrite, FileDelete)):
            raise TypeError(f"not a file change: {change!r}")
        path = Path(change.path)
        if isinstance(change, FileWrite) and not isinstance(change.data, bytes):
            raise TypeError(f"data for {path} must be bytes, not {type(change.data).__name__}")
        if not path.parent.is_dir():
            raise _clear_oserror(
                FileNotFoundError,
                errno.ENOENT,
                f"cannot write {path}: directory {path.parent} does not exist",
            )
        parent = path.parent.resolve()
        key = (parent, path.name)
        if key in seen:
            raise ValueError(f"more than one change for {path} in one commit")
        seen.add(key)
        if resolved_root is not None and parent != resolved_root:
            raise ValueError(
                f"refusing to write {path}: it is not directly inside the memory root "
                f"{resolved_root} once symlinks are resolved"
            )
        if path.is_symlink():
            raise _clear_oserror(
                OSError, errno.ELOOP, f"refusing to change {path}: it is a symlink"
            )
        exists = path.exists()
        if exists and not path.is_file():
            raise _clear_oserror(
                IsADirectoryError if path.is_dir() else OSError,
                errno.EISDIR if path.is_dir() else errno.EINVAL,
                f"cannot replace {path}: it is not a regular file",
            )
        if isinstance(change, FileWrite) and change.create_only and exists:
            raise _clear_oserror(
                FileExistsError, errno.EEXIST, f"refusing to overwrite existing file {path}"
            )
        if isinstance(change, FileDelete) and not exists:
            raise _clear_oserror(
                FileNotFoundError, errno.ENOENT, f"cannot delete {path}: no such file"
            )


def _snapshot(change: Change) -> _Original:
    path = Path(change.path)
    try:
        # Non-blocking: a FIFO swapped in after the checks must not block the write.
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except FileNotFoundError:
        return _Original(None)
    except OSError as exc:
        raise _described(exc, f"cannot read {path}") from exc
    with os.fdopen(fd, "rb") as f:
        found = os.fstat(f.fileno())
        if not stat.S_ISREG(found.st_mode):
            raise _clear_oserror(OSError, errno.EINVAL, f"cannot replace {path}: it is not a regular file")
        return _Original(f.read(), stat.S_IMODE(found.st_mode), _identity(found))


def _refuse_if_changed(change: FileWrite, original: _Original) -> None:
    """Raise :class:`ChangedMeanwhile` when a guarded file's identity is no longer the one read."""
    try:
        now = _identity(os.stat(change.path, follow_symlinks=False))
    except FileNotFoundError:
        now = None
    if now != original.stamp:
        raise ChangedMeanwhile(Path(change.path))


def _identity(found: os.stat_result) -> tuple[int, ...]:
    return (found.st_size, found.st_mtime_ns, found.st_ctime_ns, found.st_ino, found.st_dev)


class _Transaction:
    """One commit's mutable bookkeeping; lives for a single ``commit`` call."""

    def __init__(self, changes: list[Change], originals: list[_Original]) -> None:
        self.changes = changes
        self.originals = originals
        self.temps: dict[int, Path] = {}  # change index -> staged temp file
        self.applied: list[int] = []  # change indexes whose destination changed
        self.backups: dict[int, Path] = {}  # delete index -> moved-aside file
        self.step = "commit"

    def run(self) -> None:
        try:
            self._stage_all()
            self._unchanged_since_read()
            self._apply_all()
            self._sync_directories()
            self._drop_backups()
        except BaseException as error:
            self._roll_back(error)

    # -- the forward path ----------------------------------------------------

    def _stage_all(self) -> None:
        umask = _current_umask()
        for index, change in enumerate(self.changes):
            if not isinstance(change, FileWrite):
                continue
            original = self.originals[index]
            if original.data is not None:
                mode = original.mode
            else:
                mode = change.mode if change.mode is not None else NEW_FILE_MODE & ~umask
            self.step = f"cannot write {change.path}"
            _stage(change.path, change.data, mode, self.temps, index)

    def _unchanged_since_read(self) -> None:
        """Refuse before any destination changes if a guarded file changed while the temps were written.

        Staging fsyncs every temp, which takes long enough for an editor's
        save to land. Each guarded file is checked once more right before its
        own rename (:meth:`_apply_all`), so the window left is that ``stat`` and
        the rename: POSIX has no compare-and-rename.
        """
        for change, original in zip(self.changes, self.originals, strict=True):
            if isinstance(change, FileWrite) and (change.expected is not None or change.expect_absent):
                _refuse_if_changed(change, original)

    def _apply_all(self) -> None:
        for index, change in enumerate(self.changes):
            path = Path(change.path)
            if isinstance(change, FileWrite):
                self.step = f"cannot write {path}"
                tmp = self.temps[index]
                if change.create_only or change.expect_absent:
                    try:
                        linked = _publish_new(tmp, path)
                    except FileExistsError:
                        if change.expect_absent:
                            raise ChangedMeanwhile(path) from None
                        raise
                    self.applied.append(index)
                    if linked:
                        os.unlink(tmp)
                    self.temps.pop(index)
                else:
                    if change.expected is not None:
                        # Once more, at its own rename: the files renamed before it took a moment
                        # in which an editor's save may have landed (the window left is this rename).
                        _refuse_if_changed(change, self.originals[index])
                    os.replace(tmp, path)
                    self.temps.pop(index)
                    self.applied.append(index)
            else:
                self.step = f"cannot delete {path}"
                backup = _sibling_name(path, "bak")
                os.rename(path, backup)
                self.backups[index] = backup
                self.applied.append(index)

    def _sync_directories(self) -> None:
        for directory in _distinct_parents(self.changes):
            self.step = f"cannot sync directory {directory}"
            _fsync_directory(directory)

    def _drop_backups(self) -> None:
        for index in list(self.backups):
            self.step = f"cannot delete {self.changes[index].path}"
            os.unlink(self.backups[index])
            del self.backups[index]

    # -- the way back ----------------------------------------------------------

    def _roll_back(self, error: BaseException) -> None:
        for tmp in self.temps.values():
            _remove_quietly(tmp)
        restore_errors: list[BaseException] = []
        for index in reversed(self.applied):
            try:
                self._restore(index)
            except Exception as restore_error:  # report, keep restoring others
                restore_errors.append(restore_error)
        for backup in self.backups.values():
            _remove_quietly(backup)
        try:
            for directory in _distinct_parents(self.changes):
                _fsync_directory(directory)
        except Exception as sync_error:
            restore_errors.append(sync_error)
        if restore_errors:
            raise OSError(
                f"write failed and rollback incomplete ({restore_errors[0]})"
            ) from error
        if isinstance(error, OSError):
            raise _described(error, self.step)
        raise error

    def _restore(self, index: int) -> None:
        path = Path(self.changes[index].path)
        original = self.originals[index]
        backup = self.backups.pop(index, None)
        if backup is not None:
            try:
                os.replace(backup, path)
                return
            except OSError:
                self.backups[index] = backup  # removed after the restore below
        if original.data is None:
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
            return
        temps: dict[int, Path] = {}
        try:
            _stage(path, original.data, original.mode, temps, 0)
            os.replace(temps.pop(0), path)
        finally:
            for tmp in temps.values():
                _remove_quietly(tmp)


def _stage(path: Path, data: bytes, mode: int, temps: dict[int, Path], key: int) -> None:
    """Write ``data`` to a new fsynced sibling temp of ``path`` with ``mode``.

    The temp is created ``O_EXCL`` with ``0o600`` so a private entry is never
    readable by others while it is staged, and it is recorded in ``temps``
    before the first byte is written so a failed write is still cleaned up.
    The final mode is set through the open descriptor: that also works for
    read-only modes such as ``0o444``.
    """
    tmp = _sibling_name(Path(path), "tmp")
    fd = os.open(
        tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600
    )
    temps[key] = tmp
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fchmod(fd, mode)
        os.fsync(fd)
    finally:
        os.close(fd)


def _sibling_name(path: Path, suffix: str) -> Path:
    """A hidden sibling name that no reader takes for an entry (not ``.md``)."""
    import secrets

    return path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.{suffix}")


_NO_HARD_LINKS = frozenset({errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS, errno.EMLINK})
"""Errors meaning "this filesystem has no hard links", not "the link failed"."""


def _publish_new(tmp: Path, path: Path) -> bool:
    """Publish ``tmp`` at ``path`` only if ``path`` is still free.

    A hard link fails with ``EEXIST`` instead of overwriting, so even a writer
    that ignores the root lock cannot have its new file clobbered. Where hard
    links are not supported, fall back to a check then a rename. Returns
    whether ``tmp`` is still there (linked) and must be removed by the caller.
    """
    refusal = f"refusing to overwrite existing file {path}"
    try:
        os.link(tmp, path, follow_symlinks=False)
        return True
    except FileExistsError:
        raise _clear_oserror(FileExistsError, errno.EEXIST, refusal) from None
    except OSError as exc:
        if exc.errno not in _NO_HARD_LINKS:
            raise
    if os.path.lexists(path):
        raise _clear_oserror(FileExistsError, errno.EEXIST, refusal)
    os.replace(tmp, path)
    return False



def _distinct_parents(changes: list[Change]) -> list[Path]:
    parents: dict[Path, None] = {}
    for change in changes:
        parents.setdefault(Path(change.path).parent, None)
    return list(parents)


def _fsync_directory(directory: Path) -> None:
    """Make the renames in ``directory`` durable (the file fsync does not)."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _current_umask() -> int:
    """The process umask, read without changing it.

    New files get ``NEW_FILE_MODE & ~umask``, as an ``open`` with that mode would. Linux
    reports the umask in /proc; elsewhere the only way is to set and restore
    it, which briefly affects other threads, so that is the fallback only.
    """
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    current = os.umask(0o022)
    os.umask(current)
    return current


# --------------------------------------------------------------------------
# Error messages
# --------------------------------------------------------------------------


_OSErrorT = TypeVar("_OSErrorT", bound=OSError)


def _clear_oserror(cls: type[_OSErrorT], code: int, message: str) -> _OSErrorT:
    """An ``OSError`` whose ``str()`` is exactly ``message`` but keeps ``errno``.

    ``OSError(errno, text)`` renders as ``[Errno N] text``; the CLI prints
    errors as ``Error: <message>``, so the message is set alone and the errno
    attached afterwards for callers that branch on it.
    """
    exc = cls(message)
    exc.errno = code
    return exc


def _described(exc: OSError, action: str) -> OSError:
    """Re-state an OS error as one line naming what failed, same class and errno.

    Only plain errors from the OS (``ENOSPC``, ``EROFS``, ``EACCES``...) are
    re-stated; an error that already carries its own message is kept.
    """
    if exc.errno is None or exc.strerror is None or type(exc).__module__ != "builtins":
        return exc
    clear = _clear_oserror(type(exc), exc.errno, f"{action}: {exc.strerror}")
    clear.__cause__ = exc
    return clear
