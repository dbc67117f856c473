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
  ``MEMORY.md``, ``.memory-index.json``) by name and identity, per root, as a
  digest (:func:`memls.store.replay.roots_fingerprint`): a check reads across
  files (supersession links, duplicate names, the index), so any added,
  removed or changed file may change any result;
* **the roots** (resolved path, scope, layer order): layering checks compare
  roots;
* **the severities** from the settings, which turn codes off or change them;
* **today's date**: ``recheck`` dates come due without any file changing;
* **the engine** (memls version, its sources and the YAML library's files,
  in the cache header), because the results are those of the code that
  computed them.

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
from typing import TYPE_CHECKING

from .cache import cache_dir, cache_enabled, load_private, now_ns, resolved_path, store_private
from .replay import fingerprint_digest, is_settled_fingerprint, roots_fingerprint
from .roots import MemoryRoot
from .settings import Settings

if TYPE_CHECKING:
    from .diagnostics import Problem
    from .model import Workspace


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
    today = today or date.today()
    observed_ns = now_ns()
    fingerprint = roots_fingerprint(roots)
    location = _location(roots, settings) if cache_enabled() else None
    key = (fingerprint_digest(fingerprint), today.isoformat())
    if location is not None:
        cached = load_private(location, _identity(roots, settings))
        if isinstance(cached, tuple) and len(cached) == 3 and cached[0] == key:
            _, documents, stored = cached
            return CheckRun({Path(p): problems for p, problems in stored}, documents, None)
    # The model and the catalogue are loaded only when the results are not replayed.
    from .checks import CheckContext, check_workspace
    from .model import Workspace

    workspace = Workspace.load(roots)
    results = check_workspace(CheckContext(workspace, settings, today))
    found = {path: problems for path, problems in results.items() if problems}
    documents = len({d.path for d in workspace.documents()} | found.keys())
    if location is not None and is_settled_fingerprint(fingerprint, observed_ns):
        stored = [(str(path), problems) for path, problems in found.items()]
        store_private(location, _identity(roots, settings), (key, documents, stored))
    return CheckRun(found, documents, workspace)


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
