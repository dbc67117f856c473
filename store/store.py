"""The memory store: layered reads, locked writes that prove their round trip.

``MemoryStore`` keeps gptme's public API (same names, signatures and
semantics) and adds the lifecycle operations gptme lacks: ``rename``,
``delete`` and ``set_status``. Every write follows one shape:

1. refuse what no reader would find (reserved names, unsafe text) before
   anything touches disk;
2. take the root lock, read the root, compute every file the change touches;
3. re-read the staged bytes through the same reader as list/show/recall/index
   (:meth:`memls.store.reader.RootRead.overlaid`) and refuse if the entry would not
   be found there, or if another entry would be hidden;
4. commit all files at once (staged, fsynced, renamed, rolled back on failure).

Deliberate differences from gptme, each closing a way to lose or hide data:

* Names and text no reader would find are refused before anything is
  created: no root directory, no ``.memory.lock``, no ``MEMORY.md`` (gptme
  creates the root first). That covers reserved ``memory*`` names, names
  that YAML reads back as another value, and every input whose serialized
  entry would not parse back (unencodable text, unrepresentable metadata,
  files over the reader's size cap).
* Description, title and type line breaks are folded to spaces, other
  control characters are refused, and a title may not contain ``]``: each
  of them becomes part of one ``MEMORY.md`` line.
* A legacy ``save`` of a non-living entry removes its index line instead of
  upserting it: the index lists living entries only.
* Legacy ``supersede``, ``rename``, ``delete`` and ``set_status`` regenerate
  ``MEMORY.md`` only when it is absent or machine-made
  (:func:`memls.store.index.is_generated_index`); a hand-curated index only has the
  affected pointer lines edited (gptme regenerates and clobbers it).
* Dot-files are not entries (see :mod:`memls.store.reader`).
* A NAME means the entry with that exact ``name``; a stem or slug match only
  when no entry has it and one entry matches (:mod:`memls.store.lookup`).
  ``save`` updates that entry in place and never overwrites a file holding
  another entry (gptme picks the first match in name order, and overwrites).
* A write never hides an entry the readers could see before it: a save whose
  file would be shadowed by, or would shadow, another file with the same
  name in its root is refused with ``RoundTripError``.
* ``rename`` creates the new file and never overwrites one; ``delete``
  refuses an entry that is still another entry's ``superseded_by``.
"""

from __future__ import annotations

import stat
import unicodedata
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .audit import AuditIssue
from .entry import DEFAULT_TYPE, STATUSES, MemoryEntry, entry_from_record
from .errors import RoundTripError
from .files import read_lock
from .index import (
    INDEX_FILENAME,
    IndexPolicy,
    check_index_name,
    claimed_line_error,
    index_entries,
    render_index,
    render_policy_view,
    stale_line_error,
)
from .lookup import resolve_name
from .names import check_name, slugify
from .reader import RootRead, read_file, read_root, shadow_by_name
from .roots import MemoryRoot, default_write_root, resolve_roots
from .text import fold_line_breaks

if TYPE_CHECKING:
    from .replay import Observation
    from .transaction import RootTransaction
    from .warm_root import WarmRoot

# The write machinery (transaction, commit, locks for writing, YAML) is imported
# by the methods that write: a read command never loads it.


