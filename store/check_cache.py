"""Check results kept per document, so a run re-checks only what a change can reach.

``memls check`` in a hook or CI and ``audit`` from an agent run again and again
over roots in which nothing, or one file, changed since the last run. Loading
the model and running the whole catalogue over 10k entries costs about a
second; listing and ``stat``-ing the files costs about 25 ms. So every run
leaves behind, per document: the file's identity, the problems the
catalogue found in it, and the facts other documents' checks read of it.
The next run over the same roots compares identities and

* replays every result when no file changed (from a small file holding the
  last answer and a digest of every identity it was computed from; the
  per-document records are a second file, read only after a change);
* otherwise parses the changed files, and re-checks them together with every
  document *connected* to them, in a model holding only those documents;
* and loads the whole model only when a managed or budgeted index has to be
  checked again (see below), or the connected documents are too many.

**Connected.** A check of one entry reads other documents only through
names: its own name, its slug, the names its links point at, the names a
document whose YAML does not load may turn out to have (the lookups of
:class:`memls.store.model.RootState`: ``by_name``, ``by_slug``,
``linked_from``, ``maybe_named``; across roots by name). So each document
is stored with those *keys*, and the documents to re-check are the connected
component of the changed ones in the graph "document -- key", with both the
keys a changed file had before and the ones it has now. The component is
closed: every lookup a check of one of its documents makes lands inside it,
so checking it in a model of the component alone gives what the whole
model gives. Documents outside it share no key with a changed file, and
their stored results stand. It is coarser than the model's own affected set
(``Workspace._affected``, which needs the old document in memory): a superset
of it, found from stored facts.

**The index.** ``MEMORY.md`` and ``.memory-index.json`` are judged against
every entry of the root. Each entry is stored with its index line's fields
and a digest of what the line checks read of it besides the rendered text
(name, status and the places its problems point at, of
:func:`memls.store.model.index_key`); while no changed file's digest or
fields moved and neither index file changed, the index results stand (a
body edit, a link, a touch). A legacy, unbudgeted ``MEMORY.md`` without
line findings is judged from its own text alone (the root's results say so:
``without_rendering``), so for it two more changes leave them standing: a
changed title, description or type (the rendering alone moved), and a
changed name or status after which the changed files and the files sharing
their names still have no line finding (judged from the stored fields and
a search of ``MEMORY.md`` for their pointers). Otherwise the root's index
view is built from the stored fields (the component's from their
documents), the documents the index's line problems point at are loaded,
and the index is checked with the component. A managed root (a policy)
and an index written with a budget select from every entry's document:
for them the whole model is loaded, from the parse cache.

Why each part of the key is there:

* **each document's identity** (size, mtime, ctime, inode, device), and for
  names no reader can open, why: any other change re-checks it;
* **racy files** (changed within the racy window of :mod:`memls.store.cache`)
  are stored without an identity, so the next run re-checks them however
  their ``stat`` looks; a racy ``MEMORY.md``, which is judged against every
  entry, is stored by a digest of bytes that hold the text judged, and the
  next run that finds those bytes keeps its results (:func:`_kept_index_identity`);
* **the roots** (as spelled and resolved, :func:`memls.store.cache.root_identity`;
  scope, layer order): layering checks compare roots, and problems name
  paths as spelled, in their fields and in messages (an ``OSError``'s
  text, another entry's path): another spelling of the same directory
  keeps results of its own;
* **the severities** from the settings, which turn codes off or change them;
* **today's date**: ``recheck`` dates come due without any file changing;
* **the engine** (memls version, its sources and the YAML library's files,
  in the cache header), because the results are those of the code that
  computed them.

The cache lives beside the parse caches, private, and is never an error:
anything unreadable is a miss and a full check.
"""

from __future__ import annotations

import marshal
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import field
from datetime import date
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .cache import (
    RACY_WINDOW_NS,
    blake2b,
    cache_dir,
    cache_enabled,
    load_private,
    now_ns,
    paused_gc,
    resolved_path,
    root_identity,
    store_private,
)
from .index import INDEX_FILENAME, POLICY_FILENAME
from .names import document_kind
from .reader import child_path_maker, decode_document, max_document_bytes, read_capped, unreadable_reason
from .replay import Observation, roots_fingerprint
from .roots import MemoryRoot
from .settings import Settings
from .structs import struct

if TYPE_CHECKING:
    from .diagnostics import Problem
    from .index import IndexLink
    from .model import Document, RootState, Workspace
    from .replay import RootFiles

FORMAT = 7
COMPONENT_LIMIT = 2000
"""Past this many documents to re-check, one full check is cheaper than the piecemeal one."""
REWRITE_FRACTION = 200
"""The per-file records are rewritten once a run re-checked at least 1/REWRITE_FRACTION of them.

Rewriting them costs with every file of the roots (10k entries: a 3 MB
file, 30-70 ms), re-checking one document about what writing 200 records
costs. So after a change of a few files the records are left as they were:
the next run finds those files changed against them again and re-checks
them (the records are one earlier run's, whole, so every answer stays
exact), until enough piled up to pay for the write."""

# A file's identity as stored: a stamp, ("unreadable", why), or None (racy: never equal).
Identity = Any
# An entry's index line, as its fields: (name, title, description, type, status).
IndexFields = tuple[str, str | None, str, str, str]
# What other documents' checks read of one: its keys, its index digest and index fields (None: no line).
Facts = tuple[tuple[str, ...], bytes | None, IndexFields | None]
_NO_FACTS: Facts = ((), None, None)
_UNSEEN: Any = object()


@struct(frozen=False)
class CheckRun:
    """The problems of a set of roots, and how they were obtained."""

    # Every checked path that has problems (documents, and absent indexes).
    results: dict[Path, list[Problem]]
    # How many files were checked: every document, and every absent index with a problem.
    documents: int
    # The model, when the check loaded all of it (None: replayed, or re-checked in part).
    workspace: Workspace | None
    # "replayed" (no file changed), "incremental" (the changed files' component), or "full".
    how: str = "full"
    # The documents whose checks ran this time (every document for a full check).
    rechecked: int = 0
    # The paths of ``results`` whose problems are placed alike in every unit, with their text's length
    # (:func:`plain_length`): a reader converting those positions needs not read the file.
    plain: dict[Path, int] = field(default_factory=dict)
    # What the run was computed from, for a re-check of buffers over it (:func:`checked_with_texts`).
    basis: _Basis | None = field(default=None, repr=False)


