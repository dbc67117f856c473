"""Supersession checks: names and the links between entries of one root.

An entry replaces another by two links that must agree: the new entry lists
the old one in ``supersedes`` and the old one names the new one in
``superseded_by`` (with ``status: superseded``). Readers resolve both by
name, within one root, against the *visible* entry of each name (the first
file in sorted order), so the checks do the same. gptme's audit checks the
link half of this (its four codes keep their names and texts here, in
``data["audit"]``); the rest (self-links, cycles, two living successors,
status that contradicts the links, links across roots) is memls's own.

Every check here looks things up in the root's dictionaries only: the links
of one entry, the entries they name, and the entries naming the same target.
"Did you mean" searches over all names happen in ``fixes`` only, on demand.
"""

from __future__ import annotations

import difflib
import heapq
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, TypeGuard

from ..anchors import anchor as _anchor
from ..anchors import key_span as _key_span
from ..anchors import keys as _keys
from ..anchors import value_span as _value_span
from ..diagnostics import CreateFile, Fix, Location, Problem, Related, TextEdit
from ..edits import (
    add_list_item,
    insert_keys,
    remove_key,
    remove_list_item,
    replace_list_item,
    set_scalar,
    yaml_scalar,
)
from ..entry import STATUSES, MemoryEntry
from ..errors import ReservedNameError
from ..model import Document, RootState
from ..names import check_name
from ..parse import ParsedDocument, parse_document, with_description_prompt
from ..spans import Span

if TYPE_CHECKING:
    from . import CheckContext

CODES: tuple[str, ...] = (
    "duplicate-name",
    "dangling-supersedes",
    "dangling-superseded-by",
    "asymmetric-supersession",
    "self-supersession",
    "supersession-cycle",
    "forked-succession",
    "living-with-successor",
    "superseded-without-successor",
    "cross-root-link",
    "superseded-reference",
)

SUPERSEDES = "supersedes"
SUPERSEDED_BY = "superseded_by"
# How far a cycle search follows ``superseded_by`` (a longer loop goes unreported):
# real chains are a handful of links long, and a per-keystroke check must not
# walk a pathological 10,000-link one.
_CYCLE_SEARCH_LIMIT = 100
# How many names a cycle message spells out before eliding the rest.
_CYCLE_NAMES_SHOWN = 6


# -- spans ----------------------------------------------------------------------


def _item_span(doc: Document, index: int) -> Span:
    """One ``supersedes`` item; a bare-string value is its own single item."""
    spans = _keys(doc).get(SUPERSEDES)
    if spans is None:
        return _anchor(doc)
    if index < len(spans.items):
        return spans.items[index]
    return spans.value


def _written_status(doc: Document) -> str | None:
    """The status the file states (absent means living); None when it is not a valid status.

    An invalid status is the frontmatter family's problem; judging links
    against the reader's fallback would report the same mistake twice.
    """
    parsed = doc.parsed
    data = parsed.frontmatter.data if parsed is not None and parsed.frontmatter is not None else None
    if not isinstance(data, dict) or "status" not in data:
        entry = doc.entry
        return entry.status if entry is not None else None
    raw = data["status"]
    return raw if isinstance(raw, str) and raw in STATUSES else None


def _strictly_valid(doc: Document) -> bool:
    """gptme's audit sees only strictly parsed files; audit rollups come only from those."""
    return doc.parsed is not None and doc.parsed.strict_error is None


def _audit(doc: Document, code: str, entry: str, detail: str) -> dict[str, Any]:
    if not _strictly_valid(doc):
        return {}
    return {"audit_code": code, "audit": (entry, detail)}


def _entry(doc: Document) -> MemoryEntry:
    """The entry of a document the checks and fixes here were given (``check`` and ``fixes`` take entries only)."""
    entry = doc.entry
    assert entry is not None, doc.path
    return entry


def _parsed(doc: Document) -> ParsedDocument:
    """The parse of a document edits are built for (``_editable`` accepted it)."""
    parsed = doc.parsed
    assert parsed is not None, doc.path
    return parsed


# -- check ------------------------------------------------------------------------


def check(ctx: CheckContext, doc: Document) -> Iterable[Problem | None]:
    if doc.kind != "entry" or doc.entry is None:
        return ()
    if doc.stated_name is None or doc.stated_name != doc.name:
        return ()
    state = doc.root
    visible = state.visible(doc.name)
    if visible is not None and visible.path != doc.path:
        # A hidden duplicate: readers (and gptme's audit) never follow its links.
        return (_duplicate_name(ctx, doc, visible),)
    if doc.facts is not doc:
        # The frontmatter does not load: its links and status are guesses of
        # the line fallback, so only its (certain) name was checked.
        return ()
    return list(_check_visible(ctx, doc))


