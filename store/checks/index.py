"""Index checks: does ``MEMORY.md`` show what the engine would, and can the agent see it?

``MEMORY.md`` is the one file every harness puts in front of the model, so an
index that points at nothing, lists retired entries, misses living ones or
runs past what Claude Code loads misleads the agent on every turn. These
checks compare the index with what the engine itself would write (the same
entry selection and renderer as ``MemoryStore.write_index``), so "fixed"
means "what ``memls index --write`` produces".

Two kinds of root, as in the engine (``store/index.py``):

- A *managed* root holds ``.memory-index.json``. The policy is validated on
  its own document (``invalid-index-policy``, ``index-over-budget``); when it
  is valid, ``MEMORY.md`` must equal the selected view (``index-drift``).
  Unselected entries are meant to be absent, so no per-line checks run.
- A *legacy* root has no policy. Its index is *generated* only while it
  is exactly the rendering (``store.index.is_generated_index``); any other
  legacy index is *curated*, so it has no ``index-drift``: only its lines
  are judged (``index-broken-link``, ``index-lists-non-living``,
  ``index-missing-entry``). ``memls index --check`` still compares bytes,
  as gptme's does, so it reports DRIFT on a curated index by design.

A legacy index that ends in an omission marker ("... N more entries
omitted (budget B bytes)") was written with a one-shot budget; it is
compared with the rendering under that same budget, and entries the budget
leaves out are not "missing".

Which fix is safe (applied by ``memls check --fix`` without asking):

- managed index: "Regenerate MEMORY.md" is safe, the policy owns the view;
- legacy index: regenerating would replace what a person wrote, so it is
  offered but never safe. The safe fix is the line repair: the lines of
  broken or retired entries go, missing entries' lines are added (gptme's
  append), every other byte stays. When the index is the rendering apart
  from exactly those lines, the repair gives the rendering, so a generated
  index stays generated. With several line problems, one repair covering
  all of them is the safe fix (the same ``Fix`` for each problem, applied
  once), so two added lines never race for one spot. Removing a broken
  line that no rule pairs with an entry and that does not read as a deleted
  entry's line is never safe: its words would be lost, and it may be a
  memory moved where no rule follows it (``_Repair.removes_words``). The
  other lines' repair is then the safe fix (``_FixBasis.repair_rest``), so
  one such line does not hold every other repair back. A line a rule pairs
  is pointed at its file, never rendered over.

Every regenerate fix over one index is the same ``Fix`` value, so a caller
applying all safe fixes of one ``MEMORY.md`` must apply identical fixes
once (``Fix`` is hashable).
"""

from __future__ import annotations

import json
import os
import re
from bisect import bisect_left, insort
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from ..anchors import anchor as _name_span
from ..anchors import line_span as _line_span
from ..anchors import value_span as _key_span
from ..diagnostics import START, CreateFile, Fix, Location, Problem, Related, TextEdit, minimal_edit
from ..entry import MemoryEntry
from ..index import (
    CLAUDE_CODE_MAX_BYTES,
    INDEX_FILENAME,
    POLICY_FILENAME,
    POLICY_MIN_BUDGET,
    IndexLink,
    IndexPolicy,
    IndexRendering,
    add_index_lines,
    claude_code_visible_limit,
    generated_apart_from,
    gets_index_line,
    index_entries,
    omission_budget,
    parse_index_lines,
    pointer_line,
    pointers_to,
    remove_index_lines_numbered,
    render_index,
    render_policy_view,
    retarget_links,
    titled_left_behind,
    without_line_numbers,
    without_lines,
)
from ..model import Document, RootState
from ..names import is_index_filename, slugify
from ..reader import ENTRY_SUFFIX, MAX_INDEX_BYTES
from ..spans import Span, line_and_column, split_lines
from ..structs import struct
from ..unlisted_lines import keep_unlisted_lines

if TYPE_CHECKING:
    from . import CheckContext

CODES: tuple[str, ...] = (
    "index-drift",
    "index-missing",
    "index-broken-link",
    "index-lists-non-living",
    "index-missing-entry",
    "invalid-index-policy",
    "index-over-budget",
    "index-beyond-claude-code-limit",
)

# Beyond this many living entries without a line, an index is trimmed on
# purpose (Claude Code loads only its first 200 lines), not behind by a few
# saves: it gets one ``index-missing-entry`` warning saying how many, rather
# than one per entry. Thousands of warnings on one file buried every other
# problem in an editor's list, and the safe repair that added all their lines
# undid the trimming. Up to this many, each entry's warning sits where its
# line belongs and its line is added by ``memls check --fix``.
MISSING_ENTRIES_APART = 20
# How many of the unlisted entries the one warning names and points at.
MISSING_ENTRIES_NAMED = 10

# gptme's omission marker, as ``render_index`` writes it under a budget.
# Link targets that are not files of the root (a curated index may link out), unless an entry
# has that file name (``a:b.md`` looks like a URL with the scheme ``a``).
_EXTERNAL_TARGET = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]*:|#)")


# -- what the engine would write ---------------------------------------------------


@struct(frozen=False)
class _Expected:
    """A root's index as the engine sees it: entries, policy, and the rendering."""

    state: RootState
    managed: bool
    entries: list[MemoryEntry]
    # The parsed policy (managed roots), or why it is invalid.
    policy: IndexPolicy | None = None
    policy_error: str | None = None
    # What ``write_index`` would write, or None when it would refuse.
    text: str | None = None


def _expected(state: RootState, *, budget: int | None = None) -> _Expected:
    """The rendering ``MemoryStore.write_index(budget=...)`` would produce for this root."""
    policy_doc = state.documents.get(state.policy_path)
    managed = policy_doc is not None
    entries = index_entries(state.entries_for_index(), managed=managed)
    out = _Expected(state, managed, entries)
    if policy_doc is None:
        out.text = state.index_view.render(budget)
        return out
    try:
        out.policy = _parse_policy(policy_doc)
    except ValueError as exc:
        out.policy_error = str(exc)
        return out
    try:
        out.text = render_policy_view(entries, out.policy, budget=budget)
    except ValueError:
        return out  # selection and budget problems are reported on the policy document
    index_doc = state.documents.get(state.index_path)
    if index_doc is not None and index_doc.read_error is None:
        # As every write of the view leaves it (memls.store.unlisted_lines).
        out.text = keep_unlisted_lines(index_doc.text, out.text, state.unlisted_entry_files(), policy=out.policy)
    return out


def _parse_policy(doc: Document) -> IndexPolicy:
    """The policy as ``IndexPolicy.read`` would load it from this document."""
    if doc.path.is_symlink():
        raise ValueError(f"memory index policy {doc.path} must not be a symlink")
    if doc.read_error is not None:
        raise ValueError(f"invalid {POLICY_FILENAME}: {doc.read_error}")
    if doc.too_large:
        raise ValueError(f"invalid {POLICY_FILENAME}: the file is too large to read")
    return IndexPolicy.parse(doc.text)


# -- check -------------------------------------------------------------------------


def check(ctx: CheckContext, doc: Document) -> Iterable[Problem | None]:
    if doc.kind == "index":
        return _memoized(ctx, doc, _check_index)
    if doc.kind == "policy":
        return _memoized(ctx, doc, _check_policy)
    return ()


_Kept = TypeVar("_Kept")


def _memoized(ctx: CheckContext, doc: Document, run) -> list[Problem | None]:
    """Reuse the root's last result while nothing it reads has changed.

    These checks walk the whole root, and every edit of any entry puts
    ``MEMORY.md`` in the affected set; but most edits (a body, a link) change
    nothing an index check reads, which ``RootState.index_revision`` tracks.
    """
    return _kept(doc, doc.kind, _memo_key(ctx, doc), lambda: list(run(ctx, doc)))


def _kept(doc: Document, slot: str, key: tuple, make: Callable[[], _Kept]) -> _Kept:
    """``make()``, kept in the root's ``memo`` under ``slot`` and given again while ``key`` is unchanged."""
    state = doc.root
    cached = state.memo.get(slot)
    if cached is None or cached[0] != key:
        cached = state.memo[slot] = (key, make())
    return cached[1]