@struct
class _Basis:
    """What a run from the stored results was computed from: the roots as listed, and where they stand.

    ``behind``: per root, the files whose stored record may not be theirs
    now (changed since the records were written, a superset), for the
    records written with ``token``; None when not known. A re-check of
    buffers over the same listing reads no identity: it re-checks those
    files and the buffers' (10k entries: comparing every identity cost
    10-20 ms of a restart under unsaved buffers).
    """

    location: Path
    listings: list[_Listing]
    token: bytes | None
    behind: tuple[frozenset[str], ...] | None


@struct(frozen=False)
class _Listing:
    """One root on disk now: every document file's identity, and the index files'."""

    root: MemoryRoot
    identities: dict[str, Identity]  # model documents: regular files, and unreadable ones
    unreadable: set[str]
    index_identity: tuple[Identity, Identity, bool]  # MEMORY.md, the policy, the policy is a link


class _RootResults:
    """What one root's last run left: per document file, and the index files' part.

    Stored by parts, each decoded when a run first reads it: a run after a
    change of one file reads the identities (which files changed), the
    keys' holders (who is connected to them) and the few records of the
    connected files, not the 10k records whole (decoding those and their
    problems was most of a restart under unsaved buffers). A record is
    kept as its marshalled bytes until read, and written back as it was
    read when it did not change.
    """

    def __init__(
        self, identities: dict[str, Identity], facts: dict[str, Facts | bytes],
        problems: dict[str, list[Problem]], index_identity: tuple[Identity, Identity, bool],
        without_rendering: bool = False, plain: dict[str, int] | None = None,
        holders: dict[str, tuple[str, ...]] | None = None,
    ) -> None:
        self._identities: dict[str, Identity] | bytes = identities
        # Per document file (entries and reserved names): its facts, or their marshalled bytes.
        self._facts = facts
        # Every key, with the files holding it (None: not made yet).
        self._holders: dict[str, tuple[str, ...]] | bytes | None = holders
        # By file name (the index files' too), or pickled: the index files' apart from the rest.
        self._problems: dict[str, list[Problem]] | tuple[bytes, bytes] = problems
        self.index_identity = index_identity
        # The index problems stand whatever the entries' titles, descriptions and types
        # (:func:`memls.store.checks.index.judged_without_rendering`).
        self.without_rendering = without_rendering
        # By file name: the text's length of a file whose problems are plain (:func:`plain_length`).
        self.plain = plain if plain is not None else {}

    def __len__(self) -> int:
        return len(self._facts)

    def names(self) -> Iterable[str]:
        """Every document file recorded."""
        return self._facts.keys()

    @property
    def identities(self) -> dict[str, Identity]:
        """Each recorded file's identity when its record was made."""
        identities = self._identities
        if isinstance(identities, bytes):
            identities = self._identities = marshal.loads(identities)
        return identities

    def fact(self, name: str) -> Facts | None:
        """The facts recorded of file ``name``; None when it has no record."""
        found = self._facts.get(name)
        if isinstance(found, bytes):
            found = self._facts[name] = marshal.loads(found)
        return found

    @property
    def holders(self) -> dict[str, tuple[str, ...]]:
        """Every recorded key, with the files holding it."""
        holders = self._holders
        if holders is None:
            made: dict[str, list[str]] = {}
            for name in self._facts:
                fact = self.fact(name)
                assert fact is not None
                for key in fact[0]:
                    made.setdefault(key, []).append(name)
            holders = self._holders = {key: tuple(names) for key, names in made.items()}
        elif isinstance(holders, bytes):
            holders = self._holders = marshal.loads(holders)
        return holders

    @property
    def problems(self) -> dict[str, list[Problem]]:
        """The problems found, by file name (the index files and an absent index too)."""
        if isinstance(self._problems, tuple):
            self._problems = {**_unpickled_problems(self._problems[1]), **_unpickled_problems(self._problems[0])}
        return self._problems

    def index_problems(self) -> dict[str, list[Problem]]:
        """The problems found in the index files (and an absent index), by file name."""
        if isinstance(self._problems, tuple):
            return _unpickled_problems(self._problems[0])
        return {name: found for name in _INDEX_NAMES if (found := self._problems.get(name)) is not None}

    def replaced(self, records: Mapping[str, tuple[Identity, Facts] | None], problems: dict[str, list[Problem]],
                 index_identity: tuple[Identity, Identity, bool], without_rendering: bool,
                 plain: dict[str, int]) -> _RootResults:
        """These results with the records of ``records`` replaced (None: the file has none now)."""
        identities, facts, holders = dict(self.identities), dict(self._facts), dict(self.holders)
        for name, record in records.items():
            old = self.fact(name)
            for key in old[0] if old is not None else ():
                others = tuple(held for held in holders[key] if held != name)
                if others:
                    holders[key] = others
                else:
                    del holders[key]
            if record is None:
                identities.pop(name, None)
                facts.pop(name, None)
                continue
            identities[name], facts[name] = record
            for key in record[1][0]:
                holders[key] = (*holders.get(key, ()), name)
        return _RootResults(identities, facts, problems, index_identity, without_rendering, plain, holders)

    # The problems name a thousand paths at 10k entries: kept as their text, and each made
    # once as it is read (:func:`_unpickled`), not parsed again for every problem.
    def __getstate__(self) -> tuple:
        def encoded(part: Any) -> bytes:
            return part if isinstance(part, bytes) else marshal.dumps(part)

        facts = {name: encoded(fact) for name, fact in self._facts.items()}
        problems = self._problems
        if not isinstance(problems, tuple):
            problems = (_pickled(self.index_problems()),
                        _pickled({name: found for name, found in problems.items() if name not in _INDEX_NAMES}))
        return (encoded(self._identities), facts, encoded(self.holders), problems,
                self.index_identity, self.without_rendering, self.plain)

    def __setstate__(self, state: tuple) -> None:
        (self._identities, self._facts, self._holders, self._problems,
         self.index_identity, self.without_rendering, self.plain) = state
        if not all(isinstance(part, bytes) for part in (self._identities, self._holders, *self._problems)) \
                or not isinstance(self._facts, dict):
            raise ValueError("broken per-file records")  # a miss (load_private), never an error


_INDEX_NAMES = (INDEX_FILENAME, POLICY_FILENAME)


def _unpickled_problems(data: bytes) -> dict[str, list[Problem]]:
    """Problems by file name, as :meth:`_RootResults.__getstate__` pickled them."""
    problems = _unpickled(data)
    if not isinstance(problems, dict):
        raise ValueError("broken per-file records")
    return problems


