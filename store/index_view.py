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
from collections.abc import Iterator

from .entry import TYPE_ORDER, MemoryEntry
from .index import INDEX_HEADER


class IndexView:
    """One root's index entries by filename, and its legacy rendering, kept current."""

    def __init__(self) -> None:
        # Each entry file's index entry (its entry, or a too-large file's headline).
        self.entries: dict[str, MemoryEntry] = {}
        # The files of each name, in file order: the first is the one readers see.
        self._files_of: dict[str, list[str]] = {}
        # The rendered lines of the visible living entries, by type, as (name, line) sorted.
        self._lines: dict[str, list[tuple[str, str]]] = {}
        self._living = 0  # index entries (visible or not) that are living
        self._text: str | None = None
        self._changed: set[str] = set()

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
        if entry is None or not entry.is_living:
            return
        lines = self._lines.setdefault(entry.type, [])
        item = (entry.name, entry.index_line())
        if shown:
            insort(lines, item)
            return
        at = bisect_left(lines, item)
        assert at < len(lines) and lines[at] == item  # it was shown
        del lines[at]
        if not lines:
            del self._lines[entry.type]

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
        """Whether ``filename``'s entry is the one its name shows and is living (it gets a line)."""
        entry = self.entries.get(filename)
        return entry is not None and entry.is_living and self._visible(entry.name) is entry

    def shown_filenames(self) -> Iterator[str]:
        """Files that get a line, in no particular order."""
        for filename, entry in self.entries.items():
            if entry.is_living and self._visible(entry.name) is entry:
                yield filename

    def rendering(self) -> str:
        """The unbudgeted legacy index: what ``render_index(index_entries(...))`` returns."""
        if self._text is None:
            order = [t for t in TYPE_ORDER if t in self._lines]
            order += sorted(t for t in self._lines if t not in TYPE_ORDER)
            out = [INDEX_HEADER, ""]
            for t in order:
                out.append(f"## {t.capitalize()}")
                out.extend(line for _, line in self._lines[t])
                out.append("")
            while out and out[-1] == "":
                out.pop()
            self._text = "\n".join(out) + "\n"
        return self._text