def _memo_key(ctx: CheckContext, doc: Document) -> tuple:
    """What every root-wide result about ``doc`` (the index or the policy) is computed from.

    The index checks and their fixes read the root's index facts (which
    ``index_revision`` counts), the document's text, the policy's text and
    the severities; a result kept under this key holds while it is unchanged.
    """
    state = doc.root
    policy = state.documents.get(state.policy_path)
    return (state.index_revision, doc.text, policy.text if policy is not None else None,
            tuple(sorted(ctx.settings.severity.items())))


def check_absent(ctx: CheckContext, path: Path) -> list[Problem]:
    """``index-missing`` for a root's ``MEMORY.md`` path when no such file exists."""
    state = ctx.workspace.root_of(path)
    if state is None or path.name != INDEX_FILENAME:
        return []
    if not state.index_view.any_living:
        return []
    placeholder = Document(path=state.index_path, root=state, kind="index", text="")
    problem = ctx.problem(
        "index-missing", placeholder, START,
        f"memory root '{state.scope}' has living entries but no {INDEX_FILENAME}; generate it",
    )
    return [problem] if problem is not None else []


def _check_index(ctx: CheckContext, doc: Document) -> Iterator[Problem | None]:
    if doc.too_large:
        yield from _check_unread_index(ctx, doc)
        return
    if doc.read_error is not None:
        yield from _check_unreadable_index(ctx, doc)
        return
    text = doc.text
    state = doc.root
    managed = state.policy_path in state.documents
    # A policy view is never truncated, so only a legacy index carries a budget.
    budget = None if managed else omission_budget(text)
    if not managed and budget is None:
        # The usual root: judged from the kept rendering and the lines of the
        # files that changed since the last check, not from a full render.
        rendering = state.index_view.rendering()
        # Also for an index that is the rendering (it has no line problems): its
        # lines are read now, so the first keystroke that makes it differ does not pay for that.
        findings, missing = _legacy_findings(doc)
        if text != rendering:
            yield from _check_lines(ctx, doc, findings, rendering, {"budget": None}, missing)
        yield from _check_claude_code_limit(ctx, doc)
        return
    try:
        expected = _expected(state, budget=budget)
    except ValueError:  # a marker budget too small to render: compare unbudgeted
        budget = None
        expected = _expected(state)
    data = {"budget": budget}

    # A legacy index that is not memls's rendering is curated by definition
    # (store.index.is_generated_index): only its lines are judged.
    if expected.managed and expected.text is not None and text != expected.text:
        line = _first_difference(text, expected.text)
        yield ctx.problem(
            "index-drift", doc, _line_span(text, line),
            f"{INDEX_FILENAME} differs from the index memls would generate "
            f"(first at line {line + 1}); regenerate it",
            data=data,
        )
    # An index equal to the rendering has no line problems (the renderer lists
    # exactly the living entries); skipping the line walk keeps the common
    # case fast on a large root.
    if not expected.managed and text != expected.text:
        findings = _line_findings(doc, expected, budget)
        yield from _check_lines(ctx, doc, findings, expected.text, data)
    yield from _check_claude_code_limit(ctx, doc)


@struct
class _LineFinding:
    """One line problem of a legacy index: a pointer to drop, or an entry without a line."""

    code: str
    target: str  # the filename the line points at, or the missing entry's file
    link: IndexLink | None = None  # the pointer line (broken or non-living)
    entry: MemoryEntry | None = None
    entry_doc: Document | None = None


def unsaved_entry(state: RootState, target: str) -> bool:
    """Whether ``target`` is an entry an editor holds unsaved while its file does not exist yet.

    Such an entry gets its index line once saved (``Document.index_entry``),
    but a line the user typed for it meanwhile is not broken: the save makes
    it good, and calling it broken offered a fix that deleted what they typed.
    """
    doc = state.documents.get(state.path / target)
    return doc is not None and doc.kind == "entry" and doc.file_absent and doc.entry is not None


def _broken_link_message(state: RootState, target: str) -> str:
    """Why a pointer's target is broken; a link only Markdown readers resolve says so.

    gptme finds an entry's line by its bare filename, and so does memls: a
    line written ``<a.md>`` or percent-encoded is a line gptme's save does not
    update (it appends another), whatever a Markdown viewer opens.
    """
    meant = _respelled(state, target)
    if meant is None:
        return f"'{target}' is not a memory entry of this root; fix the link or remove the line"
    return (f"'{target}' opens {meant} in a Markdown viewer, but gptme and memls find an entry's "
            f"line by its bare filename; write it as '{meant}'")


def _respelled(state: RootState, target: str) -> str | None:
    """The entry file a Markdown reader opens for ``target`` when gptme would not find it there (else None)."""
    meant = _opened(state, target)
    doc = state.documents.get(state.path / meant) if meant != target and "/" not in meant else None
    return meant if doc is not None and doc.kind == "entry" and doc.index_entry is not None else None


def _opened(state: RootState, target: str) -> str:
    """The file a Markdown reader opens for a pointer's ``target``: its name when it is directly in the root."""
    return _in_root(state, _markdown_destination(target))


def _in_root(state: RootState, destination: str) -> str:
    """``destination``'s file name when it is a path to a file directly in the root (``../mem/a.md``), else itself."""
    if "/" not in destination:
        return destination
    where = os.path.normpath(destination if os.path.isabs(destination) else os.path.join(state.path, destination))
    return os.path.basename(where) if os.path.dirname(where) == os.path.normpath(state.path) else destination


# A link destination's title (``(a.md "Title")``), after the destination and a space.
_LINK_TITLE = re.compile(r"""\s+(?:"[^"]*"|'[^']*'|\([^()]*\))\Z""")


def _markdown_destination(target: str) -> str:
    """The file a Markdown reader opens for a link destination.

    Its title (``"..."``) and the spaces around it dropped, ``<...>``
    unwrapped, its ``#section`` or ``?query`` dropped, %-escapes decoded, a
    leading ``./`` dropped and ``x/../`` folded. Each of these opens the
    file in a viewer while gptme, which finds an entry's line by its bare
    file name, does not: the line is respelled, never removed with the words
    a person wrote on it.
    """
    from urllib.parse import unquote

    target = _LINK_TITLE.sub("", target.strip())
    if target.startswith("<") and target.endswith(">"):
        target = target[1:-1]
    target = re.split(r"[#?]", target, maxsplit=1)[0]
    target = unquote(target)
    while target.startswith("./"):
        target = target[2:]
    if "/" in target and not os.path.isabs(target):
        folded = os.path.normpath(target)
        target = folded if not folded.startswith("..") else target
    return target


def _line_findings(doc: Document, expected: _Expected, budget: int | None) -> list[_LineFinding]:
    """Every line problem of a legacy index, in line order, then missing entries in file order."""
    state = doc.root
    by_filename = {d.path.name: d for d in state.documents.values()
                   if d.kind == "entry" and d.index_entry is not None}
    listed: set[str] = set()
    found: list[_LineFinding] = []
    for link in parse_index_lines(doc.text):
        target = link.target
        if _EXTERNAL_TARGET.match(target) and target not in by_filename:
            continue
        listed.add(target)
        entry_doc = by_filename.get(target)
        if entry_doc is None:
            if not unsaved_entry(state, target):
                found.append(_LineFinding("index-broken-link", target, link=link))
            continue
        listed_entry = entry_doc.index_entry
        assert listed_entry is not None  # by_filename holds entries and headlines only
        if not listed_entry.is_living:
            found.append(_LineFinding("index-lists-non-living", target, link=link,
                                      entry=listed_entry, entry_doc=entry_doc))
    shown = None
    if budget is not None and expected.text is not None:
        shown = {link.target for link in parse_index_lines(expected.text)}
    for entry in expected.entries:
        if not gets_index_line(entry) or entry.filename in listed:
            continue
        if shown is not None and entry.filename not in shown:
            continue  # left out by the budget the index was rendered with
        found.append(_LineFinding("index-missing-entry", entry.filename, entry=entry,
                                  entry_doc=by_filename.get(entry.filename)))
    return found


