"""One write to one root, staged in memory and proven before it is committed.

A :class:`RootTransaction` is opened under the root lock. It reads the root
once, stages every file the change touches (entries, ``MEMORY.md``, the
index policy), and commits them together only after the staged result has
been read back through the same reader as list/show/recall/index: the round
trip is proven on exactly the bytes that will be written.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from .edit_check import lost_comment, structure_problem
from .entry import MemoryEntry, entry_from_record
from .errors import MemoryFrontmatterError, MemoryParseError, RoundTripError
from .files import FileDelete, FileWrite, commit
from .frontmatter import normalize_text, split_frontmatter
from .index import (
    INDEX_FILENAME,
    POLICY_FILENAME,
    IndexPolicy,
    gets_index_line,
    index_entries,
    is_generated_index,
    lines_left_behind,
    omission_budget,
    opens_like_a_rendering,
    pointers_to,
    refresh_index_line,
    remove_index_line,
    render_index,
    render_policy_view,
    replace_pointer,
)
from .index_provenance import remember_rendering, written_as_rendering
from .index_view import IndexView
from .lookup import resolve_name, save_target
from .parse import NO_FRONTMATTER, parse_document
from .reader import RootRead, is_entry_filename, parse_bytes, read_root
from .rewrite import _changed_keys, rewritten_text, value_end
from .roots import MemoryRoot
from .safe_read import MAX_INDEX_BYTES, read_whole, text_to_rewrite
from .spans import KeySpans
from .text import one_line
from .unlisted_lines import keep_unlisted_lines, renders_keeping_unlisted

if TYPE_CHECKING:
    from .warm_root import WarmRoot


def serialize(entry: MemoryEntry) -> bytes:
    """An entry's file bytes, or a one-line ``ValueError`` naming what cannot be written."""
    try:
        text = entry.to_markdown()
    except yaml.YAMLError as exc:
        detail = one_line(str(exc))
        raise ValueError(f"entry '{entry.name}' cannot be written as YAML: {detail}") from None
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"entry '{entry.name}' contains U+{ord(text[exc.start]):04X}, "
            "which UTF-8 cannot encode (a lone surrogate); remove it"
        ) from None


def strict_entry(path: Path, data: bytes, scope: str | None) -> MemoryEntry:
    """Parse a file strictly, as the readers would: a write never normalises a broken file."""
    doc, error = parse_bytes(path, data, scope)
    if doc is None:
        raise MemoryParseError(f"{path.name} cannot be read as an entry: {error}")
    if doc.entry is None:
        if doc.not_entry is not None and doc.not_entry.startswith(NO_FRONTMATTER):
            # gptme's words for this case, exactly: save and migrate scripts match on them.
            raise MemoryParseError(doc.not_entry)
        raise MemoryParseError(
            f"{path.name} has no usable frontmatter ({doc.not_entry}); fix or move it first"
        )
    if doc.strict_error is not None:
        raise MemoryFrontmatterError(doc.strict_error)
    if doc.unread_values is not None:
        raise MemoryFrontmatterError(f"{path.name}: {doc.unread_values}")
    return doc.entry


def _reads_as(path: Path, data: bytes, scope: str | None, expected: MemoryEntry) -> bool:
    """Whether ``data`` reads back, strictly, as exactly ``expected``."""
    try:
        return strict_entry(path, data, scope) == expected
    except MemoryParseError:
        return False


def _with_original_body(data: bytes, original: bytes) -> bytes | None:
    """``data``'s frontmatter followed by exactly what followed ``original``'s.

    The full serialization (used when an edit cannot be proven, as for a flow
    mapping ``{name: a}``) is gptme's new-file layout: a blank line after the
    closing ``---`` even when the body is empty. A rewrite of an existing file
    changes its frontmatter only, so the bytes after the closing line stay as
    they were (no blank line added to an entry without a body). None when
    either text has no frontmatter block to split at.
    """
    try:
        new_text, old_text = data.decode("utf-8"), original.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if normalize_text(old_text) != old_text:
        return None  # a BOM or CR line endings: the serialization's layout stands
    new_end, old_end = _frontmatter_end(new_text), _frontmatter_end(old_text)
    if new_end is None or old_end is None:
        return None
    return (new_text[:new_end] + old_text[old_end:]).encode("utf-8")