class MemoryStore:
    """Reads union every root (nearest layer wins on name); writes target one scope."""

    def __init__(self, roots: Iterable[MemoryRoot]):
        self.roots = list(roots)
        self.errors: list[tuple[Path, str]] = []
        # Each written root's last read, so the next write re-reads only what changed.
        self._warm: dict[tuple[Path, str], WarmRoot] = {}

    @classmethod
    def from_workspace(
        cls, workspace: Path | None = None, **kwargs: Any
    ) -> MemoryStore:
        return cls(resolve_roots(workspace, **kwargs))

    # -- reads -------------------------------------------------------------

    def root(self, scope: str | None) -> MemoryRoot:
        if scope is None:
            return default_write_root(self.roots)
        for r in self.roots:
            if r.scope == scope:
                return r
        available = ", ".join(r.scope for r in self.roots) or "none"
        raise KeyError(f"no memory root for scope '{scope}' (available: {available})")

    def _read(self, roots: Iterable[MemoryRoot]) -> list[RootRead]:
        self.errors = []
        reads = []
        for r in roots:
            read = read_root(r.path, r.scope)
            if read.forgot_earlier:  # the state a lagging index renders is kept as that index's provenance
                from .index_provenance import remember_forgotten_rendering
                remember_forgotten_rendering(read)
            self.errors.extend(read.errors)
            reads.append(read)
        return reads

    def entries(
        self,
        *,
        type: str | None = None,
        status: str | None = None,
        scope: str | None = None,
    ) -> list[MemoryEntry]:
        roots = self.roots if scope is None else [r for r in self.roots if r.scope == scope]
        merged = shadow_by_name(e for read in self._read(roots) for e in read.entries)
        if type is not None:
            merged = [e for e in merged if e.type == type]
        if status is not None:
            merged = [e for e in merged if e.status == status]
        return sorted(merged, key=lambda e: e.name)

    def index_entries(self, scope: str | None = None) -> list[MemoryEntry]:
        """Entries that belong in the index of one physical root.

        An index is always built from one directory, never from every root
        that shares a scope name (that would link to files elsewhere).
        Policy-managed roots select by filename, so every file counts even
        when two share a name; legacy roots keep the first of each name.
        """
        root = self.root(scope)
        return _index_entries(
            self._read([root])[0], managed=IndexPolicy.read(root.path) is not None
        )

    def get(self, name: str, scope: str | None = None) -> MemoryEntry | None:
        """The entry ``name`` means across the roots (nearest first), None when none.

        The entry named exactly ``name``; a file stem or slug match only when
        no entry has that name, and refused (``AmbiguousNameError``) when
        several match that way (see :mod:`memls.store.lookup`). Only the entry
        found is built: the rest is looked at through its file records.
        """
        roots = self.roots if scope is None else [r for r in self.roots if r.scope == scope]
        found = resolve_name(
            ((root, filename, entry_name)
             for root, (names, _) in zip(roots, self._names(roots)) for filename, entry_name in names),
            name,
            name_of=lambda match: match[2],
            filename_of=lambda match: match[1],
        )
        if found is None:
            return None
        root, filename, entry_name = found
        file = read_file(root.path, filename, root.scope)
        if file.record is None or file.name != entry_name:  # changed since it was listed: look again
            return self._get_read(roots, name)
        return entry_from_record(file.record, root.path / filename, root.scope)

    def _names(self, roots: list[MemoryRoot]) -> list[tuple[list[tuple[str, str]], list[tuple[str, str]]]]:
        """Per root: (file name, entry name) of every entry file, and (file name, why) of the rest.

        What a lookup by name needs, replayed while no file changed (10k
        names load in a few milliseconds, 10k parsed entries do not); sets
        :attr:`errors` as a read does.
        """
        from .replay import replayed

        def compute() -> list:
            return [
                ([(f.filename, f.name) for f in read.files if f.name is not None],
                 [(f.filename, f.error or "not a memory entry") for f in read.files if f.name is None])
                for read in self._read(roots)
            ]

        views = replayed("names", roots, "", compute)
        self.errors = [
            (root.path / filename, why) for root, (_, errors) in zip(roots, views) for filename, why in errors
        ]
        return views

    def _get_read(self, roots: list[MemoryRoot], name: str) -> MemoryEntry | None:
        """:meth:`get` from a full read of ``roots``."""
        found = resolve_name(
            ((read, f) for read in self._read(roots) for f in read.files),
            name,
            name_of=lambda match: match[1].name,
            filename_of=lambda match: match[1].filename,
        )
        if found is None:
            return None
        read, file = found
        return read.entry_of(file)

    # -- index -------------------------------------------------------------

    @staticmethod
    def render_index(
        entries: Iterable[MemoryEntry], *, budget: int | None = None
    ) -> str:
        """Generate the always-on index: living entries grouped by type, one line each."""
        return render_index(entries, budget=budget)

    def index_path(self, scope: str | None = None) -> Path:
        return self.root(scope).path / INDEX_FILENAME

    def render_root_index(
        self, scope: str | None = None, *, budget: int | None = None
    ) -> str:
        """Render one root using its persistent selection and budget, if present.

        Read under the root lock so a supersede between its renames is never
        observed; a read-only root has no concurrent writer, so it is read
        without the lock rather than failing.
        """
        root = self.root(scope)
        return self._rendered(root, budget=budget, locked=False)

    def write_index(self, scope: str | None = None, *, budget: int | None = None) -> Path:
        """Regenerate ``MEMORY.md`` from entries read inside the lock."""
        from .files import FileWrite, commit, root_lock
        from .index_provenance import remember_rendering
        from .safe_read import FileTooLarge, text_to_rewrite

        root = self.root(scope)
        with root_lock(root.path, create_root=True):
            text = self._render_unlocked(root, budget=budget)
            path = root.path / INDEX_FILENAME
            # A FIFO, a device or non-UTF-8 bytes refuse; an index past 64 MiB is
            # replaced (regenerating it is the remedy its check names).
            try:
                current = text_to_rewrite(path)
            except FileTooLarge:
                current = None
            data = text.encode("utf-8")
            if current is None or current[0] != data:
                commit([FileWrite(path, data)], root=root.path)
            remember_rendering(root.path, data)
        return path

    def check_index(self, scope: str | None = None, *, budget: int | None = None) -> bool:
        """True when the on-disk index equals the regenerated one byte for byte."""
        from .safe_read import FileTooLarge, NotRegularFile
        from .transaction import read_bytes

        root = self.root(scope)
        with read_lock(root.path):
            try:
                current = read_bytes(root.path / INDEX_FILENAME)
            except (NotRegularFile, IsADirectoryError, FileTooLarge):
                return False  # never equal to a rendering: it is not read
            if current is None:
                return False
            return current == self._rendered(root, budget=budget, locked=True).encode("utf-8")

    def _rendered(self, root: MemoryRoot, *, budget: int | None, locked: bool) -> str:
        """The root's index as :meth:`_render_unlocked` renders it, replayed while no file changed.

        Rendered under the root lock (taken here unless ``locked``); a replay
        needs none (see :func:`memls.store.replay.replayed`). :attr:`errors`
        is set as the rendering's read set it.
        """
        from .replay import replayed

        def compute() -> tuple[str, list[tuple[str, str]]]:
            text = self._render_unlocked(root, budget=budget)
            return text, [(str(path), why) for path, why in self.errors]

        text, errors = replayed(
            "index", [root], repr(budget), compute,
            guard=None if locked else lambda: read_lock(root.path),
        )
        self.errors = [(Path(path), why) for path, why in errors]
        return text

    def _render_unlocked(self, root: MemoryRoot, *, budget: int | None = None) -> str:
        policy = IndexPolicy.read(root.path)
        entries = _index_entries(self._read([root])[0], managed=policy is not None)
        if policy is None:
            return render_index(entries, budget=budget)
        return render_policy_view(entries, policy, budget=budget)

    # -- writes ------------------------------------------------------------

    def _transaction(self, root: MemoryRoot) -> RootTransaction:
        """A transaction on ``root`` (taken under its lock), from the root's last read when kept.

        A store that writes again and again (an agent's session) keeps each
        root's read between writes (:mod:`memls.store.warm_root`); with the
        caches off (``MEMLS_NO_CACHE``) every write reads the root afresh.
        """
        from .cache import cache_enabled
        from .transaction import RootTransaction
        from .warm_root import WarmRoot

        if not cache_enabled():
            self._warm.clear()
            return RootTransaction(root)
        key = (root.path, root.scope)
        warm = self._warm.get(key)
        if warm is None:
            warm = self._warm[key] = WarmRoot(root.path, root.scope)
        return RootTransaction(root, warm)

    def save(
        self,
        name: str,
        description: str,
        body: str = "",
        *,
        type: str | None = None,
        scope: str | None = None,
        title: str | None = None,
        metadata: dict[str, Any] | None = None,
        keywords: list[str] | None = None,
        new: bool = False,
    ) -> Path:
        """Write an entry, preserving existing lifecycle and omitted metadata.

        A policy-managed root regenerates its selected view within the stored
        budget, committing entry and index together; new entries stay
        recallable but are not selected. A legacy root upserts the entry's
        line, so a hand-curated ``MEMORY.md`` keeps its prose.

        The root lock serialises this write against every other writer,
        gptme's included: a supersede replaces ``MEMORY.md`` by rename, which
        would strand a lock held on the old inode.

        Unlike gptme, every argument is checked, and the entry a new file
        would hold is serialized and read back, before the root directory or
        its lock file is created; a legacy save of a non-living entry removes
        its index line instead of adding one; a file the readers would not
        find under its name (shadowed by an earlier file of the same name) or
        that would hide another file is refused with ``RoundTripError``.

        The entry saved is the one named ``name`` (else ``slugify(name)``, the
        name a new entry gets), updated in place wherever its file is; a new
        entry goes to ``<slug>.md``, and when that file holds another entry the
        save is refused instead of overwriting it (gptme overwrites it).

        ``new`` makes the save create-only: it is refused when any file of the
        root holds the name (or its slug) or ``<slug>.md`` exists, and the file
        is created, never replaced. An editor asking for a *new* memory must
        not update one it could not see (its buffer renamed it, unsaved).
        """
        from .files import root_lock

        slug = check_name(name)
        description = single_line(description, "description")
        title = single_line(title, "title") if title is not None else None
        if title is not None and ("[" in title or "]" in title):
            raise ValueError("title must not contain '[' or ']': it would break its MEMORY.md link")
        if type is not None:
            type = check_type(type)
        if not isinstance(body, str):
            raise ValueError("body must be a string")
        if metadata is not None and not isinstance(metadata, dict):
            raise ValueError("metadata must be a mapping of keys to values")
        if keywords is not None:
            keywords = check_keywords(keywords)
        root = self.root(scope)
        path = root.path / f"{slug}.md"
        # The entry a new file would hold depends on the arguments alone:
        # prove it reads back before creating the root or its lock file.
        fresh = MemoryEntry(
            name=slug,
            description=description,
            body=body,
            type=type if type is not None else DEFAULT_TYPE,
            title=title,
            metadata=dict(metadata or {}),
            keywords=list(keywords or []),
            path=path,
            scope=root.scope,
        )
        check_index_fields(_read_back(fresh, create=True))
        with root_lock(root.path, create_root=True):
            tx = self._transaction(root)
            previous = (_entry_before_create if new else _entry_before_save)(tx, name, slug)
            if tx.bytes_of(path) is None and (claimed := tx.line_of_another_at(previous)) is not None:
                raise claimed_line_error(slug, path.name, *claimed)
            entry = replace(
                previous,
                description=description,
                body=body,
                type=type if type is not None else previous.type,
                title=title if title is not None else previous.title,
                metadata={**previous.metadata, **(metadata or {})},
                keywords=list(keywords) if keywords is not None else previous.keywords,
            )
            entry = tx.write_entry(entry, create_only=new)
            check_index_fields(entry)
            tx.update_index_for_save(entry, previous)
            tx.commit(expect_visible=[entry])
        assert entry.path is not None
        return entry.path

    def supersede(
        self, old_name: str, new_name: str, *, scope: str | None = None
    ) -> tuple[MemoryEntry, MemoryEntry]:
        """Mark ``old_name`` superseded by ``new_name`` and link both entries.

        Supersession stays inside one root, so a project memory never mutates
        a same-named user memory. Both files are parsed strictly, so a
        malformed file is reported instead of being normalised by the lenient
        reader. The root lock makes two concurrent supersedes of one entry
        serialise: the second sees it is no longer living.
        """
        from .files import root_lock

        root = self.root(scope)
        _require_root(root, old_name)
        with root_lock(root.path, create_root=False):
            tx = self._transaction(root)
            old = tx.find(old_name)
            new = tx.find(new_name)
            if old.path == new.path:
                raise ValueError(f"cannot supersede entry '{old.name}' with itself")
            old = tx.strict(old)
            new = tx.strict(new)
            check_index_name(new)  # its line goes into MEMORY.md
            if not new.is_living:
                raise ValueError(f"replacement entry '{new.name}' is not living")
            if not old.is_living and old.superseded_by != new.name:
                raise ValueError(f"entry '{old.name}' is not living")
            old = replace(old, status="superseded", superseded_by=new.name)
            if old.name not in new.supersedes:
                new = replace(new, supersedes=[*new.supersedes, old.name])
            old = tx.write_entry(old)
            new = tx.write_entry(new)
            tx.transfer_selection(old.filename, new.filename)
            tx.update_index_for_supersede(old, new)
            tx.commit(expect_visible=[old, new])
        return old, new

    def rename(
        self, old_name: str, new_name: str, *, scope: str | None = None
    ) -> MemoryEntry:
        """Rename an entry: its name, its file, every link to it and its index line.

        One commit under the root lock, so no reader sees links to a name
        that no longer exists. The new file is created, never overwritten.
        """
        from .files import root_lock

        new_slug = check_name(new_name)
        root = self.root(scope)
        _require_root(root, old_name)
        with root_lock(root.path, create_root=False):
            tx = self._transaction(root)
            old = tx.strict(tx.find(old_name))
            assert old.path is not None  # read from its file
            new_path = root.path / f"{new_slug}.md"
            if new_path != old.path and tx.bytes_of(new_path) is not None:
                raise FileExistsError(
                    f"cannot rename '{old.name}' to '{new_name}': {new_path.name} already exists"
                )
            clash = tx.by_name(new_slug) or next(
                (e for e in tx.entries() if e.path != old.path and slugify(e.name) == new_slug), None)
            if clash is not None and clash.path != old.path:
                raise ValueError(
                    f"cannot rename '{old.name}' to '{new_slug}': {clash.filename} holds '{clash.name}', "
                    "whose file name is the same, so a save of either would overwrite the other"
                    if clash.name != new_slug else
                    f"cannot rename '{old.name}' to '{new_slug}': entry {clash.filename} already has that name"
                )
            stale = tx.stale_lines_at(new_path.name, old)
            if stale:
                raise stale_line_error(old.name, new_slug, new_path.name, stale[0])
            renamed = replace(old, name=new_slug, path=new_path)
            check_index_fields(_read_back(renamed, create=False))
            linked = []
            for other in tx.entries():
                if other.path == old.path:
                    continue
                if _links_to(other, old.name):
                    linked.append(tx.write_entry(_relink(tx.strict(other), old.name, new_slug)))
            # Written as edits of the old file, before that file is staged for deletion.
            renamed = tx.write_entry(renamed, create_only=new_path != old.path, source=old.path)
            if new_path != old.path:
                tx.delete(old.path)
                tx.modes[new_path] = stat.S_IMODE(old.path.stat().st_mode)
            tx.transfer_selection(old.filename, renamed.filename)
            tx.update_index_for_rename(old, renamed)
            tx.commit(expect_visible=[renamed])
        return renamed

    def delete(self, name: str, *, scope: str | None = None) -> MemoryEntry:
        """Delete an entry, its index line and its place in ``supersedes`` lists.

        Returns the entry that was deleted, so a caller can say which one it
        was (NAME may have matched a file stem when no entry has that name).

        An entry still named as another entry's ``superseded_by`` is refused:
        deleting it would leave that entry pointing at nothing, and only the
        user can say whether it should become living again or historical.
        """
        from .files import root_lock

        root = self.root(scope)
        _require_root(root, name)
        with root_lock(root.path, create_root=False):
            tx = self._transaction(root)
            target = tx.find(name)
            dependants = [
                e.name for e in tx.entries()
                if e.superseded_by == target.name and e.path != target.path
            ]
            if dependants:
                raise ValueError(
                    f"entry '{target.name}' is the successor of {', '.join(repr(d) for d in dependants)}; "
                    "supersede or re-link those first"
                )
            for other in tx.entries():
                if other.path != target.path and target.name in other.supersedes:
                    tx.write_entry(_unlink(tx.strict(other), target.name))
            assert target.path is not None
            tx.delete(target.path)
            tx.drop_selection(target.filename)
            # Pointer lines carry no links, so only the deleted entry's line changes.
            tx.update_index_for_lifecycle([target], deleted=True)
            tx.commit(expect_visible=[])
            return target

    def set_status(
        self, name: str, status: str, *, scope: str | None = None
    ) -> MemoryEntry:
        """Set an entry's lifecycle status (``historical`` retires it from the index).

        Making a superseded entry ``living`` again also removes it from its
        successor's ``supersedes``, so the links stay symmetric (audit clean).
        """
        from .files import root_lock

        if status not in STATUSES:
            raise ValueError(f"invalid status '{status}': expected one of {', '.join(STATUSES)}")
        root = self.root(scope)
        _require_root(root, name)
        with root_lock(root.path, create_root=False):
            tx = self._transaction(root)
            entry = tx.strict(tx.find(name))
            if status == "superseded" and not entry.superseded_by:
                raise ValueError(
                    f"entry '{entry.name}' has no successor; use supersede to mark it superseded"
                )
            updated = replace(entry, status=status)
            if status == "living" and entry.superseded_by:
                updated = replace(updated, superseded_by=None)
                successor = tx.by_name(entry.superseded_by)
                if successor is not None and entry.name in successor.supersedes:
                    tx.write_entry(_unlink(tx.strict(successor), entry.name))
            updated = tx.write_entry(updated)
            if not updated.is_living:
                tx.drop_selection(updated.filename)
            tx.update_index_for_lifecycle([updated])
            tx.commit(expect_visible=[updated])
        return updated

    # -- audit ---------------------------------------------------------------

    def audit(self, *, scope: str | None = None, observation: Observation | None = None) -> list[AuditIssue]:
        """Return parse and supersession consistency issues for one root.

        ``observation``: the roots as the caller just listed them
        (:func:`memls.store.replay.observe`; memls's CLI), not listed again.
        """
        root = self.root(scope)
        if not root.path.is_dir():
            return []
        from .audit import audit_root

        return audit_root(root, observation=observation)