def _duplicate_name(ctx: CheckContext, doc: Document, first: Document) -> Problem | None:
    name = doc.name
    assert name is not None  # check() passes a document that states its name
    data: dict[str, Any] = {"target": name}
    # gptme compares with the first *strictly parsed* earlier file of the name.
    earlier = next(
        (d for d in doc.root.named(name) if d.path < doc.path and _strictly_valid(d)), None
    )
    if earlier is not None:
        data.update(_audit(doc, "duplicate-name", doc.path.name,
                           f"name {name!r} is also used by {earlier.path}"))
    return ctx.problem(
        "duplicate-name", doc, _value_span(doc, "name"),
        f"name '{name}' is also used by {first.path.name}, which readers see instead; rename this entry",
        related=(Related(Location(first.path, _value_span(first, "name")),
                         f"'{name}' is defined here first"),),
        data=data,
    )


def _check_visible(ctx: CheckContext, doc: Document) -> Iterator[Problem | None]:
    """The links as written; an item of the wrong type is the frontmatter family's problem."""
    successor = doc.successor
    if successor:
        yield from _check_superseded_by(ctx, doc, successor)
    for index, old in doc.predecessors:
        yield from _check_supersedes_item(ctx, doc, index, old)
    yield from _check_status(ctx, doc)


def _other_root_entry(ctx: CheckContext, state: RootState, name: str) -> Document | None:
    """The entry ``name`` in a root layered with this one (an unrelated project's does not count)."""
    for other in ctx.workspace.layered_with(state):
        found = other.visible(name)
        if found is not None:
            return found
    return None


def _missing_target(
    ctx: CheckContext, doc: Document, key: str, index: int, target: str, span: Span,
) -> Problem | None:
    """A link to a name this root lacks: dangling, or a cross-root link when another root has it."""
    name = _entry(doc).name
    if key == SUPERSEDED_BY:
        code, detail, what = "dangling-superseded-by", f"replacement {target!r} does not exist", "superseded_by"
    else:
        code, detail, what = "dangling-supersedes", f"superseded entry {target!r} does not exist", "supersedes"
    if target in doc.root.maybe_named:
        return None  # an entry whose YAML does not load may be it: its name is in doubt
    data = {"link": key, "index": index, "target": target, **_audit(doc, code, name, detail)}
    elsewhere = _other_root_entry(ctx, doc.root, target)
    if elsewhere is not None:
        return ctx.problem(
            "cross-root-link", doc, span,
            f"{what} '{target}' names an entry of the {elsewhere.root.scope} root only; "
            "supersession never crosses roots, so remove the link or move the entry here",
            related=(Related(Location(elsewhere.path, _anchor(elsewhere)),
                             f"'{target}' is in another root"),),
            data=data,
        )
    fix_hint = "remove the link" if key == SUPERSEDED_BY else "remove the item"
    return ctx.problem(
        code, doc, span,
        f"{what} '{target}' names no entry in this root; fix the name or {fix_hint}",
        data=data,
    )


