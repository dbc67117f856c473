"""Problems and fixes as plain data, shared by `memls check`, audit and the editor.

A problem names a file and a span (0-based, end exclusive, code points of the
normalised text); a fix is a list of operations over one or more files. The
language server converts both to LSP types; the CLI prints them; neither
decides anything about them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import field
from pathlib import Path
from typing import Any, Literal

from .spans import Span, line_and_column
from .structs import struct

Severity = Literal["error", "warning", "information", "hint"]
SeverityOrOff = Literal["off", "error", "warning", "information", "hint"]
SEVERITIES: tuple[SeverityOrOff, ...] = ("off", "hint", "information", "warning", "error")
START = Span(0, 0, 0, 0)


@struct
class Location:
    """A span in a file."""

    path: Path
    span: Span


@struct
class Related:
    """Another place involved in a problem (the other end of a link, the twin file)."""

    location: Location
    message: str


@struct
class TextEdit:
    """Replace ``span`` of ``path``'s current text with ``new_text``."""

    path: Path
    span: Span
    new_text: str


@struct
class CreateFile:
    """Create ``path`` with ``text``; never overwrites an existing file."""

    path: Path
    text: str


@struct
class RenameFile:
    """Rename ``old`` to ``new``; never overwrites an existing file."""

    old: Path
    new: Path


FileOperation = TextEdit | CreateFile | RenameFile


def minimal_edit(path: Path, old: str, new: str) -> TextEdit:
    """One edit turning ``old`` into ``new``, covering only the part that differs.

    A whole-file replacement would move an editor's cursor and folds and
    make every line look changed; the common prefix and suffix stay.
    """
    limit = min(len(old), len(new))
    prefix = _common_length(lambda low, k: new.startswith(old[low:k], low), limit)
    n_old, n_new = len(old), len(new)
    suffix = _common_length(
        lambda low, k: new.startswith(old[n_old - k : n_old - low], n_new - k), limit - prefix
    )
    # No line and column name the place between the two characters of a
    # ``\r\n``: a start there moves before the ``\r``, an end past the ``\n``
    # (the character taken in is then in the new text too).
    if _splits_crlf(old, prefix):
        prefix -= 1
    if _splits_crlf(old, n_old - suffix):
        suffix -= 1
    start, end = prefix, n_old - suffix
    return TextEdit(
        path, Span(*line_and_column(old, start), *line_and_column(old, end)), new[start : n_new - suffix]
    )


def _splits_crlf(text: str, offset: int) -> bool:
    return 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n"


def _common_length(same_from: Callable[[int, int], bool], limit: int) -> int:
    """The largest ``k <= limit`` whose first ``k`` characters agree (they agree up to some length, then never).

    Found by halving: ``same_from(low, k)`` compares only characters ``low``
    to ``k``, the first ``low`` being known to agree, so one search copies
    about ``limit`` characters in all. A fix of a long ``MEMORY.md`` computes
    this for every problem: a character-by-character loop made each one cost
    the whole file in interpreted steps, and comparing whole prefixes at each
    step twenty times the file in copies.
    """
    low, high = 0, limit
    while low < high:
        mid = (low + high + 1) // 2
        if same_from(low, mid):
            low = mid
        else:
            high = mid - 1
    return low


@struct
class Fix:
    """One way to resolve a problem.

    ``safe`` fixes have exactly one sensible outcome (add the missing
    back-link, regenerate the index) and are applied by ``memls check --fix``
    and the editor's fix-all; the others need the user to choose.
    """

    title: str
    operations: tuple[FileOperation, ...]
    safe: bool = False

    @property
    def paths(self) -> set[Path]:
        return operation_paths(self.operations)


def operation_paths(operations: Iterable[FileOperation]) -> set[Path]:
    """Every file the operations touch (both ends of a rename)."""
    out: set[Path] = set()
    for op in operations:
        if isinstance(op, RenameFile):
            out.update((op.old, op.new))
        else:
            out.add(op.path)
    return out


@struct
class Problem:
    """One finding of one check on one file."""

    path: Path
    span: Span
    code: str
    severity: Severity
    message: str
    related: tuple[Related, ...] = ()
    # "deprecated" makes editors strike the span through (a reference to a superseded entry).
    tags: tuple[str, ...] = ()
    # Facts the fix builders need (target name, link index), never shown.
    data: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def sort_key(self) -> tuple:
        return (str(self.path), self.span.start_line, self.span.start_col, self.code, self.message)