# How many changed lines (old and new together) an index text may have for its line memo to move along.
_MOVE_LIMIT = 2000


def _keep(kept: dict, key: str, value: list) -> None:
    if value:
        kept[key] = value
    else:
        kept.pop(key, None)


class _LineMemo:
    """A legacy index's line findings, kept per file between checks (``_legacy_findings``)."""

    def __init__(self, text: str, state: RootState) -> None:
        self.text = text
        self.lines = split_lines(text)
        # A pointer line the last rendering lacked (see ``_IndexSide.apart_from``).
        self.witness: int | None = None
        self.links: dict[str, list[IndexLink]] = {}
        # Every pointer's line by target, external ones too (``_missing_line_place`` drops them).
        self.lines_to: dict[str, list[int]] = {}
        # Each line's pointer target (None: not a pointer).
        self.target_at: list[str | None] = [None] * len(self.lines)
        for link in parse_index_lines(text):
            self.target_at[link.line] = link.target
            self.lines_to.setdefault(link.target, []).append(link.line)
            self.links.setdefault(link.target, []).append(link)
        # The pointer lines' findings (broken, not living) by target.
        self.findings: dict[str, list[_LineFinding]] = {}
        # The entries without a line, by file, and their files in order (kept
        # sorted as files are judged: thousands in an index trimmed on purpose).
        self.missing: dict[str, _LineFinding] = {}
        self.missing_order: list[str] | None = None
        view = state.index_view
        view.take_changed()
        for target in {*self.links, *view.shown_filenames()}:
            self.judge(target, state)
        self.missing_order = sorted(self.missing)

    def move_to(self, text: str, state: RootState) -> bool:
        """Take ``text``, an edit of this memo's text, parsing only the lines between their common head and tail.

        A save rewrites one line of a 10k-line index (or adds or drops one);
        the next check then reads that line again and shifts the line numbers
        below it, instead of parsing every line. The files whose lines changed
        or moved are judged again (those the model changed, by the caller).
        Returns False (and changes nothing) when much of the text changed: a
        fresh memo costs less then.
        """
        old, new = self.lines, split_lines(text)
        limit = min(len(old), len(new))
        head = 0
        while head < limit and old[head] == new[head]:
            head += 1
        tail = 0
        while tail < limit - head and old[-1 - tail] == new[-1 - tail]:
            tail += 1
        old_end, new_end, delta = len(old) - tail, len(new) - tail, len(new) - len(old)
        if (old_end - head) + (new_end - head) > _MOVE_LIMIT:
            return False
        added = [link for n in range(head, new_end) if (link := pointer_line(n, new[n])) is not None]
        touched = {t for t in self.target_at[head:old_end] if t is not None}
        touched.update(link.target for link in added)
        if delta:
            touched.update(t for t in self.target_at[old_end:] if t is not None)
        added_to: dict[str, list[IndexLink]] = {}
        for link in added:
            added_to.setdefault(link.target, []).append(link)
        for target in touched:
            links = [link for link in self.links.get(target, ()) if link.line < head]
            lines = [line for line in self.lines_to.get(target, ()) if line < head]
            for link in added_to.get(target, ()):
                lines.append(link.line)
                links.append(link)
            links += [replace(link, line=link.line + delta) if delta else link
                      for link in self.links.get(target, ()) if link.line >= old_end]
            lines += [line + delta for line in self.lines_to.get(target, ()) if line >= old_end]
            _keep(self.links, target, links)
            _keep(self.lines_to, target, lines)
        at: list[str | None] = [None] * (new_end - head)
        for link in added:
            at[link.line - head] = link.target
        self.target_at[head:old_end] = at
        if self.witness is not None and self.witness >= head:
            self.witness = self.witness + delta if self.witness >= old_end else None
        self.text, self.lines = text, new
        for target in touched:
            self.judge(target, state)
        return True

    def judge(self, target: str, state: RootState) -> None:
        """The findings about one file: its lines (broken, non-living), or its missing line."""
        view = state.index_view
        entry = view.entries.get(target)
        found: list[_LineFinding] = []
        links = self.links.get(target)
        if links is not None:
            if entry is None:
                if not unsaved_entry(state, target) and not _EXTERNAL_TARGET.match(target):
                    found = [_LineFinding("index-broken-link", target, link=link) for link in links]
            elif not entry.is_living:
                entry_doc = state.documents.get(state.path / target)
                found = [_LineFinding("index-lists-non-living", target, link=link,
                                      entry=entry, entry_doc=entry_doc) for link in links]
        elif view.is_shown(target):
            assert entry is not None  # a shown file has an index entry
            if target not in self.missing and self.missing_order is not None:
                insort(self.missing_order, target)
            self.missing[target] = _LineFinding("index-missing-entry", entry.filename, entry=entry,
                                                entry_doc=state.documents.get(state.path / target))
            return
        if self.missing.pop(target, None) is not None and self.missing_order is not None:
            del self.missing_order[bisect_left(self.missing_order, target)]
        if found:
            self.findings[target] = found
        else:
            self.findings.pop(target, None)


def entry_files_read(doc: Document) -> set[str]:
    """The entry files whose documents the checks of a legacy, unbudgeted index read.

    Its line findings point at the entries they are about (listed but not
    living, living but missing: of an index trimmed on purpose, only the few
    its one warning names), and a broken pointer's message looks at the
    file a Markdown reader would open. Everything else comes from the root's
    index view. A caller holding the index view but only some documents of
    the root (:mod:`memls.store.check_cache`) loads these before checking.
    """
    findings, missing = _legacy_findings(doc)
    if missing > MISSING_ENTRIES_APART:  # one warning, naming the first few (``_trimmed_problem``)
        kept = [f for f in findings if f.code == "index-missing-entry"][:MISSING_ENTRIES_NAMED]
        findings = [f for f in findings if f.code != "index-missing-entry"] + kept
    files: set[str] = set()
    for finding in findings:
        files.add(finding.target)
        if finding.code == "index-broken-link":
            files.add(_markdown_destination(finding.target))
    return files


def judged_without_rendering(state: RootState) -> bool:
    """Whether the root's index problems, as last checked, stand whatever the rendering becomes.

    The rendering is what the entries' titles, descriptions and types change
    (and name, status and file order, which the line findings read too). A
    legacy, unbudgeted ``MEMORY.md`` without line findings is judged from
    its own text alone (the Claude Code limit): its lines problems are
    emitted only for findings, and only a missing entry's place reads the
    rendering. An index too large to read, or unreadable, reads no entry; an
    absent one reads only whether any entry is living. So while the line
    findings stay as they are (no entry's name, status, existence or the
    places its problems point at moved), a change of rendered text alone
    leaves this root's index problems as they were
    (:mod:`memls.store.check_cache` keeps them). False whenever unsure: a
    policy, a budget marker, or an index whose line findings were not made
    for its text in this model.
    """
    if state.policy_path in state.documents:
        return False
    doc = state.documents.get(state.index_path)
    if doc is None or doc.too_large or doc.read_error is not None:
        return True
    if omission_budget(doc.text) is not None:
        return False
    memo = state.memo.get("index-lines")
    return isinstance(memo, _LineMemo) and memo.text == doc.text and not memo.findings and not memo.missing


