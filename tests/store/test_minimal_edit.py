"""minimal_edit: the one edit a fix of a text (an open ``MEMORY.md`` buffer) sends, applied as an editor applies it.

An editor numbers lines as the LSP says (``\\r\\n``, a lone ``\\r`` and ``\\n``
each end one), and so do the diagnostics (:func:`memls.store.spans.split_lines`).
The edit's lines must be counted alike: counted by ``\\n`` alone, a fix of an
index with a stray ``\\r`` in a prose line landed one line above its target
and spliced itself into the prose.
"""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from memls.store.diagnostics import TextEdit, minimal_edit
from memls.store.spans import line_and_column, split_lines

PATH = Path("/root/memory/MEMORY.md")


def lsp_offset(text: str, line: int, col: int) -> int:
    """The offset an editor gives (line, code-point column): lines end at ``\\r\\n``, ``\\r`` or ``\\n``.

    Written apart from the engine's counting, as the LSP words it.
    """
    pieces = re.split(r"(\r\n|\r|\n)", text)
    lines, breaks = pieces[0::2], pieces[1::2]
    assert line < len(lines), (line, lines)
    start = sum(len(x) + len(b) for x, b in zip(lines[:line], breaks))
    assert col <= len(lines[line]), (line, col, lines[line])  # a column inside the line, never inside its break
    return start + col


def apply_as_editor(text: str, edit: TextEdit) -> str:
    span = edit.span
    start = lsp_offset(text, span.start_line, span.start_col)
    end = lsp_offset(text, span.end_line, span.end_col)
    assert start <= end
    return text[:start] + edit.new_text + text[end:]


# Line breaks of every kind among short runs of text, so that prefixes and
# suffixes end beside, between and inside breaks.
_PIECES = st.sampled_from(["a", "b", "\u2014", "- [x](x.md)", "\n", "\r\n", "\r", "\r\r", "\n\r"])
TEXTS = st.lists(_PIECES, max_size=12).map("".join)


@settings(max_examples=400, deadline=None)
@given(old=TEXTS, data=st.data())
def test_minimal_edit_applied_by_the_editors_line_numbering_gives_the_new_text(old, data):
    # The new text shares a head and a tail with the old one, as a fix's does,
    # cut anywhere (also between the "\r" and "\n" of a "\r\n").
    cut = data.draw(st.integers(0, len(old)))
    rest = data.draw(st.integers(cut, len(old)))
    new = old[:cut] + data.draw(TEXTS) + old[rest:]
    edit = minimal_edit(PATH, old, new)
    assert apply_as_editor(old, edit) == new


@given(text=TEXTS, data=st.data())
def test_line_and_column_name_the_line_split_lines_numbers(text, data):
    offset = data.draw(st.integers(0, len(text)))
    if 0 < offset < len(text) and text[offset - 1 : offset + 1] == "\r\n":
        offset -= 1  # no line and column name the middle of a "\r\n"
    line, col = line_and_column(text, offset)
    lines = split_lines(text)
    assert lsp_offset(text, line, col) == offset
    assert col <= len(lines[line])


def test_a_fix_below_a_stray_cr_lands_on_its_own_line():
    old = "# Memory\nPasted:\rkeep this prose line intact\n- [Gone](gone.md) \u2014 x\n- [First](e01.md) \u2014 mine\n"
    new = "# Memory\nPasted:\rkeep this prose line intact\n- [First](e01.md) \u2014 mine\n"
    edit = minimal_edit(PATH, old, new)
    assert edit.span.start_line == 3  # "- [Gone]...", as the editor and the diagnostics number it
    assert apply_as_editor(old, edit) == new
