"""The ``MEMORY.md`` index: rendering, byte budget, selection policy, pointer lines.

``MEMORY.md`` is what Claude Code and gptme put in front of the model on every
turn, so it is small by design: one pointer line per living entry, grouped by
type, and cut to a byte budget when asked. The exact bytes are gptme's, so a
root indexed by memls passes ``gptme-util memory index --check`` and the
other way round.

A root holding ``.memory-index.json`` is *managed*: its index shows exactly
the entries the policy selects, never truncated, and any violation is an
error, because a curated always-on view that silently drops or adds entries is
worse than none. A root without it is *legacy*: its index is *generated* only while its
bytes equal memls's rendering (:func:`is_generated_index`); any other legacy
index is *curated*, and writes edit only the lines of the entries they touch.

Everything here is pure text in, text out; reading files, locking and atomic
writes belong to the callers.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from .entry import TYPE_ORDER, MemoryEntry
from .names import INDEX_FILENAME as INDEX_FILENAME  # re-exported: the index's file name
from .names import POLICY_FILENAME, is_index_filename, slugify
from .reader import shadow_by_name
from .safe_read import MAX_INDEX_BYTES, read_whole
from .spans import split_lines
from .structs import struct
from .text import LINE_BREAK_HAZARD, index_line_hazards

INDEX_HEADER = "# Persistent Memory"
POLICY_VERSION = 1
# The smallest index there is -- the header line alone (``# Persistent
# Memory\n``) -- is 20 bytes; a policy budget below that could never render.
POLICY_MIN_BUDGET = 20
POLICY_KEYS = frozenset({"version", "budget", "selected"})
# Claude Code loads only the head of MEMORY.md: "the first 200 lines or 25KB,
# whichever comes first". We read 25KB as 25 * 1024 bytes.
CLAUDE_CODE_MAX_LINES = 200
CLAUDE_CODE_MAX_BYTES = 25 * 1024
# Separator between a pointer's link and its description (space, U+2014, space).
DESCRIPTION_SEPARATOR = " \u2014 "


# -- which entries an index shows ----------------------------------------------


def gets_index_line(entry: MemoryEntry) -> bool:
    """Whether a rendered index gives ``entry`` a pointer line: it is living and its line is safe.

    Every renderer (a generated or managed index, the server's index view)
    and every line edit asks this, and the index checks expect exactly these
    lines, so an entry whose line cannot be written (its link text holds a
    NUL, a bracket or a lone surrogate: :meth:`MemoryEntry.index_line_hazards`)
    is left out everywhere alike instead of failing the whole index write.
    """
    return entry.is_living and not entry.index_line_hazards()


def index_entries(entries: Iterable[MemoryEntry], *, managed: bool) -> list[MemoryEntry]:
    """The entries of one root (file order) that its index is rendered from.

    A managed root's policy selects by filename, so every file counts even
    when two share a name; a legacy index shows what readers show, the first
    file of each name. The engine's writes and the index checks both use
    this, so a check never expects an index the engine would not write.
    """
    entries = list(entries)
    return entries if managed else shadow_by_name(entries)


def is_generated_index(text: str, *entry_sets: Iterable[MemoryEntry]) -> bool:
    """True when a legacy ``MEMORY.md`` is exactly memls's rendering of one of ``entry_sets``.

    This is the one definition of "generated": the bytes equal what memls
    renders for the root, before or after the change being made (pass both
    entry sets, file order). Anything else is *curated*, whatever it looks
    like: link text and hooks a person chose look just like pointer lines, so
    the shape of a line cannot say who wrote it, and only a byte-equal
    rendering is safe to render again. An index ending in an omission marker
    is compared with the rendering under that marker's budget.
    """
    if not opens_like_a_rendering(text):
        return False
    budget = omission_budget(text)
    for entries in entry_sets:
        try:
            if text == render_index(index_entries(entries, managed=False), budget=budget):
                return True
        except ValueError:  # a marker budget too small to render: not ours
            continue
    return False


def opens_like_a_rendering(text: str) -> bool:
    """Whether ``text`` opens the way every rendering does (necessary, not sufficient, to be one).

    Checked before any render: a render of a large root costs milliseconds,
    and most curated indexes fail here.
    """
    return text == f"{INDEX_HEADER}\n" or text.startswith(
        (f"{INDEX_HEADER}\n\n## ", f"{INDEX_HEADER}\n\n- \u2026 ")
    )


def generated_apart_from(text: str, rendering: str, filenames: Iterable[str]) -> bool:
    """True when ``text`` equals ``rendering`` once both lose the lines of ``filenames``.

    A fix has no "before" to compare with: it sees the index after a hand
    edit added, retired or removed entries. When every line but those
    entries' is exactly the rendering, the index was generated before that
    edit, so repairing it gives the rendering again. A type heading left
    with nothing under it goes with its last line (the renderer writes none).
    """
    doomed = set(filenames)
    return without_lines(text, doomed) == without_lines(rendering, doomed)


def without_lines(text: str, filenames: set[str]) -> list[str]:
    """``text``'s lines without those pointing at ``filenames`` (and sections they emptied)."""
    normalized = _normalize_newlines(text)
    doomed = {link.line for link in pointers_to(normalized, filenames)}
    return without_line_numbers(normalized.split("\n"), doomed)


def without_line_numbers(lines: list[str], doomed: set[int]) -> list[str]:
    """``lines`` (an index's, as ``split_lines`` gives them) without the ``doomed`` ones and sections they emptied.

    For a caller that already knows which lines point where (the index
    checks parse an index once per text): no line is parsed again.
    """
    out: list[str] = []
    emptied = False  # the current section lost a line
    for i, line in enumerate(lines):
        if line.startswith("## "):
            _drop_empty_section(out, emptied)
            emptied = False
        if i in doomed:
            emptied = True
            continue
        out.append(line)
    _drop_empty_section(out, emptied)
    while out and out[-1] == "":
        out.pop()
    return out


def _drop_empty_section(out: list[str], emptied: bool) -> None:
    """Drop the last section (heading and blank lines) if removals left it empty."""
    if not emptied:
        return
    end = len(out)
    start = end
    while start > 0 and out[start - 1] == "":
        start -= 1
    if start > 0 and out[start - 1].startswith("## "):
        del out[start - 1:end]
        while out and out[-1] == "":
            out.pop()
        out.append("")


# -- full rendering -----------------------------------------------------------


_OMISSION_MARKER = re.compile(r"- \u2026 \d+ more entries omitted \(budget (?P<budget>\d+) bytes\)")


def omission_budget(text: str) -> int | None:
    """The budget an index was rendered with, read from its omitted-entries line, if any."""
    # From the end, line by line: only the last non-empty line counts (an
    # index can be a million bytes, and this runs on every check of it).
    end = len(text)
    while end > 0:
        start = text.rfind("\n", 0, end) + 1
        if start < end:
            match = _OMISSION_MARKER.fullmatch(text, start, end)
            return int(match["budget"]) if match else None
        end = start - 1
    return None


def render_index(entries: Iterable[MemoryEntry], *, budget: int | None = None) -> str:
    """The generated index: living entries grouped by type, one line each.

    Groups follow Claude Code's types in their fixed order, then ``general``,
    then any other type in string order; lines within a group are sorted by
    name. With a ``budget`` (UTF-8 bytes, everything included) the largest
    prefix of entries in that order that fits is kept, and one trailing line
    says how many were left out, so a reader knows the view is partial.

    Raises ``ValueError`` ("... too small ...") when the budget is not
    positive or cannot hold even the header and the omission line.
    """
    return IndexRendering(entries).render(budget)


class IndexRendering:
    """:func:`render_index` of one set of entries under any number of budgets.

    The lines are grouped, sorted and formatted once (and their sizes summed
    once, when a budget first asks): a search for the largest budget whose
    result some reader loads whole renders the same root many times.
    """

    def __init__(self, entries: Iterable[MemoryEntry] = (), *,
                 groups: list[tuple[str, list[str]]] | None = None) -> None:
        """From ``entries``, or from ``groups`` already formatted (each type's heading and sorted lines).

        The server's index view keeps exactly those groups, so a budgeted
        render of a legacy root need not format ten thousand lines again.
        """
        if groups is None:
            groups = _grouped_lines([e for e in entries if gets_index_line(e)])
        self.groups = groups
        self.total = sum(len(lines) for _, lines in self.groups)
        self._sizes: list[int] | None = None

    def render(self, budget: int | None = None) -> str:
        """``render_index(entries, budget=budget)``; raises the same ``ValueError``."""
        if budget is not None and budget <= 0:
            raise ValueError(f"budget {budget} is too small for the index header")
        groups, total = self.groups, self.total
        if budget is None:
            return _build(groups, total, total, budget)
        sizes = self._prefix_sizes()
        if sizes[total] <= budget:
            return _build(groups, total, total, budget)
        # With entries omitted, each further entry adds at least 12 bytes while the
        # omission count can shrink the marker by at most one byte, so the size
        # strictly grows with n: the first n that does not fit ends the search.
        # (n = total is checked above on its own: it carries no marker and so can
        # be smaller than n = total - 1.)
        fitting = None
        for n in range(total):
            if sizes[n] + _utf8_len(_omission_marker(total - n, budget)) + 2 > budget:
                break
            fitting = n
        if fitting is None:
            raise ValueError(f"budget {budget} is too small for the index header")
        return _build(groups, fitting, total, budget)

    def _prefix_sizes(self) -> list[int]:
        # Sizes, in bytes, of the rendering of the first n entries without the
        # omission line; it grows by at least a dozen bytes per entry.
        if self._sizes is None:
            sizes = [_utf8_len(INDEX_HEADER) + 1]
            for heading, lines in self.groups:
                for i, line in enumerate(lines):
                    step = _utf8_len(line) + 1
                    if i == 0:  # blank line before the group, then its heading
                        step += 1 + _utf8_len(heading) + 1
                    sizes.append(sizes[-1] + step)
            self._sizes = sizes
        return self._sizes


def _grouped_lines(living: list[MemoryEntry]) -> list[tuple[str, list[str]]]:
    by_type: dict[str, list[MemoryEntry]] = {}
    for entry in living:
        by_type.setdefault(entry.type, []).append(entry)
    order = [t for t in TYPE_ORDER if t in by_type]
    order += sorted(t for t in by_type if t not in TYPE_ORDER)
    return [
        (
            type_heading(t),
            [e.index_line() for e in sorted(by_type[t], key=lambda e: index_order(e.name))],
        )
        for t in order
    ]


def type_heading(kind: str) -> str:
    """The heading of one type's group of lines (``## Feedback``), as gptme writes it."""
    return f"## {kind.capitalize()}"


def index_order(name: str) -> str:
    """Where an entry's line sorts within its type group: by name, in Python string order.

    gptme's order (case-sensitive: ``Zed`` before ``amy``), not the link text's:
    a titled entry sorts by its name. The merge driver lays merged lines out
    with this same key, so a merge of two renderings is a rendering.
    """
    return name


def rendered_name(target: str) -> str:
    """The entry name a rendered pointer to ``target`` stands for: the file's stem.

    Saves write ``<name>.md`` (memls and gptme alike), so the stem is the name
    for every entry they wrote; only a hand-written file whose frontmatter
    name differs from its file name breaks this, and then a merged index may
    need an ``index --write`` to be the rendering again.
    """
    return target[: -len(".md")] if target.endswith(".md") else target


def _build(
    groups: list[tuple[str, list[str]]], n: int, total: int, budget: int | None
) -> str:
    """The text of the first ``n`` of ``total`` entries (gptme's layout)."""
    out = [INDEX_HEADER, ""]
    remaining = n
    for heading, lines in groups:
        if remaining <= 0:
            break
        take = lines[:remaining]
        out += [heading, *take, ""]
        remaining -= len(take)
    while out and out[-1] == "":
        out.pop()
    if n < total:
        out += ["", _omission_marker(total - n, budget)]
    return "\n".join(out) + "\n"


def _omission_marker(omitted: int, budget: int | None) -> str:
    # Always "entries": gptme writes no singular form, and the bytes must match.
    return f"- \u2026 {omitted} more entries omitted (budget {budget} bytes)"


def _utf8_len(text: str) -> int:
    """Bytes of ``text`` in UTF-8; a lone surrogate (an editor buffer can hold one) counts 3."""
    return len(text.encode("utf-8", "surrogatepass"))


# -- the selection policy ------------------------------------------------------


@struct
class IndexPolicy:
    """A managed root's ``.memory-index.json``: which files the index shows, in how many bytes.

    The schema is closed and validated strictly (fail closed): an unreadable
    policy must stop every index write rather than fall back to showing
    everything, which would break the budget the policy exists to guarantee.
    Error messages are gptme's, so scripts matching on them keep working.
    """

    version: int
    budget: int
    selected: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> IndexPolicy:
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise ValueError(f"invalid {POLICY_FILENAME}: {exc}") from exc
        if not isinstance(data, dict) or set(data) != POLICY_KEYS:
            raise ValueError(f"{POLICY_FILENAME} requires version, budget, selected")
        version = data["version"]
        # ``type(...) is int`` rejects ``true``: JSON booleans are ints in Python.
        if type(version) is not int or version != POLICY_VERSION:
            raise ValueError(f"unsupported {POLICY_FILENAME} version")
        budget = data["budget"]
        if type(budget) is not int or budget <= 0:
            raise ValueError("index policy budget must be a positive integer")
        if budget < POLICY_MIN_BUDGET:
            raise ValueError(
                f"index policy budget must be at least {POLICY_MIN_BUDGET} bytes "
                "(the index header alone requires that many bytes)"
            )
        selected = data["selected"]
        if not isinstance(selected, list) or not all(
            _is_local_entry_filename(item) for item in selected
        ):
            raise ValueError("index policy selected must contain local entry filenames")
        if len(set(selected)) != len(selected):
            raise ValueError("index policy selected contains duplicate filenames")
        return cls(version, budget, tuple(selected))

    @classmethod
    def read(cls, root: Path) -> IndexPolicy | None:
        """The root's policy, or None for a legacy root (no policy file).

        Any other failure to read propagates: a policy that exists but cannot
        be read must not turn the root into a legacy one. A symlinked policy is
        refused, as gptme does, so a root cannot borrow another's selection.
        """
        path = Path(root) / POLICY_FILENAME
        if path.is_symlink():
            raise ValueError(f"memory index policy {path} must not be a symlink")
        raw = read_whole(path, MAX_INDEX_BYTES)  # a FIFO or a device is refused, never opened
        if raw is None:
            return None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"invalid {POLICY_FILENAME}: {exc}") from exc
        return cls.parse(text)

    def dumps(self) -> str:
        """The file text as gptme writes it (two-space indent, UTF-8 kept as is)."""
        data = {"version": self.version, "budget": self.budget, "selected": list(self.selected)}
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"

    def replace_selected(self, old_filename: str, new_filename: str) -> IndexPolicy:
        """Move the selection from a superseded file to its replacement.

        The replacement takes the old file's place; if it was already selected
        too, only its first position is kept, so it is never listed twice.
        """
        moved = (new_filename if f == old_filename else f for f in self.selected)
        return replace(self, selected=tuple(dict.fromkeys(moved)))