def _frontmatter_end(text: str) -> int | None:
    """The offset just past the closing ``---`` of ``text``'s frontmatter (before its newline)."""
    fm = split_frontmatter(text)
    if fm is None:
        return None
    lines = text.split("\n")
    return sum(len(line) + 1 for line in lines[:fm.block.end_line]) + fm.block.end_col


def _refuse_losing_comments(path: Path, original: bytes, data: bytes) -> None:
    """A rewrite that could not be made as an edit must not drop a frontmatter comment.

    The edit keeps comments by construction; the full serialization, used
    only when an edit cannot be proven (a key written twice, say), has none.
    Refusing leaves the file as the user wrote it and says what to do.
    """
    def frontmatter_text(raw: bytes) -> str:
        fm = split_frontmatter(normalize_text(raw.decode("utf-8", errors="replace")))
        return fm.yaml_text if fm is not None else ""

    lost = lost_comment(frontmatter_text(original), frontmatter_text(data))
    if lost is not None:
        raise ValueError(
            f"{path.name} cannot be rewritten without losing its comment {lost!r}; "
            "make this change by hand, or remove the comment first"
        )


def _refuse_rewriting_other_keys(path: Path, original: bytes, data: bytes, entry: MemoryEntry) -> None:
    """A rewrite that could not be made as an edit must leave every key it does not change as written.

    The full serialization spells every value its own way: an explicit
    ``status: living`` goes (it is the default), ``yes`` becomes ``true``,
    ``0.50`` becomes ``0.5``, quoting and key order change, anchors are
    renamed and a key that aliased an empty list disappears. Each is a
    change to a key the write never meant to touch, so it is refused like a
    lost comment: the file stays as the user wrote it.
    """
    try:
        old = parse_document(original.decode("utf-8"))
        new = parse_document(data.decode("utf-8"))
    except UnicodeDecodeError:
        return
    old_fm, new_fm = old.frontmatter, new.frontmatter
    if old.entry is None or old_fm is None or new_fm is None or not isinstance(old_fm.data, dict):
        return
    changed = set(_changed_keys(old.entry, entry))
    old_lines, new_lines = old.text.split("\n"), new.text.split("\n")
    new_data = new_fm.data if isinstance(new_fm.data, dict) else {}
    for key, spans in old_fm.keys.items():
        if key in changed:
            continue
        kept = new_fm.keys.get(key)
        if (
            kept is None
            or key not in new_data
            or type(new_data[key]) is not type(old_fm.data.get(key))
            or new_data[key] != old_fm.data.get(key)
            or _written(_key_text(old_lines, spans)) != _written(_key_text(new_lines, kept))
        ):
            raise ValueError(
                f"{path.name} cannot be edited in place here, and rewriting it would change its "
                f"'{key}' key as written; make this change by hand"
            )


def _breaks(original: bytes, edited: bytes) -> bool:
    """Whether an edit leaves an entry that loaded unloadable or with a key written twice."""
    try:
        return structure_problem(original.decode("utf-8"), edited.decode("utf-8")) is not None
    except UnicodeDecodeError:
        return True


def _key_text(lines: list[str], spans: KeySpans) -> str:
    end_line, end_col = value_end(spans)
    start = spans.key
    if start.start_line == end_line:
        return lines[end_line][start.start_col:end_col]
    return "\n".join(
        [lines[start.start_line][start.start_col:], *lines[start.start_line + 1 : end_line], lines[end_line][:end_col]]
    )