def check_roots(
    roots: Sequence[MemoryRoot], settings: Settings, *, today: date | None = None,
    observation: Observation | None = None,
) -> CheckRun:
    """Every problem of ``roots``: replayed, re-checked where files changed, or checked in full.

    ``observation``: the roots as the caller just listed them
    (:func:`memls.store.replay.observe`), so they are not listed again.
    """
    today = today or date.today()
    seen = observation.of(roots) if observation is not None else None
    if seen is None:
        seen = Observation(now_ns(), roots_fingerprint(roots))
    listings = [_list_root(root, files, seen.observed_ns) for root, (_, _, files) in zip(roots, seen.fingerprint)]
    # A root given twice is one root of the model: results are kept per root given, so not kept.
    distinct = len({resolved_path(root.path) for root in roots}) == len(roots)
    location = _location(roots, settings) if cache_enabled() and distinct else None
    identity = _identity(roots, settings)
    key = (FORMAT, today.isoformat())
    state = _state_digest(listings)
    if location is not None:
        stored = _from_stored(roots, settings, today, listings, location, identity, key, state)
        if stored is not None:
            run, keep = stored
            keep()
            return run
    run, kept, worth_storing = _full(roots, settings, today, listings if location is not None else None)
    if location is not None:
        _keep(location, identity, key, state, run, kept, worth_storing, None, None)
    return run


def _from_stored(
    roots: Sequence[MemoryRoot], settings: Settings, today: date, listings: list[_Listing],
    location: Path, identity: str, key: tuple, state: bytes | None, *, may_load_all: bool = True,
) -> tuple[CheckRun, Callable[[], None]] | None:
    """The last run's answer replayed, or brought up to date where files changed; None: check in full.

    With the answer comes what stores it for the next run (nothing to
    store for a replay), left to the caller to run when it suits it.
    """
    # The last run's answer alone first: replaying it reads no per-file record.
    replayed = _replayed_summary(location, identity, key, state)
    if replayed is not None:
        run, (token, behind) = replayed
        run.basis = _Basis(location, listings, token, behind)
        return run, _nothing
    found = _stored_records(location, identity, key, len(roots))
    if found is None:
        return None
    token, stored = found
    outcome = _incremental(roots, settings, today, listings, stored, may_load_all=may_load_all)
    if outcome is None:
        return None
    run, kept, worth_storing, changed = outcome
    run.basis = _Basis(location, listings, token, changed)
    return run, partial(_keep, location, identity, key, state, run, kept, worth_storing, token, changed)


def checked_from_stored(
    roots: Sequence[MemoryRoot], settings: Settings, observation: Observation, *, today: date | None = None,
) -> tuple[CheckRun, Callable[[], None]] | None:
    """What :func:`check_roots` answers when it needs not load the whole model; None when it would.

    The last run's answer when no file changed since it; otherwise, once
    every file has settled, the stored results brought up to date by
    re-checking the changed files' component. For a long-lived reader
    starting over files changed while it did not run (a pull, another
    tool): it shows a whole check's problems before loading its model.
    While a file is racy the answer is None: the caller's model reads that
    file itself and checks it, so what it shows is never a check of bytes
    the model did not read (its ``stat`` may not move if the file changes
    again).

    With the answer comes what stores it, so the next run replays, for the
    caller to run once the answer is shown (:func:`memls.store.warm_start.warm_start`).
    """
    today = today or date.today()
    found = _observed_listings(roots, settings, observation)
    if found is None:
        return None
    location, listings = found
    state = _state_digest(listings)
    if state is None or any(_racy(ident) for listing in listings for ident in listing.index_identity[:2]):
        return None
    # Tens of thousands of records may be read: collector passes over them would cost more than the check.
    with paused_gc():
        return _from_stored(roots, settings, today, listings, location, _identity(roots, settings),
                            (FORMAT, today.isoformat()), state, may_load_all=False)


def _nothing() -> None:
    """What keeps a replayed answer: it is stored already."""


def _observed_listings(roots: Sequence[MemoryRoot], settings: Settings, observation: Observation,
                       ) -> tuple[Path, list[_Listing]] | None:
    """Where the results of ``roots`` are kept, and the roots as ``observation`` listed them; None: nothing kept."""
    seen = observation.of(roots)
    if seen is None or not cache_enabled() or len({resolved_path(root.path) for root in roots}) != len(roots):
        return None
    location = _location(roots, settings)
    if location is None:
        return None
    return location, [_list_root(root, files, seen.observed_ns) for root, (_, _, files) in zip(roots, seen.fingerprint)]


def _stored_records(location: Path, identity: str, key: tuple, count: int,
                    ) -> tuple[bytes, list[_RootResults]] | None:
    """The per-file records a run over ``count`` roots under ``key`` left, with their token; None: none."""
    cached = load_private(location.with_suffix(".records"), identity)
    if isinstance(cached, tuple) and len(cached) == 3 and cached[0] == key and len(cached[2]) == count:
        return cached[1], cached[2]
    return None


def checked_with_texts(
    roots: Sequence[MemoryRoot], settings: Settings, observation: Observation, texts: Mapping[Path, str],
    *, today: date | None = None, over: CheckRun | None = None,
) -> CheckRun | None:
    """What a check of the model answers once editor buffers holding ``texts`` are opened over those entry files.

    For a reader whose editor holds unsaved texts of some files (a language
    server restarted under restored buffers): the stored results stand for
    every document outside the texts' component, and the component is
    re-checked with the texts, in a model of it alone, as a change of those
    files would be. Each text replaces its file's document as a buffer does
    (:meth:`memls.store.model.Workspace.update`): one whose frontmatter does
    not load leaves the other entries checked against the file's. Nothing
    is kept: the results are of texts no file holds.

    ``over``: the run from the stored results over ``observation``
    (:func:`checked_from_stored`), whose listing and knowledge of which
    records are behind the files are taken rather than found again.

    None when that cannot be answered from the stored results: caching off,
    no records for these roots and settings, a text of a file that is not a
    listed entry (an index, a new file), a check that would need the whole
    model (a managed or budgeted index to judge again), a component too large.
    """
    today = today or date.today()
    basis = over.basis if over is not None else None
    if basis is not None:
        location, listings = basis.location, basis.listings
    else:
        found = _observed_listings(roots, settings, observation)
        if found is None:
            return None
        location, listings = found
    where = {listing.root.path: i for i, listing in enumerate(listings)}
    by_document: dict[tuple[int, str], str] = {}
    for path, text in texts.items():
        i = where.get(path.parent)
        if i is None or document_kind(path.name) not in ("entry", "reserved") or path.name not in listings[i].identities:
            return None
        by_document[(i, path.name)] = text
    found_records = _stored_records(location, _identity(roots, settings), (FORMAT, today.isoformat()), len(roots))
    if found_records is None:
        return None
    token, stored = found_records
    # Which records are behind the files is known when they are the ones the basis was computed against.
    behind = basis.behind if basis is not None and basis.token == token else None
    # Tens of thousands of records were just read: collector passes over them would cost more than the check.
    with paused_gc():
        outcome = _incremental(roots, settings, today, listings, stored, by_document, behind=behind,
                               over=over if basis is not None else None)
    if outcome is None:
        return None
    run = outcome[0]
    for path in texts:  # placed in the texts, not in the files
        run.plain.pop(path, None)
    return run


