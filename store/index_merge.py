"""Three-way merge of ``MEMORY.md`` by entry: the engine of the git merge driver.

Two branches that each save a memory both change ``MEMORY.md``, usually in
neighbouring lines (a generated index keeps its lines sorted), so git's
line merge reports a conflict on nearly every such merge although nothing
conflicts: each branch added a different entry. Here a pointer line is
identified by the entry file it links to, not by its text, so:

- an entry's line moved on one side stands where that side moved it, saying
  what the merge of its three versions says (the other side's update,
  removal or rename applies to it);
- a line added on one side is added; a line removed on one side is removed
  (also when the other side changed it: a removed line means the entry left
  the index, by supersession or deletion, and its file says why);
- an entry's line changed on one side takes that change; the same entry's
  line changed differently on both sides is the only entry conflict, written
  with git's conflict markers around just that line;
- every other line (headings, prose, custom lines) is text: kept, and
  merged as git would, except that two sides inserting at the same place is
  not a conflict (both insertions are kept).

Where added lines go depends on what kind of index it is. A *generated*
index (see :mod:`memls.store.index`) is laid out by memls: type sections in
their fixed order, lines sorted by name. The merge sees only the three texts
(git calls the driver before the entry files of the merge exist on disk), so
"generated" is read from the shape: all three versions have exactly the
rendering's layout. Then the result is laid out the same way: an added
section goes where its type belongs, an emptied one goes, and lines added on
both sides interleave by the renderer's own key (the entry's name, read from
the file it links to), so the merge of two renderings is the rendering of
the union.
Anything else is *curated*: added lines stay next to the lines they were
added beside, and the person's text stays as they wrote it.

Pure text in, text out; the driver (``memls merge-index``) does the files.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from difflib import SequenceMatcher

from .entry import TYPE_ORDER
from .index import INDEX_HEADER, index_order, parse_index_lines, rendered_name
from .structs import struct

MARKER_SIZE = 7
OURS_LABEL = "ours"
THEIRS_LABEL = "theirs"
_KNOWN_HEADINGS = tuple(f"## {t.capitalize()}" for t in TYPE_ORDER)


@struct
class IndexMergeResult:
    """The merged text and how many places in it hold conflict markers."""

    text: str
    conflicts: int

    @property
    def clean(self) -> bool:
        return self.conflicts == 0


@struct
class _Conflict:
    """One place both sides changed differently: their two texts."""

    ours: str
    theirs: str


@struct
class _Line:
    """A line with its merge identity: the entry file it points at, or its own text."""

    key: tuple[str, str]
    text: str
    # Where a generated index sorts the line: the renderer's key for its entry.
    order: str

    @property
    def is_pointer(self) -> bool:
        return self.key[0] == "entry"


_Value = str | _Conflict | None


def merge_index(
    base: str,
    ours: str,
    theirs: str,
    *,
    marker_size: int = MARKER_SIZE,
    labels: tuple[str, str] = (OURS_LABEL, THEIRS_LABEL),
) -> IndexMergeResult:
    """Merge three versions of a ``MEMORY.md`` by entry (see the module docstring).

    Lines are compared without their line ends; the result ends its lines as
    ours does (``\\r\\n`` if ours has one), and ends without a final newline
    only when none of the three versions had one. When one side did not
    change the file, the other side's text is the result, byte for byte.
    ``labels`` name ours and theirs on the conflict markers.
    """
    raw_ours, raw_theirs = ours, theirs
    base, ours, theirs = (_normalize(t) for t in (base, ours, theirs))
    if ours == base or ours == theirs:
        return IndexMergeResult(raw_theirs, 0)
    if theirs == base:
        return IndexMergeResult(raw_ours, 0)
    shapes = [_rendering_sections(t) for t in (base, ours, theirs)]
    if all(shape is not None for shape in shapes):
        b, o, t = shapes
        assert b is not None and o is not None and t is not None
        merged = _merge_generated(b, o, t)
    else:
        merged = _merge_curated(_lines(base), _lines(ours), _lines(theirs))
    result = _render(merged, marker_size, labels)
    text = result.text
    if text and not any(t.endswith("\n") for t in (base, ours, theirs) if t):
        text = text[:-1]
    if "\r\n" in raw_ours:
        text = text.replace("\n", "\r\n")
    return IndexMergeResult(text, result.conflicts)


# -- generated: type sections, lines sorted within each ------------------------

_Sections = list[tuple[str, list[_Line]]]


def _rendering_sections(text: str) -> _Sections | None:
    """The sections of an index laid out as memls renders it, or None for any other layout."""
    if text == "":
        return []
    if not text.endswith("\n"):
        return None
    lines = text[:-1].split("\n")
    if lines[0] != INDEX_HEADER:
        return None
    sections: _Sections = []
    seen: set[tuple[str, str]] = set()
    i = 1
    while i < len(lines):
        if lines[i] != "" or i + 1 >= len(lines) or not lines[i + 1].startswith("## "):
            return None
        heading, items = lines[i + 1], []
        i += 2
        while i < len(lines) and lines[i] != "":
            line = _line(lines[i])
            if not line.is_pointer or line.key in seen:
                return None
            seen.add(line.key)
            items.append(line)
            i += 1
        if not items or any(heading == h for h, _ in sections):
            return None
        sections.append((heading, items))
    return sections


def _merge_generated(base: _Sections, ours: _Sections, theirs: _Sections) -> list[str | _Conflict]:
    """Entries resolved one by one, then laid out in the rendering's order."""
    placed = [_placements(s) for s in (base, ours, theirs)]
    keys = dict.fromkeys(k for p in placed for k in p)
    resolved = {k: _resolve(*(p.get(k) for p in placed)) for k in keys}
    ours_sections, theirs_sections = dict(ours), dict(theirs)
    headings = _heading_order(list(ours_sections), list(theirs_sections))
    out: list[str | _Conflict] = [INDEX_HEADER]
    for heading in headings:
        order = _union(
            ours_sections.get(heading, []), theirs_sections.get(heading, []), _interleave_sorted
        )
        lines: list[str | _Conflict] = []
        for line in order:
            value = resolved[line.key]
            if isinstance(value, _Conflict):
                if _heading_of(value.ours) == heading:
                    lines.append(_Conflict(_line_of(value.ours), _line_of(value.theirs)))
            elif value is not None and _heading_of(value) == heading:
                lines.append(_line_of(value))
        if lines:
            out += ["", heading, *lines]
    return out


