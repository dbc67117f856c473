"""Where a problem points, shared by every check family.

A problem points at exactly the thing that is wrong when the parser
recorded it (a key, its value, one list item). When it did not — the YAML
did not load, the key is absent — it points at the entry's ``name:`` value,
which readers found even then through their line fallback, and failing that
at the first line. One rule for every family, so the same situation never
lands in two places.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .spans import KeySpans, Span, split_lines

if TYPE_CHECKING:  # (the model asks where an entry's index problems point: memls.store.model.index_key)
    from .model import Document

# A top-level ``name:`` line, as the readers' fallback for unloadable YAML sees it.
_NAME_LINE = re.compile(r"^name:[ \t]*(?P<value>.*?)[ \t]*$")


def keys(doc: Document) -> dict[str, KeySpans]:
    """The top-level key spans of a document ({} when the YAML did not load)."""
    parsed = doc.parsed
    if parsed is None or parsed.frontmatter is None:
        return {}
    return parsed.frontmatter.keys


def line_span(text: str, line: int) -> Span:
    """The whole of one line (clamped to the text).

    Found by scanning to the line rather than splitting the whole text: every
    entry check starts by computing its first line, 10k times in a full check.
    """
    line = max(0, line)
    if "\r" in text:  # a buffer as typed: count its lines as the editor does
        lines = split_lines(text)
        line = min(line, len(lines) - 1)
        return Span(line, 0, line, len(lines[line]))
    start = 0
    for at in range(line):
        after = text.find("\n", start)
        if after < 0:  # past the last line: clamp to it
            line = at
            break
        start = after + 1
    end = text.find("\n", start)
    return Span(line, 0, line, (len(text) if end < 0 else end) - start)


def first_line(text: str) -> Span:
    return line_span(text, 0)


def anchor(doc: Document) -> Span:
    """The ``name:`` value, else the ``name:`` line the fallback read, else the first line."""
    spans = keys(doc).get("name")
    if spans is not None:
        return spans.value
    lines = split_lines(doc.text)
    fm = doc.parsed.frontmatter if doc.parsed is not None else None
    if fm is not None:
        for number in range(fm.content_start_line, min(fm.block.end_line, len(lines))):
            match = _NAME_LINE.match(lines[number])
            if match is not None and match.group("value"):
                return Span(number, match.start("value"), number, match.end("value"))
    return first_line(doc.text)


def value_span(doc: Document, key: str) -> Span:
    """The value of ``key``, else the anchor."""
    spans = keys(doc).get(key)
    return spans.value if spans is not None else anchor(doc)


def key_span(doc: Document, key: str) -> Span:
    """The key token ``key``, else the anchor."""
    spans = keys(doc).get(key)
    return spans.key if spans is not None else anchor(doc)