def _is_local_entry_filename(item: object) -> bool:
    """A bare ``*.md`` file of the root itself that readers treat as an entry."""
    return (
        isinstance(item, str)
        and item.endswith(".md")
        and not item.startswith(".")
        and "/" not in item
        and "\\" not in item
        and not is_index_filename(item)
    )


def render_policy_view(
    entries: Sequence[MemoryEntry], policy: IndexPolicy, *, budget: int | None = None
) -> str:
    """A managed root's index: exactly the selected entries, or an error.

    ``entries`` are the root's entries (all of them, any status). A one-shot
    ``budget`` can tighten the policy's cap but never raise it. Nothing is
    truncated: a curated view that no longer fits is a problem for a human.
    A selected entry whose line cannot be written (:func:`gets_index_line`)
    is left out, as from every rendering; ``unsafe-index-text`` names it.
    """
    by_filename = {entry.filename: entry for entry in entries}
    chosen = []
    for filename in policy.selected:
        entry = by_filename.get(filename)
        if entry is None or not entry.is_living:
            raise ValueError(f"selected memory {filename!r} is missing or not living")
        chosen.append(entry)
    limit = policy.budget if budget is None else min(policy.budget, budget)
    text = render_index(chosen)
    size = _utf8_len(text)
    if size > limit:
        raise ValueError(
            f"selected memory index needs {size} bytes, exceeds budget {limit}; "
            f"shorten descriptions or revise {POLICY_FILENAME} before writing"
        )
    return text