def _check_superseded_by(ctx: CheckContext, doc: Document, successor: str) -> Iterator[Problem | None]:
    entry = _entry(doc)
    name = entry.name
    span = _value_span(doc, SUPERSEDED_BY)
    if successor == name:
        data: dict[str, Any] = {"link": SUPERSEDED_BY, "target": name}
        if name not in entry.supersedes:
            data.update(_audit(doc, "asymmetric-supersession", name,
                               f"{successor!r} does not point back to this entry"))
        yield ctx.problem(
            "self-supersession", doc, span,
            f"'{name}' is superseded_by itself; remove the link", data=data,
        )
        return
    target = doc.root.visible(successor)
    if target is None:
        yield _missing_target(ctx, doc, SUPERSEDED_BY, 0, successor, span)
        return
    facts = target.facts
    if facts is None:
        return  # its frontmatter does not load: nothing is known of its links
    target_entry = facts.entry
    assert target_entry is not None
    if name not in target_entry.supersedes:
        yield ctx.problem(
            "asymmetric-supersession", doc, span,
            f"superseded_by '{successor}' does not link back: '{successor}' does not list "
            f"'{name}' in supersedes; add it there",
            related=(Related(Location(target.path, _key_span(facts, SUPERSEDES)),
                             f"'{successor}' should list '{name}' here"),),
            data={"link": SUPERSEDED_BY, "target": successor,
                  **_audit(doc, "asymmetric-supersession", name,
                           f"{successor!r} does not point back to this entry")},
        )
    cycle = _cycle_through(doc)
    if cycle is not None:
        shown = [*cycle, name]
        text = " -> ".join(f"'{n}'" for n in shown[:_CYCLE_NAMES_SHOWN])
        if len(shown) > _CYCLE_NAMES_SHOWN:
            text += " -> ..."
        yield ctx.problem(
            "supersession-cycle", doc, span,
            f"superseded_by '{successor}' leads back to '{name}' ({text}); break the cycle",
            related=(Related(Location(target.path, _anchor(target)),
                             f"'{successor}' is next in the cycle"),),
        )
    if target_entry.status == "superseded":
        later = f" by '{facts.successor}'" if facts.successor else ""
        yield ctx.problem(
            "superseded-reference", doc, span,
            f"superseded_by '{successor}' names an entry that is itself superseded{later}, "
            "so this entry is two steps behind the current one",
            tags=("deprecated",), data={"target": successor},
        )


def _cycle_through(doc: Document) -> list[str] | None:
    """The names on a ``superseded_by`` loop back to ``doc`` (doc first), if there is one."""
    state = doc.root
    start = _entry(doc).name
    members = [start]
    seen = {start}
    current = doc.successor
    while current and len(members) <= _CYCLE_SEARCH_LIMIT:
        if current == start:
            return members if len(members) >= 2 else None
        if current in seen:
            return None  # a loop further along that does not pass through doc
        nxt = state.visible(current)
        facts = nxt.facts if nxt is not None else None
        if facts is None or facts.entry is None:
            return None
        members.append(current)
        seen.add(current)
        current = facts.successor
    return None


def _check_supersedes_item(
    ctx: CheckContext, doc: Document, index: int, old: str,
) -> Iterator[Problem | None]:
    entry = _entry(doc)
    name = entry.name
    span = _item_span(doc, index)
    if old == name:
        data: dict[str, Any] = {"link": SUPERSEDES, "index": index, "target": name}
        if entry.superseded_by != name:
            data.update(_audit(doc, "asymmetric-supersession", name,
                               f"{old!r} does not point back to this entry"))
        yield ctx.problem(
            "self-supersession", doc, span,
            f"'{name}' supersedes itself; remove the item", data=data,
        )
        return
    target = doc.root.visible(old)
    facts = target.facts if target is not None else None
    if target is None:
        yield _missing_target(ctx, doc, SUPERSEDES, index, old, span)
    elif facts is not None:  # None: its frontmatter does not load, its links are unknown
        later = facts.successor
        if later != name:
            if later:
                message = (f"supersedes '{old}', but '{old}' is superseded_by "
                           f"'{later}'; remove one of the two links")
                related_span = _value_span(facts, SUPERSEDED_BY)
            else:
                message = (f"supersedes '{old}', but '{old}' does not link back; "
                           f"set its superseded_by to '{name}'")
                related_span = _anchor(facts)
            yield ctx.problem(
                "asymmetric-supersession", doc, span, message,
                related=(Related(Location(target.path, related_span),
                                 f"'{old}' should have superseded_by '{name}'"),),
                data={"link": SUPERSEDES, "index": index, "target": old,
                      **_audit(doc, "asymmetric-supersession", name,
                               f"{old!r} does not point back to this entry")},
            )
    if entry.status == "living":
        for rival, rival_index in _living_rivals(doc, old):
            assert rival.facts is not None  # a living entry's facts are its own
            yield ctx.problem(
                "forked-succession", doc, span,
                f"'{old}' is also superseded by living entry '{rival.name}'; "
                "keep one successor living",
                related=(Related(Location(rival.path, _item_span(rival.facts, rival_index)),
                                 f"'{rival.name}' also supersedes '{old}'"),),
                data={"target": old},
            )


def _living_rivals(doc: Document, old: str) -> list[tuple[Document, int]]:
    """Other visible living entries that list ``old`` in supersedes (with the item's index)."""
    state = doc.root
    out: list[tuple[Document, int]] = []
    for path in sorted(state.linked_from.get(old, ())):
        if path == doc.path:
            continue
        other = state.documents.get(path)
        facts = other.facts if other is not None else None
        if other is None or facts is None or facts.entry is None or facts.entry.status != "living":
            continue
        if other.name is None or state.visible(other.name) is not other or other.name == old:
            continue
        index = next((i for i, item in facts.predecessors if item == old), None)
        if index is not None:
            out.append((other, index))
    return out


