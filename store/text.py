"""Making untrusted memory text safe to print on a terminal.

Memory files are written by people and by agents, and anything in them ends
up on someone's terminal through ``memls list``, ``show``, ``index``... An
escape sequence in a description could recolour the screen, move the cursor
or hide the rest of a line; a carriage return overwrites what came before it
on the line. So every human-readable output passes memory text through these
functions first. JSON outputs do not: JSON escapes control characters itself,
and tools that parse it must see the stored text unchanged.
"""

from __future__ import annotations

import re

# C0 controls, DEL, and C1 controls: everything a terminal may interpret.
_ALL_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# The same set minus TAB and LF, which multi-line Markdown needs to stay
# readable. CR is still removed: on its own it returns the cursor and lets
# later text overwrite earlier text on the same line.
_CONTROLS_EXCEPT_TAB_LF = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def strip_controls(text: str, *, multiline: bool) -> str:
    """Remove terminal control characters from ``text``.

    ``multiline=False`` is for values printed inside one line (a name, a
    type, a description): every control character goes, TAB and LF too, so
    the value cannot break the line it sits in. ``multiline=True`` is for
    whole documents (an entry, an index): TAB and LF are kept, everything
    else (ESC, CR, BEL, C1...) is removed.
    """
    pattern = _CONTROLS_EXCEPT_TAB_LF if multiline else _ALL_CONTROLS
    return pattern.sub("", text)


def one_line(text: str) -> str:
    """``text`` as a single printable line (for error messages, diagnostics, summaries).

    Messages can carry multi-line details (a YAML parser's error points at
    the offending line on a second line, with a caret under it) and pieces of
    memory text. Every run of whitespace -- line breaks of any kind, tabs,
    the indentation of a caret line -- becomes one space, then every control
    character is removed, so one message is always exactly one line.
    """
    return strip_controls(" ".join(text.split()), multiline=False)


# The breaks that split a line for some reader of a memory: LF and CR for
# everyone, NEL and the Unicode line/paragraph separators for YAML and for
# editors, VT, FF and the separators FS, GS and RS for Python's
# ``str.splitlines`` (which tools reading MEMORY.md use). A description or
# title holding one would break its MEMORY.md line.
_LINE_BREAK = re.compile(r"[ \t]*(?:\r\n|[\r\n\x0b\x0c\x1c-\x1e\x85\u2028\u2029])[ \t]*")


def has_line_break(text: str) -> bool:
    return _LINE_BREAK.search(text) is not None


def fold_line_breaks(text: str) -> str:
    """``text`` on one line: every break (and the blanks around it) becomes one space."""
    return _LINE_BREAK.sub(" ", text).strip()


LINE_BREAK_HAZARD = "a line break"


def index_line_hazards(value: str, *, link_text: bool) -> list[str]:
    """What in ``value`` would break the ``MEMORY.md`` pointer line it is part of.

    A line break splits the line (the rest becomes stray text that no tool
    reads as a pointer); a NUL turns the index into a binary file for git and
    grep; ``[`` or ``]`` in the link text ends or nests the link early, so the
    pointer no longer parses as one. ``link_text`` says the value is the
    line's link text (the title, or the name when there is no title).
    """
    if _ANY_HAZARD.search(value) is None:  # the usual value: one scan, nothing to list
        return []
    hazards = []
    if has_line_break(value):
        hazards.append(LINE_BREAK_HAZARD)
    if "\x00" in value:
        hazards.append("a NUL character")
    if link_text and ("[" in value or "]" in value):
        hazards.append("'[' or ']' (they end the link text early)")
    if _LONE_SURROGATE.search(value):
        hazards.append("a lone surrogate (an escape such as \\ud835 that no UTF-8 file can hold)")
    return hazards


# YAML's "\\ud835" escape reads as half of a UTF-16 pair: a code point no UTF-8 text may contain.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# Every character index_line_hazards looks for (a superset: CR LF pairs, brackets outside link text).
_ANY_HAZARD = re.compile("[\r\n\x0b\x0c\x1c-\x1e\x85\u2028\u2029\x00\\[\\]\ud800-\udfff]")
# ``may_break_index_line(text) is None``: nothing in ``text`` can break a pointer line (the fast
# path of every index writer; a bound method of the compiled pattern costs no Python call).
may_break_index_line = _ANY_HAZARD.search


def index_safe_description(description: str) -> str:
    """``description`` as its ``MEMORY.md`` pointer line shows it: nothing in it breaks the line.

    The hook after the link is prose for the reader, and an entry whose hook
    holds a stray character is still worth its line, so the line shows the
    description made safe rather than leaving the entry out: line breaks
    folded into spaces (as YAML folds a single one), NUL removed, a lone
    surrogate shown as U+FFFD (the character that stands for one no
    encoding can hold). ``unsafe-index-text`` asks for the file to be fixed.
    :func:`index_line_hazards` finds nothing in the result.
    """
    if _ANY_HAZARD.search(description) is None:
        return description
    if has_line_break(description):
        description = fold_line_breaks(description)
    return _LONE_SURROGATE.sub("\ufffd", description.replace("\x00", ""))


def shared_lines_end(a: str, b: str) -> int:
    """Where the first line ``a`` and ``b`` do not share starts (an offset into both).

    Compared 16 KB at a time, then halved within the chunk that differs:
    two 1 MB indexes that part near their end are not split into lines.
    """
    step, at, shortest = 1 << 14, 0, min(len(a), len(b))
    while at < shortest and a[at:at + step] == b[at:at + step]:
        at += step
    low, high = at, min(at + step, shortest)  # the first difference is within [at, high]
    while low < high:
        middle = (low + high + 1) // 2
        if a[at:middle] == b[at:middle]:
            low = middle
        else:
            high = middle - 1
    return a.rfind("\n", 0, low) + 1