def check_index_name(entry: MemoryEntry) -> None:
    """Refuse an entry whose name, title or type would break its ``MEMORY.md`` pointer line.

    A save writes the name's slug, so only a name, title or type written by
    hand can hold a line break, a NUL or a bracket; every write that puts the
    entry's line into the index (a save, a rename, a supersession's new
    entry) checks it first, since a rendering would leave the entry out
    (:func:`gets_index_line`) and the write would hide it from the index.
    Line breaks in a title or type are :func:`memls.store.store.check_index_fields`'s
    to refuse, with their own message.
    """
    hazards = index_line_hazards(entry.name, link_text=not entry.title)
    if hazards:
        raise ValueError(
            f"name {entry.name!r} contains {' and '.join(hazards)}, "
            "which would break its MEMORY.md line; rename the entry first"
        )
    for field, value, link_text in (("title", entry.title or "", True), ("type", entry.type, False)):
        hazards = [h for h in index_line_hazards(value, link_text=link_text) if h != LINE_BREAK_HAZARD]
        if hazards:
            raise ValueError(
                f"{field} {value!r} contains {' and '.join(hazards)}, "
                f"which would break its MEMORY.md line; fix the {field} first"
            )


# -- pointer lines ---------------------------------------------------------------


def upsert_index_line(index_text: str, entry: MemoryEntry) -> str:
    """gptme's upsert of ``entry``'s pointer, byte for byte (the interop reference).

    gptme rewrites the file through Python's universal newlines, so every
    line ending comes out as ``\\n``. memls's own writes use
    :func:`add_index_line`, which keeps the file's line endings. One
    difference is kept on purpose: gptme's pattern runs across a line break
    after a line holding an unclosed ``- [`` and deletes that line with the
    pointer; memls matches within one line.
    """
    return add_index_line(_normalize_newlines(index_text), entry)


