"""Positions in a memory document: spans of keys and values, and where YAML failed.

Plain values shared by the parser (:mod:`memls.store.frontmatter`), its fast
path (:mod:`memls.store.fastyaml`), the model and every check, so none of them
has to import another to name a position.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .structs import struct

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """The lines a span's line numbers count, without their breaks.

    ``\r\n``, a lone ``\r`` and ``\n`` each end a line: the normalised text
    every parser reads has them all as ``\n``, the LSP counts all three, and
    so must any check that numbers the lines of a text it did not normalise
    (an open ``MEMORY.md`` buffer), or its spans name another line than the
    editor shows.
    """
    return _LINE_BREAK.split(text) if "\r" in text else text.split("\n")


def line_and_column(text: str, offset: int) -> tuple[int, int]:
    """Where ``offset`` sits, as a 0-based line (numbered as :func:`split_lines` numbers them) and code-point column.

    An edit's span must count lines as the editor applying it does: counting
    ``\n`` alone put a fix of a ``MEMORY.md`` with a stray ``\r`` in a prose
    line onto the line above, splicing the fix into the prose. ``offset``
    must not fall between the ``\r`` and the ``\n`` of a ``\r\n`` (no line
    and column name that place). Without a ``\r`` before ``offset`` (the
    common case) this is two C-speed scans of the text before it, so a fix
    of a 1 MB index still costs a few of them.
    """
    line = text.count("\n", 0, offset)
    newline = text.rfind("\n", 0, offset)
    if text.find("\r", 0, offset) < 0:
        return line, offset - (newline + 1)
    line += text.count("\r", 0, offset) - text.count("\r\n", 0, offset)
    # A "\r" ends the line only if it comes after the last "\n" (a "\r\n"'s is before it).
    return line, offset - (max(newline, text.rfind("\r", newline + 1, offset)) + 1)


class Span(NamedTuple):
    """A range of the document: 0-based lines and code-point columns, end exclusive.

    A tuple rather than a dataclass: a 10,000-entry workspace holds hundreds of
    thousands of spans, and tuples cost a fraction of the memory, the time to
    build and the time to (un)pickle from the parse cache.
    """

    start_line: int
    start_col: int
    end_line: int
    end_col: int


class KeySpans(NamedTuple):
    """Where one top-level frontmatter key and its value sit in the document."""

    key: Span
    # The whole value node; for a block list, from the first ``-`` to the end of the last item.
    value: Span
    # One span per item when the value is a sequence (a scalar item's text, without ``- ``).
    items: tuple[Span, ...] = ()


@struct
class YamlProblem:
    """Why the YAML did not load, and where (document coordinates)."""

    message: str
    line: int
    column: int
    # True when (line, column) is where a quote, bracket or key that YAML was
    # still reading opened, because the failure surfaced only on a later line
    # (often the end of the text): the problem covers the opener through the
    # end of its line, and no line from there on is read for certain.
    from_opener: bool = False
    # True when the loader gave up because reading cost too much
    # (:data:`memls.store.bounded_loader.FLOW_WORK_BUDGET`): the lines before
    # the failure cost as much again, so nothing reads them a second time.
    too_costly: bool = False


class OversizedValue(NamedTuple):
    """A frontmatter value left unread because YAML aliases expand it past the node budget.

    ``path`` is the key path of what was left out: a top-level key, or a key of
    a mapping under one (``("metadata", "nested")``), so the rest of that
    mapping (``metadata.type``) is still read.
    """

    path: tuple[str, ...]
    # Where the key of the left-out value is written.
    key: Span
    # How many values its aliases add beyond its text; None when it contains itself.
    nodes: int | None