def _check_status(ctx: CheckContext, doc: Document) -> Iterator[Problem | None]:
    status = _written_status(doc)
    name = _entry(doc).name
    successor = doc.successor
    if successor and successor != name and status == "living":
        span = _value_span(doc, "status") if "status" in _keys(doc) else _value_span(doc, SUPERSEDED_BY)
        yield ctx.problem(
            "living-with-successor", doc, span,
            f"'{name}' has superseded_by '{successor}' but its status is living; "
            "set status: superseded",
            data={"target": successor},
        )
    if status == "superseded" and not _entry(doc).superseded_by:
        yield ctx.problem(
            "superseded-without-successor", doc, _value_span(doc, "status"),
            f"'{name}' has status superseded but no superseded_by; name its successor "
            "or set status: historical",
        )


# -- fixes -------------------------------------------------------------------------


def fixes(ctx: CheckContext, problem: Problem) -> Iterable[Fix]:
    doc = ctx.workspace.document(problem.path)
    if doc is None or doc.entry is None or doc.parsed is None or doc.parsed.frontmatter is None:
        return []
    builder = _FIX_BUILDERS.get(problem.code)
    if builder is None:
        return []
    try:
        return list(builder(ctx, doc, problem))
    except (KeyError, IndexError, ValueError):
        # The document no longer has the shape the problem was found in (edited since).
        return []


def _editable(doc: Document | None) -> TypeGuard[Document]:
    """Text edits need loaded YAML: the spans come from it."""
    if doc is None or doc.parsed is None or doc.parsed.frontmatter is None:
        return False
    fm = doc.parsed.frontmatter
    return fm.error is None and isinstance(fm.data, dict)


def _set_keys(doc: Document, values: dict[str, str]) -> list[TextEdit]:
    """Set several string keys at once: replace present ones, insert absent ones in one edit."""
    parsed = _parsed(doc)
    present = _keys(doc)
    edits = [set_scalar(parsed, key, value) for key, value in values.items() if key in present]
    absent = [(key, value) for key, value in values.items() if key not in present]
    if absent:
        edits.append(insert_keys(parsed, absent))
    return edits


def _spelled(values: dict[str, str]) -> str:
    return ", ".join(f"{key}: {value}" for key, value in values.items())


def _overrides_status(doc: Document, values: dict[str, str]) -> bool:
    """True when ``values`` replace a ``status`` the file states explicitly with another."""
    if not _editable(doc):
        return False
    fm = _parsed(doc).frontmatter
    assert fm is not None  # _editable
    keys = fm.data
    return "status" in values and "status" in keys and keys["status"] != values["status"]


def _duplicate_fixes(ctx: CheckContext, doc: Document, problem: Problem) -> Iterator[Fix]:
    # Imported here: the rename planner is a separate module that itself uses the model.
    from ..rename_plan import plan_rename, suggest_free_name

    new_name = suggest_free_name(doc.root, _entry(doc).name)
    try:
        yield plan_rename(ctx.workspace, doc, new_name)
    except ValueError:
        return  # no rename can be written (a title that would break its line): nothing to offer


def _remove_link_fix(doc: Document, problem: Problem, *, status_after: str = "historical") -> Fix | None:
    key = problem.data.get("link")
    target = problem.data.get("target")
    if not _editable(doc) or key not in _keys(doc):
        return None
    if key == SUPERSEDED_BY:
        removal = remove_key(_parsed(doc), SUPERSEDED_BY)
        if removal is None:
            return None
        edits = [removal]
        title = f"Remove superseded_by '{target}'"
        if _written_status(doc) == "superseded":
            edits.extend(_set_keys(doc, {"status": status_after}))
            title += f" and set status: {status_after}"
        return Fix(title, tuple(edits))
    index = problem.data["index"]
    if _entry(doc).supersedes[index] != target:
        return None
    item_removal = remove_list_item(_parsed(doc), SUPERSEDES, index)
    if item_removal is None:
        return None
    return Fix(f"Remove '{target}' from supersedes", item_removal)