def add_index_line(index_text: str, entry: MemoryEntry) -> str:
    """A legacy root's ``MEMORY.md`` after saving ``entry``: its pointer added or updated.

    The filename is the key, so a changed title or description rewrites the
    same line, and every other line (hand-written prose included) is kept
    byte for byte, line endings too: a rewritten line keeps its own ending,
    an appended one takes the file's (its first line break; ``\\n`` in a
    file without one). On ``\\n`` text this is exactly gptme's upsert.

    gptme's matching rule is kept exactly for interoperability, including its
    quirk: a pointer whose link text contains ``]`` is never recognised, so
    upserting such an entry appends a duplicate line each time. memls's
    own difference: an entry whose line would break the index
    (:func:`gets_index_line`; such a title, a NUL in it) gets no line, and
    the text is returned unchanged (``unsafe-index-text`` reports it).
    """
    if entry.index_line_hazards():
        return index_text
    line = entry.index_line()
    pattern = re.compile(rf"- \[[^\]]*\]\({re.escape(entry.filename)}\).*")
    matched = [(start, end, line) for _, start, end in _lines_holding(index_text, f"]({entry.filename})")
               if pattern.fullmatch(index_text, start, end)]
    if matched:
        return _spliced(index_text, matched)
    return _appended(index_text, [line])


