"""A line parser for the flat frontmatter agents write, exactly equivalent to the full loader.

Composing a node tree with PyYAML's ``SafeLoader`` (the loader gptme reads
with), constructing it and turning node marks into spans costs many times what reading
the file does, and nearly every entry is the same few shapes: ``key: scalar``
lines, one ``metadata`` / ``provenance`` mapping one level deep, and a
``keywords`` / ``supersedes`` list. This module reads exactly those shapes.

It is a *fast path*, never a second opinion: for any text it either returns
what the full loader would (same values and types, same key order, same spans),
or None, and the caller runs the full loader. So every rule below errs towards
None: a construct is accepted only where its meaning and its span are beyond
doubt, and everything else (comments after a value, anchors, tags, block and multi-line
scalars, escapes other than ``\\\\`` and ``\\"``, dates, non-decimal numbers,
duplicate keys, tabs, YAML's extra line breaks NEL/LS/PS, control characters)
falls back. Plain scalars are typed by YAML 1.1's implicit types as the safe
loader applies them (:mod:`memls.store.implicit_types`), so a word like ``yes`` or
``1_000`` is never mistaken for a string, and reading needs no YAML library.

Spans are where the full loader's node marks put them, trimmed as
:func:`memls.store.frontmatter.load_yaml` trims them (0-based, end exclusive, columns
in code points).
"""

from __future__ import annotations

import re
from typing import Any

from .implicit_types import BOOL, FLOAT, INT, NULL, STR, TRUE_WORDS, implicit_type
from .spans import KeySpans, Span

# Anything but LF, printable ASCII and the printable non-ASCII planes. Tabs, CR,
# control characters (the reader's error), NEL / LS / PS (YAML line breaks the
# document does not count), byte-order marks and surrogates all fall back.
_OUTSIDE_GRAMMAR = "[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
# The same class for ASCII text, nearly every frontmatter: compiling the whole
# class costs milliseconds in every process that parses a file, this part none.
_OUTSIDE_ASCII_GRAMMAR = re.compile("[^\n\x20-\x7e]")
# ``key:``, then blanks and the value (trailing blanks excluded), or nothing.
_ENTRY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*?))? *$")
# ``- value`` (trailing blanks excluded); an empty item is not read.
_ITEM = re.compile(r"- +(.*?) *$")
# PyYAML drops a possible key once 1,024 characters past its start, so a longer
# ``key:`` is an error for it (and gptme); the full loader is left to say so.
_LONGEST_KEY = 1024
_DOUBLE_QUOTED = re.compile(r'"((?:[^"\\]|\\[\\"])*)"')
_SINGLE_QUOTED = re.compile(r"'((?:[^']|'')*)'")
_UNESCAPE = re.compile(r"\\([\\\"])")
# A block plain scalar: it may not start with a YAML indicator or blank (``-``
# only before a digit or ``.``, so negative numbers stay in; reserved ``@`` and
# backtick included), and may not hold ``: `` (a mapping), `` #`` (a comment),
# or end with ``:``.
_BLOCK_PLAIN = re.compile(r"(?:[^-?:,\[\]{}#&*!|>'\"%@` ]|-[0-9.])(?:[^:#]|:(?=[^ ])|(?<! )#)*")
# A flow item ends at ``,`` or ``]``; these characters are kept out of it entirely.
_FLOW_PLAIN = re.compile(r"(?:[^-?:,\[\]{}#&*!|>'\"%@` ]|-[0-9.])[^,\[\]{}#:?\"' ]*(?: +[^,\[\]{}#:?\"' ]+)*")
_DECIMAL_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]{0,17})")
_SIMPLE_FLOAT = re.compile(r"[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+][0-9]+)?")