def _close_names(state: RootState, target: str, own: str, n: int = 3, cutoff: float = 0.6) -> list[str]:
    """``difflib.get_close_matches(target, <the root's names but own>, n, cutoff)``, the same answer.

    The fixes of every dangling link ask it of the whole root. Its cheap
    upper bound (``quick_ratio``: the letters two names share, as multisets)
    is computed here from each name's letters counted once per root
    (:func:`_name_letters`), and only the names that pass it are compared
    in full, so one call walks the root in a few steps per name.
    """
    want = Counter(target)
    letters_wanted, counts_wanted, none = tuple(want), tuple(want.values()), (0,) * len(want)
    lb = len(target)
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(target)
    found = []
    for candidate, letters in _name_letters(state):
        if candidate == own:
            continue
        length = len(candidate) + lb
        if _ratio(min(len(candidate), lb), length) < cutoff:  # real_quick_ratio
            continue
        # sum(min(count, letters.get(letter, 0)) for each wanted letter), without a Python frame per letter.
        shared = sum(map(min, counts_wanted, map(letters.get, letters_wanted, none)))
        if _ratio(shared, length) < cutoff:  # quick_ratio
            continue
        matcher.set_seq1(candidate)
        if matcher.ratio() >= cutoff:
            found.append((matcher.ratio(), candidate))
    return [candidate for _, candidate in heapq.nlargest(n, found)]


def _ratio(matches: int, length: int) -> float:
    return 2.0 * matches / length if length else 1.0  # difflib's _calculate_ratio


def _name_letters(state: RootState) -> list[tuple[str, Counter[str]]]:
    """Each name of the root with its letters counted, kept while no document changes."""
    cached = state.memo.get("name-letters")
    if cached is not None and cached[0] == state.revision:
        return cached[1]
    letters = [(name, Counter(name)) for name in state.by_name]
    state.memo["name-letters"] = (state.revision, letters)
    return letters


def _retarget_fixes(ctx: CheckContext, doc: Document, problem: Problem) -> Iterator[Fix]:
    key = problem.data.get("link")
    target = problem.data["target"]
    state = doc.root
    name = _entry(doc).name
    for choice in _close_names(state, target, name):
        other = state.visible(choice)
        if other is None or not _editable(other):
            continue
        other_entry = _entry(other)
        title = f"Change to '{choice}'"
        if key == SUPERSEDED_BY:
            edits = [set_scalar(_parsed(doc), SUPERSEDED_BY, choice)]
            if name not in other_entry.supersedes:
                addition = add_list_item(_parsed(other), SUPERSEDES, name)
                if addition is None:
                    continue  # its list cannot grow without changing another key
                edits.append(addition)
                title += f" and add '{name}' to supersedes in {other.path.name}"
        else:
            if choice in _entry(doc).supersedes:
                continue
            if other_entry.superseded_by and other_entry.superseded_by != name:
                continue  # it already has a successor: retargeting would contradict it
            index = problem.data["index"]
            spans = _keys(doc)[SUPERSEDES]
            if index < len(spans.items):  # quoted as its list needs (a flow list ends plain items at ",")
                edits = [replace_list_item(_parsed(doc), SUPERSEDES, index, choice)]
            else:
                edits = [TextEdit(doc.path, spans.value, yaml_scalar(choice))]
            if other_entry.superseded_by != name:
                values = {SUPERSEDED_BY: name}
                if _written_status(other) != "superseded":
                    values["status"] = "superseded"
                edits.extend(_set_keys(other, values))
                title += f" and set {_spelled(values)} in {other.path.name}"
        yield Fix(title, tuple(edits))


def _create_fix(ctx: CheckContext, doc: Document, problem: Problem) -> Fix | None:
    """Create the missing target with the back-link already set, never over an existing file."""
    key = problem.data.get("link")
    target = problem.data["target"]
    state = doc.root
    try:
        slug = check_name(target)
    except ReservedNameError:
        return None
    # A name that is not its own slug would be saved under another file name.
    if slug != target or slug in state.by_slug:
        return None
    path = state.path / f"{slug}.md"
    if path in state.documents or path.exists():
        return None
    entry = _entry(doc)
    name = entry.name
    # No description yet: a comment prompts for it (never published as one).
    if key == SUPERSEDED_BY:
        new = MemoryEntry(name=target, description="", type=entry.type, supersedes=[name])
    else:
        new = MemoryEntry(name=target, description="", type=entry.type,
                          status="superseded", superseded_by=name)
    text = with_description_prompt(new.to_markdown())
    reread = parse_document(text, path=path)
    if reread.entry is None or reread.entry.name != target or reread.strict_error is not None:
        return None
    return Fix(f"Create entry '{target}' ({path.name})", (CreateFile(path, text),))