def add_index_lines(index_text: str, entries: Iterable[MemoryEntry]) -> str:
    """:func:`add_index_line` of each entry (each of its own file) in turn, the appended lines joined at once.

    Only a line linking to an entry's file can be its line, so the links are
    collected once: an entry without one has its line appended, as its
    upsert would append it, and the appends are written together. Adding the
    thousands of lines an index trimmed on purpose lacks, one upsert at a
    time, copied and searched the growing text for each: 2 s at 10k
    entries, quadratic beyond.
    """
    linked = set(_LINK_TARGETS.findall(index_text))
    appended: list[str] = []
    for entry in entries:
        filename = entry.filename
        if filename in linked or ")" in filename:
            index_text = add_index_line(_appended(index_text, appended), entry)
            appended = []
        elif not entry.index_line_hazards():
            appended.append(entry.index_line())
    return _appended(index_text, appended)


def _appended(index_text: str, lines: list[str]) -> str:
    """``index_text`` with ``lines`` appended as :func:`add_index_line` appends a line."""
    if not lines:
        return index_text
    if not index_text:
        index_text = f"{INDEX_HEADER}\n\n"
    first_break = _LINE_BREAKS.search(index_text)
    eol = first_break.group() if first_break is not None else "\n"
    # One copy of the text (a 10k-entry index is a megabyte), not one per concatenation.
    ended = index_text.endswith(("\n", "\r"))
    return "".join((index_text, "" if ended else eol, eol.join(lines), eol))


def remove_index_line(index_text: str, filename: str, moved_from: Collection[str] = ()) -> str:
    """``MEMORY.md`` without any pointer line to ``filename`` (delete, rename).

    Unlike the upsert this recognises pointers whose link text contains ``]``,
    so a removal leaves no dangling pointer behind. Every other line keeps
    its bytes and its own line ending. ``moved_from``: the files a hand move
    may have left the entry's lines at (:func:`lines_left_behind`), whose
    lines go too: gone files named after the entry, so no line there is
    another's.
    """
    found = _pointers_at(index_text, {filename, *moved_from})
    if not found:
        return index_text
    return _without_spans(index_text, [(link.line, start, end) for link, start, end in found])


def remove_index_lines_numbered(index_text: str, lines: Mapping[str, Collection[int] | None]) -> str:
    """``MEMORY.md`` without the pointer lines numbered ``lines[f]`` at each file ``f`` (None: every line at it).

    For a repair of the lines a check found, all in one pass (numbers are
    the text's as given): another line at the same file, with words a
    person wrote, is not one of them (stranger s31b: ``--fix`` removed a
    gone entry's line and, with it, a note at its file).
    """
    found = [(link.line, start, end) for link, start, end in _pointers_at(index_text, set(lines))
             if (numbers := lines[link.target]) is None or link.line in numbers]
    return _without_spans(index_text, found) if found else index_text


def _without_spans(text: str, doomed: list[tuple[int, int, int]]) -> str:
    """``_without_lines_numbered(*_lines_and_breaks(text), ...)`` of the ``doomed`` lines, cut out of ``text``.

    ``doomed`` holds (number, start, end offset without its break), in line
    order. Each line goes with its own break; when the last line goes, the
    break before the kept text's end goes too. Only those lines are looked
    at: a fix that removes one line of a 10k-line index splits no other.
    """
    pieces, at = [], 0
    numbers = set()
    last = None  # the number of the text's last line, when it is doomed
    for number, start, end in doomed:
        numbers.add(number)
        pieces.append(text[at:start])
        at = end + (2 if text.startswith("\r\n", end) else 1 if end < len(text) else 0)
        if end == len(text):
            last = number
    pieces.append(text[at:])
    out = "".join(pieces)
    if last is None:
        return out
    # The trailing run of doomed lines: the break before its first line (the last kept line's) goes.
    first = last
    while first - 1 in numbers:
        first -= 1
    start = next(start for number, start, _ in doomed if number == first)
    if start == 0:
        return ""
    eol = 2 if text.startswith("\r\n", start - 2) else 1
    return out[:-eol] if out else out


def refresh_index_line(
    index_text: str, before: MemoryEntry | None, after: MemoryEntry, earlier: Sequence[MemoryEntry] = (),
    moved_from: Sequence[str] = (),
) -> str:
    """``MEMORY.md`` after ``before`` became ``after`` (a save or a rename), curated text kept.

    A pointer line has two parts a person may have written: the link text
    and the hook after it. Each part follows the entry only while it is
    still the text memls would have written for ``before`` (its title or
    name, its description); a part the user wrote stays as written, and the
    link target follows the file. So a body-only save changes nothing, a
    rename of a curated line changes only its target, and a stock line
    becomes the new stock line. An entry without a line gets one appended,
    as gptme's upsert does. Line endings stay the file's.

    ``earlier`` are other versions of the entry the line may have been
    written for (an editor's buffer that took another tool's write, or a
    save the server saw late): a part that is memls's text for any of them
    follows the entry too.

    ``moved_from``: files the entry's line may still point at when it has
    none at its file (:func:`lines_left_behind`); the first with a line is
    taken as its file was, so the line is pointed at the entry's file with
    its words kept, never left broken beside an appended one (the next
    ``--fix`` removed the broken line, and the person's words with it).
    """
    links = [] if before is None else _pointers_at(index_text, {_line_target(index_text, before.filename, moved_from)})
    if not links:
        return add_index_line(index_text, after)
    assert before is not None
    versions = [before, *earlier]
    old_titles = {t for v in versions for t in (v.index_title, v.name, v.index_parts()[0])}
    old_descriptions = {d for v in versions for d in (v.description, v.index_parts()[1])}
    # The parts as the line shows them; a link text that would break the line
    # (gets_index_line) is not written: the line keeps the one it has.
    new_title, new_description = after.index_parts()
    title_follows = not after.index_line_hazards()
    new_lines = []
    for link, start, end in links:
        line = index_text[start:end]
        title = new_title if title_follows and link.title in old_titles else link.title
        (t0, t1), (f0, f1) = link.title_span, link.target_span
        tail = line[f1:]
        if link.description is not None and link.description in old_descriptions:
            tail = tail[: len(tail) - len(link.description)] + new_description
        new_lines.append((start, end, line[:t0] + title + line[t1:f0] + after.filename + tail))
    return _spliced(index_text, new_lines)


