"""Minimal text edits to one document's frontmatter, for fixes and renames.

A fix must touch only what it fixes: a person's comments, quoting and key
order stay as they were. So fixes are computed as edits over the spans the
parser recorded, not as a re-serialisation of the whole entry (that is what
formatting is for). Each function returns edits that do not overlap one
another when used on distinct keys.
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path

from .diagnostics import TextEdit
from .edit_check import edit_problem
from .frontmatter import Frontmatter
from .parse import ParsedDocument
from .scalars import flow_scalar, yaml_scalar
from .spans import KeySpans, Span


def _frontmatter(doc: ParsedDocument) -> Frontmatter:
    if doc.frontmatter is None:
        raise ValueError("the document has no frontmatter to edit")
    return doc.frontmatter


def _path(doc: ParsedDocument) -> Path:
    if doc.path is None:
        raise ValueError("the document has no path")
    return doc.path


def _lines(doc: ParsedDocument) -> list[str]:
    return doc.text.split("\n")


def _closing_insert_point(doc: ParsedDocument) -> Span:
    fm = _frontmatter(doc)
    line = fm.block.end_line
    return Span(line, 0, line, 0)


def _whole_lines(start_line: int, end_line: int) -> Span:
    """Lines ``start_line``..``end_line`` inclusive, with their line breaks."""
    return Span(start_line, 0, end_line + 1, 0)


def set_scalar(doc: ParsedDocument, key: str, value: str) -> TextEdit:
    """Set a top-level key to a string (replace its value, or add the key)."""
    fm = _frontmatter(doc)
    spans = fm.keys.get(key)
    if spans is None:
        return TextEdit(_path(doc), _closing_insert_point(doc), f"{key}: {yaml_scalar(value)}\n")
    if spans.value.start_line != spans.key.start_line:
        # A block value under the key: replace key line through the value's end.
        return TextEdit(
            _path(doc),
            Span(spans.key.start_line, spans.key.start_col, spans.value.end_line, spans.value.end_col),
            f"{key}: {yaml_scalar(value)}",
        )
    return TextEdit(_path(doc), _content(doc, spans.value), yaml_scalar(value))


def insert_keys(doc: ParsedDocument, items: list[tuple[str, str]]) -> TextEdit:
    """Add several new top-level string keys at once (one edit, no overlap)."""
    text = "".join(f"{key}: {yaml_scalar(value)}\n" for key, value in items)
    return TextEdit(_path(doc), _closing_insert_point(doc), text)


def insert_first_key(doc: ParsedDocument, key: str, value: str) -> TextEdit:
    """Add a top-level string key as the first line of the frontmatter.

    For ``name``: every serializer writes it first, and a reader scanning
    the file looks for it there.
    """
    _frontmatter(doc)
    return TextEdit(_path(doc), Span(1, 0, 1, 0), f"{key}: {yaml_scalar(value)}\n")


def remove_key(doc: ParsedDocument, key: str) -> TextEdit | None:
    """Delete a top-level key with its whole value, or ``None`` when that would break the file.

    A value (or an item of it) carrying an anchor (``superseded_by: &old g1``)
    may be repeated elsewhere through its alias (``note: *old``): deleting it
    leaves an undefined alias, and the file stops loading. No fix is better
    than that one.
    """
    fm = _frontmatter(doc)
    spans = fm.keys[key]
    if any(_anchored(doc, span) for span in (spans.value, *spans.items)):
        return None
    return TextEdit(_path(doc), _whole_lines(spans.key.start_line, spans.value.end_line), "")


# A node's properties: an optional tag, then an anchor.
_ANCHOR_FIRST = re.compile(r"(?:![^\s]*\s+)?&")


def _anchored(doc: ParsedDocument, span: Span) -> bool:
    return _ANCHOR_FIRST.match(_lines(doc)[span.start_line], span.start_col) is not None


def _is_flow(doc: ParsedDocument, key: str) -> bool:
    content = _content(doc, _frontmatter(doc).keys[key].value)
    return _lines(doc)[content.start_line][content.start_col : content.start_col + 1] == "["


def add_list_item(doc: ParsedDocument, key: str, item: str) -> TextEdit | None:
    """Append ``item`` to a list field, creating the key when absent; ``None`` when no edit can do only that.

    A single-string value (``supersedes: a``, which readers treat as a
    one-item list) becomes a flow list, so the edit stays on its line; a
    flow list stays flow, and an anchor or tag before the list stays (the
    list is found after them). An empty value with a comment after it gets
    its list on its line (``supersedes: [old]  # why``). The edit is then
    applied and read back (:func:`memls.store.edit_check.edit_problem`): a
    list shared through its anchor (``keywords: *lst``) would change another
    key, so it is refused, as is anything else that would not read back as
    the list with ``item`` added and every other key, comment and the body
    as they were.
    """
    fm = _frontmatter(doc)
    spans = fm.keys.get(key)
    edit: TextEdit | None
    if spans is None:
        edit = TextEdit(_path(doc), _closing_insert_point(doc), f"{key}:\n- {yaml_scalar(item)}\n")
    else:
        edit = _list_addition(doc, key, spans, item)
    if edit is None:
        return None
    old = fm.data.get(key) if isinstance(fm.data, dict) else None
    current = old if isinstance(old, list) else [] if old is None or old == "" else [old]
    after = apply_edits(doc.text, [edit])
    return edit if edit_problem(doc.text, after, {key: [*current, item]}) is None else None


# A node's properties (tags and an anchor, in either order) before its content.
_NODE_PROPERTIES = re.compile(r"(?:(?:![^\s]*|&[^\s,\[\]{}]+)[ \t]*)*")


def content_start(line: str, col: int) -> int:
    """Where a value written at ``col`` of ``line`` starts after its tag and anchor."""
    properties = _NODE_PROPERTIES.match(line, col)
    return properties.end() if properties is not None else col


def _content(doc: ParsedDocument, value: Span) -> Span:
    """The part of a value after its tag and anchor (``[a]`` of ``&lst !!seq [a]``).

    What a rewrite of the value replaces: rewritten with its properties, an
    alias of the anchor elsewhere (``see_also: *s``) would name nothing and
    the file would stop loading. Kept, the alias follows the new value.
    """
    end = content_start(_lines(doc)[value.start_line], value.start_col)
    if value.start_line == value.end_line:
        end = min(end, value.end_col)
    return Span(value.start_line, end, value.end_line, value.end_col)


def _list_addition(doc: ParsedDocument, key: str, spans: KeySpans, item: str) -> TextEdit | None:
    """The edit appending ``item`` to an existing key's value, not yet read back."""
    fm = _frontmatter(doc)
    old = fm.data.get(key) if isinstance(fm.data, dict) else None
    lines = _lines(doc)
    value = spans.value
    content = _content(doc, value)
    opener = lines[content.start_line][content.start_col : content.start_col + 1]
    if lines[value.start_line][value.start_col : value.start_col + 1] == "*":
        # An alias: the list is written (and may be used) elsewhere; this key gets its own copy.
        if not isinstance(old, list) or not all(isinstance(v, str) for v in old):
            return None
        return TextEdit(_path(doc), value, "[" + ", ".join(flow_scalar(v) for v in [*old, item]) + "]")
    if isinstance(old, list) and spans.items:
        last = spans.items[-1]
        if opener == "[":
            end = Span(last.end_line, last.end_col, last.end_line, last.end_col)
            return TextEdit(_path(doc), end, f", {flow_scalar(item)}")
        first_line = lines[spans.items[0].start_line]
        indent = first_line[: len(first_line) - len(first_line.lstrip(" "))]
        insert_at = Span(last.end_line + 1, 0, last.end_line + 1, 0)
        return TextEdit(_path(doc), insert_at, f"{indent}- {yaml_scalar(item)}\n")
    if isinstance(old, list) or old is None or old == "":
        # Nothing else on the key's line: written as a new key is (a block list).
        if not isinstance(old, list) and content == value and not lines[value.end_line][value.end_col:].strip():
            return set_list(doc, key, [item])
        if (content.start_line, content.start_col) == (content.end_line, content.end_col):
            return TextEdit(_path(doc), content, f" [{flow_scalar(item)}]")  # ``key:  # why``
        return TextEdit(_path(doc), content, f"[{flow_scalar(item)}]")  # ``[]``, ``~``
    return TextEdit(_path(doc), content, f"[{flow_scalar(str(old))}, {flow_scalar(item)}]")


def set_list(doc: ParsedDocument, key: str, items: list[str]) -> TextEdit:
    """Replace a list field's whole value (an empty list removes the key)."""
    fm = _frontmatter(doc)
    spans = fm.keys.get(key)
    if not items:
        removal = remove_key(doc, key) if spans is not None else None
        if removal is None:
            raise ValueError(f"no key {key!r} that can be removed")
        return removal
    block = f"{key}:\n" + "".join(f"- {yaml_scalar(i)}\n" for i in items)
    if spans is None:
        return TextEdit(_path(doc), _closing_insert_point(doc), block)
    return TextEdit(_path(doc), _whole_lines(spans.key.start_line, spans.value.end_line), block)


def remove_list_item(doc: ParsedDocument, key: str, index: int) -> tuple[TextEdit, ...] | None:
    """Remove one item of a list field, or ``None`` when no edit can do only that.

    The user's bytes are sacred: the edit deletes the item and one separating
    comma, never a comment, another key or another item. A value reached
    through an alias, or one carrying an anchor or tag, is refused: its bytes
    are shared with (or named by) text outside this key, so no deletion
    inside the key changes only this list. A block list's item goes with its
    line; a flow list's last item leaves ``[]`` (the key and its comment
    stay); a single-string value goes with its key, as before.
    """
    fm = _frontmatter(doc)
    spans = fm.keys[key]
    if not _value_is_plain(doc, spans):
        return None
    values = fm.data.get(key) if isinstance(fm.data, dict) else None
    if not isinstance(values, list):
        edit = remove_key(doc, key)
        return None if edit is None else (edit,)
    if len(spans.items) != len(values) or not 0 <= index < len(values):
        return None
    if _is_flow(doc, key):
        return _remove_flow_item(doc, spans, index)
    if len(values) == 1:
        return _remove_only_block_item(doc, key, spans)
    item = spans.items[index]
    return (TextEdit(_path(doc), _whole_lines(item.start_line, item.end_line), ""),)


def _remove_only_block_item(doc: ParsedDocument, name: str, spans: KeySpans) -> tuple[TextEdit, ...] | None:
    """Empty a block list of one item: the key goes with it, unless a comment would go too.

    ``supersedes:  # why`` over ``  # a note`` over ``  - gone``: the comments
    are the user's, so the key stays as ``supersedes: []`` with its comment,
    the comment lines stay, and a comment after the item stays on its line.
    """
    lines = _lines(doc)
    key, item = spans.key, spans.items[0]
    after_key = lines[key.end_line][key.end_col:]
    after_item = lines[item.end_line][item.end_col:]
    between = lines[key.end_line + 1 : item.start_line]
    commented = (
        after_key.lstrip(" \t:").startswith("#")
        or after_item.lstrip().startswith("#")
        or any(line.lstrip().startswith("#") for line in between)
    )
    if not commented:
        edit = remove_key(doc, name)
        return None if edit is None else (edit,)
    colon = key.end_col + after_key.index(":") + 1
    edits = [TextEdit(_path(doc), Span(key.end_line, colon, key.end_line, colon), " []")]
    if after_item.lstrip().startswith("#"):
        dash = lines[item.start_line].index("-")
        comment = item.end_col + len(after_item) - len(after_item.lstrip())
        edits.append(TextEdit(_path(doc), Span(item.start_line, dash, item.end_line, comment), ""))
    else:
        edits.append(TextEdit(_path(doc), _whole_lines(item.start_line, item.end_line), ""))
    return tuple(edits)


def _value_is_plain(doc: ParsedDocument, spans: KeySpans) -> bool:
    """Whether the key's value is written right after it, bare, with its items inside it.

    An aliased value's span is its ``*name`` token (the list is written
    elsewhere); an anchor or tag starts the value's span; an anchored item is
    named by aliases elsewhere. Each of these makes a deletion inside the
    list change or strand text it does not name. (An aliased item is fine:
    its span is its own token, and deleting it leaves its anchor alone.)
    """
    lines = _lines(doc)
    value = spans.value
    if (value.start_line, value.start_col) < (spans.key.end_line, spans.key.end_col):
        return False
    if lines[value.start_line][value.start_col : value.start_col + 1] in ("&", "!", "*"):
        return False
    previous = (value.start_line, value.start_col)
    for item in spans.items:
        if (item.start_line, item.start_col) < previous or (item.end_line, item.end_col) > (
            value.end_line,
            value.end_col,
        ):
            return False
        if lines[item.start_line][item.start_col : item.start_col + 1] == "&":
            return False  # deleting an anchored item would strand its aliases
        previous = (item.end_line, item.end_col)
    return True


def _remove_flow_item(doc: ParsedDocument, spans: KeySpans, index: int) -> tuple[TextEdit, ...]:
    """Delete one item of a ``[a, b, c]`` list and one comma: nothing else.

    The comma is the one after the item (for the last item, the one before
    it), with the spaces joining it to the item or to the next item on the
    line. A comment stays where it was: when one sits between the item and
    its comma, the two are deleted apart. A line left holding nothing but
    spaces goes whole. The edits do not grow with the list, so fixing every
    dangling item of a long list costs as much as the list.
    """
    text = doc.text
    starts = [0]
    for line in _lines(doc)[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def at(line: int, col: int) -> int:
        return starts[line] + col

    items = [(at(s.start_line, s.start_col), at(s.end_line, s.end_col)) for s in spans.items]
    first, last = at(spans.value.start_line, spans.value.start_col), at(spans.value.end_line, spans.value.end_col)
    start, end = items[index]
    gone = set(range(start, end))
    # Alone at the start of its line, the item takes the spaces up to a comment after it.
    alone = not text[starts[_position(starts, start)[0]] : start].strip()
    following = items[index + 1][0] if index + 1 < len(items) else last - 1
    comma = _comma_between(text, end, following)
    if comma is not None:
        after = _joined(text, comma + 1, following, to_item=True, to_comment=alone)
        gone |= _joined(text, end, comma) | {comma} | after
    elif index > 0:
        comma = _comma_between(text, items[index - 1][1], start)
        if comma is not None:
            gone |= _joined(text, items[index - 1][1], comma) | {comma} | _joined(text, comma + 1, start)
    if alone:
        gone |= _joined(text, end, _line_end(text, end), to_comment=True)
    for row in range(_position(starts, min(gone))[0], _position(starts, max(gone))[0] + 1):
        line_start, line_end = starts[row], _line_end(text, starts[row])
        touched = [i in gone for i in range(line_start, line_end)]
        kept = "".join(text[i] for i in range(line_start, line_end) if i not in gone)
        if first < line_start and line_end < last and any(touched) and not kept.strip():
            gone |= set(range(line_start, line_end + 1))
    edits: list[list[int]] = []  # [start, end) offsets of each run of deleted characters
    for offset in sorted(gone):
        if edits and edits[-1][1] == offset:
            edits[-1][1] = offset + 1
        else:
            edits.append([offset, offset + 1])
    return tuple(
        TextEdit(_path(doc), Span(*_position(starts, a), *_position(starts, b)), "") for a, b in edits
    )


def _position(starts: list[int], offset: int) -> tuple[int, int]:
    line = bisect.bisect_right(starts, offset) - 1
    return line, offset - starts[line]


def _line_end(text: str, offset: int) -> int:
    end = text.find("\n", offset)
    return len(text) if end < 0 else end


def _comma_between(text: str, start: int, end: int) -> int | None:
    """The separating comma in ``text[start:end]``, skipping spaces, line breaks and comments."""
    i = start
    while i < end:
        if text[i] == ",":
            return i
        if text[i] == "#":
            i = _line_end(text, i)
        elif text[i] in " \t\n":
            i += 1
        else:
            return None
    return None


def _joined(text: str, start: int, end: int, *, to_item: bool = False, to_comment: bool = False) -> set[int]:
    """The spaces from ``start`` when they run on one line up to ``end``, or to an item or comment.

    Spaces between two things that go together belong to neither a comment
    nor a kept item, so they go with them; spaces before a line break or a
    comment are left unless asked for.
    """
    i = start
    while i < end and text[i] in " \t":
        i += 1
    if i == end or (to_item and text[i] not in "\n#") or (to_comment and text[i] == "#"):
        return set(range(start, i))
    return set()


def replace_list_item(doc: ParsedDocument, key: str, index: int, new: str) -> TextEdit:
    """Replace one item of a list field (or a single-string value) with ``new``."""
    fm = _frontmatter(doc)
    spans = fm.keys[key]
    if spans.items:
        scalar = flow_scalar(new) if _is_flow(doc, key) else yaml_scalar(new)
        return TextEdit(_path(doc), _content(doc, spans.items[index]), scalar)
    return TextEdit(_path(doc), _content(doc, spans.value), yaml_scalar(new))


def apply_edits(text: str, edits: list[TextEdit]) -> str:
    """Apply non-overlapping edits to ``text`` (positions in code points).

    Positions are those of the normalised text the parser saw (one leading
    byte-order mark dropped, CRLF and CR read as line breaks), and ``text``
    may be either that text or the file's own: edits land on the same lines
    and columns, every byte outside them is kept, and a line break in
    ``new_text`` is written as the one ending the line the edit starts on (so
    a key added to a CRLF file ends in CRLF, and a break the edit replaces in
    a file of mixed endings stays what it was), unless that is a stray ``\r``
    in a file whose first line ends otherwise: then the file's (its first, as
    an appended index line takes it). Taken from a stray ``\r``, every line
    a fix wrote into an LF index ended in one, where the same fix made in the
    editor (on the buffer's own text) writes LF. On normalised text this is
    a plain splice.
    """
    lines = _raw_lines(text)

    def offset(line: int, col: int) -> int:
        if line >= len(lines):
            return len(text)
        start, end, _ = lines[line]
        return min(start + col, end)

    first = next((brk for _, _, brk in lines if brk), "\n")

    def line_break(line: int) -> str:
        for index in (line, line - 1):
            if 0 <= index < len(lines) and lines[index][2]:
                brk = lines[index][2]
                return first if brk == "\r" != first else brk
        return first

    ordered = sorted(
        edits, key=lambda e: (offset(e.span.start_line, e.span.start_col), offset(e.span.end_line, e.span.end_col))
    )
    out = []
    cursor = 0
    for edit in ordered:
        start = offset(edit.span.start_line, edit.span.start_col)
        end = offset(edit.span.end_line, edit.span.end_col)
        if start < cursor:
            raise ValueError("overlapping edits")
        out.append(text[cursor:start])
        brk = line_break(min(edit.span.start_line, len(lines) - 1))
        out.append(edit.new_text if brk == "\n" else edit.new_text.replace("\n", brk))
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_BYTE_ORDER_MARK = "\ufeff"


def _raw_lines(text: str) -> list[tuple[int, int, str]]:
    """Each line of ``text`` as (start offset, end of its content, its line break).

    Breaks are found as :func:`memls.store.frontmatter.normalize_text` finds
    them, so line ``n`` here is line ``n`` of the normalised text; a leading
    byte-order mark is not part of the first line's columns.
    """
    lines = []
    start = 1 if text.startswith(_BYTE_ORDER_MARK) else 0
    for match in _LINE_BREAK.finditer(text):
        lines.append((start, match.start(), match.group()))
        start = match.end()
    lines.append((start, len(text), ""))
    return lines
