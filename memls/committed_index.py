"""``memls index --refresh``: a root's generated ``MEMORY.md`` brought up to date before a commit.

Whether an index is generated is decided against the entries as they were
*before* the change (:func:`memls.store.index_sync.index_after_commit`).
An editor or a ``memls save`` knows that state, because it makes the change;
a commit hook comes afterwards, so the state before is the one git last
committed: the root's entry files at ``HEAD``, read from git's objects
into a scratch directory and parsed by the same reader as the live root.
Outside git, or before the first commit, the earlier states are the ones
memls itself knows: the bytes it last rendered there
(:mod:`memls.store.index_provenance`) and the entries as its parse cache held
them before files changed since (:meth:`memls.store.reader.RootRead.as_cached`).
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from memls.store.entry import MemoryEntry
from memls.store.index import IndexPolicy
from memls.store.index_provenance import remember_rendering, written_as_rendering
from memls.store.index_sync import commit_index, index_after_commit
from memls.store.reader import read_root


def _git(cwd: Path, *args: str, input: bytes | None = None) -> bytes | None:
    """git's stdout, or None when git is missing or the command fails."""
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, input=input, capture_output=True, timeout=60, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def committed_entries(root: Path) -> list[MemoryEntry] | None:
    """The root's entries as committed at ``HEAD``; None outside git or before a commit."""
    top = _git(root, "rev-parse", "--show-toplevel")
    if top is None or _git(root, "rev-parse", "--verify", "--quiet", "HEAD") is None:
        return None
    top_path = Path(top.decode().strip())
    try:
        relative = root.resolve().relative_to(top_path.resolve()).as_posix()
    except ValueError:
        return None
    listing = _git(top_path, "ls-tree", "-z", "HEAD", "--", "" if relative == "." else f"{relative}/")
    if listing is None:
        return None
    blobs: list[tuple[str, str]] = []  # (object id, file name)
    for record in listing.decode("utf-8", "surrogateescape").split("\0"):
        if not record:
            continue
        meta, _, path = record.partition("\t")
        mode, kind, oid = meta.split()
        if kind == "blob" and mode in ("100644", "100755"):
            blobs.append((oid, path.rsplit("/", 1)[-1]))
    with tempfile.TemporaryDirectory(prefix="memls-committed-") as scratch:
        scratch_dir = Path(scratch)
        if blobs:
            batch = _git(top_path, "cat-file", "--batch",
                         input="".join(f"{oid}\n" for oid, _ in blobs).encode())
            if batch is None:
                return None
            offset = 0
            for _, name in blobs:
                header_end = batch.index(b"\n", offset)
                size = int(batch[offset:header_end].split()[2])
                start = header_end + 1
                (scratch_dir / name).write_bytes(batch[start:start + size])
                offset = start + size + 1
        return list(read_root(scratch_dir, None, cache=False).entries_for_index)


def refresh_index(root: Path, scope: str | None) -> bool:
    """Rewrite ``root``'s ``MEMORY.md`` if it is memls's to rewrite; True when it changed.

    ``scope`` is the root's, as every other command reads it: the parse
    cache keeps records by scope, so a read under another one parses every
    file again and stores them over the others' (nor finds the state the
    cache held before an entry changed, which a lagging index shows).
    """
    before = committed_entries(root)

    def compute(current: str | None) -> str | None:
        read = read_root(root, scope)
        cached = read.as_cached()
        return index_after_commit(
            before=before, after=read.entries_for_index, policy=IndexPolicy.read(root), current=current,
            unlisted=read.unlisted_files(),
            ours=current is not None and written_as_rendering(root, current.encode("utf-8")),
            cached=cached.entries_for_index if cached is not None else None,
        )

    written = commit_index(root, compute)
    if written is not None:  # a rendering, as every text compute gives: the next refresh knows it as one
        remember_rendering(root, written.encode("utf-8"))
    return written is not None