def pointer_findings_about(
    text: str, targets: Collection[str], living: Callable[[str], bool | None], shown: Callable[[str], bool]
) -> list[tuple[IndexLink, bool]] | None:
    """The line findings of the legacy, unbudgeted index ``text`` about ``targets``, as facts given apart from a model.

    :meth:`_LineMemo.judge` over ``living(t)`` (None when file ``t`` has no
    index entry, else whether its entry is living) and ``shown(t)`` (whether
    it gets a line of the rendering: living, and the first file of its
    name). A caller that knows an index had no line finding, and which
    files' facts changed since, asks about those files (and the files
    sharing their names, old and new) to learn what it finds now
    (:mod:`memls.store.check_cache`). Each finding is a pointer line and
    whether its target is no entry at all (broken) rather than one not
    living, in line order. None when it cannot say from these facts: a
    living entry without a line (where its line belongs reads the
    rendering), or a broken pointer whose message reads another file
    (:func:`_broken_link_message`).
    """
    found: list[tuple[IndexLink, bool]] = []
    linked: set[str] = set()
    for link in pointers_to(text, targets):
        target = link.target
        is_living = living(target)
        if is_living is None and _EXTERNAL_TARGET.match(target):
            continue
        linked.add(target)
        if is_living is None and _markdown_destination(target) != target:
            return None
        if is_living is not True:
            found.append((link, is_living is None))
    if any(target not in linked and shown(target) for target in targets):
        return None
    return found


def pointer_problems(ctx: CheckContext, doc: Document, found: list[tuple[IndexLink, bool]]) -> list[Problem]:
    """The problems :func:`_check_index` reports for ``found`` (:func:`pointer_findings_about`) in ``doc``.

    The entries not living that they point at are read from the model, which
    must hold their documents.
    """
    state = doc.root
    findings = []
    for link, broken in found:
        if broken:
            findings.append(_LineFinding("index-broken-link", link.target, link=link))
            continue
        entry_doc = state.documents[state.path / link.target]
        findings.append(_LineFinding("index-lists-non-living", link.target, link=link,
                                     entry=entry_doc.index_entry, entry_doc=entry_doc))
    return [problem for problem in _check_lines(ctx, doc, findings, None, {"budget": None}) if problem is not None]


def _legacy_findings(doc: Document) -> tuple[list[_LineFinding], int]:
    """``_line_findings`` of an unbudgeted legacy index, re-judging only the files that changed.

    The index text is parsed once per text; each keystroke in an entry then
    re-judges that entry's file (and the files its name shadows or shows),
    so the cost does not grow with the root. Same findings, same order, but
    of the entries without a line only the first ``MISSING_ENTRIES_APART + 1``
    (all a check reports of them), with how many there are: an index trimmed
    on purpose lacks thousands, and listing them at every keystroke was most
    of its cost.
    """
    state = doc.root
    memo = state.memo.get("index-lines")
    if not isinstance(memo, _LineMemo) or (memo.text != doc.text and not memo.move_to(doc.text, state)):
        memo = _LineMemo(doc.text, state)
        state.memo["index-lines"] = memo
    else:
        for target in state.index_view.take_changed():
            memo.judge(target, state)
    lines = sorted((f for fs in memo.findings.values() for f in fs), key=lambda f: f.link.line)  # type: ignore[union-attr]
    order = memo.missing_order
    assert order is not None  # set once the memo is built
    return lines + [memo.missing[target] for target in order[:MISSING_ENTRIES_APART + 1]], len(order)


def _check_lines(
    ctx: CheckContext, doc: Document, findings: list[_LineFinding], rendering: str | None, data: dict,
    missing_count: int | None = None,
) -> Iterator[Problem | None]:
    """Per-line problems of a legacy index.

    ``missing_count`` is how many entries lack a line when ``findings`` holds
    only the first of them (``_legacy_findings``).
    """
    missing = [f for f in findings if f.code == "index-missing-entry"]
    if missing_count is None:
        missing_count = len(missing)
    trimmed = missing_count > MISSING_ENTRIES_APART
    place = None
    for finding in findings:
        target, entry, entry_doc = finding.target, finding.entry, finding.entry_doc
        if finding.code == "index-broken-link":
            link = finding.link
            assert link is not None  # the line that points nowhere
            yield ctx.problem(
                "index-broken-link", doc,
                Span(link.line, link.target_span[0], link.line, link.target_span[1]),
                _broken_link_message(doc.root, target),
                data={**data, "line": link.line, "target": target},
            )
        elif finding.code == "index-lists-non-living":
            link = finding.link
            assert link is not None and entry is not None and entry_doc is not None  # the line and its entry
            yield ctx.problem(
                "index-lists-non-living", doc,
                Span(link.line, link.title_span[0] - 1, link.line, link.target_span[1] + 1),
                f"'{entry.name}' is {entry.status} but still listed; remove the line",
                related=[Related(Location(entry_doc.path, _key_span(entry_doc, "status")),
                                 f"'{entry.name}' has status {entry.status}")],
                data={**data, "line": link.line, "target": target},
            )
        elif not trimmed:
            assert entry is not None  # the entry without a line
            if place is None:
                place = _missing_line_place(doc, rendering, [f.target for f in findings])
            yield ctx.problem(
                "index-missing-entry", doc, place.span(entry.filename),
                f"living entry '{entry.name}' ({entry.filename}) has no line in {INDEX_FILENAME}; add it",
                related=_living_entry(finding),
                data={**data, "entry": entry.name, "filename": entry.filename},
            )
    if trimmed:
        yield _trimmed_problem(ctx, doc, missing[:MISSING_ENTRIES_NAMED], missing_count, data)


def _living_entry(finding: _LineFinding) -> list[Related]:
    """Where a missing line's entry is named, for the reader to jump to."""
    entry, entry_doc = finding.entry, finding.entry_doc
    if entry is None or entry_doc is None:
        return []
    return [Related(Location(entry_doc.path, _name_span(entry_doc)), f"the living entry '{entry.name}'")]


def _trimmed_problem(
    ctx: CheckContext, doc: Document, named: list[_LineFinding], count: int, data: dict
) -> Problem | None:
    """The one ``index-missing-entry`` of an index lacking ``count`` (more than ``MISSING_ENTRIES_APART``) entries.

    It sits on the index's last non-blank line, where their lines would be
    appended, names the first few (``named``, by file) and says how many there are.
    """
    names = ", ".join(f"'{f.entry.name}'" for f in named[:3] if f.entry is not None)
    more = f" and {count - 3} more" if count > 3 else ""
    return ctx.problem(
        "index-missing-entry", doc, _last_line_span(doc),
        f"{count} living entries have no line in {INDEX_FILENAME} ({names}{more}); add their lines, "
        f"or set index-missing-entry = \"off\" if the index is trimmed on purpose",
        related=[related for finding in named for related in _living_entry(finding)],
        data={**data, "missing": count},
    )


def _last_line_span(doc: Document) -> Span:
    memo = doc.root.memo.get("index-lines")
    lines = memo.lines if isinstance(memo, _LineMemo) and memo.text is doc.text else split_lines(doc.text)
    line = _last_line(lines)
    return Span(line, 0, line, len(lines[line]))


def _last_line(lines: list[str]) -> int:
    """The last non-blank line, where a curated index's missing lines are appended (0 when all are blank)."""
    return next((n for n in range(len(lines) - 1, -1, -1) if lines[n].strip()), 0)


def _missing_line_place(doc: Document, rendering: str | None, targets: list[str]) -> _MissingLinePlace:
    """The places of missing lines, kept per index text, rendering and problem set.

    Placing compares the whole index with the whole rendering; every check
    of the root (a keystroke in any entry's body, a hover) asks again with
    the same three, so it is done once for them. A keystroke that changes
    an entry's rendered line changes only the rendering: the index's side
    of the comparison is kept per index text and problem set
    (:class:`_IndexSide`).
    """
    key = (doc.text, rendering, tuple(targets))
    memo = doc.root.memo.get("missing-line-place")
    if memo is None or memo[0] != key:
        index_key = (doc.text, tuple(targets))
        kept = doc.root.memo.get("index-without-problem-lines")
        if kept is None or kept[0] != index_key:
            kept = (index_key, _IndexSide(doc, targets))
            doc.root.memo["index-without-problem-lines"] = kept
        memo = (key, _MissingLinePlace(kept[1], rendering, targets))
        doc.root.memo["missing-line-place"] = memo
    return memo[1]