def check_loaded(
    roots: Sequence[MemoryRoot], settings: Settings, workspace: Workspace, observation: Observation,
    *, today: date | None = None,
) -> tuple[CheckRun, Callable[[], None]]:
    """Check ``workspace``, a model of exactly ``roots`` read after ``observation``, and what keeps the results.

    What :func:`check_roots` does in full, for a caller that holds the
    model already (the language server at the end of its first scan): once
    the caller runs the second half of the answer, the next run over
    unchanged files replays the results. Storing them pickles every file's
    record (measured in-process: 0.07 s beside a 0.5 s check at 10k
    entries, 0.6 s beside 2.7 s at 50k), so the caller shows the problems first. The observation must have been taken
    before any file was read, so a file that changed since counts as
    changed (its stored identity is the older one); stored later, the
    results still hold for the identities as listed.
    """
    today = today or date.today()
    seen = observation.of(roots)
    distinct = len({resolved_path(root.path) for root in roots}) == len(roots)
    location = _location(roots, settings) if seen is not None and cache_enabled() and distinct else None
    listings = None
    if location is not None and seen is not None:
        listings = [_list_root(root, files, seen.observed_ns) for root, (_, _, files) in zip(roots, seen.fingerprint)]
    run, kept, worth_storing = _full(roots, settings, today, listings, workspace)
    if location is None or listings is None:
        return run, _nothing
    return run, partial(_keep, location, _identity(roots, settings), (FORMAT, today.isoformat()),
                        _state_digest(listings), run, kept, worth_storing, None, None)


def _replayed_summary(location: Path, identity: str, key: tuple, state: bytes | None,
                      ) -> tuple[CheckRun, tuple[bytes | None, tuple[frozenset[str], ...] | None]] | None:
    """The stored answer when it was computed from exactly ``state`` under ``key``; None otherwise.

    With it, the token of the records it was computed against and the files
    whose records were behind them then (see :class:`_Basis`).
    """
    if state is None:
        return None
    summary = load_private(location, identity)
    if isinstance(summary, tuple) and len(summary) == 7 and summary[:3] == (*key, state):
        documents, found, against = summary[3], _unpickled(summary[4]), summary[6]
        if isinstance(found, list) and isinstance(against, tuple) and len(against) == 2:
            try:
                plain = {found[i][0]: length for i, length in summary[5]}
            except (TypeError, ValueError, IndexError):
                return None
            return CheckRun(dict(found), documents, None, "replayed", 0, plain), against
    return None


def _keep(location: Path, identity: str, key: tuple, state: bytes | None, run: CheckRun,
          kept: list[_RootResults], worth_storing: bool, token: bytes | None,
          behind: tuple[frozenset[str], ...] | None) -> None:
    """Store a run's per-file records (when worth it) and its answer (when every file had settled).

    ``token``: the stored records' the run started from, and ``behind`` the
    files whose record it found behind them; records written now are
    written with a new token, and none is behind them.
    """
    if worth_storing:
        token, behind = os.urandom(8), tuple(frozenset() for _ in kept)
        store_private(location.with_suffix(".records"), identity, (key, token, kept))
    if state is not None and (worth_storing or run.how == "incremental"):
        # The problems pickled apart: a run that does not replay them does not unpickle them.
        # The plain paths by their place in the results: (index, text length) pairs.
        order = {path: i for i, path in enumerate(run.results)}
        plain = [(order[path], length) for path, length in run.plain.items() if path in order]
        store_private(location, identity, (*key, state, run.documents, _pickled(list(run.results.items())), plain,
                                           (token, behind)))


