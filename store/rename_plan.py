"""Plan an entry rename as minimal text edits plus one file rename.

The engine's :meth:`memls.store.store.MemoryStore.rename` rewrites every file it
touches from the parsed entry, under the root lock. A quick fix or an
editor rename cannot do that: the user's buffers may be unsaved, and a fix
must touch only what it fixes (comments, quoting and key order stay). So the
same change is planned here as edits over the spans the parser recorded:

* the entry's ``name:`` value,
* every ``supersedes`` item and ``superseded_by`` value in the same root
  that names the entry (supersession never crosses roots),
* the root's ``MEMORY.md`` (re-rendered when the engine would re-render
  it, else only the pointer line's link target and title),
* the ``selected`` filename in ``.memory-index.json``,
* and one :class:`RenameFile` that never overwrites.

Applied together (``memls.store.apply.apply_fixes`` or an editor workspace edit)
they leave the root as ``MemoryStore.rename`` would, entry for entry. As in
the engine, a renamed entry is named by its slug, so its name and its file
agree afterwards.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import replace
from functools import cached_property
from pathlib import Path

from .diagnostics import Fix, RenameFile, TextEdit, minimal_edit
from .edits import insert_first_key, replace_list_item, set_scalar
from .entry import MemoryEntry
from .index import (
    IndexLink,
    IndexPolicy,
    check_index_name,
    is_generated_index,
    lines_left_behind,
    omission_budget,
    opens_like_a_rendering,
    parse_index_lines,
    render_index,
    render_policy_view,
    stale_line_error,
)
from .index_view import IndexView
from .model import Document, RootState, Workspace
from .names import check_name, is_reserved_name, slugify
from .reader import is_entry_filename, shadow_by_name
from .spans import Span
from .unlisted_lines import keep_unlisted_lines, renders_keeping_unlisted

# Used when a reserved name leaves nothing once its ``memory`` prefix is gone.
FALLBACK_NAME = "entry"


def suggest_free_name(state: RootState, base: str, *, renaming: Document | None = None) -> str:
    """A slug for ``base`` that no reader skips and nothing in the root uses.

    A reserved slug loses its ``memory`` prefix (``memory-notes`` becomes
    ``notes``) because that prefix is what hides it; a taken one gets
    ``-2``, ``-3``... Taken means used by another document as a name, a slug
    or a file stem (in any case, for case-insensitive file systems);
    ``renaming`` is the document being renamed, whose own name and file do
    not count. Walks the root, so it belongs in fix builders, never in a check.
    """
    slug = slugify(base)
    while slug and is_reserved_name(slug):
        slug = slug[len("memory"):].lstrip("-")
    slug = slug or FALLBACK_NAME
    uses = _taken_names(state)
    own = _taken_by(renaming) if renaming is not None and state.documents.get(renaming.path) is renaming else set()

    def taken(key: str) -> bool:
        return uses.get(key, 0) > (key in own)

    candidate, n = slug, 1
    while taken(candidate.lower()) or (
        (state.path / f"{candidate}.md").exists()
        and (renaming is None or state.path / f"{candidate}.md" != state.path / renaming.path.name)
    ):
        n += 1
        candidate = f"{slug}-{n}"
    return candidate


def _taken_by(doc: Document) -> set[str]:
    """What ``doc`` takes from the free names: its file's stem, its name and its name's slug (lower case)."""
    keys = {doc.path.stem.lower()}
    if doc.name is not None:
        keys.update((doc.name.lower(), slugify(doc.name).lower()))
    return keys


def _taken_names(state: RootState) -> dict[str, int]:
    """How many documents of the root take each key (:func:`_taken_by`).

    Kept per root while no document changes (``RootState.revision``): every
    name problem's fix looks for a free name, and walking the root for each
    made N problems cost N times the root.
    """
    cached = state.memo.get("taken-names")
    if cached is not None and cached[0] == state.revision:
        return cached[1]
    uses: dict[str, int] = {}
    for doc in state.documents.values():
        for key in _taken_by(doc):
            uses[key] = uses.get(key, 0) + 1
    state.memo["taken-names"] = (state.revision, uses)
    return uses


def plan_rename(
    workspace: Workspace, doc: Document, new_name: str, *, saved: Mapping[str, MemoryEntry | None] | None = None,
) -> Fix:
    """Rename an entry (name, file, links, index line, policy) as one fix.

    The new name is ``slugify(new_name)``, as the engine writes it. Raises
    ``ValueError`` with a one-line message when the name is reserved or
    unusable, another entry of the root already has that name or slug, or
    the target file exists. ``saved``: the index entries, by filename, of
    the files an editor holds with unsaved changes, as saved (None: none).
    ``MEMORY.md`` on disk was rendered from those, so it is judged and
    rendered again with them, not with the buffers' text.
    """
    state = doc.root
    entry = _entry_of(doc)
    new_slug = check_name(new_name)
    check_index_name(replace(entry, name=new_slug))  # as the engine's rename: its line must be writable
    current = state.path / doc.path.name
    new_path = state.path / f"{new_slug}.md"
    clashes = _clashes(state, current, {new_name, new_slug})
    if clashes:
        raise ValueError(
            f"cannot rename '{entry.name}' to '{new_slug}': {clashes[0].path.name} already has that name"
        )
    if new_path != current:
        _refuse_existing(state, entry.name, new_path)
        _refuse_stale_line(state, entry, new_slug, new_path.name)
    operations: list = _plan_edits(state, doc, entry, new_name=new_slug, new_path=new_path, saved=saved)
    if new_path != current:
        operations.append(RenameFile(doc.path, new_path))
    title = f"Rename '{entry.name}' to '{new_slug}'"
    if new_path != current:
        title += f" ({doc.path.name} to {new_path.name})"
    return Fix(title, tuple(operations))


def plan_move_file(workspace: Workspace, doc: Document) -> Fix:
    """Rename the entry's file to its name's slug, keeping the name.

    The file follows the name: links name the entry and stay as they are;
    only the index line's target and the policy's filename change.
    """
    state = doc.root
    entry = _entry_of(doc)
    if is_reserved_name(entry.name):
        raise ValueError(
            f"cannot move '{entry.name}' to its own file: names starting with 'memory' are reserved"
        )
    new_path = state.path / f"{slugify(entry.name)}.md"
    if new_path == state.path / doc.path.name:
        raise ValueError(f"{doc.path.name} is already the file of '{entry.name}'")
    _refuse_existing(state, entry.name, new_path)
    operations: list = _plan_edits(state, doc, entry, new_name=None, new_path=new_path)
    operations.append(RenameFile(doc.path, new_path))
    return Fix(f"Rename the file to {new_path.name}", tuple(operations))


def plan_file_rename(workspace: Workspace, old_path: Path, new_path: Path) -> list[TextEdit]:
    """The edits that keep links right when the user renames an entry's file.

    For ``workspace/willRenameFiles``: the editor renames the file itself.
    An entry whose name was its file's stem keeps that bond (the name, and
    every link and index line naming it, follow the new stem); any other
    entry keeps its name, and only the index line target and the policy's
    filename change. Raises ``ValueError`` when the new file would be
    skipped by readers, leaves the root, or collides with another entry.
    """
    doc = workspace.document(old_path)
    if doc is None or doc.entry is None:
        return []
    state = doc.root
    entry = doc.entry
    if workspace.root_of(new_path) is not state:
        raise ValueError(
            f"moving {old_path.name} out of its memory root would break its links; rename it inside the root"
        )
    if not is_entry_filename(new_path.name):
        raise ValueError(
            f"readers skip {new_path.name} (names starting with 'memory', dot-files and non-.md files); choose another name"
        )
    current = state.path / doc.path.name
    new_path = state.path / new_path.name
    if new_path == current:
        return []
    _refuse_existing(state, entry.name, new_path)
    new_name: str | None = None
    if entry.name == doc.path.stem:
        new_name = new_path.stem
        check_name(new_name)
        clashes = _clashes(state, current, {new_name, slugify(new_name)})
        if clashes:
            raise ValueError(
                f"cannot rename '{entry.name}' to '{new_name}': {clashes[0].path.name} already has that name"
            )
    return _plan_edits(state, doc, entry, new_name=new_name, new_path=new_path)


# -- planning -------------------------------------------------------------------


def _entry_of(doc: Document) -> MemoryEntry:
    if doc.entry is None or doc.kind not in ("entry", "reserved"):
        raise ValueError(f"{doc.path.name} is not a memory entry; nothing to rename")
    return doc.entry


def _clashes(state: RootState, current: Path, names: set[str]) -> list[Document]:
    """Other entries of the root that already use one of ``names`` as name or slug."""
    paths: set[Path] = set()
    for name in names:
        paths.update(state.by_name.get(name, ()))
        paths.update(state.by_slug.get(slugify(name), ()))
    paths.discard(current)
    return [state.documents[p] for p in sorted(paths)]


def _refuse_stale_line(state: RootState, entry: MemoryEntry, new_name: str, filename: str) -> None:
    """Refuse as the engine's rename does when a curated line points at ``filename``, where no file is."""
    basis = _index_basis(state)
    links = basis.links_to(filename) if basis.index_doc is not None and basis.policy is None else []
    if not links or basis.generated_before:
        return
    own = filename in basis.left_behind(state, entry) and not basis.links_to(entry.filename)
    if not own:  # (a line the entry left there by a hand move is its own, while it has none at its file)
        raise stale_line_error(entry.name, new_name, filename, links[0].line + 1)


