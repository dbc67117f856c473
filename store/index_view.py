"""A root's generated index, kept one entry line at a time.

Every keystroke in an entry puts the root's ``MEMORY.md`` among the documents
to re-check, and the index checks compare that file with the rendering the
engine would write. Rendering a 10k-entry root from scratch (shadow the
names, group by type, sort, format ten thousand lines) cost tens of
milliseconds per keystroke and grew with the root. An :class:`IndexView`
holds the pieces of that rendering instead -- each file's index entry, which
file of each name readers see, each type's lines sorted by name -- and a
change of one document moves only that document's line (and, when its name
changes, the lines of the files that name shadows). The text is joined from
the kept lines when asked, which is a copy, not a render.

It is the legacy (policy-less, unbudgeted) rendering of
:func:`memls.store.index.render_index` over
``index_entries(entries, managed=False)``: byte-identical, which the
differential tests pin against the full render after random edits.

It also remembers which files' facts changed since the index checks last
looked (``take_changed``), so they re-judge those files' lines only.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager

from .entry import TYPE_ORDER, MemoryEntry
from .index import INDEX_HEADER, IndexRendering, gets_index_line, type_heading


class IndexView:
    """One root's index entries by filename, and its legacy rendering, kept current."""

    def __init__(self) -> None:
        # Each entry file's index entry (its entry, or a too-large file's headline).
        self.entries: dict[str, MemoryEntry] = {}
        # The files of each name, in file order: the first is the one readers see.
        self._files_of: dict[str, list[str]] = {}
        # The visible living entries by type: their names sorted, their lines in that
        # order, and each type's block of lines joined (None: to be joined again).
        self._names: dict[str, list[str]] = {}
        self._lines: dict[str, list[str]] = {}
        self._blocks: dict[str, str | None] = {}
        self._living = 0  # index entries (visible or not) that are living
        # The files whose entry is visible and living but whose line would break the index.
        self._unsafe: set[str] = set()
        self._text: str | None = None
        self._changed: set[str] = set()

    @classmethod
    def build(cls, entries: Iterable[tuple[str, MemoryEntry]]) -> IndexView:
        """The view of ``(filename, index entry)`` pairs given in file order, in one pass.

        A bulk load does not pay for line-by-line upkeep: the model builds
        its view when an index check first asks, and keeps it from then on.
        """
        view = cls()
        for filename, entry in entries:
            view.entries[filename] = entry
            view._living += entry.is_living
            view._files_of.setdefault(entry.name, []).append(filename)
        by_type: dict[str, list[MemoryEntry]] = {}
        for files in view._files_of.values():
            shown = view.entries[files[0]]
            if gets_index_line(shown):
                by_type.setdefault(shown.type, []).append(shown)
            elif shown.is_living:
                view._unsafe.add(files[0])
        for kind, shown_entries in by_type.items():
            shown_entries.sort(key=lambda e: e.name)
            view._names[kind] = [e.name for e in shown_entries]
            view._lines[kind] = [e.index_line() for e in shown_entries]
            view._blocks[kind] = None
        return view

    # -- changes ---------------------------------------------------------------

    def update(self, filename: str, entry: MemoryEntry | None) -> None:
        """``filename``'s index entry is now ``entry`` (None: it has none)."""
        old = self.entries.get(filename)
        if old is entry:
            return
        self._changed.add(filename)
        self._text = None
        names = []
        if old is not None:
            names.append(old.name)
        if entry is not None and (old is None or entry.name != old.name):
            names.append(entry.name)
        before = {name: self._visible(name) for name in names}
        if old is not None:
            del self.entries[filename]
            self._living -= old.is_living
            files = self._files_of[old.name]
            files.remove(filename)
            if not files:
                del self._files_of[old.name]
        if entry is not None:
            self.entries[filename] = entry
            self._living += entry.is_living
            insort(self._files_of.setdefault(entry.name, []), filename)
        for name, was in before.items():
            now = self._visible(name)
            if was is not now:
                self._show(was, False)
                self._show(now, True)
                # Which file a name shows changed: that file's findings may have too.
                for shown in (was, now):
                    if shown is not None:
                        self._changed.add(shown.filename)

    def _visible(self, name: str) -> MemoryEntry | None:
        files = self._files_of.get(name)
        return self.entries[files[0]] if files else None

    def _show(self, entry: MemoryEntry | None, shown: bool) -> None:
        if entry is None:
            return
        if not gets_index_line(entry):
            if entry.is_living:
                (self._unsafe.add if shown else self._unsafe.discard)(entry.filename)
            return
        kind = entry.type
        names = self._names.setdefault(kind, [])
        lines = self._lines.setdefault(kind, [])
        self._blocks[kind] = None
        at = bisect_left(names, entry.name)
        if shown:
            names.insert(at, entry.name)
            lines.insert(at, entry.index_line())
            return
        assert at < len(names) and names[at] == entry.name  # it was shown
        del names[at], lines[at]
        if not names:
            del self._names[kind], self._lines[kind], self._blocks[kind]

    def rendering_with(self, changes: Mapping[str, MemoryEntry | None]) -> str:
        """The rendering after ``changes`` (each file's index entry, None: none), the view left as it was.

        An editor's save asks what the index is before and after it while
        the model's view holds neither exactly (the saved file's earlier
        text, other buffers' unsaved text): the few lines that differ are
        moved and moved back, instead of rendering ten thousand lines twice.
        A store's write asks the same of its staged files before it knows
        whether it will commit them.
        """
        if not changes:
            return self.rendering()
        with self._laid_over(changes):
            return self.rendering()

    def renders_with(self, changes: Mapping[str, MemoryEntry | None], text: str) -> bool:
        """Whether ``text`` is the rendering after ``changes`` (:meth:`renders`), the view left as it was."""
        if not changes:
            return self.renders(text)
        with self._laid_over(changes):
            return self.renders(text)

    @contextmanager
    def _laid_over(self, changes: Mapping[str, MemoryEntry | None]) -> Iterator[None]:
        """The view with ``changes`` applied inside the ``with``, as it was again after it."""
        kept = {filename: self.entries.get(filename) for filename in changes}
        text, blocks, changed = self._text, dict(self._blocks), set(self._changed)
        try:
            for filename, entry in changes.items():
                self.update(filename, entry)
            yield
        finally:
            for filename, entry in kept.items():
                self.update(filename, entry)
            self._text, self._blocks, self._changed = text, blocks, changed

    def take_changed(self) -> set[str]:
        """Files whose index facts changed since the last call (the index checks' work list)."""
        changed, self._changed = self._changed, set()
        return changed

    # -- reading -----------------------------------------------------------------

    @property
    def any_living(self) -> bool:
        return self._living > 0

    def visible(self, name: str) -> MemoryEntry | None:
        """The index entry readers see for ``name`` (the first file holding it)."""
        return self._visible(name)

    def is_shown(self, filename: str) -> bool:
        """Whether ``filename``'s entry is the one its name shows and gets a line (:func:`gets_index_line`)."""
        entry = self.entries.get(filename)
        return entry is not None and self._visible(entry.name) is entry and gets_index_line(entry)

    def unsafe_filenames(self) -> set[str]:
        """Files whose entry readers see and a rendering would list, but whose line would break the index."""
        return self._unsafe

    def shown_filenames(self) -> Iterator[str]:
        """Files that get a line, in no particular order."""
        for filename, entry in self.entries.items():
            if self._visible(entry.name) is entry and gets_index_line(entry):
                yield filename

    def rendering(self) -> str:
        """The unbudgeted legacy index: what ``render_index(index_entries(...))`` returns."""
        if self._text is None:
            self._text = "".join(self._parts())
        return self._text

    def renders(self, text: str) -> bool:
        """Whether ``text`` is exactly :meth:`rendering`, compared piece by piece.

        A write asks whether ``MEMORY.md`` is the rendering before its change
        while it needs only the one after: at 10k entries each rendering is a
        new 2 MB string (hundreds of fresh pages), and comparing the kept
        pieces in place makes none.
        """
        if self._text is not None:
            return text == self._text
        pos = 0
        for part in self._parts():
            if not text.startswith(part, pos):
                return False
            pos += len(part)
        return pos == len(text)

    def render(self, budget: int | None = None) -> str:
        """``render_index(index_entries(..., managed=False), budget=budget)`` from the kept lines.

        Raises the same ``ValueError`` for a budget too small. Formatting
        ``MEMORY.md`` and the index checks' expected text ask for it; rendering
        ten thousand entries from scratch is what the view exists to avoid.
        """
        if budget is None:
            return self.rendering()
        return IndexRendering(groups=self.groups()).render(budget)

    def groups(self) -> list[tuple[str, list[str]]]:
        """Each type's heading and its lines, in the rendering's order (copies: the view moves on).

        What :class:`memls.store.index.IndexRendering` takes to render this
        index under a budget without formatting its lines again.
        """
        return [(type_heading(t), list(self._lines[t])) for t in self._order()]

    def _order(self) -> list[str]:
        order = [t for t in TYPE_ORDER if t in self._lines]
        return order + sorted(t for t in self._lines if t not in TYPE_ORDER)

    def _parts(self) -> Iterator[str]:
        """The rendering's pieces in order: the header, then each type's heading, lines and newline."""
        yield f"{INDEX_HEADER}\n"
        for t in self._order():
            block = self._blocks.get(t)
            if block is None:
                block = self._blocks[t] = "\n".join(self._lines[t])
            yield f"\n{type_heading(t)}\n"
            yield block
            yield "\n"


def renderings_around(
    before: Iterable[tuple[str, MemoryEntry]], changes: Mapping[str, MemoryEntry | None]
) -> tuple[str, str]:
    """The unbudgeted legacy index of ``before`` (``(filename, index entry)``, file order), and after ``changes``.

    ``changes`` maps each changed file to its index entry after (None: it
    has none). A write asks whether ``MEMORY.md`` is generated -- the
    rendering before or after it -- and then needs the one after: one render
    and a move of the changed files' lines, not two or three renders.
    """
    view = IndexView.build(before)
    rendered_before = view.rendering()
    for filename, entry in changes.items():
        view.update(filename, entry)
    return rendered_before, view.rendering()