def _placements(sections: _Sections) -> dict[tuple[str, str], str]:
    """Each entry's heading and line, as one comparable value (a move between sections is a change)."""
    return {line.key: f"{heading}\n{line.text}" for heading, lines in sections for line in lines}


def _heading_of(value: str) -> str:
    return value.split("\n", 1)[0]


def _line_of(value: str) -> str:
    return value.split("\n", 1)[1]


def _heading_order(ours: list[str], theirs: list[str]) -> list[str]:
    """Both sides' sections in one order: each side's own order kept (a rendering's order).

    Only sections the two sides added at the same place are ordered by rank:
    a heading shows its type capitalised, so the type's own sort position
    (``Zeta`` before ``alpha``) cannot be read back from it.
    """
    out: list[str] = []
    i = j = 0
    for block in SequenceMatcher(None, ours, theirs, autojunk=False).get_matching_blocks():
        gap = {*ours[i : block.a], *theirs[j : block.b]}
        out += sorted(gap - set(out), key=_heading_rank) + ours[block.a : block.a + block.size]
        i, j = block.a + block.size, block.b + block.size
    return out


def _heading_rank(heading: str) -> tuple[int, str]:
    """Claude Code's types first, in their order, then ``general``, then the rest by name."""
    if heading in _KNOWN_HEADINGS:
        return (_KNOWN_HEADINGS.index(heading), "")
    return (len(_KNOWN_HEADINGS), heading)


