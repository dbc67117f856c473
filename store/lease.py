"""Which of several language servers on one memory root speaks for all of it.

Two ``memls serve`` processes can serve the same root: two editors open on
one repository, or one editor that started two clients (Neovim rooted once
at ``memory/`` and once at the git top). Each answers its own client, which
needs hover, definition and the diagnostics of the documents it opened. What
must not happen twice is the work done for the whole root: publishing every
file's problems (an editor with both clients shows each one twice), and
editing an open ``MEMORY.md`` buffer after a save (two edits of one buffer,
computed from the same old text, insert the new line twice).

So the first server to serve a root takes its *lease*: an exclusive
``flock`` on ``<cache dir>/<root hash>.lease``, outside the root (the root is
shared with gptme, Claude Code and version control), held as long as the
process keeps the descriptor open. The operating system drops it when the
process ends however it ends -- no stale owner to time out -- and another
server takes it over on its next try. A server that cannot even create the
lease file (no cache directory) acts alone, as before leases existed.

Which server edits an open ``MEMORY.md`` depends on whose buffer it is: a
buffer of the leaseholder's own editor is the leaseholder's to edit, but a
second editor's buffer is seen by its own server alone. So the holder writes
beside the lease which editor it serves (the process id the client gave at
``initialize``), and a server without the lease edits its own client's
buffer when that editor is not the holder's. When either editor is unknown,
it leaves the buffer alone, as two edits in one editor would be the worse outcome.

A server takes the leases of all its roots in one *round*, under a lock
every server's round takes (``leases.lock`` in the cache directory): two
servers started together on one folder of two roots each took the root it
asked about first, and each window then listed one root's problems and not
the other's (found by an outside tester, 2 starts in 134). In rounds, the
first takes every root nobody holds, and the second finds them held; a
server whose roots only partly overlap another's still takes the rest.

Disk writes need no lease: every write is taken under the root's own lock
and computed from the disk inside it, so a second refresh of ``MEMORY.md``
finds it already current and writes nothing.
"""

from __future__ import annotations

import errno
import logging
import os
import time
from collections.abc import Sequence
from pathlib import Path

from .cache import cache_dir, root_digest, write_private

log = logging.getLogger(__name__)
LEASE_SUFFIX = ".lease"
EDITOR_SUFFIX = ".lease-editor"


def lease_file(root_dir: Path) -> Path:
    return cache_dir([root_dir]) / f"{root_digest(root_dir)}{LEASE_SUFFIX}"


def _editor_file(root_dir: Path) -> Path:
    return cache_dir([root_dir]) / f"{root_digest(root_dir)}{EDITOR_SUFFIX}"


def lease_editor(root_dir: Path) -> str | None:
    """The editor the root's leaseholder serves, as it wrote it on taking the lease; None when unknown."""
    try:
        return _editor_file(root_dir).read_text(encoding="utf-8") or None
    except (OSError, UnicodeDecodeError):
        return None


ROUND_LOCK = "leases.lock"
# How long a round waits for another server's round (a few flocks) before going on without it.
ROUND_WAIT_SECONDS = 2.0


def take_leases(leases: Sequence[RootLease]) -> None:
    """Try every lease of ``leases`` in one round no other server's round interleaves with.

    A server that cannot take the round lock in time (one stopped inside its
    round, no cache directory) tries the leases alone, as before rounds.
    """
    if not leases:
        return
    fd = None
    try:
        path = cache_dir([lease.root_dir for lease in leases]) / ROUND_LOCK
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        deadline = time.monotonic() + ROUND_WAIT_SECONDS
        while (fd := _locked(path)) is None and time.monotonic() < deadline:
            time.sleep(0.005)
    except OSError:
        fd = None
    try:
        for lease in leases:
            lease.try_acquire()
    finally:
        if fd is not None:
            os.close(fd)


class RootLease:
    """One server's claim on one root: held, or to be tried again later."""

    def __init__(self, root_dir: Path, editor: str | None = None) -> None:
        self.root_dir = root_dir
        self.editor = editor  # the editor this server serves (None: unknown)
        self._fd: int | None = None  # the lease file, locked
        self._alone = False  # the lease file cannot exist: nobody to coordinate with

    @property
    def held(self) -> bool:
        return self._alone or self._fd is not None

    def try_acquire(self) -> bool:
        """Take the lease if nobody holds it; whether this server holds it now."""
        if self.held:
            return True
        try:
            path = lease_file(self.root_dir)
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = _locked(path)
        except OSError as exc:
            log.warning("cannot take the lease of %s (%s); serving it alone", self.root_dir, exc)
            self._alone = True
            return True
        if fd is None:
            return False
        self._fd = fd
        self._write_editor()
        return True

    def _write_editor(self) -> None:
        """Say which editor the holder serves (atomically: a reader sees the old or the new one)."""
        try:
            write_private(_editor_file(self.root_dir), (self.editor or "").encode("utf-8"))
        except OSError as exc:
            log.warning("cannot record the editor of the lease of %s (%s)", self.root_dir, exc)

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # (the lock goes with the descriptor; the file stays for the next holder)
        self._alone = False


def _locked(path: Path) -> int | None:
    """``path`` opened (created 0600 if absent) and ``flock``-ed exclusively: its descriptor; None when held elsewhere.

    The lock is the plain ``flock`` that filelock's ``UnixFileLock`` takes
    (the library memls takes a root's write lock with): servers of earlier
    builds, which lease through it, and this one exclude each other. Not the
    library itself: importing it was 6 ms of every server start. OSError
    when the file cannot be opened or the file system has no ``flock``.
    """
    try:
        import fcntl
    except ImportError as exc:  # no flock here (as filelock's lock fails): the server acts alone
        raise OSError(errno.ENOSYS, "flock is unavailable") from exc
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if os.fstat(fd).st_mode & 0o077:  # created readable by a build before leases were private
            os.fchmod(fd, 0o600)
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
            return None
        raise
    return fd
