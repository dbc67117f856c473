"""The last full check of a set of roots, replayed while none of its files changed.

``memls check`` in a hook or CI and ``audit`` from an agent run again and again
over roots in which nothing changed since the last run. Loading the model and
running the whole catalogue over 10k entries costs about 0.6 s; listing and
``stat``-ing the files the checks read costs about 25 ms. So a full check
leaves its results behind, together with the identity of every file it read,
and the next run over the same roots replays them when every identity is
unchanged. Any difference is a miss: the roots are loaded and checked in full,
and the new results are remembered.

Why each part of the key is there:

* **every document the model loads** (entries, reserved ``MEMORY*`` files,
  ``MEMORY.md``, ``.memory-index.json``) by name and identity
  (:data:`memls.store.cache.Stamp`), per root: a check reads across files
  (supersession links, duplicate names, the index), so any added, removed or
  changed file may change any result;
* **the roots** (resolved path, scope, layer order): layering checks compare
  roots;
* **the severities** from the settings, which turn codes off or change them;
* **today's date**: ``recheck`` dates come due without any file changing;
* **the engine** (memls version and a hash of its sources, in the cache
  header), because the results are those of the code that computed them.

Results are remembered only when every file has settled (the racy rule of
:mod:`memls.store.cache`); the cache lives beside the parse caches, private, and is
never an error: anything unreadable is a miss.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from .cache import (
    Stamp,
    cache_dir,
    cache_enabled,
    is_settled,
    load_private,
    now_ns,
    resolved_path,
    stamp_of,
    store_private,
)
from .diagnostics import Problem
from .model import Workspace, is_document_filename
from .reader import stat_directory
from .roots import MemoryRoot
from .settings import Settings

# Per root: (resolved path, scope, ((file name, stamp), ...) sorted by name).
Fingerprint = tuple[tuple[str, str, tuple[tuple[str, Stamp], ...]], ...]


@dataclass
class CheckRun:
    """The problems of a set of roots, and how they were obtained."""

    # Every checked path that has problems (documents, and absent indexes).
    results: dict[Path, list[Problem]]
    # How many files were checked: every document, and every absent index with a problem.
    documents: int
    # The model, when the check loaded one (None: replayed from the cache).
    workspace: Workspace | None


def check_roots(
    roots: Sequence[MemoryRoot], settings: Settings, *, today: date | None = None
) -> CheckRun:
    """Every problem of ``roots``: replayed when no file changed, else checked in full."""
    from .checks import CheckContext, check_workspace

    today = today or date.today()
    observed_ns = now_ns()
    fingerprint = roots_fingerprint(roots)
    location = _location(roots, settings) if cache_enabled() else None
    key = (fingerprint, today.isoformat())
    if location is not None:
        cached = load_private(location, _identity(roots, settings))
        if isinstance(cached, tuple) and len(cached) == 3 and cached[0] == key:
            _, documents, stored = cached
            return CheckRun({Path(p): problems for p, problems in stored}, documents, None)
    workspace = Workspace.load(roots)
    results = check_workspace(CheckContext(workspace, settings, today))
    found = {path: problems for path, problems in results.items() if problems}
    documents = len({d.path for d in workspace.documents()} | found.keys())
    if location is not None and _settled(fingerprint, observed_ns):
        stored = [(str(path), problems) for path, problems in found.items()]
        store_private(location, _identity(roots, settings), (key, documents, stored))
    return CheckRun(found, documents, workspace)


def roots_fingerprint(roots: Sequence[MemoryRoot]) -> Fingerprint:
    """The identity of every file a full check of ``roots`` reads."""
    return tuple(
        (resolved_path(root.path), root.scope, _document_stamps(root.path)) for root in roots
    )


def _document_stamps(root_dir: Path) -> tuple[tuple[str, Stamp], ...]:
    """Every document's identity; a name no reader can open counts with its reason's hash.

    So a broken symlink that appears, disappears or starts pointing at a
    file changes the fingerprint like any other file does.
    """
    try:
        listed = stat_directory(root_dir, is_document_filename)
    except OSError:
        return ()
    stamps = [(name, stamp_of(st)) for name, st in listed.files]
    stamps.extend((name, (0, 0, 0, 0, _digest(why))) for name, why in listed.unreadable)
    return tuple(sorted(stamps))


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:8], "big")


def _settled(fingerprint: Fingerprint, observed_ns: int) -> bool:
    return all(
        is_settled(stamp, observed_ns) for _, _, files in fingerprint for _, stamp in files
    )


def _identity(roots: Sequence[MemoryRoot], settings: Settings) -> str:
    """The roots and severities, as one string (names the file, pins the header)."""
    parts = [f"{resolved_path(root.path)}\0{root.scope}" for root in roots]
    parts.append(repr(sorted(settings.severity.items())))
    return "\n".join(parts)


def _location(roots: Sequence[MemoryRoot], settings: Settings) -> Path | None:
    try:
        digest = hashlib.sha256(os.fsencode(_identity(roots, settings))).hexdigest()[:32]
        return cache_dir() / f"{digest}.results"
    except (OSError, RuntimeError):
        return None
