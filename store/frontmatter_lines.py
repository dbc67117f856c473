"""Reading an entry's frontmatter line by line, as it is being typed.

A document being typed is often not valid YAML for a moment (``supersedes:``
followed by a bare ``- ``), and that is exactly when completion is asked
for, and when a link or key under the cursor must still be found. So besides
the parser's spans, the frontmatter is also read one line at a time
(:class:`LineField`), which needs nothing but the cursor's line and the key
lines above it. Positions are 0-based (line, code-point column) in the
normalised text, like every span the parser produces.
"""

from __future__ import annotations

import re
from typing import Literal

from .frontmatter import normalize_text
from .model import Document
from .spans import Span
from .structs import struct

_TOP_KEY = re.compile(r"^(?P<key>[A-Za-z_][\w.-]*)[ \t]*:(?=[ \t]|$)")
_NESTED_KEY = re.compile(r"^(?P<indent>[ \t]+)(?P<key>[A-Za-z_][\w.-]*)[ \t]*:(?=[ \t]|$)")
_LIST_ITEM = re.compile(r"^(?P<indent>[ \t]*)-(?=[ \t]|$)")
_PARTIAL_KEY = re.compile(r"^[A-Za-z_][\w.-]*")


@struct
class LineField:
    """What the cursor's line of frontmatter is: a key, a value, or a list item."""

    key: str  # top-level key, or "parent.key" for a nested one
    part: Literal["key", "value", "item"]
    span: Span  # the value / item text (quotes included), or the key being typed
    text: str  # that text without quotes
    # Text to put before an inserted value (a space after a bare ``key:``).
    lead: str = ""
    key_span: Span | None = None  # a complete ``key:``'s key


def document_text(doc: Document) -> str:
    """The normalised text every position of ``doc`` counts in."""
    return doc.parsed.text if doc.parsed is not None else normalize_text(doc.text)


def frontmatter_region(doc: Document, lines: list[str]) -> tuple[int, int] | None:
    """Lines [start, end) of the frontmatter content, also for an unclosed block."""
    fm = doc.parsed.frontmatter if doc.parsed is not None else None
    if fm is not None:
        return 1, fm.block.end_line
    if not lines or lines[0].rstrip(" \t") != "---":
        return None
    for number in range(1, len(lines)):
        if lines[number].rstrip(" \t") == "---":
            return 1, number
    return 1, len(lines)


def line_field(lines: list[str], first: int, line: int, col: int) -> LineField | None:
    """What the cursor at (``line``, ``col``) is on, for frontmatter content from line ``first``."""
    text = lines[line]
    top = _TOP_KEY.match(text)
    if top is not None:
        return _key_value_field(top["key"], text, line, col, 0, top.end())
    nested = _NESTED_KEY.match(text)
    if nested is not None:
        parent = _parent_key(lines, first, line)
        if parent is None:
            return None
        key = f"{parent}.{nested['key']}"
        return _key_value_field(key, text, line, col, nested.start("key"), nested.end())
    item = _LIST_ITEM.match(text)
    if item is not None:
        parent = _parent_key(lines, first, line)
        if parent is None or col < item.end():
            return None
        value_start = item.end()
        while value_start < len(text) and text[value_start] in " \t":
            value_start += 1
        start, end, value = _scalar_bounds(text, value_start)
        lead = "" if item.end() < len(text) else " "
        return LineField(parent, "item", Span(line, start, line, end), value, lead)
    if ":" in text or "#" in text[:col]:
        return None
    stripped = text.lstrip(" \t")
    indent = len(text) - len(stripped)
    word = _PARTIAL_KEY.match(stripped)
    if stripped and word is None:
        return None
    word_end = indent + (word.end() if word else 0)
    if col < indent or col > word_end:
        return None
    span = Span(line, indent, line, word_end)
    if indent == 0:
        return LineField("", "key", span, stripped[: word_end - indent])
    if _parent_key(lines, first, line) == "metadata":
        return LineField("metadata.", "key", span, stripped[: word_end - indent])
    return None


