"""The incremental workspace: every memory document of every root, parsed once.

The language server and ``memls check`` both work on a :class:`Workspace`.
It holds each document's text and parse result (spans included), the
entries of each root by name and by slug, and reverse links (who names whom
in ``supersedes``/``superseded_by``). ``update`` and ``remove`` change one
document and return exactly the paths whose check results may have changed,
so a keystroke re-checks a handful of documents instead of the whole root.

Which paths are affected, and why:

- the document itself;
- every document with the same name or slug in the root (duplicate names,
  slug collisions) and with the same name in other roots (shadowing);
- every document it links to and every document that links to it, in any
  root (dangling, asymmetric and cross-root links), followed transitively
  along ``superseded_by`` chains in both directions (cycles);
- the root's ``MEMORY.md`` and ``.memory-index.json`` (the index reflects
  every entry).
"""

from __future__ import annotations

import os
import stat
from collections import defaultdict
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import field, fields, replace
from pathlib import Path
from stat import S_ISREG
from typing import Any, NamedTuple, TypeVar

from .anchors import anchor, keys
from .cache import ParseCache, Stamp, is_settled, now_ns, paused_gc, stamp_of
from .entry import MemoryEntry
from .frontmatter import Frontmatter
from .index import INDEX_FILENAME, POLICY_FILENAME
from .index_view import IndexView
from .names import DocumentKind, document_filenames, document_kind, is_document_filename, slugify
from .parse import ParsedDocument, parse_document
from .reader import (
    Listing,
    child_path_maker,
    decode_document,
    headline,
    max_document_bytes,
    read_capped,
    stat_directory,
    text_over_cap,
    unreadable_reason,
    unreadable_why,
)
from .roots import MemoryRoot
from .structs import struct
from .text import one_line

_StackKey = TypeVar("_StackKey", bound=Hashable)


class DiskRead(NamedTuple):
    """A document's file as it was when its text was read: its stamp, and whether that proves anything.

    With it one ``stat`` tells whether the file still holds what the model
    read (:meth:`holds_for`). An equal stamp proves that only when the file
    had been quiet for the racy window before the look (``settled``): a
    write within the timestamps' granularity can keep size and times (the
    parse cache's rule, :func:`memls.store.cache.is_settled`). A tuple: every
    document of a scan gets one.
    """

    stamp: Stamp
    settled: bool

    @classmethod
    def of(cls, st: os.stat_result, observed_ns: int) -> DiskRead:
        """The read of a file whose ``stat`` was ``st``, taken at or after ``observed_ns``."""
        stamp = stamp_of(st)
        return cls(stamp, is_settled(stamp, observed_ns))

    def holds_for(self, stamp: Stamp) -> bool:
        return self.settled and stamp == self.stamp


@struct(frozen=False)
class Document:
    """One file of a memory root, as the disk or an editor buffer holds it."""

    path: Path
    root: RootState
    kind: DocumentKind
    text: str
    parsed: ParsedDocument | None = None
    # Why the text could not be read (not UTF-8, unreadable); the text is then "".
    read_error: str | None = None
    too_large: bool = False
    version: int | None = None
    # A too-large entry's fields from its first MiB, for the index alone
    # (:func:`memls.store.reader.headline`); every other check sees no entry.
    headline: MemoryEntry | None = None
    # While this buffer's frontmatter does not load: the last document of this
    # path whose frontmatter did (see ``Workspace.update``), or None.
    last_good: Document | None = None
    # The file as this text was read from it; None: the text is an editor
    # buffer's, or the file could not be ``stat``-ed.
    disk: DiskRead | None = None
    # The text is an editor buffer's unsaved work and its file does not exist
    # (never saved, or deleted under the buffer): see ``index_entry``.
    file_absent: bool = False

    @property
    def entry(self) -> MemoryEntry | None:
        return self.parsed.entry if self.parsed is not None else None

    @property
    def index_entry(self) -> MemoryEntry | None:
        """The entry as the index sees it: the entry, or a too-large file's headline.

        None while the file is absent (``file_absent``): the unsaved text
        still counts as the entry it is (names, links), but an index line
        for it would link to no file -- ``memls check`` would report it
        broken. Its line comes when the buffer is saved.
        """
        if self.file_absent:
            return None
        entry = self.entry
        return entry if entry is not None else self.headline

    @property
    def facts(self) -> Document | None:
        """The document other entries are checked against in this one's place.

        Itself when its frontmatter loaded (or it is not parsed at all). While
        it does not load, half a keystroke away from what the user means, the
        last document of the path that loaded (an editor buffer), else None:
        nothing about its fields is known, so no other entry is told anything
        about its links. A parse failure never changes what others are told.
        """
        return self if self.loads else self.last_good

    @property
    def loads(self) -> bool:
        """Whether its frontmatter loaded (or it is not parsed at all: an index, a policy)."""
        parsed = self.parsed
        return parsed is None or parsed.loaded

    @property
    def name(self) -> str | None:
        """The name this document holds for the other entries of its root (None: none).

        The entry's name when its frontmatter loaded; otherwise the name of
        ``facts``, or the name the text states for certain before the YAML
        failure, and no name at all when even that is in doubt.
        """
        parsed = self.parsed
        if parsed is None:
            return None  # no entry
        if self.last_good is None or parsed.loaded:
            return parsed.stated_name
        return self.last_good.name

    @property
    def slug(self) -> str | None:
        """The slug of the entry's name (the file a save of it writes, minus ``.md``).

        The parse's, computed once per parse (:attr:`ParsedDocument.slug`),
        whenever the name is the one the text states.
        """
        parsed = self.parsed
        if parsed is None:
            return None  # no entry, no name
        if self.last_good is None or parsed.loaded:
            return parsed.slug
        name = self.name
        return slugify(name) if name is not None else None

    @property
    def guessed_names(self) -> frozenset[str]:
        """Names an entry whose name is in doubt may turn out to have: its file's stem and the reader's guess.

        A link to one of them is not reported as dangling (see
        ``RootState.maybe_named``); nothing else is claimed from them.
        """
        if self.kind != "entry" or self.loads or self.name is not None:
            return frozenset()
        entry = self.entry
        return frozenset({self.path.stem, *([entry.name] if entry is not None else [])})

    @property
    def stated_name(self) -> str | None:
        """The name this document's own text states for certain (None: none, or in doubt).

        Checks about a document's name judge this one only, so a half-typed
        buffer shown with its last good facts is not blamed for them.
        """
        parsed = self.parsed
        return parsed.stated_name if parsed is not None else None

    @property
    def successor(self) -> str | None:
        """``superseded_by`` as the loaded frontmatter writes it (:attr:`ParsedDocument.successor`)."""
        parsed = self.parsed
        return parsed.successor if parsed is not None else None

    @property
    def predecessors(self) -> tuple[tuple[int, str], ...]:
        """``supersedes`` string items with their index (:attr:`ParsedDocument.predecessors`)."""
        parsed = self.parsed
        return parsed.predecessors if parsed is not None else ()

    @property
    def links(self) -> frozenset[str]:
        """Names the supersession fields of ``facts`` point at (none while nothing is known)."""
        facts = self.facts
        if facts is None:
            return frozenset()
        if facts is not self:
            return facts.links
        parsed = self.parsed
        return parsed.links if parsed is not None else frozenset()