def update_index_line(memory_dir: Path, entry: MemoryEntry) -> None:
    """Update a legacy pointer, or regenerate a policy-managed root's view.

    Legacy root: upsert the entry's ``- [title](file) — description`` line.
    Policy-managed root: regenerate the selected view; the entry appears only
    if the policy already selects its file, because the policy, not the
    writer, decides what fits in the always-on budget.

    As with ``save`` (and unlike gptme), a non-living entry's legacy line is
    removed rather than upserted: the index lists living entries only.
    """
    from .files import root_lock
    from .transaction import RootTransaction

    root = MemoryRoot("explicit", Path(memory_dir))
    with root_lock(root.path, create_root=True):
        tx = RootTransaction(root)
        tx.update_index_for_save(entry)
        tx.commit(expect_visible=[])


# -- helpers ------------------------------------------------------------------


# Every line break YAML and ``str.splitlines`` know, NEL included: a field
# that keeps one would split its MEMORY.md line for some reader.


def single_line(value: str, field_name: str) -> str:
    """A field that becomes part of one ``MEMORY.md`` line must be one line.

    Line breaks (``\\n``, ``\\r``, NEL, U+2028, U+2029) are folded to one
    space (what YAML does to a single newline on re-read anyway, so nothing
    the user meant is lost); other control characters, lone surrogates and
    the noncharacters U+FFFE/U+FFFF are refused because YAML or UTF-8 rejects
    them and the file would stop parsing.
    """
    if not isinstance(value, str):
        raise ValueError(f"{field_name} must be a string")
    folded = fold_line_breaks(value)
    for ch in folded:
        if ch == "\t":
            continue
        category = unicodedata.category(ch)
        if category in ("Cc", "Cs") or ch in "\ufffe\uffff":
            kind = "control character" if category == "Cc" else "unencodable character"
            raise ValueError(f"{field_name} contains the {kind} U+{ord(ch):04X}; remove it")
    return folded


