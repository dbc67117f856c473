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

Disk writes need no lease: every write is taken under the root's own lock
and computed from the disk inside it, so a second refresh of ``MEMORY.md``
finds it already current and writes nothing.
"""

from __future__ import annotations

import logging
from pathlib import Path

from filelock import Timeout, UnixFileLock

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


class RootLease:
    """One server's claim on one root: held, or to be tried again later."""

    def __init__(self, root_dir: Path, editor: str | None = None) -> None:
        self.root_dir = root_dir
        self.editor = editor  # the editor this server serves (None: unknown)
        self._lock: UnixFileLock | None = None
        self._alone = False  # the lease file cannot exist: nobody to coordinate with

    @property
    def held(self) -> bool:
        return self._alone or self._lock is not None

    def try_acquire(self) -> bool:
        """Take the lease if nobody holds it; whether this server holds it now."""
        if self.held:
            return True
        try:
            path = lease_file(self.root_dir)
            lock = UnixFileLock(path, timeout=0, mode=0o600, is_singleton=False, thread_local=False,
                                fallback_to_soft=False, preserve_lock_file=True)
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            lock.acquire()
            if path.stat().st_mode & 0o077:  # created readable by a build before leases were private
                path.chmod(0o600)
        except Timeout:
            return False
        except OSError as exc:
            log.warning("cannot take the lease of %s (%s); serving it alone", self.root_dir, exc)
            self._alone = True
            return True
        self._lock = lock
        self._write_editor()
        return True

    def _write_editor(self) -> None:
        """Say which editor the holder serves (atomically: a reader sees the old or the new one)."""
        try:
            write_private(_editor_file(self.root_dir), (self.editor or "").encode("utf-8"))
        except OSError as exc:
            log.warning("cannot record the editor of the lease of %s (%s)", self.root_dir, exc)

    def release(self) -> None:
        if self._lock is not None:
            self._lock.release()
        self._lock = None
        self._alone = False