def _key_value_field(
    key: str, text: str, line: int, col: int, key_start: int, colon_end: int
) -> LineField:
    key_end = key_start + len(key.rsplit(".", 1)[-1])
    key_span = Span(line, key_start, line, key_end)
    if col < colon_end:
        return LineField(key, "key", key_span, key, key_span=key_span)
    rest_start = colon_end
    while rest_start < len(text) and text[rest_start] in " \t":
        rest_start += 1
    lead = "" if colon_end < len(text) else " "
    if text.startswith("[", rest_start):
        return _flow_item_field(key, text, line, col, rest_start, key_span)
    start, end, value = _scalar_bounds(text, rest_start)
    return LineField(key, "value", Span(line, start, line, end), value, lead, key_span)


def _flow_item_field(
    key: str, text: str, line: int, col: int, open_at: int, key_span: Span
) -> LineField:
    """The item of a one-line flow list (``[a, b]``) the cursor is in."""
    close = text.find("]", open_at)
    inner_end = close if close != -1 else len(text)
    start = open_at + 1
    for piece in text[open_at + 1 : inner_end].split(","):
        end = start + len(piece)
        if col <= end or end >= inner_end:
            lo = start + len(piece) - len(piece.lstrip())
            hi = max(lo, end - (len(piece) - len(piece.rstrip())))
            value = text[lo:hi].strip("'\"")
            lead = " " if lo == hi and lo > open_at + 1 and text[lo - 1] == "," else ""
            return LineField(key, "item", Span(line, lo, line, hi), value, lead, key_span)
        start = end + 1
    return LineField(key, "item", Span(line, inner_end, line, inner_end), "", "", key_span)


def _scalar_bounds(text: str, start: int) -> tuple[int, int, str]:
    """Columns of the scalar starting at ``start`` (trailing blanks and comment cut)."""
    end = len(text)
    quoted = start < end and text[start] in "'\""
    if quoted:
        closing = text.find(text[start], start + 1)
        end = closing + 1 if closing != -1 else end
    else:
        comment = text.find(" #", start)
        if comment != -1:
            end = comment
    while end > start and text[end - 1] in " \t":
        end -= 1
    value = text[start:end]
    if quoted:
        value = value[1:-1] if len(value) > 1 and value[-1] == value[0] else value[1:]
    return start, end, value


def _parent_key(lines: list[str], first: int, line: int) -> str | None:
    """The nearest top-level key above ``line`` (the mapping it is nested in)."""
    for number in range(line - 1, first - 1, -1):
        match = _TOP_KEY.match(lines[number])
        if match is not None:
            return match["key"]
    return None


def scan_top_values(lines: list[str], region: tuple[int, int]) -> dict[str, str]:
    """Top-level ``key: value`` lines of the frontmatter (value text unquoted)."""
    out: dict[str, str] = {}
    for number in range(region[0], min(region[1], len(lines))):
        match = _TOP_KEY.match(lines[number])
        if match is not None:
            rest = lines[number][match.end():]
            start = len(rest) - len(rest.lstrip(" \t"))
            out[match["key"]] = _scalar_bounds(rest, start)[2]
    return out


def scan_nested_keys(lines: list[str], region: tuple[int, int], line: int, parent: str) -> set[str]:
    """Keys nested under ``parent`` in the block that holds ``line``."""
    present: set[str] = set()
    if _parent_key(lines, region[0], line) != parent:
        return present
    for direction in (-1, 1):
        number = line + direction
        while region[0] <= number < min(region[1], len(lines)):
            if _TOP_KEY.match(lines[number]):
                break
            nested = _NESTED_KEY.match(lines[number])
            if nested is not None:
                present.add(nested["key"])
            number += direction
    return present


def key_at(doc: Document, line: int, col: int) -> tuple[str, Span] | None:
    """The frontmatter key (``metadata.type`` for a nested one) under the cursor."""
    lines = document_text(doc).split("\n")
    region = frontmatter_region(doc, lines)
    if region is None or not region[0] <= line < region[1] or line >= len(lines):
        return None
    field = line_field(lines, region[0], line, col)
    if field is None or field.part != "key" or field.key_span is None:
        return None
    return field.key, field.key_span