# Rows are (document line, text) of the lines that are neither blank nor a
# whole-line comment: neither carries structure in this grammar, which has no
# multi-line scalars or flow collections (a ``#`` starting a line is then
# always a comment).
_Rows = list[tuple[int, str]]
# A value read from the rows: (value, its span, item spans, index of the next row).
_Read = tuple[Any, Span, tuple[Span, ...], int]


def parse_flat_mapping(
    yaml_text: str, first_line: int
) -> tuple[dict[str, Any], dict[str, KeySpans]] | None:
    """``(data, spans of each top-level key)``, or None when outside the grammar.

    ``first_line`` is the document line of the text's first line.
    """
    if (_OUTSIDE_ASCII_GRAMMAR if yaml_text.isascii() else re.compile(_OUTSIDE_GRAMMAR)).search(yaml_text):
        return None
    rows = [
        (first_line + i, line)
        for i, line in enumerate(yaml_text.split("\n"))
        if line.strip(" ") and not line.lstrip(" ").startswith("#")
    ]
    count = len(rows)
    data: dict[str, Any] = {}
    spans: dict[str, KeySpans] = {}
    index = 0
    while index < count:
        row, line = rows[index]
        match = _ENTRY.match(line)
        if match is None:
            return None
        key, text = match.groups()
        if key in data or len(key) > _LONGEST_KEY or implicit_type(key) != STR:
            return None
        index += 1
        if text:
            col = match.start(2)
            if text[0] == "[":
                read = _flow_list(text, row, col)
            else:
                scalar = _scalar(text)
                read = None if scalar is None else (scalar[0], Span(row, col, row, col + len(text)), ())
            if read is None:
                return None
            value, value_span, items = read
        elif index < count and rows[index][1][0] in " -":
            block = _block_value(rows, index)
            if block is None:
                return None
            value, value_span, items, index = block
        else:
            end = len(key) + 1
            value, value_span, items = None, Span(row, end, row, end), ()
        data[key] = value
        spans[key] = KeySpans(Span(row, 0, row, len(key)), value_span, items)
    if not data:
        return None
    return data, spans


def _scalar(text: str) -> tuple[Any] | None:
    """A one-line scalar that is all of ``text``, as a 1-tuple, or None if not read."""
    first = text[0]
    if first == '"':
        match = _DOUBLE_QUOTED.fullmatch(text)
        if match is None:
            return None
        content = match.group(1)
        return (_UNESCAPE.sub(r"\1", content) if "\\" in content else content,)
    if first == "'":
        match = _SINGLE_QUOTED.fullmatch(text)
        return None if match is None else (match.group(1).replace("''", "'"),)
    if _BLOCK_PLAIN.fullmatch(text) is None:
        return None
    return _plain_value(text)


def _flow_list(text: str, row: int, col: int) -> tuple[list[Any], Span, tuple[Span, ...]] | None:
    """``[a, "b", 'c']``, all of ``text`` (starting at ``col``), items being one-line scalars."""
    values: list[Any] = []
    spans: list[Span] = []
    at = _skip_spaces(text, 1)
    if not text.startswith("]", at):
        while True:
            item = _flow_item(text, at)
            if item is None:
                return None
            value, item_end = item
            values.append(value)
            spans.append(Span(row, col + at, row, col + item_end))
            at = _skip_spaces(text, item_end)
            if text.startswith("]", at):
                break
            if not text.startswith(",", at):
                return None
            at = _skip_spaces(text, at + 1)
    if at + 1 != len(text):
        return None
    return values, Span(row, col, row, col + len(text)), tuple(spans)


def _flow_item(text: str, at: int) -> tuple[Any, int] | None:
    """The scalar item starting at ``at``: (value, end), or None if not read."""
    first = text[at : at + 1]
    if first == '"' or first == "'":
        pattern = _DOUBLE_QUOTED if first == '"' else _SINGLE_QUOTED
        match = pattern.match(text, at)
        if match is None:
            return None
        scalar = _scalar(match.group())
    else:
        match = _FLOW_PLAIN.match(text, at)
        if match is None:
            return None
        scalar = _plain_value(match.group())
    return None if scalar is None else (scalar[0], match.end())


