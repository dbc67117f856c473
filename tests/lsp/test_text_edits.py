"""The minimal buffer edit: it turns the old text into the new one and leaves the common ends alone."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st
from lsprotocol import types

from memls.lsp.text_edits import line_edits, minimal_edit

from .conftest import char_units

ENCODINGS = (types.PositionEncodingKind.Utf16, types.PositionEncodingKind.Utf8, types.PositionEncodingKind.Utf32)
# Line breaks of every kind, astral characters (two UTF-16 units, four UTF-8 bytes), and the rest.
PIECES = st.sampled_from(["\r\n", "\r", "\n", "a", "é", "日", "\U0001f600", "\U00010348", " ", "-", "\u2028"])
TEXTS = st.one_of(st.lists(PIECES, max_size=30).map("".join), st.text(max_size=40))


def _offset(text: str, position: types.Position, encoding: str) -> int:
    """A position as an offset, the way the protocol defines lines (CRLF, CR, LF) and columns."""
    starts, ends, i = [0], [], 0
    while i < len(text):
        if text.startswith("\r\n", i):
            ends.append(i)
            i += 2
            starts.append(i)
        elif text[i] in "\r\n":
            ends.append(i)
            i += 1
            starts.append(i)
        else:
            i += 1
    ends.append(len(text))
    assert position.line < len(starts), "the edit names a line the text does not have"
    offset, units = starts[position.line], 0
    while units < position.character:
        assert offset < ends[position.line], "the edit names a column past the end of its line"
        units += char_units(text[offset], encoding)
        offset += 1
    assert units == position.character, "the edit names a column inside a character"
    return offset


def _apply(text: str, edit: types.TextEdit, encoding: str) -> str:
    start = _offset(text, edit.range.start, encoding)
    end = _offset(text, edit.range.end, encoding)
    assert start <= end
    return text[:start] + edit.new_text + text[end:]


@settings(max_examples=400)
@given(TEXTS, TEXTS, TEXTS, TEXTS, st.sampled_from(ENCODINGS))
@example("a\r\nb", "", "a\r", "X\nb", types.PositionEncodingKind.Utf16)
@example("x\r", "\ny", "x", "", types.PositionEncodingKind.Utf16)
def test_applying_the_edit_to_the_old_text_gives_the_new_text(head, old_middle, new_middle, tail, encoding):
    old, new = head + old_middle + tail, head + new_middle + tail
    edit = minimal_edit(old, new, encoding)
    if old == new:
        assert edit is None
    else:
        assert edit is not None and _apply(old, edit, encoding) == new


@settings(max_examples=200)
@given(TEXTS, TEXTS, TEXTS, st.sampled_from(ENCODINGS))
def test_any_two_texts_are_joined_by_the_edit(old, new, _unused, encoding):
    edit = minimal_edit(old, new, encoding)
    assert (edit is None) == (old == new)
    if edit is not None:
        assert _apply(old, edit, encoding) == new


@given(TEXTS, TEXTS, TEXTS, TEXTS)
def test_the_edit_replaces_no_more_than_the_differing_middle_and_a_split_line_break(head, old_middle, new_middle, tail):
    old, new = head + old_middle + tail, head + new_middle + tail
    edit = minimal_edit(old, new)
    if edit is not None:
        # At most the middle, plus one character at either end so a CRLF is not cut in two.
        assert len(edit.new_text) <= len(new_middle) + 2


def test_a_changed_line_in_a_long_document_is_all_the_edit_touches():
    lines = [f"- \U0001f600 [entry {i}](entry-{i}.md): note" for i in range(200)]
    old = "\r\n".join(lines) + "\r\n"
    lines[120] = lines[120].replace("note", "a note")
    edit = minimal_edit(old, "\r\n".join(lines) + "\r\n")
    assert edit is not None
    # 31 code points before the insertion, one of them astral: 32 UTF-16 units.
    assert edit.range == types.Range(start=types.Position(line=120, character=32),
                                     end=types.Position(line=120, character=32))
    assert edit.new_text == "a "


def test_equal_texts_need_no_edit():
    assert minimal_edit("same\r\n", "same\r\n") is None


# -- line_edits: the changed lines alone ----------------------------------------------------

LINES = st.lists(st.lists(st.sampled_from(["a", "é", "\U0001f600", " ", "-"]), max_size=6).map("".join), max_size=6)
BREAKS = st.sampled_from(["\n", "\r\n", "\r"])


def _apply_all(text: str, edits: list[types.TextEdit], encoding: str) -> str:
    """Apply edits that all refer to ``text`` as it was, as a client does."""
    spans = sorted(((_offset(text, e.range.start, encoding), _offset(text, e.range.end, encoding), e.new_text)
                    for e in edits), reverse=True)
    for (start, end, new), following in zip(spans, [None, *spans]):
        assert following is None or end <= following[0], "edits overlap"
        text = text[:start] + new + text[end:]
    return text


@settings(max_examples=300)
@given(TEXTS, TEXTS, st.sampled_from(ENCODINGS))
def test_applying_the_line_edits_to_the_old_text_gives_the_new_text(old, new, encoding):
    edits = line_edits(old, new, encoding)
    assert (edits == []) == (old == new)
    assert _apply_all(old, edits, encoding) == new


@settings(max_examples=200)
@given(LINES, LINES, LINES, LINES, LINES, BREAKS, st.sampled_from(ENCODINGS))
def test_lines_between_two_changed_lines_are_outside_every_edit(head, old_line, new_line, tail, typed, eol,
                                                                  encoding):
    """A line the user typed between two lines the server changes is not rewritten, not even with itself."""
    kept = [f"kept {i} {x}" for i, x in enumerate(typed)] or ["kept"]
    old_lines = [*head, "- [a](a.md) \u2014 old", *kept, "- [a](a.md) \u2014 old too", *tail]
    new_lines = [*head, "- [a](a.md) \u2014 new", *kept, "- [a](a.md) \u2014 new too", *tail]
    old, new = eol.join(old_lines) + eol, eol.join(new_lines) + eol
    edits = line_edits(old, new, encoding)
    assert _apply_all(old, edits, encoding) == new
    first_kept, last_kept = len(head) + 1, len(head) + len(kept)
    for edit in edits:
        assert edit.range.end.line < first_kept or edit.range.start.line > last_kept, edit