class _IndexSide:
    """The index's side of placing missing lines, for one index text and problem set.

    A keystroke that flips an entry's status changes the problem set; the
    index's lines and pointers are then taken from the line findings'
    memo (parsed once per text), not parsed again, and the index without
    its problem lines is built only when a rendering might equal it.
    """

    def __init__(self, doc: Document, targets: list[str]) -> None:
        self.text, self.targets = doc.text, targets
        memo = doc.root.memo.get("index-lines")
        # The line memo of this text (it may move on to another text later; see ``apart_from``).
        self.memo = memo if isinstance(memo, _LineMemo) and memo.text == doc.text else None
        self.lines = self.memo.lines if self.memo is not None else split_lines(doc.text)
        lines = self.lines
        self.last = _last_line(lines)
        # The problem lines' numbers, when the memo knows every pointer's line (else None).
        self.doomed = None if self.memo is None else {
            line for target in targets for line in self.memo.lines_to.get(target, ())}

    @cached_property
    def without_problems(self) -> list[str]:
        if self.doomed is not None:
            return without_line_numbers(self.lines, self.doomed)
        return without_lines(self.text, set(self.targets))

    def apart_from(self, rendering: str, problem_targets: list[str]) -> bool:
        """Whether the index, without its problem lines, is the rendering without them.

        A pointer line of the index that the rendering does not have at all
        answers "no" without parsing the rendering. The line found is kept
        with the index text, and while the next rendering (one entry's line
        moved) still lacks it -- and it is no problem line -- the answer is
        "no" again after one substring search: an index with hand-written or
        stale lines, the usual reason entries are missing from it, is told
        apart without a pass over the root on every keystroke.
        """
        doomed, memo = self.doomed, self.memo
        if doomed is not None and memo is not None and memo.text is self.text:
            lines = self.lines
            witness = memo.witness
            if witness is not None and _stays(lines, witness, doomed) and not _has_line(rendering, lines[witness]):
                return False
            rendered = set(rendering.split("\n"))
            memo.witness = next(
                (n for n, line in enumerate(lines) if line not in rendered and _stays(lines, n, doomed)), None)
            if memo.witness is not None:
                return False
        else:
            rendered = set(rendering.split("\n"))
        if any(line not in rendered for line in self.without_problems):
            return False
        return self.without_problems == without_lines(rendering, set(problem_targets))


def _stays(lines: list[str], number: int, doomed: set[int]) -> bool:
    """Whether line ``number`` is surely in the index without its problem lines.

    Blank lines and headings may go with a section the problem lines emptied;
    any other line that is not a problem line stays.
    """
    if number >= len(lines) or number in doomed:
        return False
    line = lines[number]
    return bool(line) and not line.startswith("## ")


def _has_line(text: str, line: str) -> bool:
    """Whether ``line`` is one of ``text.split("\\n")``, without splitting."""
    return (text == line or text.startswith(line + "\n") or text.endswith("\n" + line)
            or f"\n{line}\n" in text)


class _MissingLinePlace:
    """Where a missing entry's line would go: its problem is shown on that line.

    On the line the line repair writes after, so the diagnostics of several
    missing entries sit where each belongs rather than stacked on the header,
    and the quick fix is offered where the cursor is when one reads them:

    - an index that is the rendering apart from the problem lines (the
      repair gives the rendering): the line the entry's line follows there
      -- the nearest line above it in the rendering that the index also has
      (a neighbour entry's line, its ``## Type`` heading, or the header);
    - a curated index: its last non-blank line (the repair appends there).

    One pass over the rendering places every line in it, so a root with
    thousands of missing entries costs no more than one.
    """

    def __init__(self, side: _IndexSide, rendering: str | None, problem_targets: list[str]):
        self.lines = lines = side.lines
        self.last = side.last
        # For each rendered pointer's filename: the index line it belongs after.
        self.after: dict[str, int] = {}
        if rendering is None or not side.apart_from(rendering, problem_targets):
            return
        line_of: dict[str, int] = {}
        for number, line in enumerate(lines):
            line_of.setdefault(line, number)
        targets = {link.line: link.target for link in parse_index_lines(rendering)}
        above = 0  # the header
        for k, line in enumerate(rendering.split("\n")):
            target = targets.get(k)
            if target is not None:
                self.after[target] = above
            if line and line in line_of:
                above = line_of[line]

    def span(self, filename: str) -> Span:
        # From the lines split once: a root missing many entries places each.
        line = self.after.get(filename, self.last)
        return Span(line, 0, line, len(self.lines[line]))


def _check_claude_code_limit(ctx: CheckContext, doc: Document) -> Iterator[Problem | None]:
    # It reads the index text alone, which a keystroke in an entry leaves as it
    # was: measured once per text (a 10k-entry index is a million bytes).
    text = doc.text
    memo = doc.root.memo.get("claude-code-limit")
    if memo is None or memo[0] != text:
        memo = (text, _claude_code_hidden(text))
        doc.root.memo["claude-code-limit"] = memo
    if memo[1] is None:
        return
    first_hidden, hidden, last, last_length = memo[1]
    yield ctx.problem(
        "index-beyond-claude-code-limit", doc,
        Span(first_hidden, 0, last, last_length),
        f"Claude Code loads only the first 200 lines or 25 KiB of {INDEX_FILENAME}: "
        f"{hidden} {'entry' if hidden == 1 else 'entries'} from line {first_hidden + 1} on "
        "are invisible to the agent; shorten it or regenerate it with a budget",
        data={"hidden": hidden},
    )


def _check_unread_index(ctx: CheckContext, doc: Document) -> Iterator[Problem | None]:
    """An index past :data:`MAX_INDEX_BYTES` is not read, and says so rather than pass in silence.

    Claude Code loads a sliver of it either way, so it is reported as being
    beyond that limit; no line of it is judged.
    """
    yield ctx.problem(
        "index-beyond-claude-code-limit", doc, START,
        f"{INDEX_FILENAME} is larger than {MAX_INDEX_BYTES // (1024 * 1024)} MiB, so memls does not "
        "read or check it, and Claude Code loads only its first 200 lines or 25 KiB; "
        "regenerate it with a budget",
    )


def _check_unreadable_index(ctx: CheckContext, doc: Document) -> Iterator[Problem | None]:
    """An index that cannot be read (not UTF-8; a FIFO, a device, a directory) is reported as an entry would be.

    Not as a missing index: the name is taken, and no write replaces what
    memls could not read. ``invalid-entry`` is the code an entry file gets for
    the same condition; ``memls audit`` skips index files as gptme's does.
    """
    why = doc.read_error or ""
    repair = (
        "save it as UTF-8 text" if why.startswith("not UTF-8")
        else "replace it with a regular file (or remove it and run `memls index --write`)"
    )
    yield ctx.problem(
        "invalid-entry", doc, START,
        f"{INDEX_FILENAME} cannot be read ({why}), so memls neither checks nor rewrites it; {repair}",
    )


def _claude_code_hidden(text: str) -> tuple[int, int, int, int] | None:
    """(first hidden line, hidden pointer lines, last line, its length), or None when all load."""
    first_hidden = claude_code_visible_limit(text)
    if first_hidden is None:
        return None
    lines = split_lines(text)
    if lines and lines[-1] == "":
        lines.pop()
    # Counted by the line's shape alone.
    hidden = sum(1 for line in lines[first_hidden:] if line.startswith("- ["))
    last = len(lines) - 1
    return first_hidden, hidden, last, len(lines[last])