def _written(key_text: str) -> tuple:
    """What a key's text writes, token by token: its scalars as written, anchors, aliases, tags, layout.

    Only the quoting of a scalar is left out (``n`` and ``"n"`` write one
    string); ``yes`` and ``true``, ``0.50`` and ``0.5``, ``&who`` and
    ``&id001``, a flow list and a block list, another key order all differ.
    """
    try:
        tokens = list(yaml.scan(key_text, Loader=yaml.SafeLoader))
    except yaml.YAMLError:
        return (key_text,)
    return tuple((type(t).__name__, getattr(t, "value", None)) for t in tokens)


def read_bytes(path: Path) -> bytes | None:
    """A file's bytes (None when absent); never opens what is not a regular file, never reads past 64 MiB."""
    return read_whole(path, MAX_INDEX_BYTES)


class RootTransaction:
    """The files one write changes in one root, staged in memory until commit."""

    def __init__(self, root: MemoryRoot, warm: WarmRoot | None = None):
        """``warm``: the root's last read, kept by the store (see :mod:`memls.store.warm_root`).

        Either way the root is read as it is now; ``warm`` only spares
        re-reading and re-indexing the files that did not change.
        """
        self.root = root
        self.policy = IndexPolicy.read(root.path)
        self._warm = warm
        self._read = warm.refresh() if warm is not None else read_root(root.path, root.scope)
        self._overlay: tuple[tuple, RootRead] | None = None  # the staged files it was made from
        self.staged: dict[Path, bytes | None] = {}
        self.create_only: set[Path] = set()
        self.modes: dict[Path, int] = {}  # new files that inherit a renamed file's mode
        self.index_path = root.path / INDEX_FILENAME
        self.policy_path = root.path / POLICY_FILENAME
        # An index that cannot be read whole as UTF-8 (a FIFO, a device, other bytes)
        # refuses the write: anything computed from it would replace bytes never read.
        original = text_to_rewrite(self.index_path)
        self._original_index: bytes | None = None if original is None else original[0]
        self._original_text: str | None = None if original is None else original[1]
        self._original_utf8 = original is not None  # whether _original_text is the exact (strict) decoding
        # The staged entry files' index entries, for the staged files they were made from.
        self._changes: tuple[tuple, dict[str, MemoryEntry | None]] | None = None
        self._view: IndexView | None = None  # the read's index view, when no store keeps one
        self._rendering: bytes | None = None  # the staged index, when it is a rendering (index_provenance)
        # Whether the index as read is the last rendering memls wrote: asked once, as the bytes are
        # fixed for the transaction and the answer hashes them (1 MB at 10k entries) and reads a record.
        self._written_as_rendering: bool | None = None
        # Whether the index as read renders the root as read, or as the parse cache last held it:
        # asked before and after the entry is staged (a save asks twice), answered once.
        self._rendered_before: bool | None = None
        self._rendering_of_read: str | None = None  # the unbudgeted legacy index of the read, once built

    # reads (through the staged overlay)

    def bytes_of(self, path: Path) -> bytes | None:
        if path in self.staged:
            return self.staged[path]
        return read_bytes(path)

    def entries(self) -> list[MemoryEntry]:
        """This root's entries as the staged overlay would show them, file order."""
        return self._read_staged().entries

    def _read_staged(self) -> RootRead:
        """The root as the readers would see it after this commit.

        The read taken under the lock at the start, with only the staged files
        parsed anew. Every writer that takes the lock is excluded until the
        commit; a hand edit made meanwhile could race a second listing just
        as well, so none is taken.
        """
        staged = tuple(self.staged.items())
        if self._overlay is None or self._overlay[0] != staged:
            self._overlay = (staged, self._read.overlaid(self.staged))
        return self._overlay[1]

    def by_name(self, name: str) -> MemoryEntry | None:
        for e in self.entries():
            if e.name == name:
                return e
        return None

    def entry_to_save(self, name: str) -> MemoryEntry | None:
        """The entry a save of ``name`` updates (:func:`memls.store.lookup.entry_to_save`).

        Looked up by the files' names: only the entry found is built, not one
        per file of the root.
        """
        read = self._read_staged()
        found = save_target(name, read.visible_file)
        file = read.file(found) if found is not None else None
        return read.entry_of(file) if file is not None else None

    def find(self, name: str) -> MemoryEntry:
        """The entry ``name`` means in this root (:func:`memls.store.lookup.resolve_name`)."""
        found = resolve_name(self.entries(), name)
        if found is None:
            raise KeyError(f"no memory entry named '{name}' in {self.root.scope}")
        return found

    def strict(self, entry: MemoryEntry) -> MemoryEntry:
        """The entry as its file parses strictly: writes never normalise a broken file."""
        assert entry.path is not None
        data = self.bytes_of(entry.path)
        if data is None:
            raise KeyError(f"no memory entry named '{entry.name}' in {self.root.scope}")
        return strict_entry(entry.path, data, self.root.scope)

    # staging

    def write_entry(
        self, entry: MemoryEntry, *, create_only: bool = False, source: Path | None = None
    ) -> MemoryEntry:
        """Stage an entry's file; return it as the strict reader reads it back.

        An entry that already has a file (``source``, the entry's own path
        unless it moves) is written as edits of that file's text: only the
        keys whose values change are rewritten, so comments, key order,
        unknown keys and line endings survive (:mod:`memls.store.rewrite`).
        A new file is gptme's serialization. Either way the bytes must read
        back as the serialized entry would, or the serialization is written.

        A file whose bytes would not change is not staged, so re-running a
        write (the same supersede twice) leaves the file untouched.
        """
        assert entry.path is not None
        data = serialize(entry)
        reread = strict_entry(entry.path, data, self.root.scope)
        original = self.bytes_of(source or entry.path)
        edited = self._edited(source or entry.path, entry)
        if edited is not None and original is not None and _breaks(original, edited):
            edited = None
        if edited is not None:
            # The edit must read back as the entry meant, or as its serialization
            # would (the serialization folds a ``|`` description, the edit keeps it).
            for expected in (entry, reread):
                if _reads_as(entry.path, edited, self.root.scope, expected):
                    data, reread = edited, expected
                    break
        if data is not edited and original is not None:
            _refuse_losing_comments(entry.path, original, data)
            _refuse_rewriting_other_keys(entry.path, original, data, entry)
            kept = _with_original_body(data, original)
            if kept is not None and _reads_as(entry.path, kept, self.root.scope, reread):
                data = kept
        if not create_only and self.bytes_of(entry.path) == data:
            return reread
        self.staged[entry.path] = data
        if create_only:
            self.create_only.add(entry.path)
        return reread

    def _edited(self, source: Path, entry: MemoryEntry) -> bytes | None:
        """``source``'s current bytes edited to hold ``entry``; None when there is no such file."""
        data = self.bytes_of(source)
        if data is None:
            return None
        try:
            text = rewritten_text(data.decode("utf-8"), entry)
            return None if text is None else text.encode("utf-8")
        except (UnicodeError, ValueError, yaml.YAMLError):
            return None

    def delete(self, path: Path) -> None:
        self.staged[path] = None

    def transfer_selection(self, old_filename: str, new_filename: str) -> None:
        if self.policy is not None and old_filename in self.policy.selected:
            self.policy = self.policy.replace_selected(old_filename, new_filename)
            self._stage_policy()

    def drop_selection(self, filename: str) -> None:
        if self.policy is not None and filename in self.policy.selected:
            self.policy = replace(
                self.policy, selected=tuple(f for f in self.policy.selected if f != filename)
            )
            self._stage_policy()

    def _stage_policy(self) -> None:
        assert self.policy is not None
        data = self.policy.dumps().encode("utf-8")
        if read_bytes(self.policy_path) != data:
            self.staged[self.policy_path] = data
        else:
            self.staged.pop(self.policy_path, None)

    def _index_text(self) -> str:
        if self.index_path not in self.staged:
            # As read under the lock, decoded once (a 10k-entry index is a 2 MB string), not read
            # again: an editor's write since (it takes no lock) makes the commit refuse, not this.
            return self._original_text or ""
        data = self.staged[self.index_path]
        if data is None:
            return ""
        if self._original_utf8 and data == self._original_index:
            assert self._original_text is not None
            return self._original_text
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(
                f"{self.index_path} is not UTF-8 text (byte {exc.start}); fix it before writing"
            ) from None

    def _stage_index(self, text: str) -> None:
        data = text.encode("utf-8")
        if data != self._original_index:
            self.staged[self.index_path] = data
        else:
            self.staged.pop(self.index_path, None)
        self._rendering = None

    def _stage_rendering(self) -> None:
        """Stage the index rendered whole; once committed, its bytes are known as memls's rendering.

        The lines of memories a rendering cannot list stay (:mod:`memls.store.unlisted_lines`).
        """
        current = self._index_text() if self._original_index is not None else None
        self._stage_index(keep_unlisted_lines(current, self._render(), self._read_staged().unlisted_files(),
                                              policy=self.policy))
        self._rendering = self.staged.get(self.index_path)

    def _render(self) -> str:
        if self.policy is None and self._legacy_budget() is None:
            return self._legacy_rendering()
        if self.policy is not None:
            return render_policy_view(self._selected_entries(self.policy), self.policy)
        entries = index_entries(self._read_staged().entries_for_index, managed=False)
        return render_index(entries, budget=self._legacy_budget())

    def _selected_entries(self, policy: IndexPolicy) -> list[MemoryEntry]:
        """The index entries of the files ``policy`` selects (all a managed view shows), staged overlay.

        Only those are built: the view renders the selected files, so the
        rest of a 10k root is never looked at.
        """
        read = self._read_staged()
        out = []
        for filename in policy.selected:
            file = read.file(filename)
            record = None if file is None else file.record or file.headline
            if record is not None:
                out.append(entry_from_record(record, self.root.path / filename, self.root.scope))
        return out

    def _legacy_budget(self) -> int | None:
        """The budget a generated legacy index was rendered with (its omission marker), kept."""
        if self._original_text is None:
            return None
        return omission_budget(self._original_text)

    def _regenerate(self) -> bool:
        """Whether the index may be rewritten whole: managed, absent, or generated.

        A legacy index is generated only when its bytes are memls's rendering
        of the root before or after this change (:func:`is_generated_index`);
        every other one is curated and gets line edits only.
        """
        if self.policy is not None or self._original_text is None:
            return True
        if self._written_as_rendering is None:
            self._written_as_rendering = written_as_rendering(self.root.path, self._original_index)
        if self._written_as_rendering:
            return True  # memls wrote these very bytes as the rendering, whatever changed since
        text = self._original_text
        if omission_budget(text) is not None:
            return is_generated_index(
                text, self._read.entries_for_index, self._read_staged().entries_for_index,
            )
        # Compared piece by piece with the root's index view: a curated index
        # (most of them) needs neither rendering, a generated one only the
        # one after, which it writes.
        if not opens_like_a_rendering(text):
            return False
        if self._rendered_before is None:  # the root as read (or as cached before): the same all along
            unlisted = self._read.unlisted_files
            self._rendered_before = self._renders_keeping(text, {}, unlisted) or (
                bool(self._read.earlier) and self._renders_keeping(text, self._earlier_entries(), unlisted))
        after = self._legacy_changes()
        return self._rendered_before or bool(after) and self._renders_keeping(
            text, after, self._read_staged().unlisted_files)

    def _renders_keeping(
        self, text: str, changes: dict[str, MemoryEntry | None], unlisted: Callable[[], Collection[str]],
    ) -> bool:
        """Whether ``text`` is the legacy rendering with ``changes`` laid over the read, or it plus the kept lines of ``unlisted`` files.

        Compared piece by piece first; the rendering itself is built only
        for an index that is not it exactly (:func:`renders_keeping_unlisted`).
        """
        return self._legacy_renders(text, changes) or renders_keeping_unlisted(
            text, self._legacy_rendering_with(changes), unlisted)

    def _earlier_entries(self) -> dict[str, MemoryEntry | None]:
        """The index entries of the files that changed since the parse cache was written, as it held them.

        An index rendered then, before an editor or another tool changed an
        entry without rendering it again, is a lagging rendering, not a
        curated one: gptme would render it whole, and so does memls. Files the
        cache did not hold count as unchanged, so an index a person shortened
        by one line never matches.
        """
        earlier: dict[str, MemoryEntry | None] = {}
        for filename, held in self._read.earlier.items():
            record = held.record or held.headline
            earlier[filename] = None if record is None else entry_from_record(
                record, self.root.path / filename, self.root.scope)
        return earlier

    def _legacy_changes(self) -> dict[str, MemoryEntry | None]:
        """The staged entry files' index entries (None: none), for the legacy index view."""
        changed = tuple(sorted(self._staged_entry_files().items()))
        if self._changes is not None and self._changes[0] == changed:
            return self._changes[1]
        staged = self._read_staged()
        after: dict[str, MemoryEntry | None] = {}
        for filename, _ in changed:
            found = staged.file(filename)
            record = None if found is None else (found.record or found.headline)
            after[filename] = None if record is None else entry_from_record(
                record, self.root.path / filename, self.root.scope)
        self._changes = (changed, after)
        return after

    def _legacy_rendering(self) -> str:
        """The root's unbudgeted legacy index after the staged files.

        Made from the root's index view before the change (an :class:`IndexView`,
        kept by the store between writes) with only the staged entry files'
        lines moved, so a save at 10k entries renders nothing else.
        """
        return self._legacy_rendering_with(self._legacy_changes())

    def _legacy_rendering_with(self, after: dict[str, MemoryEntry | None]) -> str:
        """The root's unbudgeted legacy index with ``after`` laid over the read (the read's own built once)."""
        if not after and self._rendering_of_read is not None:
            return self._rendering_of_read
        if self._warm is not None:
            rendering = self._warm.rendering_with(self._read, after)
        else:
            rendering = self._cold_view().rendering_with(after)
        if not after:
            self._rendering_of_read = rendering
        return rendering

    def _legacy_renders(self, text: str, after: dict[str, MemoryEntry | None]) -> bool:
        """Whether ``text`` is the root's unbudgeted legacy index with ``after`` laid over the read."""
        if self._warm is not None:
            return self._warm.renders_with(self._read, after, text)
        return self._cold_view().renders_with(after, text)

    def _cold_view(self) -> IndexView:
        """The index view of the read, built once per transaction when no store keeps one."""
        if self._view is None:
            read = self._read  # the filenames beside the entries, in the order the read builds them
            filenames = (f.filename for f in read.files if f.record is not None or f.headline is not None)
            self._view = IndexView.build(zip(filenames, read.entries_for_index, strict=True))
        return self._view

    def update_index_for_save(self, entry: MemoryEntry, previous: MemoryEntry | None = None) -> None:
        """A generated index is rendered again; a curated one has only this entry's line edited.

        In a curated index the entry's line follows the save only in the parts
        that were memls's own text for ``previous`` (link text, hook), so a
        hand-written hook survives and a body-only save changes nothing; an
        entry without a line gets one appended, as gptme's upsert does. A
        generated index stays generated: the line lands in its type's section
        in memls's order (gptme appends it at the end).
        """
        if self._regenerate() and (self.policy is not None or self._original_index is not None):
            self._stage_rendering()
        elif entry.is_living:
            self._stage_index(refresh_index_line(self._index_text(), previous, entry,
                                                 moved_from=self._lines_left_behind(entry)))
        elif self._original_index is not None:
            self._stage_index(self._without_line(self._index_text(), entry))

    def update_index_for_lifecycle(
        self, changed: list[MemoryEntry], *, deleted: bool = False
    ) -> None:
        """Index after a status change or delete: regenerate, or edit the changed lines.

        In a curated index a retired or deleted entry loses its line; a
        living one gets a line only if it has none, so its own text stays.
        """
        if self._regenerate():
            self._stage_rendering()
            return
        text = self._index_text()
        for entry in changed:
            if deleted or not entry.is_living:
                text = self._without_line(text, entry)
            elif not _has_pointer(text, entry.filename):  # its line left behind by a hand move, else a new one
                text = refresh_index_line(text, entry, entry, moved_from=self._lines_left_behind(entry))
        self._stage_index(text)

    def update_index_for_supersede(self, old: MemoryEntry, new: MemoryEntry) -> None:
        """Index after a supersede: regenerate, or put the successor where the old line was.

        In a curated index the replacement takes the old pointer's place; if
        it already has a line of its own, that line stays as written and the
        old one goes. An index that never listed the old entry gets no new
        line it did not ask for.
        """
        if self._regenerate():
            self._stage_rendering()
            return
        text = self._index_text()
        old_moved, new_moved = self._lines_left_behind(old), self._lines_left_behind(new)
        if not gets_index_line(new):
            text = remove_index_line(text, old.filename, old_moved)
        elif pointers_to(text, {new.filename, *new_moved}):
            # The successor's own line stays as written, pointed at its file if a hand move left it behind.
            text = refresh_index_line(remove_index_line(text, old.filename, old_moved), new, new, moved_from=new_moved)
        else:
            text = replace_pointer(text, old.filename, new.index_line(), old_moved)
        self._stage_index(text)

    def update_index_for_rename(self, old: MemoryEntry, renamed: MemoryEntry) -> None:
        """Index after a rename: regenerate, or retarget the entry's own pointer in place.

        A curated line keeps its link text and its hook: only the link
        target changes, and the link text only when it was the old name.
        An entry the curated index leaves out stays out: a rename moves the
        entry's line, it does not write one the person curating chose not to
        (as the editor's rename, :func:`memls.store.rename_plan.plan_rename`).
        """
        if self._regenerate():
            self._stage_rendering()
            return
        text = self._index_text()
        moved_from = self._lines_left_behind(old)
        if not pointers_to(text, {old.filename, *moved_from}):
            return
        if renamed.is_living:
            text = refresh_index_line(text, old, renamed, moved_from=moved_from)
        else:
            text = remove_index_line(text, old.filename, moved_from)
        self._stage_index(text)

    def stale_lines_at(self, filename: str, entry: MemoryEntry) -> list[int]:
        """The curated index's lines (1-based) that point at ``filename``, where no file is, and are not ``entry``'s.

        What a rename onto ``filename`` refuses (:func:`memls.store.index.stale_line_error`).
        A generated or managed index is rendered again (the line goes), and
        a line ``entry`` left there by a hand move is its own, unless the
        entry has a line at its file too: both would then point at one file.
        """
        if filename == entry.filename or self._regenerate():
            return []
        text = self._index_text()
        if filename in self._lines_left_behind(entry) and not pointers_to(text, {entry.filename}):
            return []
        return [link.line + 1 for link in pointers_to(text, {filename})]

    def line_of_another_at(self, entry: MemoryEntry) -> tuple[int, MemoryEntry] | None:
        """A curated line (1-based) at ``entry``'s file, not written yet, left there by another entry's move, with it.

        ``mv deploy.md d3.md`` after the line was pointed at ``deploy-notes.md``
        leaves ``- [deploy](deploy-notes.md)`` at a file no entry holds. A
        save creating ``deploy-notes.md`` would take that line, with the
        words written for ``deploy``, as its own; it is refused instead (as
        a rename onto such a line is) until the line is pointed at its entry.
        """
        if self._regenerate():
            return None
        for link in pointers_to(self._index_text(), {entry.filename}):
            if link.title in (entry.name, entry.index_title):
                continue
            for other in self.entries():
                if other.path != entry.path and link.title in (other.name, other.index_title) \
                        and entry.filename in self._lines_left_behind(other):
                    return link.line + 1, other
        return None

    def _without_line(self, text: str, entry: MemoryEntry) -> str:
        """``text`` without ``entry``'s line, at its file or where a hand move left it."""
        return remove_index_line(text, entry.filename, self._lines_left_behind(entry))

    def _lines_left_behind(self, entry: MemoryEntry) -> list[str]:
        """:func:`memls.store.index.lines_left_behind`, but for a file this transaction writes (its own line)."""
        def entries() -> list[MemoryEntry]:  # asked only for a line another entry may be meant by
            return self._read.entries

        return [name for name in lines_left_behind(self.root.path, entry, self._index_text(), entries)
                if self.staged.get(self.root.path / name) is None]

    # commit

    def commit(self, *, expect_visible: list[MemoryEntry]) -> None:
        """Prove the round trip on the staged overlay, then commit every file.

        Each expected entry must be what the readers find under its name,
        and every file the readers found before must still be found unless
        this change deletes it: a write that hides another entry (by taking
        its name first in file order) loses it for every reader.
        """
        if not self.staged:
            return
        after = self._read_staged()
        for entry in expect_visible:
            assert entry.path is not None
            other = after.visible_file(entry.name)
            if other != entry.path.name or entry.path.parent != self.root.path:
                why = (
                    f"{other} already holds that name" if other is not None
                    else "the readers would skip its file"
                )
                raise RoundTripError(
                    f"refusing to write '{entry.name}' to {entry.path}: {why}"
                )
        self._refuse_hiding(after)
        changes = [
            FileDelete(path) if data is None
            else FileWrite(path, data, create_only=path in self.create_only, mode=self.modes.get(path),
                           # an editor saving MEMORY.md takes no lock: its lines must not be replaced unseen
                           expected=self._original_index if path == self.index_path else None,
                           # (read as absent: created only where still absent; a link there is refused anyway)
                           expect_absent=path == self.index_path and self._original_index is None)
            for path, data in self.staged.items()
        ]
        commit(changes, root=self.root.path)
        if self._rendering is not None and self.staged.get(self.index_path) == self._rendering:
            remember_rendering(self.root.path, self._rendering)
        if self._warm is not None:
            self._warm.committed({
                filename: (data, read) for filename, data in self._staged_entry_files().items()
                if data is not None and (read := after.file(filename)) is not None
            })

    def _refuse_hiding(self, after: RootRead) -> None:
        """Refuse the change if a file the readers saw before is no longer seen, unless deleted.

        Which file shows a name can change only for the names the staged
        files held before or hold after, so only those are looked at; in file
        order, so the file named is the one a check of every name meets first.
        """
        before = self._read
        deleted = {path.name for path, data in self.staged.items() if data is None}
        touched: set[str] = set()
        for filename in self._staged_entry_files():
            for read in (before.file(filename), after.file(filename)):
                if read is not None and read.name is not None:
                    touched.add(read.name)
        shown = sorted(
            (shown_file, name) for name in touched
            if (shown_file := before.visible_file(name)) is not None
        )
        for filename, name in shown:
            now = after.file(filename)
            if filename in deleted or (
                now is not None and now.name is not None and after.visible_file(now.name) == filename
            ):
                continue
            hidden_by = after.visible_file(name)
            why = (
                f"{hidden_by} would take its name '{name}'"
                if hidden_by is not None else "it would no longer be read"
            )
            raise RoundTripError(f"refusing this change: {filename} would be hidden ({why})")

    def _staged_entry_files(self) -> dict[str, bytes | None]:
        """The staged entry files of this root by file name (None: deleted)."""
        return {
            path.name: data for path, data in self.staged.items()
            if path.parent == self.root.path and is_entry_filename(path.name)
        }


def _has_pointer(text: str, filename: str) -> bool:
    return bool(pointers_to(text, {filename}))