def check_type(value: str) -> str:
    """The type as it will be written: a non-empty single line (it becomes a ``##`` heading)."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError("type must be a non-empty string")
    return single_line(value, "type")


def check_keywords(keywords: Any) -> list[str]:
    """Keywords must be a list of strings; a lone string is not split into letters."""
    if isinstance(keywords, str) or not isinstance(keywords, (list, tuple)):
        raise ValueError("keywords must be a list of strings")
    for keyword in keywords:
        if not isinstance(keyword, str):
            raise ValueError(f"keyword {keyword!r} must be a string")
    return list(keywords)


def check_index_fields(entry: MemoryEntry) -> None:
    """Refuse an entry (as read back) whose pointer line or heading would break.

    Catches what the argument checks cannot see, such as a ``type`` given
    inside ``metadata``.
    """
    for field_name, value in (
        ("description", entry.description),
        ("title", entry.title or ""),
        ("type", entry.type),
    ):
        if len(value.splitlines()) > 1:
            raise ValueError(f"{field_name} must be a single line: it becomes part of MEMORY.md")
    check_index_name(entry)


def _read_back(entry: MemoryEntry, *, create: bool) -> MemoryEntry:
    """The entry as the readers and the strict parser would read its file back.

    Raises when either refuses it, or when it would be read under another
    name; checked before any directory, lock file or entry is written.
    """
    from .transaction import serialize, strict_entry

    assert entry.path is not None
    reread = strict_entry(entry.path, serialize(entry), entry.scope)
    if create and reread.name != entry.name:
        raise RoundTripError(
            f"refusing to write '{entry.name}': its file would be read back as '{reread.name}'"
        )
    return reread


def _entry_before_save(tx: RootTransaction, name: str, slug: str) -> MemoryEntry:
    """The entry a save of ``name`` updates (parsed strictly), or a blank one at ``<slug>.md``.

    A file at ``<slug>.md`` that holds another entry is that entry's: the
    save is refused with a way out rather than replacing its body.
    """
    from .transaction import strict_entry

    existing = tx.entry_to_save(name)
    if existing is not None:
        return tx.strict(existing)
    path = tx.root.path / f"{slug}.md"
    data = tx.bytes_of(path)
    if data is None:
        return MemoryEntry(name=slug, path=path, scope=tx.root.scope)
    other = strict_entry(path, data, tx.root.scope)
    raise ValueError(
        f"{path.name} holds another entry, {other.name!r}: to update it, save under "
        f"that exact name; to add a new entry, choose a name that is not {name!r}"
    )


def _entry_before_create(tx: RootTransaction, name: str, slug: str) -> MemoryEntry:
    """A blank entry at ``<slug>.md``; ``FileExistsError`` when the name or the file is taken."""
    existing = tx.entry_to_save(name)
    if existing is not None:
        where = f": {existing.path.name}" if existing.path is not None else ""
        raise FileExistsError(f"an entry named '{existing.name}' already exists{where}")
    path = tx.root.path / f"{slug}.md"
    if tx.bytes_of(path) is not None:
        raise FileExistsError(f"{path.name} already exists in {tx.root.path}")
    return MemoryEntry(name=slug, path=path, scope=tx.root.scope)


def _require_root(root: MemoryRoot, name: str) -> None:
    """A lifecycle change needs an existing entry, so a missing root is a missing entry.

    Checked before the lock, because taking it would create the root.
    """
    if not root.path.is_dir():
        raise KeyError(f"no memory entry named '{name}' in {root.scope}")


def _index_entries(read: RootRead, *, managed: bool) -> list[MemoryEntry]:
    return index_entries(read.entries_for_index, managed=managed)


def _links_to(entry: MemoryEntry, name: str) -> bool:
    return name in entry.supersedes or entry.superseded_by == name


def _unlink(entry: MemoryEntry, name: str) -> MemoryEntry:
    """The entry without ``name`` in its ``supersedes`` list."""
    return replace(entry, supersedes=[s for s in entry.supersedes if s != name])


def _relink(entry: MemoryEntry, old: str, new: str) -> MemoryEntry:
    """The entry with every supersession link to ``old`` pointing at ``new``."""
    changed: dict[str, Any] = {}
    if old in entry.supersedes:
        changed["supersedes"] = [new if s == old else s for s in entry.supersedes]
    if entry.superseded_by == old:
        changed["superseded_by"] = new
    return replace(entry, **changed) if changed else entry