def _refuse_existing(state: RootState, name: str, new_path: Path) -> None:
    if new_path in state.documents or new_path.exists():
        raise ValueError(f"cannot rename '{name}': {new_path.name} already exists")


def _plan_edits(
    state: RootState, doc: Document, entry: MemoryEntry, *, new_name: str | None, new_path: Path,
    saved: Mapping[str, MemoryEntry | None] | None = None,
) -> list:
    """Edits for the entry's own file, its linkers, the index and the policy.

    ``new_name`` None keeps the name (only the file moves).
    """
    edits: list[TextEdit] = []
    renaming = new_name is not None and new_name != entry.name
    if renaming:
        assert new_name is not None
        parsed = _editable(doc)
        if "name" in parsed.frontmatter.keys:
            edits.append(set_scalar(parsed, "name", new_name))
        elif new_name != new_path.stem:
            edits.append(insert_first_key(parsed, "name", new_name))
        # Links resolve a name to the visible entry of that name; renaming a
        # hidden duplicate must leave them with the one they reach now.
        visible = state.visible(entry.name)
        if visible is doc or (visible is None and doc.kind == "reserved"):
            for path in sorted(set(state.linked_from.get(entry.name, ())) | _guessed_linkers(state, entry.name)):
                if path != doc.path:
                    edits.extend(_relink_edits(state.documents[path], entry.name, new_name))
    renamed = replace(entry, name=new_name or entry.name, path=new_path)
    old_filename = doc.path.name
    edits.extend(_index_edits(state, doc, entry, renamed, old_filename, saved or {}))
    if new_path.name != old_filename:
        edits.extend(_policy_edits(state, old_filename, new_path.name))
    return edits