def _line_target(index_text: str, filename: str, moved_from: Sequence[str] = ()) -> str:
    """The link target of an entry's line: its file's name, or the first file in ``moved_from`` a line points at.

    ``moved_from`` is where a hand move may have left the line
    (:func:`lines_left_behind`): a file that is gone. A save or a rename
    points that line at the entry's file when the file has none, so no
    write leaves the entry's line broken behind it.
    """
    if not moved_from or _pointers_at(index_text, {filename}):
        return filename
    return next((name for name in moved_from if _pointers_at(index_text, {name})), filename)


def stale_line_error(name: str, new_name: str, filename: str, line: int) -> ValueError:
    """The refusal of a rename onto ``filename`` while a curated line (1-based ``line``) points there at nothing.

    That line, broken and about something else, would become a second line
    of the renamed entry with its words standing for it; the person settles
    it first (the engine's rename and the editor's refuse alike).
    """
    return ValueError(f"cannot rename '{name}' to '{new_name}': line {line} of MEMORY.md already points at "
                      f"{filename}, which no file holds; change or remove that line first")


def claimed_line_error(name: str, filename: str, line: int, other: MemoryEntry) -> ValueError:
    """The refusal of a save of a new ``name`` into ``filename`` while a curated line (1-based ``line``) there is ``other``'s.

    ``other`` was moved by hand and its line still points at ``filename``;
    the new entry would take that line, and its words, as its own.
    ``memls check --fix`` points the line at ``other``'s file first.
    """
    return ValueError(f"cannot save '{name}': line {line} of MEMORY.md points at {filename} for '{other.name}', "
                      f"now in {other.filename}; point that line at {other.filename} (memls check --fix) "
                      "or remove it first")


def lines_left_behind(root_dir: Path, entry: MemoryEntry, index_text: str,
                      entries: Callable[[], Iterable[MemoryEntry]]) -> list[str]:
    """The files a hand move of ``entry`` may have left its index line at: those its name gives, gone.

    ``mv deploy.md deploy-notes.md`` leaves the line of ``deploy`` pointing
    at ``deploy.md``. The file named as the entry comes first, then its
    name's slug; a file that is there keeps its line (its own, or one
    pointing at a file memls cannot read: never taken over). A line at the
    slug's file is this entry's only when no other entry of the root
    (``entries``, asked only then) may be meant, as ``memls check`` pairs a
    moved entry with its line: one named exactly as the file wins
    (``deploy`` over ``Deploy`` for ``deploy.md``), and two whose names slug
    to it leave the line to the person. Last, while the entry has no line
    at its file, comes the one line whose link text is its name or title
    (:func:`titled_left_behind`), when no other entry has that name or
    title and none is named as the line's file.
    """
    exact = f"{entry.name}.md"
    out: list[str] = []
    for filename in (exact, f"{slugify(entry.name)}.md"):
        if not _may_be_left_behind(root_dir, entry, filename, out):
            continue
        if filename != exact and _pointers_at(index_text, {filename}) \
                and _meant_by_another(filename[: -len(".md")], entry.name, entries()):
            continue
        out.append(filename)
    if _pointers_at(index_text, {entry.filename}):
        return out
    for text in dict.fromkeys((entry.name, entry.index_title)):
        titled = titled_left_behind(index_text, text)
        if titled is None or not _may_be_left_behind(root_dir, entry, titled, out):
            continue
        others = [e for e in entries() if e.name != entry.name and e.path != entry.path]
        if not _meant_by_another(titled[: -len(".md")], entry.name, others) \
                and not any(text in (e.name, e.index_title) for e in others):
            out.append(titled)
    return out


def _meant_by_another(stem: str, name: str, entries: Iterable[MemoryEntry]) -> bool:
    """Whether an entry other than ``name`` is named ``stem`` or has a name whose slug is ``stem``."""
    return any(e.name != name and (e.name == stem or slugify(e.name) == stem) for e in entries)