def _check_policy(ctx: CheckContext, doc: Document) -> Iterator[Problem | None]:
    try:
        policy = _parse_policy(doc)
    except ValueError as exc:
        yield ctx.problem("invalid-index-policy", doc, _policy_error_span(doc.text, exc), str(exc))
        return
    state = doc.root
    entries = index_entries(state.entries_for_index(), managed=True)
    by_filename = {entry.filename: entry for entry in entries}
    locations = _json_locations(doc.text)
    selected_items = locations.get("selected", (None, []))[1]
    chosen = []
    valid = True
    for i, filename in enumerate(policy.selected):
        entry = by_filename.get(filename)
        if entry is not None and entry.is_living:
            chosen.append(entry)
            continue
        valid = False
        span = selected_items[i] if i < len(selected_items) else _line_span(doc.text, 0)
        related = []
        if entry is not None and entry.path is not None:
            entry_doc = state.documents.get(entry.path)
            if entry_doc is not None:
                related.append(Related(Location(entry.path, _key_span(entry_doc, "status")),
                                       f"'{entry.name}' has status {entry.status}"))
        yield ctx.problem(
            "invalid-index-policy", doc, span,
            f"selected memory {filename!r} is missing or not living; "
            "select a living entry's file or remove it",
            related=related, data={"filename": filename},
        )
    if not valid:
        return
    size = len(render_index(chosen).encode("utf-8", "surrogatepass"))
    if size > policy.budget:
        budget_span = locations.get("budget", (None, []))[0] or _line_span(doc.text, 0)
        yield ctx.problem(
            "index-over-budget", doc, budget_span,
            f"selected memory index needs {size} bytes, exceeds budget {policy.budget}; "
            f"shorten descriptions or revise {POLICY_FILENAME} before writing",
            data={"size": size},
        )


# -- fixes -------------------------------------------------------------------------


def fixes(ctx: CheckContext, problem: Problem) -> Iterable[Fix]:
    state = ctx.workspace.root_of(problem.path)
    if state is None:
        return []
    if problem.code == "index-missing":
        expected = _expected(state)
        if expected.text is None or state.index_path in state.documents:
            return []
        return [Fix(f"Create {INDEX_FILENAME}", (CreateFile(state.index_path, expected.text),), safe=True)]
    doc = ctx.workspace.document(problem.path)
    if doc is None or doc.kind != "index" or doc.too_large:
        return []  # an unread index has no text an edit could replace
    if problem.code == "index-beyond-claude-code-limit":
        return _kept(doc, "budgeted-regenerate", _memo_key(ctx, doc), lambda: _budgeted_regenerate(state, doc))
    if problem.code not in ("index-drift", "index-broken-link", "index-lists-non-living",
                            "index-missing-entry"):
        return []
    basis = _fix_basis(ctx, doc, problem.data.get("budget"))
    expected = basis.expected
    regenerate = None
    if expected.text is not None and expected.text != doc.text:
        regenerate = Fix(f"Regenerate {INDEX_FILENAME}",
                         (TextEdit(doc.path, _whole_span(doc.text), expected.text),),
                         safe=expected.managed)
    if expected.managed:
        return [regenerate] if regenerate is not None else []
    # A legacy index that differs from the rendering is curated: regenerating
    # it would replace what a person wrote, so it is never the safe fix.
    findings = basis.apart
    this = next((f for f in findings if _is_finding_of(f, problem)), None)
    out = []
    if this is not None:
        # A moved entry's broken line and its missing line are one repair: the line pointed at its file.
        group = [f for f in basis.findings if f is this or basis.partners(f, this)]
        alone = all(f in group for f in findings)
        repair = _line_repair(doc, group, expected.text, basis.may_be_apart, basis.moved)
        safe = alone and repair.whole and not repair.removes_words and not _points_at_a_file(state, this)
        out.append(Fix(repair.title, (repair.edit,), safe=safe))
        if not alone:
            out.append(basis.repair_all)
            if basis.repair_rest is not None and this in basis.rest:
                out.append(basis.repair_rest)
    elif problem.code == "index-missing-entry" and basis.trimmed:
        out.append(basis.add_trimmed)
    if regenerate is not None:
        out.append(Fix(f"Regenerate {INDEX_FILENAME} (replaces its hand-written lines)",
                       regenerate.operations))
    return out


def _points_at_a_file(state: RootState, finding: _LineFinding) -> bool:
    """Whether a broken pointer's target is still a file of the root that memls cannot read as an entry.

    A broken symlink, a directory, a file whose frontmatter is gone: the
    entry is unreadable, not gone, and no write removes its index line. So
    removing that line is offered, never applied unasked (``--fix``, fix-all).
    """
    if finding.code != "index-broken-link" or _respelled(state, finding.target) is not None:
        return False  # (a respelled target is written as its entry's file name: the line stays)
    meant = _opened(state, finding.target)
    if not meant:
        return False
    target = Path(os.path.normpath(os.path.join(state.path, meant)))  # (``archive/old.md``, ``../README.md``)
    return target in state.documents or os.path.lexists(target)


class _FixBasis:
    """What the fixes of every problem of one legacy index share, computed once.

    Each line problem of a curated ``MEMORY.md`` offers its own repair and the
    repair of all of them; an editor asks for the fixes of every problem at
    once (fix-all, or a code action request). Rendering the root, finding the
    line problems and building the all-lines repair again for each of N
    problems made that cost N times the index.
    """

    def __init__(self, ctx: CheckContext, doc: Document, budget: int | None) -> None:
        self.doc = doc
        self.expected = _expected(doc.root, budget=budget)
        self._budget = budget
        self._settings = ctx.settings

    @cached_property
    def findings(self) -> list[_LineFinding]:
        return [f for f in _line_findings(self.doc, self.expected, self._budget)
                if self._settings.severity_of(f.code) != "off"]

    @cached_property
    def _missing(self) -> list[_LineFinding]:
        return [f for f in self.findings if f.code == "index-missing-entry"]

    @property
    def trimmed(self) -> bool:
        """Whether the missing entries share one problem (``MISSING_ENTRIES_APART``)."""
        return len(self._missing) > MISSING_ENTRIES_APART

    @cached_property
    def apart(self) -> list[_LineFinding]:
        """The findings reported one problem each: all but the missing entries of a trimmed index."""
        return [f for f in self.findings if f.code != "index-missing-entry"] if self.trimmed else self.findings

    @cached_property
    def _stray_targets(self) -> frozenset[str | None]:
        """Where each line of the index or of the rendering that the other lacks points (None: nowhere).

        Only lines that stay whatever lines are removed count: not blank, no
        ``## `` heading (those go with a section their removal empties).
        """
        rendering = self.expected.text
        assert rendering is not None
        ours, theirs = without_lines(self.doc.text, set()), rendering.split("\n")
        targets: set[str | None] = set()
        for lines, other in ((ours, set(theirs)), (theirs, set(ours))):
            for line in lines:
                if line and not line.startswith("## ") and line not in other:
                    link = pointer_line(0, line)
                    targets.add(link.target if link is not None else None)
        return frozenset(targets)

    def may_be_apart(self, filenames: Collection[str]) -> bool:
        """False when the index surely differs from the rendering beyond the lines of ``filenames``.

        A line one of them has and the other lacks stays whatever lines of
        ``filenames`` are removed, unless it points at one of them; so
        :func:`generated_apart_from` is asked only when every such line does.
        Found once per index: with N line problems, each one's own repair
        compared the whole index with the whole rendering again.
        """
        strays = self._stray_targets
        return len(strays) <= len(filenames) and all(t is not None and t in filenames for t in strays)

    @cached_property
    def moved(self) -> dict[str, str]:
        """The broken pointers whose entry moved to another file: target -> that file (:func:`_moved_entries`)."""
        return _moved_entries(self.doc.root, self.doc.text, self.findings)

    def partners(self, finding: _LineFinding, other: _LineFinding) -> bool:
        """Whether ``finding`` and ``other`` are a moved entry's broken line and its missing line."""
        pair = {finding.code, other.code}
        if pair != {"index-broken-link", "index-missing-entry"}:
            return False
        broken, missing = (finding, other) if finding.code == "index-broken-link" else (other, finding)
        return self.moved.get(broken.target) == missing.target

    @cached_property
    def repair_all(self) -> Fix:
        """The safe fix of every line problem; a trimmed index's missing lines are not added (see ``add_trimmed``)."""
        findings = self.apart
        repair = _line_repair(self.doc, findings, self.expected.text, moved=self.moved)
        safe = repair.whole and not repair.removes_words and not any(_points_at_a_file(self.doc.root, f) for f in findings)
        return Fix(repair.title, (repair.edit,), safe=safe)

    @cached_property
    def rest(self) -> list[_LineFinding]:
        """The findings but the broken lines no safe fix removes (:func:`_written_for_a_gone_entry`, files there)."""
        root = self.doc.root
        return [f for f in self.apart if f.code != "index-broken-link" or f.target in self.moved
                or _respelled(root, f.target) is not None
                or (_written_for_a_gone_entry(root, f) and not _points_at_a_file(root, f))]

    @cached_property
    def repair_rest(self) -> Fix | None:
        """The safe fix of :attr:`rest` while :attr:`repair_all` is not safe (None when it is, or nothing is left)."""
        if self.repair_all.safe or not self.rest or len(self.rest) == len(self.apart):
            return None
        repair = _line_repair(self.doc, self.rest, self.expected.text, moved=self.moved)
        return Fix(repair.title, (repair.edit,), safe=repair.whole and not repair.removes_words)

    @cached_property
    def add_trimmed(self) -> Fix:
        """The lines of every entry a trimmed index lacks: offered, never safe (it undoes the trimming)."""
        repair = _line_repair(self.doc, self._missing, self.expected.text)
        return Fix(repair.title, (repair.edit,))