def _guessed_linkers(state: RootState, name: str) -> set[Path]:
    """Entries whose YAML does not load and whose frontmatter mentions ``name``.

    Their links are unknown, so they are not in ``linked_from``, and the
    readers' line fallback reads ``supersedes: [a]`` as ``'[a]'``, so it
    cannot tell either. A rename must not leave such a link behind silently:
    relinking one is refused (``_editable``) until its YAML is fixed.
    """
    mention = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")
    return {path for path, yaml_text in _unknown_links(state) if mention.search(yaml_text)}


def _unknown_links(state: RootState) -> list[tuple[Path, str]]:
    """The frontmatter text of each entry whose links are unknown (its YAML does not load).

    Kept per root while no document changes (``RootState.revision``): the
    fixes of every name problem of a root plan a rename, and walking every
    document for each of them made N problems cost N times the root.
    """
    cached = state.memo.get("unknown-links")
    if cached is not None and cached[0] == state.revision:
        return cached[1]
    found = [
        (path, d.parsed.frontmatter.yaml_text) for path, d in state.documents.items()
        if d.facts is None and d.parsed is not None and d.parsed.frontmatter is not None
    ]
    state.memo["unknown-links"] = (state.revision, found)
    return found


def _editable(doc: Document):
    """The parse of a document whose frontmatter spans can be edited."""
    parsed = doc.parsed
    fm = parsed.frontmatter if parsed is not None else None
    if fm is None or fm.error is not None or not isinstance(fm.data, dict):
        raise ValueError(
            f"cannot edit {doc.path.name}: its frontmatter is not a valid YAML mapping; fix it first"
        )
    return parsed


def _relink_edits(other: Document, old: str, new: str) -> list[TextEdit]:
    """Point ``other``'s supersession links at ``new`` instead of ``old``."""
    parsed = _editable(other)
    data = parsed.frontmatter.data
    edits = []
    supersedes = data.get("supersedes")
    if isinstance(supersedes, list):
        for i, item in enumerate(supersedes):
            if item is not None and str(item) == old:
                edits.append(replace_list_item(parsed, "supersedes", i, new))
    elif supersedes is not None and str(supersedes) == old:
        edits.append(replace_list_item(parsed, "supersedes", 0, new))
    successor = data.get("superseded_by")
    if successor is not None and successor != "" and str(successor) == old:
        edits.append(set_scalar(parsed, "superseded_by", new))
    return edits