def titled_left_behind(index_text: str, name: str) -> str | None:
    """The target of the one pointer line whose link text is ``name`` (an entry's name or title), at an entry file.

    A second hand move (``mv deploy.md d2.md``, the line pointed at
    ``d2.md``, then ``mv d2.md d3.md``) leaves the line at a file the name
    does not give; its link text, the entry's name or the title memls wrote
    there, still says whose it is.
    Two such lines are left to the person, as ``memls check`` leaves them.
    """
    targets = {link.target for number, start, end in _lines_holding(index_text, f"[{name}](")
               if (link := pointer_line(number, index_text[start:end])) is not None and link.title == name
               and link.target.endswith(".md") and "/" not in link.target}
    return targets.pop() if len(targets) == 1 else None


def _may_be_left_behind(root_dir: Path, entry: MemoryEntry, filename: str, taken: Collection[str]) -> bool:
    """Whether a line at ``filename`` may be ``entry``'s left behind: another entry file's name, and gone."""
    return filename != entry.filename and filename not in taken and "/" not in filename \
        and not is_index_filename(filename) and not os.path.lexists(root_dir / filename)


def line_may_describe(index_text: str, version: MemoryEntry, besides: MemoryEntry | None = None) -> bool:
    """Whether a pointer line to ``version``'s file holds a part that is memls's text for it alone.

    A part :func:`refresh_index_line` would take as memls's for ``version``:
    the hook, or the link text when it is not also ``besides``'s (the
    entry as the next save will count it anyway). An editor keeps the
    versions memls wrote or sent a line for while such a line may stand.
    """
    titles = {version.index_title, version.name, version.index_parts()[0]}
    if besides is not None:
        titles -= {besides.index_title, besides.name, besides.index_parts()[0]}
    descriptions = {version.description, version.index_parts()[1]}
    return any(link.title in titles or (link.description is not None and link.description in descriptions)
               for link in pointers_to(index_text, {version.filename}))


def _spliced(text: str, replacements: list[tuple[int, int, str]]) -> str:
    """``text`` with each ``(start, end)`` range (in order, not overlapping) replaced: one copy of the rest."""
    pieces, at = [], 0
    for start, end, new in replacements:
        pieces += [text[at:start], new]
        at = end
    pieces.append(text[at:])
    return "".join(pieces)


def replace_pointer(index_text: str, filename: str, line: str, moved_from: Collection[str] = ()) -> str:
    """``line`` in place of the first pointer to ``filename``, any further ones dropped.

    Pointers are found by the index parser, which also recognises a title
    containing ``]``, so no pointer to a renamed or retired file survives.
    The line taken keeps its ending; every other line keeps its bytes.
    ``moved_from``: as for :func:`remove_index_line`, lines there count as pointers to ``filename``.
    """
    doomed = [link.line for link in pointers_to(index_text, {filename, *moved_from})]
    if not doomed:
        return index_text
    lines, breaks = _lines_and_breaks(index_text)
    lines[doomed[0]] = line
    return _without_lines_numbered(lines, breaks, set(doomed[1:]))


def retarget_links(index_text: str, retargets: Iterable[tuple[IndexLink, str]]) -> str:
    """``index_text`` with each pointer's target written as the filename given; every other byte kept."""
    lines, breaks = _lines_and_breaks(index_text)
    for link, target in retargets:
        line = lines[link.line]
        start, end = link.target_span
        lines[link.line] = line[:start] + target + line[end:]
    return _joined(lines, breaks)


def _without_lines_numbered(lines: list[str], breaks: list[str], doomed: set[int]) -> str:
    """The text without the ``doomed`` lines; a removed last line takes the break before it along."""
    kept = [i for i in range(len(lines)) if i not in doomed]
    return "".join(lines[i] + (breaks[i] if n < len(kept) - 1 else "") for n, i in enumerate(kept))


_LINE_BREAKS = re.compile(r"(\r\n|\r|\n)")
# Every link destination of a text, up to its first ")" (``add_index_lines``).
_LINK_TARGETS = re.compile(r"\]\(([^)\r\n]*)\)")


def _lines_and_breaks(text: str) -> tuple[list[str], list[str]]:
    """``text``'s lines as :func:`memls.store.spans.split_lines` counts them, and each one's ending.

    The last line's ending is ``""`` (the text after the final break).
    """
    parts = _LINE_BREAKS.split(text)
    return parts[0::2], parts[1::2] + [""]


def _joined(lines: list[str], breaks: list[str]) -> str:
    return "".join(line + eol for line, eol in zip(lines, breaks))


@struct
class IndexLink:
    """One pointer line of ``MEMORY.md``; spans are (start, end) columns on its line."""

    line: int
    title: str
    target: str
    description: str | None
    title_span: tuple[int, int]
    target_span: tuple[int, int]


# Lazy title: the shortest title that lets the rest of the line match, so a
# title containing ``]`` or ``](`` still parses as long as the line is a pointer.
# A pointer's link text ends at its first "](": a ``]`` inside it (``[see [x]]``) is kept, but a
# line's later links (``- [T](a.md): see [docs](b.md)``) are not its target. gptme finds an
# entry's line by its first link too, so a reading that took the last one called such a line
# broken and its safe fix deleted it.
_LINK_TEXT = r"(?P<title>(?:[^\]]|\](?!\())*)"
# A target may hold balanced parentheses, as a file named ``notes (old).md`` does.
_LINK_TARGET = r"(?P<target>(?:[^()]|\([^()]*\))*)"
_POINTER_FULL = re.compile(
    r"- \[" + _LINK_TEXT + r"\]\(" + _LINK_TARGET + r"\)(?:" + DESCRIPTION_SEPARATOR + r"(?P<desc>.*))?"
)
_POINTER_HEAD = re.compile(r"- \[" + _LINK_TEXT + r"\]\(" + _LINK_TARGET + r"\)")


