"""Views of memory roots, replayed while none of the files they were computed from changed.

``memls index``, ``list`` and ``show`` run again and again (hooks, agents, CI)
over roots in which nothing changed since the last run. Reading 10k entries
from the parse cache and rendering them costs several times more than
listing and ``stat``-ing the files, which is the least any correct answer
costs: a cache is never trusted over the disk, so every file's identity is
looked at on every run. So a view (the rendered index, the ``list`` text,
the name of every entry, the whole answer of a plain read command in
:mod:`memls.quick`) is remembered with a digest of the identity of every
file of its roots, and replayed while the digest is the same.

Why each rule exists:

* **The roots as spelled and as resolved** (scope too,
  :func:`memls.store.cache.root_identity`): answers name paths as the
  command spelled the root (``audit``'s messages), so a view made through
  a symlinked directory or a ``..`` is not replayed to another spelling.
* **Every document of every root counts** (entries, reserved ``MEMORY*``
  files, ``MEMORY.md``, ``.memory-index.json``, and names no reader can open),
  by name and identity (:data:`memls.store.cache.Stamp`): a view may depend
  on any of them, and a spurious miss only costs the computation.
* **The digest is taken before the view is computed** (observed_ns too), so
  a file that changes while it is computed makes the next run miss, never
  replay a view of files that are no longer there.
* **Racy clean**: a view is remembered only when every file has settled
  (:func:`memls.store.cache.is_settled`), as parses are.
* **Plain values only** (``marshal``): a view is text, names and numbers,
  and loading it must cost less than what it saves. The cache header pins
  the engine and the YAML library (a view is exact only for the code that
  computed it).
* **Never an error**: a missing, foreign or broken file is a miss.
"""

from __future__ import annotations

import marshal
import os
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from stat import S_ISREG
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from .cache import (
    Stamp,
    blake2b,
    cache_dir,
    cache_enabled,
    is_settled,
    load_marshalled,
    now_ns,
    resolved_path,
    root_identity,
    store_marshalled,
)
from .names import document_filenames

if TYPE_CHECKING:
    from .root import MemoryRoot
    from .roots import Layer

    # A root as the store holds it, or as a replayed command resolves it.
    Root = MemoryRoot | Layer

# Per root: (resolved path, scope, ((file name, *stamp), ...) or the errno of its listing).
RootFiles = tuple[tuple[str, int, int, int, int, int], ...] | int
Fingerprint = tuple[tuple[str, str, RootFiles], ...]

T = TypeVar("T")


class Observation(NamedTuple):
    """The roots' files as one listing saw them, and the moment just before it.

    A command that replays its answer lists and ``stat``-s every file for
    its key; when the answer has to be computed, the engine under it (the
    audit's own view, the check results cache) needs the same listing.
    Taken once and handed down, 10k files cost one listing, not three. The
    moment is taken before the listing, so a file judged settled by it had
    settled before it was ``stat``-ed.
    """

    observed_ns: int
    fingerprint: Fingerprint

    def of(self, roots: Sequence[Root]) -> Observation | None:
        """The part of this observation that covers exactly ``roots`` (None: some root was not listed)."""
        listed = {(resolved, scope): files for resolved, scope, files in self.fingerprint}
        part = []
        for root in roots:
            key = (resolved_path(root.path), root.scope)
            if key not in listed:
                return None
            part.append((*key, listed[key]))
        return Observation(self.observed_ns, tuple(part))

    def regular_files(self, directory: Path) -> list[tuple[str, int, int, int, int]] | None:
        """(name, size, mtime, ctime, inode) of each regular document file of root ``directory`` as listed; None: not listed.

        A poller that starts watching a root when a start has just listed it
        takes its first look from here rather than ``stat``-ing every file a
        second time (10k files: 25-30 ms); names that are no regular file or
        could not be ``stat``-ed are left out, as its own look leaves them.
        """
        resolved = resolved_path(directory)
        for listed, _scope, files in self.fingerprint:
            if listed == resolved:
                if isinstance(files, int):
                    return None
                return [(name, size, mtime, ctime, ino) for name, size, mtime, ctime, ino, _ in files if size >= 0]
        return None


def observe(roots: Sequence[Root]) -> Observation:
    """List and ``stat`` every document of ``roots`` now."""
    observed_ns = now_ns()
    return Observation(observed_ns, roots_fingerprint(roots))


def roots_fingerprint(roots: Sequence[Root]) -> Fingerprint:
    """The identity of every document of ``roots``, in layer order."""
    return tuple(
        (resolved_path(root.path), root.scope, _document_stamps(root.path)) for root in roots
    )


def fingerprint_digest(fingerprint: Fingerprint) -> bytes:
    """A short digest of a fingerprint: what a cached view is keyed by."""
    return blake2b(marshal.dumps(fingerprint), digest_size=20).digest()


def is_settled_fingerprint(fingerprint: Fingerprint, observed_ns: int) -> bool:
    """Whether no file of the fingerprint changed within the racy window before ``observed_ns``."""
    return all(
        is_settled(file[1:], observed_ns)
        for _, _, files in fingerprint if not isinstance(files, int)
        for file in files
    )