def _fix_basis(ctx: CheckContext, doc: Document, budget: int | None) -> _FixBasis:
    """The root's :class:`_FixBasis`, reused while nothing it reads has changed (as :func:`_memoized`)."""
    return _kept(doc, "fix-basis", (_memo_key(ctx, doc), budget), lambda: _FixBasis(ctx, doc, budget))


def _is_finding_of(finding: _LineFinding, problem: Problem) -> bool:
    if finding.code != problem.code:
        return False
    if finding.link is not None:
        return finding.link.line == problem.data.get("line")
    return finding.target == problem.data.get("filename")


def _line_fix_title(findings: list[_LineFinding], respelled: Mapping[str, str], moved: Mapping[str, str]) -> str:
    """What a line repair does, naming each line it rewrites, adds or removes, and the file.

    ``findings`` are the lines added or removed; ``respelled`` and ``moved``
    map the targets rewritten in place to what they become.
    """
    added = [f"'{f.entry.name}'" for f in findings if f.code == "index-missing-entry" and f.entry is not None]
    removed = list(dict.fromkeys(f"'{f.target}'" for f in findings if f.code != "index-missing-entry"))
    parts = []
    if respelled:
        parts.append("write " + ", ".join(f"'{target}' as '{meant}'" for target, meant in respelled.items()))
    if moved:
        parts.append("point " + ", ".join(f"'{target}' at '{now}'" for target, now in moved.items()))
    if len(added) > MISSING_ENTRIES_APART:
        parts.append(f"add the lines of {len(added)} entries")
    elif added:
        parts.append(f"add the line{'s' if len(added) > 1 else ''} for {', '.join(added)}")
    if removed:
        parts.append(f"remove the line{'s' if len(removed) > 1 else ''} for {', '.join(removed)}")
    text = " and ".join(parts)
    return f"{text[0].upper()}{text[1:]} in {INDEX_FILENAME}"


def _moved_entries(state: RootState, index_text: str, findings: Sequence[_LineFinding]) -> dict[str, str]:
    """The broken pointers whose entry a person moved to another file: old target -> the entry's file now.

    ``mv deploy.md deploy-notes.md`` leaves the line of ``deploy`` pointing at
    ``deploy.md`` while the entry, still named ``deploy``, has no line: one
    memory, not a lost one and a new one. Its lines are pointed at the new
    file in place, so the words a person wrote on them stay; removing them
    and appending a generated line, as for two unrelated problems, lost them.
    The old target is read as a Markdown reader opens it (``./deploy.md``,
    ``deploy.md#steps``). Paired only when nothing else could be meant: no
    file there, and one missing entry whose name is the file's (else one
    whose name's slug is: ``Deploy`` and ``DEPLOY`` both would be left to
    the person). A line at a file no entry's name gives is paired by its
    link text, the entry's name or title (:func:`titled_left_behind`):
    after a second move it still names its entry. Every write pairs by the same rule
    (:func:`memls.store.index.lines_left_behind`).
    """
    exact: dict[str, set[str]] = {}  # the file a missing entry's name gives -> the missing entries' files
    slugged: dict[str, set[str]] = {}
    named: dict[str, set[str]] = {}  # a missing entry's name -> the missing entries' files
    for f in findings:
        if f.code == "index-missing-entry" and f.entry is not None:
            exact.setdefault(f"{f.entry.name}{ENTRY_SUFFIX}", set()).add(f.target)
            slugged.setdefault(f"{slugify(f.entry.name)}{ENTRY_SUFFIX}", set()).add(f.target)
            for text in {f.entry.name, f.entry.index_title}:
                named.setdefault(text, set()).add(f.target)
    moved = {}
    for f in findings:
        if f.code != "index-broken-link" or f.link is None or _respelled(state, f.target) is not None \
                or _points_at_a_file(state, f):
            continue
        destination = _opened(state, f.target)
        files = exact.get(destination) or slugged.get(destination) or _titled(state, index_text, f.link, named)
        if len(files) == 1:
            [moved[f.target]] = files
    return moved


def _titled(state: RootState, index_text: str, link: IndexLink, named: Mapping[str, set[str]]) -> set[str]:
    """The files of the missing entries ``link`` names by its link text, when it is that entry's one such line."""
    stem = link.target.removesuffix(ENTRY_SUFFIX)
    if link.title not in named or state.by_name.get(stem) or state.by_slug.get(stem) \
            or titled_left_behind(index_text, link.title) != link.target:
        return set()
    # Another entry named or titled so, with its line or not, may be the one meant.
    holders = {doc.path.name for doc in state.documents.values() if doc.kind == "entry"
               and (e := doc.index_entry) is not None and link.title in (e.name, e.index_title)}
    return named[link.title] if holders == named[link.title] else set()


class _Repair(NamedTuple):
    """A line repair of ``MEMORY.md``: its edit, whether Claude Code still loads it whole, and its title.

    ``removes_words`` when it removes a broken line that no rule pairs with
    an entry and that does not read as the line of a deleted entry
    (:func:`_written_for_a_gone_entry`): the words a person wrote there
    would be lost, and the line may be a memory moved where no rule follows
    it (link text rewritten by hand, a file moved onto another's name, two
    entries that could be meant, an entry saved with a new line since).
    Such a repair is offered, never applied unasked.
    """

    edit: TextEdit
    whole: bool
    title: str
    removes_words: bool = False