@struct(frozen=False, eq=False)
class RootState:
    """One memory root: its documents and the lookups the checks need.

    Compared by identity: a root is one object however many stacks hold it.
    """

    root: MemoryRoot
    order: int  # when it joined the model (layering comes from the workspace's stacks)
    documents: dict[Path, Document] = field(default_factory=dict)
    # ``documents`` by filename, kept with it (``register``/``unregister``): a
    # save's look at the whole root (``paths_changed_on_disk``) finds each
    # listed file's document without building this anew over every path.
    by_filename: dict[str, Document] = field(default_factory=dict, repr=False)
    # The stamp of each of those documents whose ``disk`` read is settled (the
    # only reads an equal stamp proves anything for), kept with it (``register``,
    # ``unregister``, ``reread``): the look compares each file's ``stat`` with
    # one small tuple instead of reaching every document and its read, which
    # lie scattered over the heap (at 50k files 45 ms of a save's 200).
    settled_stamps: dict[str, Stamp] = field(default_factory=dict, repr=False)
    by_name: dict[str, list[Path]] = field(default_factory=lambda: defaultdict(list))
    by_slug: dict[str, list[Path]] = field(default_factory=lambda: defaultdict(list))
    linked_from: dict[str, set[Path]] = field(default_factory=lambda: defaultdict(set))
    # Entries whose name is in doubt (their YAML does not load), by ``guessed_names``.
    maybe_named: dict[str, set[Path]] = field(default_factory=lambda: defaultdict(set))
    # Bumped whenever something an index check reads of an entry changes (see
    # ``index_key``); keystrokes in a body or a link leave it alone, so the
    # root-wide index checks can reuse their last result (``memo``).
    index_revision: int = 0
    # Bumped whenever a document is registered or unregistered: anything read
    # of any document may have changed (what ``memo`` entries keyed on it assume).
    revision: int = 0
    memo: dict[str, Any] = field(default_factory=dict)
    _index_keys: dict[Path, tuple] = field(default_factory=dict)
    # The index as the entries render it, built when first asked for, then moved
    # one line per change (see ``track_index``).
    _index_view: IndexView | None = field(default=None, repr=False)
    # The persistent parse cache while a bulk load runs (see ``Workspace.detach_caches``).
    parse_cache: ParseCache | None = field(default=None, repr=False, compare=False)

    @property
    def path(self) -> Path:
        return self.root.path

    @property
    def scope(self) -> str:
        return self.root.scope

    @property
    def index_path(self) -> Path:
        return self.root.path / INDEX_FILENAME

    @property
    def policy_path(self) -> Path:
        return self.root.path / POLICY_FILENAME

    @property
    def index_view(self) -> IndexView:
        """The root's index entries and their rendering, kept current (see :mod:`memls.store.index_view`)."""
        if self._index_view is None:
            docs = self.documents
            self._index_view = IndexView.build(
                (p.name, entry) for p in sorted(docs, key=str)
                if docs[p].kind == "entry" and (entry := docs[p].index_entry) is not None
            )
        return self._index_view

    def use_index_entries(self, entries: Iterable[tuple[str, MemoryEntry]]) -> None:
        """Build the index view from ``(filename, index entry)`` pairs in file order, not the documents.

        For a model holding only some documents of the root while the caller
        knows every entry's index fields (``memls.store.check_cache``); documents
        registered afterwards move their lines as usual.
        """
        self._index_view = IndexView.build(entries)

    def entry_documents(self) -> list[Document]:
        """Parsed entry documents in file order (the readers' shadowing order).

        One directory, so the paths sort as their strings do, which is several
        times cheaper than comparing ``Path`` objects (10k: 8 ms against 45 ms).
        """
        docs = self.documents
        return [
            docs[p] for p in sorted(docs, key=str)
            if docs[p].kind == "entry" and docs[p].entry is not None
        ]

    def entries_for_index(self) -> list[MemoryEntry]:
        """What the index lists, in file order: every entry, and every too-large file's headline."""
        return [entry for doc in self.index_documents() if (entry := doc.index_entry) is not None]

    def index_documents(self) -> list[Document]:
        """The entry documents the index lists, in file order: those with an entry or a headline."""
        docs = self.documents
        return [
            docs[p] for p in sorted(docs, key=str)
            if docs[p].kind == "entry" and docs[p].index_entry is not None
        ]

    def unlisted_entry_files(self) -> list[str]:
        """The memory files a rendering gives no line (:mod:`memls.store.unlisted_lines`), sorted.

        Entry files that exist but hold neither an entry nor a headline, and
        the visible living entries whose line would break the index. Looked
        for among the files the index view does not show, not in every
        document: a save into a 10k-entry root asks this of a set difference.
        """
        docs, view = self.by_filename, self.index_view
        unreadable = (filename for filename in docs.keys() - view.entries.keys()
                      if (doc := docs[filename]).kind == "entry" and not doc.file_absent and doc.index_entry is None)
        return sorted([*unreadable, *view.unsafe_filenames()])

    def index_entries_of(self, paths: Iterable[Path]) -> dict[str, MemoryEntry | None]:
        """The index entry of each of ``paths`` as the model holds it now, by filename (None: none)."""
        out: dict[str, MemoryEntry | None] = {}
        for path in paths:
            doc = self.documents.get(path)
            if document_kind(path.name) == "entry":
                out[path.name] = doc.index_entry if doc is not None else None
        return out

    def named(self, name: str) -> list[Document]:
        """Entry documents carrying ``name``, first (the visible one) first."""
        return [self.documents[p] for p in self.by_name.get(name, ())]

    def visible(self, name: str) -> Document | None:
        """The document readers return for ``name`` in this root."""
        paths = self.by_name.get(name)
        return self.documents[paths[0]] if paths else None

    # -- registry maintenance -----------------------------------------------

    def register(self, doc: Document) -> None:
        self.revision += 1
        path = doc.path
        self.documents[path] = doc
        self.by_filename[filename := path.name] = doc
        self._note_disk(filename, doc.disk)
        self.track_index(path, doc)
        for guess in doc.guessed_names:
            self.maybe_named[guess].add(path)
        if doc.kind != "entry":
            return
        name, slug = doc.name, doc.slug
        if name is None or slug is None:  # (the slug is None only without a name)
            return
        _insert_sorted(self.by_name[name], path)
        _insert_sorted(self.by_slug[slug], path)
        for link in doc.links:
            self.linked_from[link].add(path)

    def track_index(self, path: Path, doc: Document | None) -> None:
        """Bump ``index_revision`` when ``path``'s index-relevant facts changed.

        ``register`` calls it with the new document (comparing with what was
        registered before, even across an ``unregister``); a document that
        goes away for good is tracked with None.
        """
        key = index_key(doc) if doc is not None else None
        if self._index_keys.get(path) != key:
            self.index_revision += 1
            if key is None:
                self._index_keys.pop(path, None)
            else:
                self._index_keys[path] = key
            if self._index_view is not None:
                self._index_view.update(path.name, doc.index_entry if doc is not None and key is not None else None)

    def reread(self, doc: Document, disk: DiskRead | None) -> None:
        """``doc``, registered, holds its file's text as read again now (``disk``)."""
        doc.disk = disk
        if self.by_filename.get(filename := doc.path.name) is doc:
            self._note_disk(filename, disk)

    def _note_disk(self, filename: str, disk: DiskRead | None) -> None:
        if disk is not None and disk.settled:
            self.settled_stamps[filename] = disk.stamp
        else:
            self.settled_stamps.pop(filename, None)

    def unregister(self, path: Path) -> Document | None:
        self.revision += 1
        doc = self.documents.pop(path, None)
        if doc is None:
            return doc
        if self.by_filename.get(filename := path.name) is doc:
            del self.by_filename[filename]
            self.settled_stamps.pop(filename, None)
        for name in doc.guessed_names:
            guessed = self.maybe_named.get(name)
            if guessed is not None:
                guessed.discard(path)
                if not guessed:
                    del self.maybe_named[name]
        if doc.kind != "entry" or doc.name is None or doc.slug is None:  # (the slug is None only without a name)
            return doc
        _discard(self.by_name, doc.name, path)
        _discard(self.by_slug, doc.slug, path)
        for name in doc.links:
            links = self.linked_from.get(name)
            if links is not None:
                links.discard(path)
                if not links:
                    del self.linked_from[name]
        return doc


