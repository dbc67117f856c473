"""Span helpers the checks report with."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memls.store.anchors import line_span
from memls.store.spans import Span


@given(st.text(alphabet="ab\n\u00e9", max_size=40), st.integers(-3, 12))
def test_line_span_is_the_whole_line_clamped_to_the_text(text: str, line: int) -> None:
    lines = text.split("\n")
    expected = max(0, min(line, len(lines) - 1))
    assert line_span(text, line) == Span(expected, 0, expected, len(lines[expected]))