def _index_edits(
    state: RootState, doc: Document, entry: MemoryEntry, renamed: MemoryEntry, old_filename: str,
    saved: Mapping[str, MemoryEntry | None],
) -> list[TextEdit]:
    """``MEMORY.md`` after the rename, as the engine would leave it.

    A policy-managed root and a generated legacy index (exactly memls's
    rendering before or after the rename) are rendered again, so the lines
    stay in memls's order; a curated index gets only its pointer line's
    target edited, and its link text when that was the old name or title,
    so every other byte (prose, other lines, the line's own hook) stays.
    What every rename of the root shares is computed once (:class:`_IndexBasis`).
    """
    basis = _index_basis(state)
    index_doc = basis.index_doc
    if index_doc is None or index_doc.read_error is not None or index_doc.too_large:
        return []
    text = index_doc.text
    policy = basis.policy
    rendered = None
    if policy is not None:
        policy = policy.replace_selected(old_filename, renamed.filename)
        try:
            rendered = render_policy_view(basis.selected_after(doc, renamed, policy), policy)
        except ValueError:  # a broken policy view: keep to the pointer line
            rendered = None
    elif opens_like_a_rendering(text):
        rendered = basis.rendering_if_generated(doc, renamed, saved)
    if rendered is not None:
        rendered = keep_unlisted_lines(text, rendered, basis.unlisted, policy=policy)
        return [minimal_edit(state.index_path, text, rendered)] if rendered != text else []
    edits = []
    # The line a hand move left at the file the entry's name gives is its line too (memls.store.index.lines_left_behind).
    links = basis.links_to(old_filename) or next(
        (found for name in basis.left_behind(state, entry) if (found := basis.links_to(name))), [])
    for link in links:
        if renamed.filename != link.target:
            edits.append(TextEdit(state.index_path, Span(link.line, link.target_span[0], link.line, link.target_span[1]), renamed.filename))
        if link.title in (entry.index_title, entry.name) and renamed.index_title != link.title:
            edits.append(TextEdit(state.index_path, Span(link.line, link.title_span[0], link.line, link.title_span[1]), renamed.index_title))
    return edits