def _interleave_sorted(a: list[_Line], b: list[_Line]) -> list[_Line]:
    """Two runs of sorted lines as one sorted run (each run's own order kept)."""
    out: list[_Line] = []
    i = j = 0
    while i < len(a) and j < len(b):
        if (b[j].order, b[j].key) < (a[i].order, a[i].key):
            out.append(b[j])
            j += 1
        else:
            out.append(a[i])
            i += 1
    return out + a[i:] + b[j:]


# -- curated: a line-wise three-way merge in which pointer lines are entries ----


def _merge_curated(base: list[_Line], ours: list[_Line], theirs: list[_Line]) -> list[str | _Conflict]:
    """Where each line goes, from a line-wise merge; what an entry's line says, from the whole file.

    An entry is one line wherever it stands, so its text is resolved across
    the three whole versions, not in the stretch the line-wise merge compares:
    otherwise a line moved on one side (to another section) reads there as
    added, its old place as removed, and the mover's old text would win over
    the other side's update or removal of that entry. The line-wise merge
    decides only where the entry stands (the mover's place) and whether it
    stands at all; the entry's resolved text goes there, once.
    """
    entries = _entry_values(base, ours, theirs)
    placed: list[tuple[tuple[str, str] | None, _Value]] = []
    for stable, b, o, t in _diff3(base, ours, theirs):
        if stable:
            placed += [(lo.key, _resolve(lb.text, lo.text, lt.text)) for lb, lo, lt in zip(b, o, t)]
        else:
            placed += _merge_chunk(b, o, t)
    out: list[str | _Conflict] = []
    done: set[tuple[str, str]] = set()
    for key, value in placed:
        if value is None:
            continue  # not here: removed, or moved away from here
        if key is not None and key in entries:
            if key in done:
                continue  # moved by both sides: the first place holds it
            done.add(key)
            value = entries[key]
            if value is None:
                continue
        out.append(value)
    return out


def _entry_values(base: list[_Line], ours: list[_Line], theirs: list[_Line]) -> dict[tuple[str, str], _Value]:
    """Each entry's line resolved across the three versions; entries listed twice on a side are left out.

    An entry with two lines on one side is not one line moving, so its lines
    are merged where they stand, as text.
    """
    sides = []
    repeated: set[tuple[str, str]] = set()
    for part in (base, ours, theirs):
        values: dict[tuple[str, str], str] = {}
        for line in part:
            if line.is_pointer:
                if line.key in values:
                    repeated.add(line.key)
                values[line.key] = line.text
        sides.append(values)
    keys = {k for side in sides for k in side} - repeated
    return {k: _resolve(*(side.get(k) for side in sides)) for k in keys}


def _merge_chunk(
    base: list[_Line], ours: list[_Line], theirs: list[_Line]
) -> list[tuple[tuple[str, str] | None, _Value]]:
    """A stretch that both sides changed: entries one by one, text kept unless truly contested.

    Each line comes with its key (None for a conflict block), so that the
    caller can put an entry's resolved text in its place.
    """
    texts = [[line.text for line in part] for part in (base, ours, theirs)]
    if texts[1] == texts[0] or texts[1] == texts[2]:
        return [(line.key, line.text) for line in theirs]
    if texts[2] == texts[0]:
        return [(line.key, line.text) for line in ours]
    prose = [[line.text for line in part if not line.is_pointer] for part in (base, ours, theirs)]
    if prose[0] and prose[1] != prose[0] and prose[2] != prose[0] and prose[1] != prose[2]:
        # Both sides rewrote the same text differently: only a person can choose.
        return [(None, _Conflict("\n".join(texts[1]), "\n".join(texts[2])))]
    values = [{line.key: line.text for line in part} for part in (base, ours, theirs)]
    base_keys = {line.key for line in base}

    def anchors(part: list[_Line], side: str) -> list[tuple[str, ...]]:
        # Pointer lines and the base's text can stand in both sides at once; a
        # text line only one side added is its own, even if the other added the same.
        return [
            line.key if line.is_pointer or line.key in base_keys else (side, str(n))
            for n, line in enumerate(part)
        ]

    return [
        (line.key, _resolve(*(v.get(line.key) for v in values)))
        for line in _union(ours, theirs, _side_by_side, anchors(ours, "o"), anchors(theirs, "t"))
    ]