def _line_repair(
    doc: Document, findings: list[_LineFinding], rendering: str | None,
    may_be_apart: Callable[[Collection[str]], bool] | None = None, moved: Mapping[str, str] | None = None,
) -> _Repair:
    """The index with the findings' lines added, removed or rewritten, as one minimal edit.

    ``whole`` is False when the index was loaded whole by Claude Code and the
    repaired one would not be: a safe fix never hides lines from the agent
    (an index trimmed to 199 lines had 20 lines appended by ``--fix``).

    When the index is memls's rendering apart from those entries' lines, it
    was generated before the hand edit that caused them, and the repair is
    the rendering (lines in their type's section, memls's order). Otherwise
    the index is curated: a line whose entry moved (``moved``, of
    :func:`_moved_entries`) is pointed at its file, the doomed lines go and
    each missing entry's line is appended as gptme's save appends it; every
    other byte stays.
    """
    text = doc.text
    # A link spelling an entry as a Markdown reader would open it is written as gptme finds it, not removed.
    retargets = [(f.link, meant) for f in findings if f.code == "index-broken-link" and f.link is not None
                 and (meant := _respelled(doc.root, f.target)) is not None]
    respelled = {link.target: meant for link, meant in retargets}
    # The entries those lines list once respelled have their line: none is added for them.
    findings = [f for f in findings if f.target not in respelled.values()]
    filenames = [f.target for f in findings if f.target not in respelled]
    pointed: dict[str, str] = {}
    known = moved or {}
    removes_words = any(f.code == "index-broken-link" and f.target not in respelled and f.target not in known
                        and not _written_for_a_gone_entry(doc.root, f) for f in findings)
    # (A line a rule pairs keeps its words however the rest of the index reads: it is pointed, not rendered.)
    # Nor is an index rendered when a line at one of those files is none of the findings' own.
    if not retargets and not any(f.target in known for f in findings) and rendering is not None \
            and (may_be_apart is None or may_be_apart(filenames)) and generated_apart_from(text, rendering, filenames) \
            and not _other_lines_at(text, findings, filenames):
        new = rendering
    else:
        for f in findings:
            if f.code == "index-broken-link" and f.link is not None and f.target in known:
                pointed[f.target] = known[f.target]
                retargets.append((f.link, known[f.target]))
        # The moved entries' lines are those lines, pointed at their files: neither removed nor added.
        findings = [f for f in findings if f.target not in pointed and f.target not in pointed.values()]
        new = _repaired(text, findings, retargets, set(respelled) | set(pointed))
    findings = [f for f in findings if f.target not in respelled]
    whole = claude_code_visible_limit(text) is not None or claude_code_visible_limit(new) is None
    return _Repair(minimal_edit(doc.path, text, new), whole, _line_fix_title(findings, respelled, pointed), removes_words)


def _other_lines_at(text: str, findings: list[_LineFinding], filenames: Collection[str]) -> bool:
    """Whether ``text`` holds a pointer line at one of ``filenames`` that is no finding's own line."""
    own = {f.link.line for f in findings if f.link is not None}
    return any(link.line not in own for link in pointers_to(text, set(filenames)))


def _written_for_a_gone_entry(state: RootState, finding: _LineFinding) -> bool:
    """Whether a broken line reads as memls and gptme write the line of an entry that is gone.

    Its link text is a name the file's name is the slug of, and no entry of
    the root is named so: the entry was deleted, and the line goes with it.
    A line with link text of its own, or whose entry is still there (moved
    onto another's file), holds words a person wrote for a memory that may
    have moved where no rule follows it; removing it is offered, never
    applied unasked.
    """
    if finding.link is None:
        return False
    stem = os.path.basename(_opened(state, finding.target)).removesuffix(ENTRY_SUFFIX)
    return slugify(finding.link.title) == stem and not state.by_name.get(stem) and not state.by_slug.get(stem)


def _repaired(text: str, findings: list[_LineFinding], retargets: list[tuple[IndexLink, str]],
              respelled: set[str]) -> str:
    new = retarget_links(text, retargets)
    doomed: dict[str, set[int] | None] = {}  # the findings' own lines at each file (None: every line there)
    for f in findings:
        if f.code != "index-missing-entry" and f.target not in respelled:
            lines = doomed.setdefault(f.target, set())
            if f.link is None or lines is None:
                doomed[f.target] = None
            else:
                lines.add(f.link.line)
    new = remove_index_lines_numbered(new, doomed)
    return add_index_lines(new, [f.entry for f in findings if f.code == "index-missing-entry" and f.entry is not None])


def _budgeted_regenerate(state: RootState, doc: Document) -> list[Fix]:
    """Regenerate a legacy index with the largest budget whose result Claude Code loads whole.

    Kept per root while nothing it reads changes (``fixes``): an editor asks
    for the code actions of ``MEMORY.md`` at every move of the cursor, and
    its fix-all asks for this fix only to find it is not safe.
    """
    if state.policy_path in state.documents:
        return []  # a curated view is never truncated; the policy must change
    low, high = POLICY_MIN_BUDGET, CLAUDE_CODE_MAX_BYTES
    best: tuple[int, str] | None = None
    # The root's lines as its index view keeps them, for every budget tried.
    rendering = IndexRendering(groups=state.index_view.groups())
    while low <= high:
        budget = (low + high) // 2
        try:
            text = rendering.render(budget)
        except ValueError:
            low = budget + 1
            continue
        if claude_code_visible_limit(text) is None:
            best = (budget, text)
            low = budget + 1
        else:
            high = budget - 1
    if best is None:
        return []
    budget, text = best
    shown = len(parse_index_lines(text))
    return [Fix(
        f"Regenerate {INDEX_FILENAME} within {budget} bytes (leaves out {rendering.total - shown} entries)",
        (TextEdit(doc.path, _whole_span(doc.text), text),),
    )]


# -- spans -------------------------------------------------------------------------


def _first_difference(text: str, expected: str) -> int:
    lines, wanted = split_lines(text), expected.split("\n")
    for i, (have, want) in enumerate(zip(lines, wanted)):
        if have != want:
            return i
    return min(len(lines), len(wanted)) - 1


def _whole_span(text: str) -> Span:
    lines = split_lines(text)
    return Span(0, 0, len(lines) - 1, len(lines[-1]))


def _policy_error_span(text: str, exc: ValueError) -> Span:
    """Where a policy error sits: the JSON syntax error, or the offending value."""
    cause = exc.__cause__
    if isinstance(cause, json.JSONDecodeError):
        line, col = line_and_column(text, cause.pos)
        return Span(line, col, line, col + 1 if cause.pos < len(text) and text[cause.pos] not in "\r\n" else col)
    message = str(exc)
    locations = _json_locations(text)
    if message.startswith("unsupported") and "version" in locations:
        return locations["version"][0]
    if message.startswith("index policy budget") and "budget" in locations:
        return locations["budget"][0]
    if message.startswith("index policy selected") and "selected" in locations:
        return _offending_item(text, locations["selected"], duplicate="duplicate" in message)
    return _line_span(text, 0)


def _offending_item(text: str, selected: tuple[Span, list[Span]], *, duplicate: bool) -> Span:
    whole, items = selected
    try:
        values = json.loads(text)["selected"]
    except (ValueError, KeyError, TypeError, RecursionError):
        return whole
    if not isinstance(values, list) or len(values) != len(items):
        return whole
    seen = set()
    for value, span in zip(values, items):
        if duplicate:
            key = json.dumps(value)
            if key in seen:
                return span
            seen.add(key)
        elif not (isinstance(value, str) and value.endswith(".md") and "/" not in value
                  and "\\" not in value and not value.startswith(".")
                  and not is_index_filename(value)):
            return span
    return whole


_WHITESPACE = re.compile(r"[ \t\n\r]*")


def _json_locations(text: str) -> dict[str, tuple[Span, list[Span]]]:
    """Spans of each top-level value of a JSON object (and the items of array values).

    A small walk with the standard decoder's ``raw_decode``, so positions come
    from the same parser that validated the file. Anything unexpected ends the
    walk with what was found so far.
    """
    decoder = json.JSONDecoder()
    found: dict[str, tuple[Span, list[Span]]] = {}

    def skip(i: int) -> int:
        match = _WHITESPACE.match(text, i)
        assert match is not None  # a starred class matches the empty string
        return match.end()

    def span(start: int, end: int) -> Span:
        return Span(*line_and_column(text, start), *line_and_column(text, end))

    try:
        i = skip(0)
        if text[i] != "{":
            return found
        i = skip(i + 1)
        while text[i] == '"':
            key, i = decoder.raw_decode(text, i)
            i = skip(i)
            if text[i] != ":":
                return found
            start = skip(i + 1)
            items: list[Span] = []
            if text[start] == "[":
                j = skip(start + 1)
                while text[j] != "]":
                    _, end = decoder.raw_decode(text, j)
                    items.append(span(j, end))
                    j = skip(end)
                    if text[j] == ",":
                        j = skip(j + 1)
            _, i = decoder.raw_decode(text, start)
            found[key] = (span(start, i), items)
            i = skip(i)
            if text[i] != ",":
                break
            i = skip(i + 1)
    except (ValueError, IndexError, RecursionError):
        pass
    return found