def parse_index_lines(index_text: str) -> list[IndexLink]:
    """Every pointer line (``- [title](target) — description``) with its spans.

    Lines are counted as :func:`memls.store.spans.split_lines` counts them
    (``\\r\\n``, ``\\r`` and ``\\n`` each end one); columns are Python string
    indices on the line. A pointer without the ``" — description"`` tail is
    still a pointer, with ``description`` None.
    """
    return [link for number, text in enumerate(split_lines(index_text))
            if (link := pointer_line(number, text)) is not None]


def pointer_line(number: int, text: str) -> IndexLink | None:
    """Line ``number`` (``text``, without its break) as a pointer, or None when it is not one.

    A byte-order mark before the first line is not part of it: the check,
    which reads the text without it, and the writers, which keep it, must
    find the same line there.
    """
    at = 1 if number == 0 and text.startswith("\ufeff") else 0
    match = _POINTER_FULL.fullmatch(text, at) or _POINTER_HEAD.match(text, at)
    if match is None:
        return None
    return IndexLink(
        line=number,
        title=match["title"],
        target=match["target"],
        description=match.groupdict().get("desc"),
        title_span=match.span("title"),
        target_span=match.span("target"),
    )


# Beyond this many filenames one parse of every line costs less than a search per name.
_SEARCHED_FILENAMES = 64


def pointers_to(index_text: str, filenames: Collection[str]) -> list[IndexLink]:
    """The pointer lines whose target is one of ``filenames``, in line order.

    Exactly ``parse_index_lines`` filtered by target, without parsing every
    line: a pointer to ``f`` holds ``(f)`` verbatim (a target holds no
    ``)``), so only the lines holding that text are parsed. A save or a
    check about a few entries then reads a few lines of a 10k-line index,
    not all of them.
    """
    if len(filenames) > _SEARCHED_FILENAMES:
        return [link for link in parse_index_lines(index_text) if link.target in filenames]
    return [link for link, _, _ in _pointers_at(index_text, filenames)]


def _pointers_at(index_text: str, filenames: Collection[str]) -> list[tuple[IndexLink, int, int]]:
    """:func:`pointers_to`'s lines (searched for, whatever their number), each with its line's start and end offset."""
    found: dict[int, tuple[int, int]] = {}
    for filename in filenames:
        found.update((number, (start, end)) for number, start, end in _lines_holding(index_text, f"({filename})"))
    return [(link, start, end) for number, (start, end) in sorted(found.items())
            if (link := pointer_line(number, index_text[start:end])) is not None and link.target in filenames]


def _lines_holding(text: str, needle: str) -> list[tuple[int, int, int]]:
    """Each line of ``text`` holding ``needle``, once, as (number, start, end offset without its break), in order.

    Lines are numbered as :func:`memls.store.spans.split_lines` numbers them
    (``\r\n``, ``\r`` and ``\n`` each end one); ``needle`` holds no line break.
    """
    out: list[tuple[int, int, int]] = []
    number, counted = 0, 0  # the line number at offset ``counted`` (a line start)
    at = text.find(needle)
    while at != -1:
        # The nearest break each way; a "\r" is looked for only between the needle and the "\n".
        newline = text.rfind("\n", counted, at)
        start = max(newline, text.rfind("\r", max(newline, counted), at)) + 1
        if start < counted:
            start = counted  # (no break since ``counted``: the line starts there)
        newline = text.find("\n", at)
        end = newline if newline != -1 else len(text)
        cr = text.find("\r", at, end)
        end = cr if cr != -1 else end
        number += text.count("\n", counted, start) + text.count("\r", counted, start) \
            - text.count("\r\n", counted, start)
        out.append((number, start, end))
        counted = start
        at = text.find(needle, end)
    return out


def claude_code_visible_limit(index_text: str) -> int | None:
    """The first line (0-based) Claude Code does not load, or None if it loads all.

    Claude Code puts only the head of ``MEMORY.md`` into its context: the
    first 200 lines, and no more than 25 KB (taken as 25 * 1024 bytes). A
    line that would be cut by the byte limit counts as not loaded; its bytes
    are counted without its line break.
    """
    lines = index_text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the text after the final newline is not a line
    offset = 0
    for number, line in enumerate(lines):
        if number >= CLAUDE_CODE_MAX_LINES:
            return number
        end = offset + _utf8_len(line)
        if end > CLAUDE_CODE_MAX_BYTES:
            return number
        offset = end + 1
    return None


def _normalize_newlines(text: str) -> str:
    if "\r" not in text:
        return text  # (most indexes: a 1 MB one is not copied twice)
    return text.replace("\r\n", "\n").replace("\r", "\n")