def _side_by_side(a: list[_Line], b: list[_Line]) -> list[_Line]:
    """Two insertions at one place, each kept whole; which comes first does not depend on the side."""
    if not a or not b:
        return a or b
    return a + b if [x.text for x in a] <= [x.text for x in b] else b + a


def _diff3(
    base: list[_Line], ours: list[_Line], theirs: list[_Line]
) -> Iterable[tuple[bool, list[_Line], list[_Line], list[_Line]]]:
    """Stable stretches (same keys on all three sides) and changed ones, in order."""
    to_ours = _matches(base, ours)
    to_theirs = _matches(base, theirs)
    i = j = k = 0
    while True:
        start = i
        while i < len(base) and to_ours.get(i) == j and to_theirs.get(i) == k:
            i, j, k = i + 1, j + 1, k + 1
        n = i - start
        if n:
            yield True, base[start:i], ours[j - n : j], theirs[k - n : k]
        if i >= len(base) and j >= len(ours) and k >= len(theirs):
            return
        m = next((m for m in range(i, len(base)) if m in to_ours and m in to_theirs), None)
        if m is None:
            yield False, base[i:], ours[j:], theirs[k:]
            return
        yield False, base[i:m], ours[j : to_ours[m]], theirs[k : to_theirs[m]]
        i, j, k = m, to_ours[m], to_theirs[m]


def _matches(a: list[_Line], b: list[_Line]) -> dict[int, int]:
    """Which line of ``a`` is which line of ``b``: the text lines first, then pointers between them.

    Headings and prose are the frame of a curated index and pointer lines
    move within it, so the frame is matched first: matched all at once, a
    pointer moved to the next section could be read as its heading moving
    up instead, and the lines added under the old heading would follow it.
    """
    frame_a = [i for i, x in enumerate(a) if not x.is_pointer]
    frame_b = [j for j, x in enumerate(b) if not x.is_pointer]
    anchors = [
        (frame_a[i], frame_b[j]) for i, j in _matching(
            [a[i].key for i in frame_a], [b[j].key for j in frame_b])
    ]
    out = dict(anchors)
    for (i0, j0), (i1, j1) in zip([(-1, -1), *anchors], [*anchors, (len(a), len(b))]):
        for i, j in _matching([x.key for x in a[i0 + 1 : i1]], [x.key for x in b[j0 + 1 : j1]]):
            out[i0 + 1 + i] = j0 + 1 + j
    return out


def _matching(a: Sequence[object], b: Sequence[object]) -> list[tuple[int, int]]:
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    return [(block.a + n, block.b + n) for block in matcher.get_matching_blocks() for n in range(block.size)]


# -- shared ---------------------------------------------------------------------


def _union(
    ours: list[_Line],
    theirs: list[_Line],
    arrange: Callable[[list[_Line], list[_Line]], list[_Line]],
    ours_keys: Sequence[object] | None = None,
    theirs_keys: Sequence[object] | None = None,
) -> list[_Line]:
    """Both sequences as one: lines they share once, in place; ``arrange`` orders each gap's two runs.

    The two are taken in an order set by their text, not by side, so that
    swapping ours and theirs cannot change the result where the shared lines
    could be matched more than one way (both sides added the same lines in
    different orders).
    """
    a = ours_keys if ours_keys is not None else [x.key for x in ours]
    b = theirs_keys if theirs_keys is not None else [x.key for x in theirs]
    if [x.text for x in theirs] < [x.text for x in ours]:
        ours, theirs, a, b = theirs, ours, b, a
    out: list[_Line] = []
    seen: set[tuple[str, str]] = set()
    i = j = 0
    for block in SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks():
        gap = arrange(ours[i : block.a], theirs[j : block.b]) + ours[block.a : block.a + block.size]
        for line in gap:
            # A line both runs hold (moved on one side) is placed once.
            if line.is_pointer and line.key in seen:
                continue
            seen.add(line.key)
            out.append(line)
        i, j = block.a + block.size, block.b + block.size
    return out