def replayed(
    kind: str,
    roots: Sequence[Root],
    params: str,
    compute: Callable[[], T],
    *,
    guard: Callable[[], AbstractContextManager[Any]] | None = None,
    observation: Observation | None = None,
) -> T:
    """``compute()``, or its value from the last run over the same unchanged files.

    ``kind`` and ``params`` name the view (the same roots give different
    views for different arguments); the value must be made of plain values
    (str, int, tuples, lists, dicts). With caching off it is always computed.

    ``guard`` (the root lock) is held while the view is computed, and the
    fingerprint is taken again inside it. A replay needs no lock: a view is
    only stored from a computation inside the guard, so the fingerprint of a
    state a writer is half-way through (one file renamed, the next not yet)
    was never stored and cannot be matched.

    ``observation``: the roots as the caller just listed them (:func:`observe`),
    used instead of listing them again.
    """
    if not cache_enabled():
        with guard() if guard is not None else nullcontext():
            return compute()
    if observation is None:
        fingerprint = roots_fingerprint(roots)
        observed_ns = None
    else:
        observed_ns, fingerprint = observation
    digest = fingerprint_digest(fingerprint)
    identity = _identity(kind, roots, params)
    location = _location(identity, roots)
    if location is not None:
        cached = load_marshalled(location, identity)
        if isinstance(cached, tuple) and len(cached) == 2 and cached[0] == digest:
            return cached[1]
    with guard() if guard is not None else nullcontext():
        if observed_ns is None or guard is not None:
            observed_ns = now_ns()
        if guard is not None:
            fingerprint = roots_fingerprint(roots)
            digest = fingerprint_digest(fingerprint)
        value = compute()
    if location is not None and is_settled_fingerprint(fingerprint, observed_ns):
        store_marshalled(location, identity, (digest, value))
    return value


def replayed_member(
    kind: str, roots: Sequence[Root], params: str, key: str, compute: Callable[[], T]
) -> T:
    """``compute()`` for ``key`` of a view that maps many keys to values, as :func:`replayed`.

    For views asked one key at a time (``memls show NAME``, for any NAME):
    the values of every key asked since the files last changed are kept in
    one file, and the first key asked after a change starts it afresh. One
    file per key would leave a file in the cache for every name ever shown.
    """
    if not cache_enabled():
        return compute()
    fingerprint = roots_fingerprint(roots)
    digest = fingerprint_digest(fingerprint)
    identity = _identity(kind, roots, params)
    location = _location(identity, roots)
    members: dict[str, Any] = {}
    if location is not None:
        cached = load_marshalled(location, identity)
        if (isinstance(cached, tuple) and len(cached) == 2 and cached[0] == digest
                and isinstance(cached[1], dict)):
            members = cached[1]
            if key in members:
                return members[key]
    observed_ns = now_ns()
    value = compute()
    if location is not None and is_settled_fingerprint(fingerprint, observed_ns):
        members[key] = value
        store_marshalled(location, identity, (digest, members))
    return value


def _document_stamps(root_dir: Path) -> tuple[tuple[str, int, int, int, int, int], ...] | int:
    """Every document's name and identity, in the directory's own order; an errno when it cannot be read.

    One tight loop (this is most of what a replayed command costs): stat
    relative to the open directory, and nothing built but one flat tuple
    per file. Not sorted: the same files listed in another order only make
    a different fingerprint (a miss), never the same one for different
    files. A directory that cannot be opened counts by why (missing, not a
    directory, not readable), so a root that turns from missing into a file
    or an empty directory is a change too. A name that cannot be stat-ed (a
    broken or looping symlink) counts with the identity of the link itself
    and size -1, which no file has; so a link that appears, disappears, is
    re-pointed or starts resolving changes the fingerprint like any other
    file does. A name that is not a regular file (a directory) counts with
    size -2, so the fingerprint alone tells which names a reader can open
    (:mod:`memls.store.check_cache` lists a root from it).
    """
    try:
        fd = os.open(root_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        return exc.errno or -1
    try:
        stamps: list[tuple[str, int, int, int, int, int]] = []
        append, stat = stamps.append, os.stat
        for name in document_filenames(os.listdir(fd)):
            try:
                st = stat(name, dir_fd=fd)
            except OSError:
                append((name, *_link_stamp(name, fd)))
                continue
            size = st.st_size if S_ISREG(st.st_mode) else -2
            append((name, size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev))
    except OSError as exc:
        return exc.errno or -1
    finally:
        os.close(fd)
    return tuple(stamps)


def _link_stamp(name: str, fd: int) -> Stamp:
    try:
        st = os.lstat(name, dir_fd=fd)
    except OSError:
        return (-1, 0, 0, 0, 0)  # gone between the listing and the stat
    return (-1, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


def _identity(kind: str, roots: Sequence[Root], params: str) -> str:
    parts = [kind, *(f"{root_identity(root.path)}\0{root.scope}" for root in roots), params]
    return "\n".join(parts)


def _location(identity: str, roots: Sequence[Root]) -> Path | None:
    try:
        digest = blake2b(os.fsencode(identity), digest_size=16).hexdigest()
        return cache_dir(root.path for root in roots) / f"{digest}.view"
    except (OSError, RuntimeError):
        return None