def _pickled(obj: Any) -> bytes:
    """``obj`` (a run's results, a root's problems) pickled, every path as its text (see :func:`_unpickled`)."""
    import io
    import pickle

    class PathsAsText(pickle.Pickler):
        def persistent_id(self, obj: Any) -> str | None:
            return str(obj) if isinstance(obj, Path) else None

    out = io.BytesIO()
    PathsAsText(out, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return out.getvalue()


def _unpickled(data: Any) -> Any:
    """What :func:`_pickled` pickled; None if broken.

    A replay's results name 840 paths at 10k entries, each twice (the key
    and its problems' own). Pickled as they are, each is parsed again as
    it is read (``Path(text)``, 2-3 µs); here each is made once, as a child
    of its directory (:func:`memls.store.reader.child_path_maker`), and the
    key and the problems of one path share it.
    """
    import io
    import pickle

    paths: dict[str, Path] = {}
    # Per directory: how to make its children (None: a directory that is not a path's
    # whole parent, such as a bare drive, whose children are parsed whole).
    children: dict[str, Callable[[str], Path] | None] = {}

    class PathsFromText(pickle.Unpickler):
        def persistent_load(self, pid: Any) -> Path:
            path = paths.get(pid)
            if path is None:
                directory, _, name = pid.rpartition(os.sep)
                child = children.get(directory, _UNSEEN)
                if child is _UNSEEN:
                    child = child_path_maker(Path(directory)) if directory and name else None
                    if child is not None and str(child(name)) != pid:
                        child = None
                    children[directory] = child
                path = paths[pid] = Path(pid) if child is None else child(name)
            return path

    try:
        return PathsFromText(io.BytesIO(data)).load()
    except Exception:  # noqa: BLE001 - a broken cache is a cold cache, never an error
        return None


def _state_digest(listings: list[_Listing]) -> bytes | None:
    """A digest of every identity of the roots; None while a file is racy (never replayed)."""
    parts = []
    for listing in listings:
        identities = listing.identities
        if None in identities.values():
            return None
        parts.append((str(listing.root.path), tuple(identities.items()), listing.index_identity))
    # Marshal version 2: no back-references, so the bytes are the values' alone (not which of
    # them are one shared object, nor which strings are interned), and written in a third of the time.
    return blake2b(marshal.dumps(parts, 2), digest_size=20).digest()


# -- listing ---------------------------------------------------------------------------


def _list_root(root: MemoryRoot, files: RootFiles, observed_ns: int) -> _Listing:
    """Every document file of one root with its identity (None while it may still change).

    ``files``: the root's part of an observation's fingerprint (an errno: the
    directory could not be listed, so it has no files). Names a reader cannot
    open (sizes below 0 there) are ``stat``-ed again for why.
    """
    identities: dict[str, Identity] = {}
    unreadable: set[str] = set()
    index: list[Identity] = [None, None]
    if not isinstance(files, int):
        settled_before = observed_ns - RACY_WINDOW_NS  # memls.store.cache.is_settled, inlined: 10k files
        for name, size, mtime, ctime, ino, dev in files:
            if size < 0:
                why = unreadable_reason(root.path / name)
                if why is not None:
                    kind = document_kind(name)
                    if kind in ("entry", "index", "policy"):  # as the model loads them
                        identities[name] = ("unreadable", why)
                        if kind == "entry":
                            unreadable.add(name)
                    continue
                identities[name] = None  # readable since it was listed: still changing
                continue
            settled = mtime < settled_before and ctime < settled_before
            identities[name] = (size, mtime, ctime, ino, dev) if settled else None
    index_names = (INDEX_FILENAME, POLICY_FILENAME)
    for i, name in enumerate(index_names):
        if name in identities:
            # A racy index file is stored with the moment it was seen: never equal next time.
            index[i] = identities.pop(name) or ("racy", observed_ns)
    policy_is_link = os.path.islink(root.path / POLICY_FILENAME)
    return _Listing(root, identities, unreadable, (index[0], index[1], policy_is_link))


# -- full ------------------------------------------------------------------------------


def _full(
    roots: Sequence[MemoryRoot], settings: Settings, today: date, listings: list[_Listing] | None,
    workspace: Workspace | None = None,
) -> tuple[CheckRun, list[_RootResults], bool]:
    """Load (unless given) and check everything; with ``listings``, also the per-file results to keep."""
    # The model and the catalogue are loaded only when the results are not replayed.
    from .checks import CheckContext, check_workspace
    from .model import Workspace

    if workspace is None:
        workspace = Workspace.load(roots)
    results = check_workspace(CheckContext(workspace, settings, today))
    found = {path: problems for path, problems in results.items() if problems}
    documents = len({d.path for d in workspace.documents()} | found.keys())
    run = CheckRun(found, documents, workspace, "full", len(results))
    if listings is None:  # nothing will be kept
        return run, [], False
    stored = []
    for listing, state in zip(listings, workspace.roots):
        identities: dict[str, Identity] = {}
        facts: dict[str, Facts | bytes] = {}
        for path, doc in state.documents.items():
            if doc.kind in ("entry", "reserved"):
                # A file the listing did not see (created since) is stored as racy.
                identities[path.name] = listing.identities.get(path.name)
                facts[path.name] = _facts(doc)
        problems = {path.name: found[path] for path in results if path in found and path.parent == state.path}
        plain = _plain_of(state, problems)
        run.plain.update((state.path / name, length) for name, length in plain.items())
        stored.append(_RootResults(identities, facts, problems, _kept_index_identity(listing, state),
                                   _without_rendering(listing, state), plain))
    return run, stored, True


def plain_length(text: str, problems: Sequence[Problem]) -> int | None:
    """``len(text)`` when every position of ``problems`` in ``text`` counts the same in any unit; None otherwise.

    So when ``text`` is ASCII (a column is as many code points as UTF-8
    bytes or UTF-16 units) and every span of the problems lies inside its
    lines (nothing for a reader to clamp). Then placing the problems in a
    client's units needs neither the text nor its lines: a restart that
    replays 840 files' problems does not read those files again. The
    related locations' spans point into other files and are not covered.
    """
    from .spans import split_lines

    if not text.isascii():
        return None
    lines = split_lines(text)
    count = len(lines)
    for problem in problems:
        start_line, start_col, end_line, end_col = problem.span
        if not (0 <= start_line < count and 0 <= end_line < count
                and 0 <= start_col <= len(lines[start_line]) and 0 <= end_col <= len(lines[end_line])):
            return None
    return len(text)


def _plain_of(state: RootState, problems: dict[str, list[Problem]]) -> dict[str, int]:
    """The root's files with plain problems (:func:`plain_length`), by name: files read from disk alone."""
    plain = {}
    documents = state.documents
    for name, found in problems.items():
        doc = documents.get(state.path / name)
        if (doc is None or doc.version is not None or doc.read_error is not None or doc.too_large
                or doc.file_absent):
            continue
        length = plain_length(doc.text, found)
        if length is not None:
            plain[name] = length
    return plain


def _without_rendering(listing: _Listing, state: RootState) -> bool:
    """Whether the root's index problems, as just checked, hold while only rendered text changes."""
    from .checks.index import judged_without_rendering

    return listing.index_identity[1] is None and judged_without_rendering(state)


def _kept_index_identity(listing: _Listing, state: RootState) -> tuple[Identity, Identity, bool]:
    """The index files' identity to keep: a racy ``MEMORY.md`` by a digest of bytes holding the text checked.

    A ``MEMORY.md`` written just before a check (``memls save`` then a hook's
    ``memls check``; a server started right after a save) proves nothing by
    its ``stat``, so its results were judged again at the next run however
    it looked: against every entry, 0.3 s at 10k. Read again after the
    check, bytes that decode to exactly the text the check judged are kept
    by their digest, and the next run that finds the same bytes
    (:func:`_index_files_moved`) keeps the results: they are a function of
    that text. Anything else (the file changed since, unreadable, a buffer)
    keeps the racy identity, never equal.
    """
    index, policy, policy_is_link = listing.index_identity
    if not _racy(index):
        return listing.index_identity
    doc = state.documents.get(state.index_path)
    if doc is None or doc.version is not None or doc.read_error is not None or doc.too_large:
        return listing.index_identity
    data = _index_bytes(state.index_path)
    if data is None or _decoded(data) != doc.text:
        return listing.index_identity
    return ("read", blake2b(data, digest_size=20).digest()), policy, policy_is_link


def _racy(identity: Identity) -> bool:
    """Whether an index file's listed identity is that of a file changed within the racy window."""
    return isinstance(identity, tuple) and identity[0] == "racy"


def _index_files_moved(listing: _Listing, before: _RootResults) -> bool:
    """Whether the index files are not those ``before``'s results were judged from."""
    if listing.index_identity == before.index_identity:
        return False
    index, rest = listing.index_identity[0], listing.index_identity[1:]
    kept = before.index_identity[0]
    if rest != before.index_identity[1:] or not (isinstance(kept, tuple) and kept[0] == "read"):
        return True
    if index is None or _racy(index):  # settled files only: these bytes are the ones listed
        return True
    data = _index_bytes(listing.root.path / INDEX_FILENAME)
    return data is None or blake2b(data, digest_size=20).digest() != kept[1]


def _index_bytes(path: Path) -> bytes | None:
    """A ``MEMORY.md``'s bytes when the model reads them whole; None otherwise."""
    limit = max_document_bytes("index")
    try:
        data = read_capped(path, limit)
    except OSError:
        return None
    return data if len(data) <= limit else None


def _decoded(data: bytes) -> str | None:
    try:
        return decode_document(data)
    except UnicodeDecodeError:
        return None


def _facts(doc: Document) -> Facts:
    """What other documents' checks read of ``doc``: its keys, its index digest and fields.

    The digest holds what the index checks read of the entry besides its
    rendered line: its name and status, whether it gets a line at all, and
    the places their problems point at. Its title, description and type change the rendering alone (the
    fields hold them): while a root's index problems do not depend on the
    rendering (``_RootResults.without_rendering``), such a change leaves them
    standing.
    """
    from .index import gets_index_line
    from .model import index_key

    keys: set[str] = set()
    if doc.kind == "entry":
        name = doc.name
        if name is not None:
            keys.add(f"n:{name}")
            keys.add(f"s:{doc.slug}")
        keys.update(f"n:{link}" for link in doc.links)
        keys.update(f"n:{guess}" for guess in doc.guessed_names)
    key = index_key(doc)
    if key is None:
        return tuple(sorted(keys)), None, None
    name, _title, _description, _type, status, where, status_at = key
    keys.add(f"n:{name}")  # the line findings find the files of a name by it
    entry = doc.index_entry
    assert entry is not None  # it has an index key
    # Whether the entry gets a line at all is read by the line findings too: a title its
    # line cannot hold hides the entry from every rendering, so a rewording can show it.
    shown = gets_index_line(entry)
    digest = blake2b(repr((name, status, where, status_at, shown)).encode("utf-8", "surrogatepass"),
                     digest_size=16).digest()
    return tuple(sorted(keys)), digest, (entry.name, entry.title, entry.description, entry.type, entry.status)


# -- incremental -------------------------------------------------------------------------


def _incremental(
    roots: Sequence[MemoryRoot], settings: Settings, today: date,
    listings: list[_Listing], stored: list[_RootResults],
    texts: Mapping[tuple[int, str], str] | None = None, *, may_load_all: bool = True,
    behind: tuple[frozenset[str], ...] | None = None, over: CheckRun | None = None,
) -> tuple[CheckRun, list[_RootResults], bool, tuple[frozenset[str], ...]] | None:
    """The run from the stored results and the changed files' component; None: check in full.

    ``texts``: documents (root index, file name) to take as holding these
    texts rather than their files' (:func:`checked_with_texts`); they count
    as changed, and a check that would need the whole model answers None,
    as it does without ``may_load_all`` (a caller that loads the model itself).
    ``behind``: the files whose records are not theirs, when known (see
    :class:`_Basis`): no identity is compared. ``over``: a run over the
    same listing, whose results are patched rather than the stored ones
    assembled (nothing is stored: no new records are made).

    With the run come the new stored results, and the files found behind
    the stored records (they were re-checked). The flag says whether the new per-file records are worth writing. Not
    while the index results stand and either every file that changed is
    still racy (the next run re-checks those files whatever is stored) or
    the documents re-checked are fewer than :data:`REWRITE_FRACTION` asks:
    the stored results, one whole earlier run, still hold for everything
    else, and writing them costs more than the re-check it would save
    (10k entries: 30-70 ms against ~1 ms a document).
    """
    texts = texts or {}
    changed: list[set[str]] = []
    for i, (listing, before) in enumerate(zip(listings, stored)):
        if behind is not None:
            moved = set(behind[i])
        else:
            now, recorded = listing.identities, before.identities
            moved = {name for name, ident in now.items() if ident is None or recorded.get(name, _UNSEEN) != ident}
            moved.update(name for name in recorded if name not in now)
        moved.update(name for j, name in texts if j == i)
        changed.append(moved)
    index_files_moved = [_index_files_moved(listing, before) for listing, before in zip(listings, stored)]
    index_moved = list(index_files_moved)
    # Roots where a changed entry's rendered line (its title, description, type) moved, and nothing else the index checks read.
    rendering_moved = [False] * len(listings)
    if not any(changed) and not any(index_moved):
        # An index kept by its bytes and found unchanged: the answer is stored under the new identities.
        read_again = any(listing.index_identity != before.index_identity for listing, before in zip(listings, stored))
        return (_assemble(listings, stored, 0, "incremental" if read_again else "replayed"), stored, False,
                tuple(frozenset() for _ in stored))

    from .checks import CheckContext, check_paths
    from .model import Workspace

    # The changed files, read now: their keys and index digests after the change.
    part = Workspace(roots)
    loaded: dict[tuple[int, str], Facts] = {}

    # The keys of the files under the texts: what a run over the files (``over``) connected them to.
    beneath: set[str] = set()

    def load(i: int, name: str) -> None:
        state = part.roots[i]
        path = state.path / name
        text = texts.get((i, name))
        part.load_document(path, cached=False)
        if text is not None:  # a buffer over the file, as the model takes it (see checked_with_texts)
            under = state.documents.get(path)
            if under is not None:
                beneath.update(_facts(under)[0])
            part.update(path, text)
        doc = state.documents.get(path)
        loaded[(i, name)] = _facts(doc) if doc is not None else _NO_FACTS

    frontier: set[str] = set()
    members: set[tuple[int, str]] = set()
    for i, names in enumerate(changed):
        for name in names:
            members.add((i, name))
            old_keys, old_digest, old_fields = stored[i].fact(name) or _NO_FACTS
            new_keys: tuple[str, ...] = ()
            new_digest: bytes | None = None
            new_fields: IndexFields | None = None
            if name in listings[i].identities:
                load(i, name)
                new_keys, new_digest, new_fields = loaded[(i, name)]
            frontier.update(old_keys)
            frontier.update(new_keys)
            if old_digest != new_digest:  # its index line's entry (or the place it points at) moved
                index_moved[i] = True
            elif old_fields != new_fields:  # its rendered line alone
                rendering_moved[i] = True
    frontier |= beneath
    # Who shares a key with the component, until nothing new joins (the unchanged
    # files' keys as stored: a key of a file behind its record may be held no more).
    seen_keys: set[str] = set()
    while keys := frontier - seen_keys:
        seen_keys |= keys
        frontier = set()
        joining = [(i, name) for key in keys for i, before in enumerate(stored)
                   for name in before.holders.get(key, ()) if (i, name) not in members]
        for member in joining:
            if member in members:
                continue
            members.add(member)
            if len(members) > COMPONENT_LIMIT:
                return None
            i, name = member
            load(i, name)
            new_keys, digest, fields = loaded[member]
            old_keys, old_digest, old_fields = stored[i].fact(name) or _NO_FACTS
            frontier.update(new_keys)
            if new_keys != old_keys or digest != old_digest or fields != old_fields:
                # Changed after it was listed: a change like any other.
                frontier.update(old_keys)
                changed[i].add(name)
                index_moved[i] = index_moved[i] or digest != old_digest
                rendering_moved[i] = rendering_moved[i] or fields != old_fields
    ctx = CheckContext(part, settings, today)
    # Roots whose index had no line finding and whose new ones are found from
    # the changed files' lines alone: those problems beside the stored ones.
    pointed: dict[int, list[Problem]] = {}
    for i, entries_moved in enumerate(index_moved):
        if entries_moved and not index_files_moved[i] and stored[i].without_rendering:
            found = _line_findings_since(part, i, listings[i], stored[i], changed[i], loaded)
            if found is None:
                continue
            index_moved[i] = False  # judged from its own text, as before the change
            if found:
                from .checks.index import pointer_problems

                state = part.roots[i]
                pointed[i] = pointer_problems(ctx, state.documents[state.index_path], found)
    for i, rendered in enumerate(rendering_moved):
        if rendered and not stored[i].without_rendering:
            index_moved[i] = True  # the index problems read the rendering: judged again
    workspace = part
    paths = [part.roots[i].path / name for i, name in sorted(members)]
    for i, redo in enumerate(index_moved):
        if not redo:
            continue
        # A view of every entry is tens of thousands of small objects built at once:
        # collector passes over them (and the stored records) cost more than building them.
        with paused_gc():
            suffices = _index_view_suffices(part, i, listings[i], stored[i], members)
        if not suffices:
            if texts or not may_load_all:
                return None  # a model of every file (with other texts) is the caller's to build
            # The index files are judged against every entry's document: the whole model.
            workspace = Workspace.load(roots)
            break
    for i, redo in enumerate(index_moved):
        if redo:
            state = workspace.roots[i]
            paths.append(state.index_path)
            if state.policy_path in state.documents:
                paths.append(state.policy_path)
    results = check_paths(ctx if workspace is part else CheckContext(workspace, settings, today), paths)
    fresh = {path: problems for path, problems in results.items() if problems}
    rechecked = len(results)
    # Per root: the component's records, and its problems found again (the names whose problems went).
    redone: list[tuple[dict[str, tuple[Identity, Facts] | None], dict[str, list[Problem]], set[str], bool]] = []
    for i, (listing, before) in enumerate(zip(listings, stored)):
        state = workspace.roots[i]
        records: dict[str, tuple[Identity, Facts] | None] = {}
        again: dict[str, list[Problem]] = {}
        gone: set[str] = set()
        for name in sorted(n for j, n in members if j == i):
            path = state.path / name
            gone.add(name)
            doc = state.documents.get(path)
            if doc is None or doc.kind not in ("entry", "reserved"):
                records[name] = None
                continue
            records[name] = (listing.identities.get(name), loaded.get((i, name)) or _facts(doc))
            if path in fresh:
                again[name] = fresh[path]
        without_rendering = before.without_rendering
        if index_moved[i]:
            for name in (INDEX_FILENAME, POLICY_FILENAME):
                gone.add(name)
                if state.path / name in fresh:
                    again[name] = fresh[state.path / name]
            without_rendering = _without_rendering(listing, state)
        elif i in pointed:
            gone.add(INDEX_FILENAME)
            standing = before.index_problems().get(INDEX_FILENAME, ())
            again[INDEX_FILENAME] = sorted([*standing, *pointed[i]], key=lambda p: p.sort_key())
            without_rendering = False  # it has line findings now
        redone.append((records, again, gone, without_rendering))
    if over is not None:
        return _patched(over, listings, stored, workspace, redone, rechecked), [], False, ()
    updated = []
    for (records, again, gone, without_rendering), listing, before, state in zip(
            redone, listings, stored, workspace.roots):
        problems = dict(before.problems)
        plain = dict(before.plain)
        for name in gone:
            problems.pop(name, None)
            plain.pop(name, None)
        problems.update(again)
        plain.update(_plain_of(state, again))
        updated.append(before.replaced(records, problems, _kept_index_identity(listing, state), without_rendering,
                                       plain))
    settled = any(
        listings[i].identities.get(name) is not None or name not in listings[i].identities
        for i, names in enumerate(changed) for name in names
    )
    worth = len(members) * REWRITE_FRACTION >= sum(len(before) for before in stored)
    return (_assemble(listings, updated, rechecked, "incremental"), updated,
            any(index_moved) or bool(pointed) or (settled and worth), tuple(frozenset(names) for names in changed))


def _patched(
    over: CheckRun, listings: list[_Listing], stored: list[_RootResults], workspace: Workspace,
    redone: list[tuple[Any, dict[str, list[Problem]], set[str], bool]], rechecked: int,
) -> CheckRun:
    """``over``'s results with the files checked again replaced, in the order a full check gives them.

    ``over`` is a run over the same listing: it differs from the stored
    results in the files behind their records and their component, which
    were checked again here too (the component here holds theirs: it
    starts from the same files, with the keys of the files under the
    texts), and in the index problems, which it judged from those files as
    they are. Here the index problems not judged again are the stored ones,
    as the changed files' facts were found unchanged against those records.
    """
    found, plain = dict(over.results), dict(over.plain)
    for listing, before, state, (_, problems, gone, _) in zip(listings, stored, workspace.roots, redone):
        directory = listing.root.path
        for name in {*gone, *_INDEX_NAMES}:
            found.pop(directory / name, None)
            plain.pop(directory / name, None)
        found.update((directory / name, here) for name, here in problems.items() if here)
        plain.update((directory / name, length) for name, length in _plain_of(state, problems).items())
        for name, standing in before.index_problems().items():
            if name not in gone and standing:
                found[directory / name] = standing
                if name in before.plain:
                    plain[directory / name] = before.plain[name]
    at = {listing.root.path: (i, listing) for i, listing in enumerate(listings)}

    def place(path: Path) -> tuple:
        i, listing = at[path.parent]
        name = path.name
        # (as :func:`_assemble` orders them: an absent index after the files)
        absent = name in _INDEX_NAMES and listing.index_identity[_INDEX_NAMES.index(name)] is None
        return i, absent, name not in listing.unreadable, name

    ordered = {path: found[path] for path in sorted(found, key=place)}
    return CheckRun(ordered, over.documents, None, "incremental", rechecked, plain)


def _index_view_suffices(
    part: Workspace, i: int, listing: _Listing, before: _RootResults, members: set[tuple[int, str]]
) -> bool:
    """Make root ``i`` of the partial model ready for its index checks; False when it cannot be.

    The index view is built from every entry's stored index fields (the
    component's from their documents), and the documents the index checks
    read besides it (:func:`memls.store.checks.index.entry_files_read`) are
    loaded. A managed root's policy checks and an index written with a
    budget select from every entry's document: those need the whole model.
    """
    from .checks.index import entry_files_read
    from .entry import MemoryEntry
    from .index import omission_budget

    if listing.index_identity[1] is not None:  # a policy: a managed root
        return False
    state = part.roots[i]
    directory = state.path
    child = child_path_maker(directory)
    documents = state.documents
    entries = []
    for name in sorted(listing.identities):
        if (i, name) in members:
            doc = documents.get(directory / name)
            entry = doc.index_entry if doc is not None and doc.kind == "entry" else None
            if entry is not None:
                entries.append((name, entry))
            continue
        fact = before.fact(name)
        fields = fact[2] if fact is not None else None
        if fields is not None:
            name_, title, description, type_, status = fields
            entries.append((name, MemoryEntry(name=name_, title=title, description=description, type=type_,
                                              status=status, path=child(name))))
    state.use_index_entries(entries)
    if listing.index_identity[0] is None:
        return True  # no MEMORY.md: ``index-missing`` reads the view alone
    part.load_document(state.index_path, cached=False)
    index = documents.get(state.index_path)
    if index is None or index.too_large or index.read_error is not None:
        return True  # its checks read no entry
    if omission_budget(index.text) is not None:
        return False
    for name in entry_files_read(index):
        if name in listing.identities and directory / name not in documents:
            part.load_document(directory / name, cached=False)
    return True


def _line_findings_since(
    part: Workspace, i: int, listing: _Listing, before: _RootResults, changed: set[str],
    loaded: dict[tuple[int, str], Facts],
) -> list[tuple[IndexLink, bool]] | None:
    """The line findings of root ``i``'s index, which had none (``before.without_rendering``); None: judge it.

    Only the changed files' lines, and the lines of the files sharing their
    names (before or after: which file of a name is shown may have moved),
    can have changed: those are judged again from the index text and the
    entries' stored index fields (the changed files' as read now), with a
    search for their pointers in ``MEMORY.md``, not a parse of every line
    and a view of every entry. With none found, the index problems, judged
    from its own text, stand; the ones found join them. None (judge the
    index) without ``MEMORY.md`` (``index-missing`` reads whether any entry
    lives), with a policy or a budget, or when a finding needs more than
    these lines (:func:`memls.store.checks.index.pointer_findings_about`).
    """
    from .checks.index import pointer_findings_about
    from .entry import DEFAULT_STATUS, MemoryEntry
    from .index import gets_index_line, omission_budget

    if listing.index_identity[0] is None or listing.index_identity[1] is not None:
        return None
    state = part.roots[i]
    part.load_document(state.index_path, cached=False)
    index = state.documents.get(state.index_path)
    if index is None:
        return None
    if index.too_large or index.read_error is not None:
        return []  # its checks read no entry
    if omission_budget(index.text) is not None:
        return None

    def stored_fields(name: str) -> IndexFields | None:
        fact = before.fact(name)
        return fact[2] if fact is not None else None

    def fields(name: str) -> IndexFields | None:
        if name in changed:
            facts = loaded.get((i, name))
            return facts[2] if facts is not None else None
        return stored_fields(name)

    names = set()
    for name in changed:
        for known in (fields(name), stored_fields(name)):
            if known is not None:
                names.add(known[0])
    holders: dict[str, list[str]] = {}
    for entry_name in names:
        # A file with a line holds its entry's name as a key (:func:`_facts`).
        for name in before.holders.get(f"n:{entry_name}", ()):
            known = stored_fields(name)
            if known is not None and known[0] == entry_name and name not in changed:
                holders.setdefault(entry_name, []).append(name)
    for name in changed:
        known = fields(name)
        if known is not None:
            holders.setdefault(known[0], []).append(name)
    targets = set(changed)
    for files in holders.values():
        files.sort()  # file order: the first file of a name is the one shown
        targets.update(files)

    def living(name: str) -> bool | None:
        known = fields(name)
        return None if known is None else known[4] == DEFAULT_STATUS

    def shown(name: str) -> bool:
        known = fields(name)
        if known is None or known[4] != DEFAULT_STATUS or holders[known[0]][0] != name:
            return False
        # A title or type its line cannot hold keeps the entry out of every rendering, so
        # a rewording can show or hide it: ask the rule every renderer asks.
        name_, title, _, type_, status = known
        return gets_index_line(MemoryEntry(name=name_, title=title, type=type_, status=status, path=state.path / name))

    found = pointer_findings_about(index.text, targets, living, shown)
    if found is not None and any(not broken and state.path / link.target not in state.documents
                                 for link, broken in found):
        return None  # the entry its problem names is not in the model (it is: the component holds it)
    return found


def _assemble(listings: list[_Listing], stored: list[_RootResults], rechecked: int, how: str) -> CheckRun:
    """The run's results in the order a full check gives them (unreadable entries, files, an absent index)."""
    found: dict[Path, list[Problem]] = {}
    plain: dict[Path, int] = {}
    documents = 0
    for listing, results in zip(listings, stored):
        directory = listing.root.path
        child = child_path_maker(directory)
        names = list(results.names())
        index_name, policy_name = INDEX_FILENAME, POLICY_FILENAME
        present = [n for n, ident in ((index_name, listing.index_identity[0]),
                                      (policy_name, listing.index_identity[1])) if ident is not None]
        names.extend(present)
        documents += len(names)
        unreadable = listing.unreadable
        if unreadable:
            names.sort(key=lambda n: (n not in unreadable, n))
        else:
            names.sort()
        problems, plain_names = results.problems, results.plain
        for name in names:
            found_here = problems.get(name)
            if found_here:
                path = child(name)
                found[path] = found_here
                if name in plain_names:
                    plain[path] = plain_names[name]
        if index_name not in present and problems.get(index_name):
            found[directory / index_name] = problems[index_name]
            documents += 1
    return CheckRun(found, documents, None, how, rechecked, plain)


def _identity(roots: Sequence[MemoryRoot], settings: Settings) -> str:
    """The roots (as spelled and resolved) and severities, as one string (names the file, pins the header)."""
    parts = [f"{root_identity(root.path)}\0{root.scope}" for root in roots]
    parts.append(repr(sorted(settings.severity.items())))
    return "\n".join(parts)


def _location(roots: Sequence[MemoryRoot], settings: Settings) -> Path | None:
    try:
        digest = blake2b(os.fsencode(_identity(roots, settings)), digest_size=16).hexdigest()
        return cache_dir(root.path for root in roots) / f"{digest}.results"
    except (OSError, RuntimeError):
        return None