def _resolve(base: _Value, ours: _Value, theirs: _Value) -> _Value:
    """One entry (or text line) across the three sides; None means it is not in the result."""
    if ours == theirs or theirs == base:
        return ours
    if ours == base:
        return theirs
    if ours is None or theirs is None:
        return None  # removed on one side, changed on the other: removal wins
    return _Conflict(str(ours), str(theirs))


def _line(text: str) -> _Line:
    links = parse_index_lines(text)
    if links:
        target = links[0].target
        return _Line(("entry", target), text, index_order(rendered_name(target)))
    return _Line(("text", text), text, text)


def _lines(text: str) -> list[_Line]:
    if not text:
        return []
    body = text[:-1] if text.endswith("\n") else text
    return [_line(line) for line in body.split("\n")]


def _render(merged: list[str | _Conflict], marker_size: int, labels: tuple[str, str]) -> IndexMergeResult:
    out: list[str] = []
    conflicts = 0
    for item in merged:
        if isinstance(item, _Conflict):
            conflicts += 1
            out += [
                f"{'<' * marker_size} {labels[0]}",
                item.ours,
                "=" * marker_size,
                item.theirs,
                f"{'>' * marker_size} {labels[1]}",
            ]
        else:
            out.append(item)
    return IndexMergeResult("\n".join(out) + "\n" if out else "", conflicts)


def _normalize(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


# -- an editor's buffer over a file memls wrote ---------------------------------

_RAW_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
_BYTE_ORDER_MARK = "\ufeff"


def rebase_buffer(base: str, written: str, buffer: str) -> str | None:
    """``buffer`` with the lines memls wrote to the file since the editor loaded ``base``; None on a conflict.

    An editor that does not reload a file memls wrote under an unmodified
    buffer (Neovim, until ``:checktime``) lets the user type on the text it
    loaded (``base``), while the file holds ``written``: ``base`` with
    memls's own changes. Saving that buffer as it is would take those
    changes back, and an edit made from its outdated lines alone would not
    find the lines memls moved on. So memls's changes are merged into it,
    as :func:`merge_index` merges two branches: every line the user typed
    stays, every line memls changed that the user did not comes as memls
    wrote it. A line both changed differently, or one the user changed and
    memls removed, is a conflict, left to the user (None).

    The buffer's own bytes are kept: its lines stay as they were, line ends
    and byte-order mark included; a line memls brings ends as the buffer's
    lines mostly do.
    """
    bom = _BYTE_ORDER_MARK if buffer.startswith(_BYTE_ORDER_MARK) else ""
    body = buffer[len(bom):]
    theirs = _normalize(body)
    result = merge_index(_normalize(base.removeprefix(_BYTE_ORDER_MARK)),
                         _normalize(written.removeprefix(_BYTE_ORDER_MARK)), theirs)
    if result.conflicts:
        return None
    # Every line the user typed is in the result: one memls removed and the user changed is contested.
    typed = Counter(theirs.split("\n")) - Counter(_normalize(base.removeprefix(_BYTE_ORDER_MARK)).split("\n"))
    if typed - Counter(result.text.split("\n")):
        return None
    if result.text == theirs:
        return buffer
    raw = _RAW_LINE.findall(body)
    old = [line.rstrip("\r\n") for line in raw]
    new = result.text.split("\n")
    if new[-1] == "":
        new.pop()
    ends_with_break = theirs.endswith("\n") or not theirs  # a buffer without a final break keeps none
    breaks = [line[len(text):] for line, text in zip(raw, old)]
    eol = max(("\n", "\r\n", "\r"), key=breaks.count) if any(breaks) else "\n"
    out: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op == "equal":
            out += zip(old[i1:i2], breaks[i1:i2])
        else:
            out += ((line, eol) for line in new[j1:j2])
    if out:
        last, end = out[-1]
        out[-1] = (last, (end or eol) if ends_with_break else "")
    return bom + "".join(line + (end or eol) for line, end in out[:-1]) + "".join(
        line + end for line, end in out[-1:])
