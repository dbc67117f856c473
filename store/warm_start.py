"""A long-lived reader's start from the last check's results: replayed, or brought up to date.

A language server restarted over 10k unchanged entries used to load every
parse from the parse cache (0.35-0.4 s of CPU) before it could say anything
about the workspace; loading a parse only when it is read does not help,
because the first check after the start reads every document. What the
editor shows after a start is the problems of every file, and while no file
changed since the last check, those are the last check's
(:mod:`memls.store.check_cache`, which ``memls check`` replays the same way).
When a few files changed while no reader ran (a pull, another tool, an
agent's saves), they are the last check's for every file the changes
cannot reach, and the changed files' component is re-checked from the
stored facts, as ``memls check`` does after a change. So a start first asks
:func:`warm_start`: when it answers, the problems are shown at once and the
model is completed afterwards; when it does not, the start loads the model
and checks it in full (:func:`check_started`), which leaves the results for
the next start.

Why each rule exists:

* **The same key as ``memls check``**: the roots as spelled and resolved,
  their layer order, the severities, the day, the engine, and the identity of
  every file. Other settings, another day or another version of memls are a
  miss, and the start takes the full path. A file changed, added or deleted
  while no server ran, or a ``MEMORY.md`` rewritten, is re-checked with what
  it reaches, unless that needs the whole model (a managed or budgeted index
  to judge again, too large a component): then the full path.
* **Settled files only.** While a file is racy (changed within the racy
  window of :mod:`memls.store.cache`) the start takes the full path: a
  second write inside the window may leave its ``stat`` as it was, and the
  model must then hold the bytes that were checked.
* **One stack only.** The check cache keys one stack of roots; a workspace of
  several folders (stacks that share roots, per-folder settings) is not what
  was stored, so it always takes the full path.
* **The listing is taken before anything is read**, and compared again once
  the model is loaded (:meth:`WarmStart.still_current`): a file that changed
  between the replay and the load makes the caller check in full, so what it
  shows is never the replay of files the model no longer holds.
* The decision is the store's; the caller (``lsp/``) only routes: it shows
  the replayed problems, loads the model meanwhile holding every request
  that needs it, and asks whether the replay still stands.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from .check_cache import CheckRun, check_loaded, checked_from_stored, checked_with_texts
from .names import count_entry_filenames
from .replay import Observation, observe, roots_fingerprint
from .roots import MemoryRoot
from .settings import Settings
from .structs import struct

if TYPE_CHECKING:
    from collections.abc import Hashable

    from .diagnostics import Problem
    from .model import Workspace


@struct
class StartListing:
    """The roots of a start's one stack, as listed before the model read any file."""

    roots: tuple[MemoryRoot, ...]
    observation: Observation


@struct
class WarmStart:
    """The problems of every file of a start's roots, from the last check's results."""

    listing: StartListing
    # Every path with problems, in the order a full check gives them.
    results: dict[Path, list[Problem]]
    # The paths of ``results`` whose problems are placed alike in every unit, with their text's length
    # (:func:`memls.store.check_cache.plain_length`): shown without reading the file.
    plain: dict[Path, int]
    # How the files' results were had: "replayed" (no file changed since the last check) or
    # "incremental" (the files changed since re-checked; buffers re-checked by with_texts change nothing here).
    how: str = "replayed"
    # Stores the results brought up to date, so the next start replays them (nothing for a replay):
    # run by the caller once it has shown them (see :func:`warm_start`).
    keep: Callable[[], None] = field(default=lambda: None, compare=False, repr=False)
    # The run the results are of: a re-check of buffers over the same listing starts from what it knows.
    run: CheckRun | None = field(default=None, compare=False, repr=False)

    @property
    def entries(self) -> int:
        """How many entry files the roots hold (what the start reports before the model is loaded)."""
        return sum(count_entry_filenames(file[0] for file in files if file[1] >= 0)
                   for _, _, files in self.listing.observation.fingerprint if not isinstance(files, int))

    def with_texts(self, settings: Settings, texts: Mapping[Path, str], *, today: date | None = None,
                   ) -> WarmStart | None:
        """The replay as it would be if the entry files ``texts`` names held those texts; None: not answerable.

        An editor restoring unsaved buffers makes the replay wrong for them
        and for the files connected to them: those are re-checked with the
        buffers' texts from the stored results
        (:func:`memls.store.check_cache.checked_with_texts`), so a start can
        still show a whole check's problems before the model is loaded. None
        when only the model can tell (the caller loads it and checks those first).
        """
        run = checked_with_texts(self.listing.roots, settings, self.listing.observation, texts, today=today,
                                 over=self.run)
        return WarmStart(self.listing, run.results, run.plain, self.how, self.keep) if run is not None else None

    def still_current(self) -> bool:
        """Whether every file of the roots is still the one the results were replayed for.

        Asked after the model was loaded: False when a file changed, appeared
        or went in between, so the model may hold what the results do not.
        """
        return roots_fingerprint(self.listing.roots) == self.listing.observation.fingerprint


def start_listing(stacks: Mapping[Hashable, Sequence[MemoryRoot]]) -> StartListing | None:
    """List and ``stat`` the roots of a start before anything is read; None when not one stack."""
    if len(stacks) != 1:
        return None
    [roots] = stacks.values()
    if not roots:
        return None
    return StartListing(tuple(roots), observe(roots))


def warm_start(listing: StartListing, settings: Settings, *, today: date | None = None) -> WarmStart | None:
    """The last check's results, re-checked where files changed since it; None: load and check in full.

    Results re-checked are not stored yet: :meth:`WarmStart.keep` stores
    them, which the caller runs once they are shown (storing 10k files'
    records is a fifth of such a start's time). Stored later, they still
    hold: they are keyed by the files' identities as listed.
    """
    stored = checked_from_stored(listing.roots, settings, listing.observation, today=today)
    if stored is None:
        return None
    run, keep = stored
    return WarmStart(listing, run.results, run.plain, run.how, keep, run)


def check_started(listing: StartListing, settings: Settings, workspace: Workspace,
                  *, today: date | None = None,
                  ) -> tuple[dict[Path, list[Problem]], Callable[[], None]] | None:
    """Check a start's model, loaded from the listed roots alone, and what keeps the results for the next start.

    None (nothing checked) when the model holds other roots than those
    listed (a root added since by its look): the caller checks as usual.
    Otherwise the problems of every checked path with problems, and what
    stores the results, for the caller to run once it has shown them (as
    :meth:`WarmStart.keep`: storing 50k files' records takes 0.6 s, a
    fifth of such a start's check).
    """
    if [state.root for state in workspace.roots] != list(listing.roots):
        return None
    run, keep = check_loaded(listing.roots, settings, workspace, listing.observation, today=today)
    return run.results, keep