class _IndexBasis:
    """What the index edits of every rename of one root share, computed once.

    Each name problem of a root offers renames (``name-filename-mismatch``,
    ``duplicate-name``, ...), and ``memls check --format json``, ``--fix``
    and an editor's code actions ask for the fixes of every problem at once.
    Listing the root's entries, parsing the policy and the index lines, and
    rendering the index before and after each rename made N problems cost N
    times the root. Here the root's entries, its rendering (an
    :class:`IndexView`, on which each rename moves only its own line) and
    whether ``MEMORY.md`` is that rendering are found once, and each rename
    pays for its own line. Kept while nothing it reads changes (as the
    index checks' ``_fix_basis``).
    """

    def __init__(self, state: RootState) -> None:
        self.index_doc = state.documents.get(state.index_path)
        self.policy = _policy(state)
        # The root's entries as the index sees them, in file order.
        self.before = state.entries_for_index()
        # The memories a rendering cannot list, whose lines it keeps (memls.store.unlisted_lines).
        self.unlisted = state.unlisted_entry_files()

    @cached_property
    def _text(self) -> str:
        assert self.index_doc is not None
        return self.index_doc.text

    @cached_property
    def _budget(self) -> int | None:
        return omission_budget(self._text)

    @cached_property
    def _view(self) -> IndexView:
        """The unbudgeted legacy rendering of ``before`` (``render_index(index_entries(...))``)."""
        return IndexView.build((e.filename, e) for e in self.before)

    @cached_property
    def generated_before(self) -> bool:
        if self._budget is None:
            return self._view.renders(self._text) or renders_keeping_unlisted(
                self._text, self._view.rendering(), self.unlisted)
        return is_generated_index(self._text, self.before)

    @cached_property
    def _by_filename(self) -> dict[str, MemoryEntry]:
        return {e.filename: e for e in self.before}

    @cached_property
    def _links(self) -> dict[str, list[IndexLink]]:
        by_target: dict[str, list[IndexLink]] = {}
        for link in parse_index_lines(self._text):
            by_target.setdefault(link.target, []).append(link)
        return by_target

    def left_behind(self, state: RootState, entry: MemoryEntry) -> list[str]:
        """:func:`memls.store.index.lines_left_behind` of ``entry`` in this index, among the root's entries."""
        return lines_left_behind(state.path, entry, self._text, lambda: self.before)

    def links_to(self, filename: str) -> list[IndexLink]:
        """The index's pointer lines to ``filename``, in line order."""
        return self._links.get(filename, [])

    def selected_after(self, doc: Document, renamed: MemoryEntry, policy: IndexPolicy) -> list[MemoryEntry]:
        """The entries ``policy`` selects once ``doc`` holds ``renamed`` (all a policy view reads of them)."""
        by_filename = self._by_filename
        out = []
        for filename in policy.selected:
            if filename == renamed.filename:
                out.append(renamed)
                continue
            entry = by_filename.get(filename)
            if entry is not None and entry.path != doc.path:
                out.append(entry)
        return out

    def rendering_if_generated(
        self, doc: Document, renamed: MemoryEntry, saved: Mapping[str, MemoryEntry | None],
    ) -> str | None:
        """The legacy index after the rename when ``MEMORY.md`` is generated (memls's rendering before or after it), else None."""
        if self._budget is not None:
            # An index under an omission marker: rendered in full, as the engine does.
            after = _entries_after(self.before, doc, renamed)
            if not (self.generated_before or is_generated_index(self._text, after)):
                return None
            return render_index(shadow_by_name(after), budget=self._budget)
        changes: dict[str, MemoryEntry | None] = {**saved, doc.path.name: None}
        changes[renamed.filename] = renamed
        if self._generated_as_saved(saved) or self._view.renders_with(changes, self._text):
            return self._view.rendering_with(changes)
        if not self.unlisted:
            return None
        rendering = self._view.rendering_with(changes)
        return rendering if renders_keeping_unlisted(self._text, rendering, self.unlisted) else None

    def _generated_as_saved(self, saved: Mapping[str, MemoryEntry | None]) -> bool:
        """Whether the unbudgeted index is the rendering before the rename with the ``saved`` files as saved."""
        if not saved:
            return self.generated_before
        return self._view.renders_with(saved, self._text) or bool(self.unlisted) and renders_keeping_unlisted(
            self._text, self._view.rendering_with(saved), self.unlisted)


def _index_basis(state: RootState) -> _IndexBasis:
    """The root's :class:`_IndexBasis`, reused while nothing it reads has changed."""
    index_doc = state.documents.get(state.index_path)
    policy = state.documents.get(state.policy_path)
    key = (state.index_revision, index_doc.text if index_doc is not None else None,
           policy.text if policy is not None else None)
    cached = state.memo.get("rename-index-basis")
    if cached is not None and cached[0] == key:
        return cached[1]
    basis = _IndexBasis(state)
    state.memo["rename-index-basis"] = (key, basis)
    return basis


def _entries_after(before: list[MemoryEntry], doc: Document, renamed: MemoryEntry) -> list[MemoryEntry]:
    """The root's entries once ``doc`` holds ``renamed``, in file order."""
    entries = [e for e in before if e.path != doc.path]
    entries.append(renamed)
    return sorted(entries, key=lambda e: str(e.path))


def _policy(state: RootState) -> IndexPolicy | None:
    policy_doc = state.documents.get(state.policy_path)
    if policy_doc is None or policy_doc.read_error is not None:
        return None
    try:
        return IndexPolicy.parse(policy_doc.text)
    except ValueError:  # reported by the index checks; a rename leaves it alone
        return None


def _policy_edits(state: RootState, old_filename: str, new_filename: str) -> list[TextEdit]:
    """Move the policy's selection from the old filename to the new one."""
    policy = _policy(state)
    if policy is None or old_filename not in policy.selected:
        return []
    text = state.documents[state.policy_path].text
    if new_filename not in policy.selected:
        spellings = {json.dumps(old_filename), json.dumps(old_filename, ensure_ascii=False)}
        found = [s for s in spellings if text.count(s) == 1]
        if len(found) == 1 and sum(text.count(s) for s in spellings) == 1:
            start = text.index(found[0])
            return [minimal_edit(
                state.policy_path, text,
                text[:start] + json.dumps(new_filename, ensure_ascii=False) + text[start + len(found[0]):],
            )]
    new_text = policy.replace_selected(old_filename, new_filename).dumps()
    return [minimal_edit(state.policy_path, text, new_text)]