def _dangling_fixes(ctx: CheckContext, doc: Document, problem: Problem) -> Iterator[Fix]:
    removal = _remove_link_fix(doc, problem)
    if removal is not None:
        yield removal
    if _editable(doc):
        yield from _retarget_fixes(ctx, doc, problem)
    created = _create_fix(ctx, doc, problem)
    if created is not None:
        yield created


def _cross_root_fixes(ctx: CheckContext, doc: Document, problem: Problem) -> Iterator[Fix]:
    removal = _remove_link_fix(doc, problem)
    if removal is not None:
        yield removal


def _asymmetric_fixes(ctx: CheckContext, doc: Document, problem: Problem) -> Iterator[Fix]:
    key = problem.data.get("link")
    target = problem.data["target"]
    state = doc.root
    other = state.visible(target)
    name = _entry(doc).name
    if other is None or not _editable(other):
        return
    if key == SUPERSEDED_BY:
        if _entry(doc).superseded_by != target or name in _entry(other).supersedes:
            return
        addition = add_list_item(_parsed(other), SUPERSEDES, name)
        if addition is not None:  # None: its list cannot grow without changing another key
            yield Fix(f"Add '{name}' to supersedes in {other.path.name}", (addition,), safe=True)
        return
    if _entry(other).superseded_by:
        return  # it names another successor: which link is right is the user's call
    # Two entries claiming it: setting one successor is a choice, not a repair.
    claimants = [
        p for p in state.linked_from.get(target, ())
        if (d := state.documents.get(p)) is not None and d.entry is not None
        and state.visible(d.entry.name) is d and target in d.entry.supersedes
    ]
    values = {SUPERSEDED_BY: name}
    if _written_status(other) != "superseded":
        values["status"] = "superseded"
    # A status the user wrote (historical, an explicit living) is their
    # choice: overriding it is offered, never applied without asking.
    yield Fix(f"Set {_spelled(values)} in {other.path.name}", tuple(_set_keys(other, values)),
              safe=len(claimants) == 1 and not _overrides_status(other, values))


def _self_fixes(ctx: CheckContext, doc: Document, problem: Problem) -> Iterator[Fix]:
    # An entry superseded by itself is meant to be the current one: it stays living.
    removal = _remove_link_fix(doc, problem, status_after="living")
    if removal is not None:
        # Removing the link also turns an explicit ``status: superseded`` back
        # to living: that changes what the user wrote, so it is only offered.
        changes_status = problem.data.get("link") == SUPERSEDED_BY and _written_status(doc) == "superseded"
        yield Fix(removal.title, removal.operations, safe=not changes_status)


def _living_with_successor_fixes(ctx: CheckContext, doc: Document, problem: Problem) -> Iterator[Fix]:
    if not _editable(doc):
        return
    successor = doc.root.visible(doc.successor or "")
    values = {"status": "superseded"}
    safe = (_editable(successor) and _entry(doc).name in _entry(successor).supersedes
            and not _overrides_status(doc, values))
    yield Fix("Set status: superseded", tuple(_set_keys(doc, values)), safe=safe)


def _superseded_without_successor_fixes(ctx: CheckContext, doc: Document, problem: Problem) -> Iterator[Fix]:
    if not _editable(doc):
        return
    state = doc.root
    name = _entry(doc).name
    yield Fix("Set status: historical", tuple(_set_keys(doc, {"status": "historical"})))
    yield Fix("Set status: living", tuple(_set_keys(doc, {"status": "living"})))
    for path in sorted(state.linked_from.get(name, ())):
        other = state.documents.get(path)
        if (_editable(other) and other.entry is not None and other.path != doc.path
                and state.visible(other.entry.name) is other and name in other.entry.supersedes):
            yield Fix(f"Set superseded_by: {other.entry.name}",
                      tuple(_set_keys(doc, {SUPERSEDED_BY: other.entry.name})))


_FIX_BUILDERS = {
    "duplicate-name": _duplicate_fixes,
    "dangling-supersedes": _dangling_fixes,
    "dangling-superseded-by": _dangling_fixes,
    "cross-root-link": _cross_root_fixes,
    "asymmetric-supersession": _asymmetric_fixes,
    "self-supersession": _self_fixes,
    "living-with-successor": _living_with_successor_fixes,
    "superseded-without-successor": _superseded_without_successor_fixes,
}
