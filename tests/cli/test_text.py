"""store.text: terminal-safe memory text (lives with the CLI tests, its first user)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memls.store.text import one_line, strip_controls

CONTROLS = [chr(c) for c in [*range(0x00, 0x20), *range(0x7F, 0xA0)]]


def test_single_line_strip_removes_tab_and_newline_too():
    assert strip_controls("a\tb\nc\x1b[31md\re", multiline=False) == "abc[31mde"


def test_multiline_strip_keeps_tab_and_newline_only():
    assert strip_controls("line 1\nline 2\t\x1b\r\x07\x85x", multiline=True) == "line 1\nline 2\tx"


def test_strip_keeps_printable_unicode():
    assert strip_controls("日本語 — ünïcode ✓", multiline=False) == "日本語 — ünïcode ✓"


@settings(max_examples=150)
@given(st.text(), st.booleans())
def test_strip_leaves_no_control_but_tab_and_lf(text, multiline):
    kept = {"\t", "\n"} if multiline else set()
    cleaned = strip_controls(text, multiline=multiline)
    assert not [ch for ch in cleaned if ch in CONTROLS and ch not in kept]
    assert [ch for ch in text if ch not in CONTROLS or ch in kept] == list(cleaned)


@settings(max_examples=150)
@given(st.text())
def test_one_line_never_contains_a_line_break_or_control(text):
    flat = one_line(text)
    assert not any(ch in CONTROLS for ch in flat)


def test_one_line_joins_lines_with_single_space():
    assert one_line("first\n   second  \n\nthird\r") == "first second third"


def test_one_line_collapses_every_whitespace_run_including_unicode_breaks():
    assert one_line("key:\tvalue  here\u2028next\x85line\x1b[0m") == "key: value here next line[0m"