def _skip_spaces(text: str, at: int) -> int:
    while at < len(text) and text[at] == " ":
        at += 1
    return at


def _block_value(rows: _Rows, index: int) -> _Read | None:
    """The indented mapping, or the list, under an empty ``key:`` (rows[index] on)."""
    line = rows[index][1]
    indent = len(line) - len(line.lstrip(" "))
    if line.startswith("- ", indent):
        return _block_list(rows, index, indent)
    return _block_mapping(rows, index, indent)


def _block_list(rows: _Rows, index: int, indent: int) -> _Read | None:
    """``- scalar`` rows at one indent (0 is YAML's indentless list, as gptme writes)."""
    values: list[Any] = []
    spans: list[Span] = []
    count = len(rows)
    while index < count:
        row, line = rows[index]
        if _ends_block(line):
            break
        match = _ITEM.match(line, indent) if _indent_of(line) == indent else None
        if match is None:
            return None  # a continuation, a deeper block, an empty item, another indent
        text = match.group(1)
        scalar = _scalar(text) if text else None
        if scalar is None:
            return None
        col = match.start(1)
        values.append(scalar[0])
        spans.append(Span(row, col, row, col + len(text)))
        index += 1
    first, last = spans[0], spans[-1]
    return values, Span(first.start_line, indent, last.end_line, last.end_col), tuple(spans), index


def _block_mapping(rows: _Rows, index: int, indent: int) -> _Read | None:
    """``key: scalar`` rows at one indent; the span runs from the first key to the
    end of the last value (where an empty value's null sits, after its colon)."""
    mapping: dict[str, Any] = {}
    start_row = rows[index][0]
    end = Span(0, 0, 0, 0)
    count = len(rows)
    while index < count:
        row, line = rows[index]
        if _ends_block(line):
            break
        match = _ENTRY.match(line, indent) if _indent_of(line) == indent else None
        if match is None:
            return None  # another indent, a list, a deeper block, or not an entry
        key, text = match.groups()
        if key in mapping or implicit_type(key) != STR:
            return None
        if text:
            scalar = None if text[0] == "[" else _scalar(text)
            if scalar is None:
                return None  # nested flow lists are left to the full loader
            mapping[key] = scalar[0]
            end_col = match.start(2) + len(text)
        else:
            mapping[key] = None
            end_col = indent + len(key) + 1
        end = Span(row, end_col, row, end_col)
        index += 1
    return mapping, Span(start_row, indent, end.end_line, end.end_col), (), index


def _indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _ends_block(line: str) -> bool:
    """Whether a row closes a block under a top-level key: the next top-level line.

    A ``-`` at column 0 does not close it: it is either the block's own item
    or a list this parser does not read.
    """
    return line[0] != " " and line[0] != "-"


def _plain_value(text: str) -> tuple[Any] | None:
    """What a plain scalar means, by its implicit type, as a 1-tuple; None if not read.

    Only strings, null, the bool words, decimal ints and simple decimal floats
    are built here, each exactly as PyYAML's SafeConstructor builds it;
    anything else (dates, octal/hex/sexagesimal, ``.inf``, merge keys) is not
    read and the caller falls back.
    """
    kind = implicit_type(text)
    if kind == STR:
        return (text,)
    if kind == NULL:
        return (None,)
    if kind == BOOL:
        return (text in TRUE_WORDS,)
    if kind == INT and _DECIMAL_INT.fullmatch(text):
        sign = -1 if text[0] == "-" else 1
        digits = text.lstrip("+-")
        return (0 if digits == "0" else sign * int(digits),)
    if kind == FLOAT and _SIMPLE_FLOAT.fullmatch(text):
        sign = -1 if text[0] == "-" else 1
        return (sign * float(text.lstrip("+-").lower()),)
    return None