DEFAULT_STACK = "default"


@struct
class StackChange:
    """What :meth:`Workspace.set_stack` did to the set of roots.

    ``added`` roots are new to the model and hold no documents yet (the
    caller loads them); ``removed`` roots are no longer in any stack and were
    unloaded with their documents (the caller clears what it showed of them).
    """

    added: tuple[RootState, ...] = ()
    removed: tuple[RootState, ...] = ()


class Workspace:
    """Every memory root a client works on, kept current one document at a time.

    Roots layer in *stacks*: an ordered list of roots, nearest first, read as
    one memory (the nearest root wins on a name). A CLI run is one stack. An
    editor with several workspace folders has one stack per folder -- each
    folder is its own project, whose ``memory/`` layers only with its own
    Claude Code root, the agent and user roots and the configured roots --
    and the stacks share the root objects they have in common (the user
    root is one root, loaded once, whatever number of folders layer over
    it). Checks that compare roots (shadowing, cross-root links) look only
    at roots that share a stack, so two unrelated projects never hide each
    other's entries or count as each other's "other root".
    """

    def __init__(self, roots: Sequence[MemoryRoot] = ()):
        self.roots: list[RootState] = []
        self._stacks: dict[Hashable, list[RootState]] = {}
        self._root_by_dir: dict[Path, RootState] = {}
        self._root_by_real: dict[Path, RootState] = {}
        self._next_order = 0
        if roots:
            self.set_stack(DEFAULT_STACK, roots)

    @classmethod
    def load(cls, roots: Sequence[MemoryRoot]) -> Workspace:
        """Read and parse every document of every root (one stack), each file once."""
        return cls.load_stacks({DEFAULT_STACK: roots})

    @classmethod
    def load_stacks(cls, stacks: Mapping[Hashable, Sequence[MemoryRoot]]) -> Workspace:
        """Read and parse every document of every stack's roots, each file once."""
        ws = cls()
        for key, roots in stacks.items():
            ws.set_stack(key, roots)
        with paused_gc():
            for state in ws.roots:
                _load_root(state)
        return ws

    def detach_caches(self) -> list[ParseCache]:
        """End a bulk load (``load_document`` calls): the open parse caches, for the caller to save.

        Writing a cache pickles every parse it holds (seconds at 50k entries);
        a long-lived caller can do that off its critical path. A detached
        cache shares only parses, which nothing changes after they are made.
        """
        caches = [s.parse_cache for s in self.roots if s.parse_cache is not None]
        for state in self.roots:
            state.parse_cache = None
        return caches

    # -- stacks -------------------------------------------------------------

    def set_stack(self, key: Hashable, roots: Sequence[MemoryRoot]) -> StackChange:
        """Make the stack ``key`` exactly ``roots`` (nearest first); ``[]`` removes it."""
        return self.set_stacks({key: roots})

    def set_stacks(
        self, stacks: Mapping[_StackKey, Sequence[MemoryRoot]], *, remove: Iterable[Hashable] = ()
    ) -> StackChange:
        """Set several stacks and remove others, in one step.

        A root already in the model (by its real directory) is shared, not
        read twice; a root that moves from a removed stack to a set one stays
        loaded. Roots that no stack holds afterwards leave the model.
        """
        added: list[RootState] = []
        for key, roots in stacks.items():
            states: list[RootState] = []
            for root in roots:
                state = self._state_of(root.path)
                if state is None:
                    state = self._new_state(root)
                    added.append(state)
                if state not in states:
                    states.append(state)
            if not states:
                self._stacks.pop(key, None)
                continue
            self._stacks[key] = states
            # A root that stood alone (found by its look) now layers with others.
            for state in states:
                if key != _alone(state):
                    self._stacks.pop(_alone(state), None)
        for gone in remove:
            self._stacks.pop(gone, None)
        return StackChange(tuple(added), self._drop_unstacked())

    def stacks(self) -> dict[Hashable, list[MemoryRoot]]:
        """Each stack's roots, nearest first (what :meth:`load_stacks` takes)."""
        return {key: [s.root for s in states] for key, states in self._stacks.items()}

    def add_root(self, root: MemoryRoot) -> RootState:
        """Add a root that layers with nothing (a stack of its own), no documents yet; idempotent.

        For a directory found to be a memory root by its look: it is nobody's
        layer, so it shadows nothing and nothing shadows it.
        """
        existing = self._state_of(root.path)
        if existing is not None:
            return existing
        state = self._new_state(root)
        self._stacks[_alone(state)] = [state]
        return state

    def farther_than(self, state: RootState) -> list[RootState]:
        """Roots layered behind ``state`` in any stack that holds it, nearest first."""
        out: list[RootState] = []
        for stack in self._stacks.values():
            if state in stack:
                for other in stack[stack.index(state) + 1:]:
                    if other not in out:
                        out.append(other)
        return out

    def layered_with(self, state: RootState) -> list[RootState]:
        """Every other root that shares a stack with ``state``, in stack order."""
        out: list[RootState] = []
        for stack in self._stacks.values():
            if state in stack:
                for other in stack:
                    if other is not state and other not in out:
                        out.append(other)
        return out

    def _state_of(self, directory: Path) -> RootState | None:
        return self._root_by_dir.get(directory) or self._root_by_real.get(_real(directory))

    def _new_state(self, root: MemoryRoot) -> RootState:
        state = RootState(root=root, order=self._next_order)
        self._next_order += 1
        self.roots.append(state)
        self._root_by_dir[root.path] = state
        self._root_by_real[_real(root.path)] = state
        return state

    def _drop_unstacked(self) -> tuple[RootState, ...]:
        kept = {id(s) for stack in self._stacks.values() for s in stack}
        dropped = tuple(s for s in self.roots if id(s) not in kept)
        if dropped:
            self.roots = [s for s in self.roots if id(s) in kept]
            self._root_by_dir = {d: s for d, s in self._root_by_dir.items() if id(s) in kept}
            self._root_by_real = {d: s for d, s in self._root_by_real.items() if id(s) in kept}
        return dropped

    def scan(self, state: RootState) -> list[Path]:
        """The memory documents of one root on disk, sorted (nothing is read)."""
        return [path for path, _ in self.listing(state)]

    def listing(self, state: RootState) -> list[tuple[Path, os.stat_result | None]]:
        """The memory documents of one root with their ``stat``, in file order.

        Each file is stat-ed once, and its ``Path`` made once, after sorting
        the names (:func:`memls.store.reader.stat_directory`); at 10k files ``Path``
        comparisons and path walks were a sixth of a load. Entry names no
        reader can open (a broken symlink, a directory) come with no ``stat``:
        they are loaded as unreadable documents and reported, never skipped.
        """
        try:
            found = stat_directory(state.path, is_document_filename)
        except OSError:
            return []
        child = child_path_maker(state.path)
        listed: list[tuple[Path, os.stat_result | None]] = [
            (child(name), st) for name, st in found.files
        ]
        unreadable = [name for name, _ in found.unreadable if document_kind(name) in _REPORTED_UNREADABLE]
        if unreadable:
            listed.extend((child(name), None) for name in unreadable)
            listed.sort(key=lambda item: item[0].name)
        return listed

    def load_document(
        self, path: Path, st: os.stat_result | None = None, *, cached: bool = True,
        root: RootState | None = None,
    ) -> None:
        """Read one file into the model without computing what it affects (bulk loads).

        Entry documents come from the root's persistent parse cache when the
        file is unchanged; the cache stays open until :meth:`detach_caches`.
        ``st`` is the file's ``stat`` when the caller (a listing) has it.
        ``cached=False`` reads and parses the file without opening the cache:
        for a caller loading a handful of files, opening the cache of a large
        root costs more than parsing them (``memls.store.check_cache``).
        ``root`` is the root whose :meth:`listing` gave ``path``: it spares
        finding the root again (a ``Path`` made and hashed per file).
        """
        kind = document_kind(path.name)
        state = root if root is not None else self._root_by_dir.get(path.parent)
        if state is None and kind is not None:  # reached through another spelling
            state = self.root_of(path)
            path = state.path / path.name if state is not None else path
        if state is None or kind is None:
            return
        if cached and state.parse_cache is None:
            state.parse_cache = open_documents_cache(state.path)
        state.unregister(path)
        state.register(_read_document(state, path, kind, state.parse_cache if cached else None, st))

    # -- lookups ------------------------------------------------------------

    def root_of(self, path: Path) -> RootState | None:
        """The root a path belongs to (files directly inside a root only)."""
        parent = path.parent
        state = self._root_by_dir.get(parent)
        if state is None:
            state = self._root_by_real.get(_real(parent))
        return state

    def is_memory_document(self, path: Path) -> bool:
        return self.root_of(path) is not None and document_kind(path.name) is not None

    def document(self, path: Path) -> Document | None:
        parent = path.parent
        state = self._root_by_dir.get(parent)
        if state is not None:  # spelled as the root is: no other spelling to try (a start asks 840 times)
            return state.documents.get(path)
        state = self._root_by_real.get(_real(parent))
        if state is None:
            return None
        doc = state.documents.get(path)
        if doc is None and path not in state.documents:
            # The same file reached through another spelling of the root.
            doc = state.documents.get(state.path / path.name)
        return doc

    def documents(self) -> Iterator[Document]:
        for state in self.roots:
            yield from state.documents.values()

    def entries_named(self, name: str) -> list[Document]:
        """Entry documents with ``name`` across roots, nearest root first."""
        return [d for state in self.roots for d in state.named(name)]

    def entry_count(self) -> int:
        return sum(len(s.by_name) for s in self.roots)

    # -- changes ------------------------------------------------------------

    def detached(self, path: Path, text: str) -> Document | None:
        """The document ``update`` would make of ``text`` at ``path``, left out of the model.

        None when ``path`` is not a memory document of a root in the model.
        """
        state = self.root_of(path)
        kind = document_kind(path.name)
        if state is None or kind is None:
            return None
        return _make_document(state, state.path / path.name, kind, text=text)

    def update(
        self, path: Path, text: str, *, version: int | None = None, file_absent: bool = False
    ) -> set[Path]:
        """Replace one document's text (an editor buffer); ``file_absent``: its file does not exist.

        Returns the paths whose check results may have changed; empty when
        the path is not a memory document. When the new text's frontmatter
        does not load, the other entries keep being checked against the last
        text of this path that loaded (``Document.facts``): one Enter inside a
        value must not light up its link neighbours. That memory lasts only
        while the buffer holds unsaved text: :meth:`saved` drops it, and disk
        reads (``update_from_disk``, a closed buffer) keep none: a file is what it says.
        """
        state = self.root_of(path)
        kind = document_kind(path.name)
        if state is None or kind is None:
            return set()
        path = state.path / path.name
        old = state.unregister(path)
        doc = _make_document(state, path, kind, text=text, version=version)
        doc.file_absent = file_absent
        if doc.facts is None and old is not None:
            # A keystroke that breaks the YAML leaves other entries told what they were told.
            doc.last_good = old.facts
        state.register(doc)
        return self._affected(state, path, old, doc)

    def saved(self, path: Path) -> set[Path]:
        """The buffer of ``path`` now holds what its file holds (saved, or reloaded from disk).

        Forgets the last loaded text ``update`` remembered for it. That memory
        bridges keystrokes, so the neighbours of an entry do not flicker while
        its YAML is half typed; once the broken text is the file, ``memls
        check`` (and every other reader) sees only that file, and the editor
        must tell the neighbours what CI tells them. Typing on keeps no memory
        either until the text loads again: the file it differs from does not load.
        Returns the paths whose check results may have changed (the entries the
        remembered text linked to among them); empty when nothing was remembered.
        """
        state = self.root_of(path)
        if state is None:
            return set()
        path = state.path / path.name
        old = state.documents.get(path)
        if old is None or old.last_good is None:
            return set()
        state.unregister(path)
        doc = replace(old, last_good=None)
        state.register(doc)
        return self._affected(state, path, old, doc)

    def unsettled_reads(self) -> list[Path]:
        """The documents whose file was read while racy: until read again, its ``stat`` proves nothing.

        After a checkout or a copy a start reads every file within the racy
        window, and the first look at the whole root after it (a save's,
        :meth:`paths_changed_on_disk`) reads each of them again to compare
        its text: 0.3-0.4 s at 10k files, once, in the save the user waits
        for. A long-lived reader asks for these once the window has passed
        and reads them again meanwhile (:meth:`confirm_reads`).
        """
        return [doc.path for state in self.roots for doc in state.by_filename.values()
                if doc.disk is not None and not doc.disk.settled]

    def confirm_reads(self, paths: Iterable[Path]) -> list[Path]:
        """Read again the files of documents read while racy; those whose file is not their text.

        A file that still holds its document's text gets a settled read, so
        the next look proves it with one ``stat``; nothing else changes. The
        paths returned (the file changed since, went, cannot be read) are
        for the caller to take in as changes (:meth:`update_from_disk`, with
        what its open buffers say). A document whose text is a buffer's, or
        whose read was settled meanwhile, is left alone.
        """
        changed: list[Path] = []
        for path in paths:
            state = self.root_of(path)
            doc = state.documents.get(path) if state is not None else None
            if state is None or doc is None or doc.disk is None or doc.disk.settled:
                continue
            confirmed = _read_again(doc, path)
            if confirmed is None:
                changed.append(path)
            else:
                state.reread(doc, confirmed)
        return changed

    def update_from_disk(self, path: Path) -> set[Path]:
        """Re-read one file (a watcher event); a vanished file is removed.

        A file that still holds what the model read from it changes nothing
        and affects nothing: word of a change often comes twice (a save took
        it in first, :meth:`paths_changed_on_disk`; the editor's watcher event
        follows), and the second must not re-check the file and its neighbours.
        """
        state = self.root_of(path)
        kind = document_kind(path.name)
        if state is None or kind is None:
            return set()
        path = state.path / path.name
        old = state.documents.get(path)
        if old is not None and old.disk is not None and _still_read(old.disk, path):
            return set()
        if old is not None and (confirmed := _read_again(old, path)) is not None:
            state.reread(old, confirmed)
            return set()
        unreadable = unreadable_reason(path)
        if unreadable is not None and (kind not in _REPORTED_UNREADABLE or not os.path.lexists(path)):
            return self.remove(path)
        doc = _read_document(state, path, kind)
        if old is not None and _same_read(old, doc):
            state.reread(old, doc.disk)  # the file was touched, its text is the same
            return set()
        state.unregister(path)
        state.register(doc)
        return self._affected(state, path, old, doc)

    def paths_changed_on_disk(self, state: RootState) -> list[Path]:
        """The documents of ``state`` whose file is not what the model read: added, changed or removed.

        For a caller about to act on the whole root from the model -- an
        editor's save renders the root's ``MEMORY.md`` from it -- while word
        of another tool's write (a watcher event, which editors deliver late)
        may still be on its way. One listing and a ``stat`` per file, no read
        (10k files: a few tens of milliseconds). A document whose text came
        from an editor buffer has no stamp and is listed whenever its file
        is: the caller, which knows the open buffers, leaves those alone.
        """
        # The listing and stat of stat_directory in one loop with the compare,
        # keeping no stat (at 10k files this loop is what a save waits for).
        # The documents by filename are the root's own map, read, not copied:
        # the files listed that have one are counted, and only when some
        # document's file went unlisted are they looked for.
        by_name, stamps = state.by_filename, state.settled_stamps
        changed: list[str] = []
        unreadable: list[str] = []
        listed: list[str] = []
        found = 0
        try:
            fd = os.open(state.path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except (FileNotFoundError, NotADirectoryError):
            fd = None  # no files: every document is gone
        except OSError:
            return []
        if fd is not None:
            try:
                stamp_of_name, stat_at = stamps.get, os.stat
                listed = document_filenames(os.listdir(fd))
                for name in listed:
                    try:
                        st = stat_at(name, dir_fd=fd)
                    except OSError:
                        unreadable.append(name)
                        continue
                    if not S_ISREG(st.st_mode):
                        unreadable.append(name)
                        continue
                    # A settled read of this very stamp: the document holds the file (its
                    # name is in ``by_name``). Else it changed, or was never proved read.
                    if stamp_of_name(name) == (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev):
                        found += 1
                        continue
                    changed.append(name)
                    found += name in by_name
            except OSError:
                return []
            finally:
                os.close(fd)
        changed.sort()
        for name in sorted(unreadable):
            doc = by_name.get(name)
            found += doc is not None
            if document_kind(name) in _REPORTED_UNREADABLE and (doc is None or doc.read_error is None):
                changed.append(name)
        child = child_path_maker(state.path)
        gone = []
        if found != len(by_name):  # documents whose file was not listed: removed
            listed_names = set(listed)
            gone = [doc.path for name, doc in by_name.items() if name not in listed_names]
        return [child(name) for name in changed] + gone

    def remove(self, path: Path) -> set[Path]:
        """Forget one document (deleted on disk)."""
        state = self.root_of(path)
        if state is None:
            return set()
        path = state.path / path.name
        old = state.unregister(path)
        state.track_index(path, None)
        if old is None:
            return set()
        return self._affected(state, path, old, None)

    def refresh_root(self, state: RootState, *, keep: Iterable[Path] = ()) -> set[Path]:
        """Re-scan a root from disk (watcher fallback); ``keep`` are open buffers."""
        keep_set = set(keep)
        affected: set[Path] = set()
        on_disk = set(self.scan(state))
        for path in list(state.documents):
            if path not in on_disk and path not in keep_set:
                affected |= self.remove(path)
        for path in on_disk - keep_set:
            affected |= self.update_from_disk(path)
        return affected

    # -- internals ----------------------------------------------------------

    def _affected(
        self, state: RootState, path: Path, old: Document | None, new: Document | None
    ) -> set[Path]:
        affected = {path, state.index_path}
        if state.policy_path in state.documents:
            affected.add(state.policy_path)
        names: set[str] = set()
        links: set[str] = set()
        for doc in (old, new):
            if doc is not None and doc.kind == "entry" and doc.name is not None:
                names.add(doc.name)
                links |= doc.links
            elif doc is not None:
                names |= doc.guessed_names
        if not names and not links:
            return affected
        slugs = {slugify(n) for n in names}
        for other in self.roots:
            for name in names:
                affected.update(other.by_name.get(name, ()))
                affected.update(other.linked_from.get(name, ()))
            for name in links:
                affected.update(other.by_name.get(name, ()))
            if other is state:
                for slug in slugs:
                    affected.update(state.by_slug.get(slug, ()))
        affected |= self._chain_closure(state, names | links)
        return affected

    def _chain_closure(self, state: RootState, names: set[str]) -> set[Path]:
        """Documents on the same supersession chains (a cycle's members share results)."""
        out: set[Path] = set()
        todo = list(names)
        seen: set[str] = set()
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            for p in state.by_name.get(name, ()):
                out.add(p)
                doc = state.documents[p]
                todo.extend(doc.links)
            for p in state.linked_from.get(name, ()):
                out.add(p)
                other = state.documents[p].name
                if other is not None:
                    todo.append(other)
            if len(seen) > 10_000:  # a pathological chain; the rest is re-checked in full
                break
        return out


def index_key(doc: Document) -> tuple | None:
    """What the index checks of a root read of one document.

    The fields an index line and its grouping are made of, plus where the
    index problems point in the entry (its anchor and its ``status`` value,
    as :mod:`memls.store.anchors` places them). The anchor of an entry whose
    YAML does not load is the ``name:`` line the readers' fallback found:
    a line added above it moves the index's related locations though no
    field changed. None for documents that are not parsed entries.
    """
    entry = doc.index_entry
    if doc.kind != "entry" or entry is None:
        return None
    # ``anchor(doc)`` and ``value_span(doc, "status")``, with the key spans looked up
    # once: every document of a scan is filed through here.
    spans = keys(doc)
    name = spans.get("name")
    where = name.value if name is not None else anchor(doc)
    status = spans.get("status")
    return (entry.name, entry.title, entry.description, entry.type, entry.status,
            where, status.value if status is not None else where)


def _make_document(
    state: RootState, path: Path, kind: DocumentKind, *, text: str, version: int | None = None,
    read_error: str | None = None, too_large: bool = False,
) -> Document:
    if not too_large and text_over_cap(text, max_document_bytes(kind)):
        # An editor's buffer of a file too large to read is judged as the file
        # is (:func:`_read_bytes`): same headline, same index line, same checks.
        return _too_large_document(state, path, kind, text.encode("utf-8", "surrogatepass"), version)
    parsed = None
    if kind in ("entry", "reserved") and read_error is None and not too_large:
        parsed = parse_document(text, path=path, scope=state.scope)
    return Document(path=path, root=state, kind=kind, text=text, parsed=parsed,
                    read_error=read_error, too_large=too_large, version=version)


def open_documents_cache(root_dir: Path) -> ParseCache:
    """The root's cache of parsed documents, written without paths (see ``placed``)."""
    return ParseCache.open(root_dir, "documents", portable=_portable)


def _portable(parsed: ParsedDocument) -> ParsedDocument:
    """What the documents cache writes of ``parsed``: ``parsed.placed(None)``, made without touching the model.

    Always a copy: the writer thread pickles it while the engine may still
    fill the original's once-computed facts in. Its entry and frontmatter
    are copied field by field, never through their ``__dict__``: Python
    keeps a fresh object's attributes without a dict until something asks
    for one (a dict copy, pickling) and then keeps that dict for good. A
    language server writes the cache after its scan froze the model, so
    each document's entry and frontmatter gained a dict outside the frozen
    model: about 75k tracked dicts at 50k entries, walked by every full
    collection while the user typed.
    """
    doc = object.__new__(ParsedDocument)
    doc.__dict__.update(parsed.__dict__)
    doc.path = None
    if parsed.entry is not None:
        doc.entry = _field_copy(parsed.entry, _ENTRY_FIELDS)
        doc.entry.path = None
    if parsed.frontmatter is not None:
        doc.frontmatter = _field_copy(parsed.frontmatter, _FRONTMATTER_FIELDS)
    return doc


_ENTRY_FIELDS = tuple(f.name for f in fields(MemoryEntry))
_FRONTMATTER_FIELDS = tuple(f.name for f in fields(Frontmatter))

Copied = TypeVar("Copied")


def _field_copy(obj: Copied, names: tuple[str, ...]) -> Copied:
    """A shallow copy of the dataclass ``obj`` made from its fields (``names``), without asking for its ``__dict__``."""
    copy = object.__new__(type(obj))
    for name in names:
        object.__setattr__(copy, name, getattr(obj, name))
    return copy


# The documents whose name no reader can open (a FIFO, a device, a directory, a
# broken symlink) are loaded with a read error and reported, never skipped: an
# entry as ``invalid-entry``, ``MEMORY.md`` likewise (not as a missing index,
# which a write would replace), the policy as ``invalid-index-policy``.
_REPORTED_UNREADABLE = ("entry", "index", "policy")


def _load_root(state: RootState) -> None:
    """Every document of one root of a fresh workspace (``Workspace.load``).

    The whole listing is looked up in the documents cache at once; a hit is
    placed in the model as it is, so an unchanged 10k root costs a stat and
    a dictionary lookup per file, and no parse.
    """
    observed_ns = now_ns()
    try:
        listing = stat_directory(state.path, is_document_filename)
    except OSError:
        listing = Listing([], [])
    for name, why in listing.unreadable:
        kind = document_kind(name)
        if kind in _REPORTED_UNREADABLE:
            path = state.path / name
            state.register(_make_document(state, path, kind, text="", read_error=why))
    listed = listing.files
    cache = open_documents_cache(state.path)
    parsed = [(name, st) for name, st in listed if document_kind(name) in ("entry", "reserved")]
    prefix = os.path.join(os.fspath(state.path), "")
    hits = {name: record for name, _, record in cache.lookup_listing(parsed, prefix, state.scope)
            if record is not None}
    child = child_path_maker(state.path)
    for name, st in listed:
        path = child(name)
        kind = document_kind(name)
        assert kind is not None  # the listing holds documents only
        record = hits.get(name)
        if record is not None:
            doc = Document(path=path, root=state, kind=kind, text=record.text,
                           parsed=record.place(path), disk=DiskRead.of(st, observed_ns))
        else:
            doc = _read_document(state, path, kind, cache, st)
        state.register(doc)
    cache.save()


def _read_document(
    state: RootState, path: Path, kind: DocumentKind, cache: ParseCache | None = None,
    st: os.stat_result | None = None,
) -> Document:
    """One file from disk; with a ``cache``, a parsed document of an unchanged file is reused.

    The ``stat`` comes before the read, so a change between the two makes
    the remembered identity stale (a re-parse next time, a re-read at the
    next look: ``Document.disk``), never the parse. Cached parses are stored
    without their path and placed here.
    """
    observed_ns = now_ns()
    if st is None:  # never open what is not a regular file (a FIFO would block)
        try:
            st = os.stat(path)
        except OSError as exc:
            return _make_document(state, path, kind, text="", read_error=unreadable_why(path, exc))
        if not stat.S_ISREG(st.st_mode):
            return _make_document(state, path, kind, text="", read_error=unreadable_why(path, st))
    disk = DiskRead.of(st, observed_ns)
    stamp = disk.stamp
    if cache is not None and kind in ("entry", "reserved"):
        cached = cache.lookup(path.name, str(path), state.scope, stamp)
        if cached is not None:
            return Document(path=path, root=state, kind=kind, text=cached.text,
                            parsed=cached.place(path), disk=disk)
    doc = _read_bytes(state, path, kind)
    doc.disk = disk
    if cache is not None and doc.parsed is not None:
        cache.remember(path.name, str(path), state.scope, stamp, doc.parsed, observed_ns)
    return doc


def _read_bytes(state: RootState, path: Path, kind: DocumentKind) -> Document:
    """The document a file's bytes make: its text parsed, or why it has none (too large, not UTF-8)."""
    try:
        data = read_capped(path, max_document_bytes(kind))
    except OSError as exc:
        return _make_document(state, path, kind, text="", read_error=one_line(str(exc)))
    if len(data) > max_document_bytes(kind):
        return _too_large_document(state, path, kind, data)
    try:
        text = decode_document(data)
    except UnicodeDecodeError as exc:
        return _make_document(
            state, path, kind, text="", read_error=f"not UTF-8 text (byte {exc.start})"
        )
    return _make_document(state, path, kind, text=text)


def _too_large_document(
    state: RootState, path: Path, kind: DocumentKind, data: bytes, version: int | None = None
) -> Document:
    """A file too large to read (``data``: its bytes, at least the first over the cap): no text, no parse.

    An entry keeps the fields of its first MiB for the index alone
    (:func:`memls.store.reader.headline`), so neither a read of the file nor
    a buffer holding it loses its ``MEMORY.md`` line.
    """
    doc = _make_document(state, path, kind, text="", version=version, too_large=True)
    if kind == "entry":
        doc.headline = headline(path, data, state.scope)
    return doc


def _still_read(disk: DiskRead, path: Path) -> bool:
    """Whether the file at ``path`` still holds what was read from it (one ``stat``)."""
    try:
        return disk.holds_for(stamp_of(os.stat(path)))
    except OSError:
        return False


def _read_again(doc: Document, path: Path) -> DiskRead | None:
    """The new read of a file whose stamp is the one the model saw, if it still holds ``doc``'s text.

    A stamp seen within the racy window proves nothing (:class:`DiskRead`),
    so such a file must be read again when it is next looked at -- after a
    checkout or a copy, every file of the root. Reading and comparing the
    text costs a fraction of parsing it again, and a file whose text is the
    model's changes nothing. The ``stat`` comes before the read, as in
    :func:`_read_document`: a write between the two is seen at the next look.
    """
    if doc.disk is None or doc.too_large or doc.read_error is not None:
        return None
    observed_ns = now_ns()
    try:
        st = os.stat(path)
        if stamp_of(st) != doc.disk.stamp:
            return None
        data = read_capped(path, max_document_bytes(doc.kind))
        text = decode_document(data)
    except (OSError, UnicodeDecodeError):
        return None
    if len(data) > max_document_bytes(doc.kind) or text != doc.text:
        return None
    return DiskRead.of(st, observed_ns)


def _same_read(old: Document, new: Document) -> bool:
    """Whether a fresh read of a file made the document the model already holds from it."""
    return (old.disk is not None and not old.too_large and not new.too_large and old.kind == new.kind
            and old.text == new.text and old.read_error == new.read_error)


def _insert_sorted(paths: list[Path], path: Path) -> None:
    if path in paths:
        return
    paths.append(path)
    paths.sort()


def _discard(index: dict[str, list[Path]], key: str, path: Path) -> None:
    paths = index.get(key)
    if paths is None:
        return
    if path in paths:
        paths.remove(path)
    if not paths:
        del index[key]


def _alone(state: RootState) -> tuple[str, Path]:
    """The key of the stack a root has on its own (``Workspace.add_root``)."""
    return ("alone", state.path)


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path
