"""Frontmatter detection, one-pass YAML loading, and source spans."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memls.store.frontmatter import (
    ALIAS_NODE_BUDGET,
    load_yaml,
    normalize_text,
    read_document_text,
    split_frontmatter,
)
from memls.store.spans import KeySpans, OversizedValue, Span, YamlProblem


def spans_of(text: str) -> dict[str, KeySpans]:
    frontmatter = split_frontmatter(text)
    assert frontmatter is not None and frontmatter.error is None
    return frontmatter.keys


def text_at(text: str, span: Span) -> str:
    """The document text a span covers (for readable assertions)."""
    lines = text.split("\n")
    if span.start_line == span.end_line:
        return lines[span.start_line][span.start_col : span.end_col]
    middle = lines[span.start_line + 1 : span.end_line]
    return "\n".join(
        [lines[span.start_line][span.start_col :], *middle, lines[span.end_line][: span.end_col]]
    )


# --- detection -------------------------------------------------------------


def test_simple_frontmatter_splits_yaml_body_and_block():
    text = "---\nname: a\n---\n\nbody\n"
    fm = split_frontmatter(text)
    assert fm is not None
    assert fm.yaml_text == "name: a"
    assert fm.data == {"name": "a"}
    assert fm.body == "body"
    assert fm.block == Span(0, 0, 2, 3)
    assert fm.content_start_line == 1
    assert fm.body_start_line == 4


def test_body_start_line_is_line_after_closing_when_body_empty():
    fm = split_frontmatter("---\nname: a\n---\n\n\n")
    assert fm is not None
    assert fm.body == ""
    assert fm.body_start_line == 3


def test_body_keeps_inner_blank_lines_and_strips_only_newlines_at_ends():
    fm = split_frontmatter("---\nname: a\n---\n\n  x\n\ny  \n\n")
    assert fm is not None
    assert fm.body == "  x\n\ny  "


def test_leading_byte_order_mark_is_ignored():
    text = normalize_text("\ufeff---\nname: a\n---\nbody")
    fm = split_frontmatter(text)
    assert fm is not None and fm.data == {"name": "a"}


def test_crlf_and_cr_line_endings_read_as_lf():
    text = normalize_text("---\r\nname: a\r\n---\r\n\r\nline1\r\nline2\rline3\r\n")
    fm = split_frontmatter(text)
    assert fm is not None
    assert fm.data == {"name": "a"}
    assert fm.body == "line1\nline2\nline3"


def test_read_document_text_decodes_utf8_and_normalises(tmp_path: Path):
    path = tmp_path / "a.md"
    path.write_bytes("\ufeff---\r\nname: é\r\n---\r\n".encode())
    assert read_document_text(path) == "---\nname: é\n---\n"


def test_read_document_text_lets_decode_errors_propagate(tmp_path: Path):
    path = tmp_path / "a.md"
    path.write_bytes(b"---\nname: \xff\n---\n")
    with pytest.raises(UnicodeDecodeError):
        read_document_text(path)


def test_opening_line_may_have_trailing_blanks():
    fm = split_frontmatter("--- \t\nname: a\n---\n")
    assert fm is not None and fm.data == {"name": "a"}


def test_frontmatter_must_start_at_the_first_character():
    assert split_frontmatter("\n---\nname: a\n---\n") is None
    assert split_frontmatter("# Just a heading\n") is None


def test_four_dashes_do_not_close_the_block():
    text = "---\nname: a\n----\ndescription: b\n---\nbody"
    fm = split_frontmatter(text)
    assert fm is not None
    assert fm.yaml_text == "name: a\n----\ndescription: b"
    assert fm.body == "body"


def test_dashes_followed_by_text_do_not_close_the_block():
    assert split_frontmatter("---\nname: a\n---x\n") is None


def test_closing_line_may_have_trailing_blanks():
    fm = split_frontmatter("---\nname: a\n---  \nbody")
    assert fm is not None and fm.body == "body"


def test_closing_delimiter_without_newline_at_end_of_text():
    fm = split_frontmatter("---\nname: a\n---")
    assert fm is not None
    assert fm.body == "" and fm.block == Span(0, 0, 2, 3)


def test_unclosed_block_is_no_frontmatter():
    assert split_frontmatter("---\nname: a\n") is None


def test_opening_without_newline_is_no_frontmatter():
    assert split_frontmatter("---") is None


def test_closing_line_directly_after_opening_is_no_frontmatter():
    assert split_frontmatter("---\n---\n") is None


def test_empty_block_has_no_data_and_no_error():
    fm = split_frontmatter("---\n\n---\n")
    assert fm is not None
    assert fm.yaml_text == "" and fm.data is None and fm.error is None and fm.keys == {}


def test_comment_only_block_has_no_data():
    fm = split_frontmatter("---\n# just a comment\n---\n")
    assert fm is not None and fm.data is None and fm.error is None


def test_non_mapping_yaml_has_data_but_no_keys():
    fm = split_frontmatter("---\n- a\n- b\n---\n")
    assert fm is not None and fm.data == ["a", "b"] and fm.keys == {}


# --- spans -----------------------------------------------------------------


def test_plain_scalar_key_and_value_spans():
    text = "---\nname: my-fact\n---\n"
    keys = spans_of(text)
    assert keys["name"].key == Span(1, 0, 1, 4)
    assert keys["name"].value == Span(1, 6, 1, 13)
    assert keys["name"].items == ()


def test_quoted_value_span_includes_the_quotes():
    text = '---\nname: a\ndescription: "say \\"hi\\""\n---\n'
    keys = spans_of(text)
    assert text_at(text, keys["description"].value) == '"say \\"hi\\""'


def test_columns_count_code_points_after_non_ascii_text():
    text = "---\ntitle: é😀x\nkeywords: [ü, 😀]\n---\n"
    keys = spans_of(text)
    assert keys["title"].value == Span(1, 7, 1, 10)
    assert [text_at(text, s) for s in keys["keywords"].items] == ["ü", "😀"]


def test_block_list_value_spans_first_dash_to_last_item_and_items_without_dash():
    text = "---\nname: a\nkeywords:\n- pacing floor\n- deploy*\nstatus: living\n---\n"
    keys = spans_of(text)
    assert keys["keywords"].value == Span(3, 0, 4, 9)
    assert keys["keywords"].items == (Span(3, 2, 3, 14), Span(4, 2, 4, 9))


def test_indented_block_list_item_spans():
    text = "---\nsupersedes:\n  - old  # replaced\n  - 'older'\n\nname: a\n---\n"
    keys = spans_of(text)
    assert [text_at(text, s) for s in keys["supersedes"].items] == ["old", "'older'"]
    assert keys["supersedes"].value == Span(2, 2, 3, 11)


def test_flow_list_value_span_covers_the_brackets():
    text = "---\nkeywords: [a, 'b c']\n---\n"
    keys = spans_of(text)
    assert text_at(text, keys["keywords"].value) == "[a, 'b c']"
    assert [text_at(text, s) for s in keys["keywords"].items] == ["a", "'b c'"]


def test_nested_mapping_value_ends_at_its_last_character_not_the_next_key():
    text = "---\nmetadata:\n  type: feedback\n  originSessionId: abc-123\n\n# note\nname: a\n---\n"
    keys = spans_of(text)
    assert keys["metadata"].value == Span(2, 2, 3, 26)


@pytest.mark.parametrize("yaml_text, key, value, items", [
    ("a: &S x\nb: *S\n", "b", "*S", None),
    ("a: &S x\nb: *S  # a comment with *T\n", "b", "*S", None),
    ("a: &S x\nb:\n  *S\n", "b", "*S", None),
    ("a: [&S x]\nb: [y, *S, z]\n", "b", "[y, *S, z]", ["y", "*S", "z"]),
    ("a: [&S x]\nb:\n- y\n# *T\n- *S\n", "b", "- y\n# *T\n- *S", ["y", "*S"]),
    ("b: [&S x, *S]\n", "b", "[&S x, *S]", ["&S x", "*S"]),
])
def test_an_alias_value_or_item_spans_its_own_token_not_its_anchor(yaml_text, key, value, items):
    text = f"---\n{yaml_text}---\n"
    spans = spans_of(text)[key]
    assert text_at(text, spans.value) == value
    if items is not None:
        assert [text_at(text, item) for item in spans.items] == items


def test_block_scalar_value_span_stops_at_its_last_text_character():
    text = "---\ndescription: |\n  line one\n  line two\n\nname: a\n---\n"
    keys = spans_of(text)
    assert keys["description"].value == Span(1, 13, 3, 10)


def test_multi_line_plain_value_span():
    text = "---\ndescription: first part\n  second part\nname: a\n---\n"
    keys = spans_of(text)
    assert keys["description"].value == Span(1, 13, 2, 13)


def test_multi_line_double_quoted_value_span():
    text = '---\ndescription: "first\n  second"\nname: a\n---\n'
    keys = spans_of(text)
    assert keys["description"].value == Span(1, 13, 2, 9)


def test_empty_value_is_a_zero_width_span_after_the_colon():
    text = "---\nname: a\ntitle:\n---\n"
    keys = spans_of(text)
    value = keys["title"].value
    assert (value.start_line, value.start_col) == (value.end_line, value.end_col) == (2, 6)


def test_duplicate_key_spans_point_at_the_loaded_last_occurrence():
    text = "---\nname: a\nname: b\n---\n"
    fm = split_frontmatter(text)
    assert fm is not None and fm.data == {"name": "b"}
    assert fm.keys["name"].value == Span(2, 6, 2, 7)


def test_non_string_keys_have_no_spans():
    fm = split_frontmatter("---\nname: a\n42: x\ntrue: y\n---\n")
    assert fm is not None
    assert set(fm.keys) == {"name"}


def test_spans_are_in_document_lines_after_a_bom_and_crlf():
    text = normalize_text("\ufeff---\r\nname: a\r\ndescription: d\r\n---\r\n")
    keys = spans_of(text)
    assert keys["description"].value == Span(2, 13, 2, 14)


def test_yaml_line_breaks_other_than_lf_do_not_shift_document_lines():
    # YAML treats U+2028 as a line break; the document (and editors) do not.
    text = '---\ntitle: "a\u2028b"\nname: x\n---\n'
    keys = spans_of(text)
    assert keys["name"].key == Span(2, 0, 2, 4)
    assert keys["title"].value == Span(1, 7, 1, 12)


def test_alias_value_span_stays_inside_its_mapping():
    text = "---\nmetadata:\n  a: &x 1\n  b: *x\nname: n\n---\n"
    keys = spans_of(text)
    assert keys["metadata"].value == Span(2, 2, 3, 3)


# --- YAML errors -----------------------------------------------------------


def error_of(text: str) -> YamlProblem:
    fm = split_frontmatter(text)
    assert fm is not None and fm.data is None and fm.keys == {}
    assert fm.error is not None
    assert "\n" not in fm.error.message
    return fm.error


def test_unquoted_colon_error_position():
    error = error_of("---\nname: a\ndescription: note: this has a colon\n---\n")
    assert "mapping values are not allowed" in error.message
    assert (error.line, error.column) == (2, 17)


def test_unclosed_flow_list_error_is_placed_at_its_bracket():
    # PyYAML notices it at the next line's colon (3, 6); the user left the bracket open.
    error = error_of("---\nname: a\nkeywords: [a, b\nstatus: living\n---\n")
    assert (error.line, error.column) == (2, 10)
    assert error.from_opener
    assert "while parsing a flow sequence" in error.message


def test_quote_left_open_over_later_lines_is_placed_at_the_quote():
    error = error_of('---\nname: a\ndescription: "日本語 🎉 abc\nother: x\n---\n')
    assert (error.line, error.column) == (2, 13)
    assert error.from_opener


def test_stray_line_error_is_placed_at_the_stray_line():
    # PyYAML notices it at the start of the next line.
    error = error_of("---\nname: a\nsuperseded_by: depl\noy-freeze-v3\nstatus: superseded\n---\n")
    assert (error.line, error.column) == (3, 0)
    assert error.from_opener


def test_unterminated_quote_error_position():
    error = error_of('---\nname: a\ndescription: "oops\n---\n')
    assert "while scanning a quoted scalar" in error.message
    assert (error.line, error.column) == (2, 18)


def test_bad_indentation_error_position():
    error = error_of("---\nname: a\n  title: b\n---\n")
    assert (error.line, error.column) == (2, 7)


def test_control_character_error_points_at_the_character():
    error = error_of("---\nname: é\x01x\n---\n")
    assert (error.line, error.column) == (1, 7)
    assert "#x0001" in error.message


def test_error_position_after_bom_and_crlf_is_in_document_coordinates():
    error = error_of(normalize_text("\ufeff---\r\nname: a\r\nx: y: z\r\n---\r\n"))
    assert (error.line, error.column) == (2, 4)


def test_python_tag_is_refused_with_a_position_and_never_run(tmp_path: Path):
    marker = tmp_path / "ran"
    text = (
        "---\nname: a\n"
        f"x: !!python/object/apply:os.system ['touch {marker}']\n"
        "y: !!python/object:os.system ls\n---\n"
    )
    error = error_of(text)
    assert "could not determine a constructor" in error.message
    assert (error.line, error.column) == (2, 3)
    assert not marker.exists()


def test_value_error_from_a_core_tag_is_a_problem_at_the_value_not_a_crash():
    error = error_of("---\nname: !!int abc\n---\n")
    assert error.message.startswith("invalid value:")
    assert (error.line, error.column) == (1, 6)


def test_an_impossible_date_is_reported_at_the_date_not_the_frontmatter_start():
    """A resolved date its constructor refuses carries no mark; the user needs the value."""
    error = error_of("---\nname: d\ndescription: x\ntags: [a, b]\nrecheck: 2026-02-30\n---\nb\n")
    assert "day is out of range" in error.message
    assert (error.line, error.column) == (4, 9)
    aliased = error_of("---\nname: d\nfirst: &d 2026-02-30\nsecond: *d\n---\n")
    assert (aliased.line, aliased.column) == (2, 7)


def test_second_document_in_the_block_is_an_error():
    error = error_of("---\nname: a\n--- x\n---\n")
    assert (error.line, error.column) == (2, 0)


def test_deep_nesting_is_a_problem_not_a_crash():
    fm = split_frontmatter("---\nname: " + "[" * 5000 + "\n---\n")
    assert fm is not None and fm.error is not None and fm.data is None


# --- the alias budget ------------------------------------------------------


def laughs(levels: int, width: int = 10) -> list[str]:
    """Anchors ``a0`` .. ``a{levels-1}``, each ``width`` aliases of the one before."""
    lines = ['a0: &a0 "lol"']
    lines += [f"a{i}: &a{i} [{', '.join(f'*a{i - 1}' for _ in range(width))}]" for i in range(1, levels)]
    return lines


def expanded_size(value) -> int:
    if isinstance(value, dict):
        return 1 + sum(1 + expanded_size(v) for v in value.values())
    if isinstance(value, list):
        return 1 + sum(expanded_size(v) for v in value)
    return 1


def test_an_alias_bomb_loads_without_the_values_past_the_budget():
    loaded = load_yaml("\n".join(["name: bomb", *laughs(12), "metadata:", "  type: project",
                                  "  nested: *a11"]), 1)
    assert loaded.problem is None
    left_out = {value.path for value in loaded.oversized}
    assert ("metadata", "nested") in left_out and ("a11",) in left_out and ("a3",) not in left_out
    assert loaded.data["metadata"] == {"type": "project"}
    # Everything kept is bounded: the text's own values plus at most the budget.
    assert expanded_size(loaded.data) < ALIAS_NODE_BUDGET + 500
    assert len(json.dumps(loaded.data)) < 200_000


def test_many_small_aliases_of_one_value_count_against_one_budget():
    # Each ``copyN: *big`` adds 1001 values; the text stays small.
    lines = ["big: &big [" + ", ".join(["x"] * 1000) + "]"] + [f"copy{i}: *big" for i in range(100)]
    loaded = load_yaml("\n".join(lines), 1)
    kept = [k for k in loaded.data if k.startswith("copy")]
    assert len(kept) == ALIAS_NODE_BUDGET // 1001
    assert {value.path for value in loaded.oversized} == {(f"copy{i}",) for i in range(len(kept), 100)}


def test_a_value_containing_itself_is_left_out_and_counted_as_without_end():
    loaded = load_yaml("name: x\nself: &s [*s]\nok: 1", 1)
    assert loaded.data == {"name": "x", "ok": 1}
    assert loaded.oversized == (OversizedValue(("self",), Span(2, 0, 2, 4), None),)


def test_a_non_mapping_document_past_the_budget_is_a_problem():
    loaded = load_yaml("- &a [*a]", 1)
    assert loaded.data is None and "aliases expand" in loaded.problem.message


def test_merge_keys_and_small_anchors_are_read_as_written():
    loaded = load_yaml("base: &b {x: 1}\nmerged:\n  <<: *b\n  y: 2\ncopy: *b", 1)
    assert loaded.oversized == ()
    assert loaded.data == {"base": {"x": 1}, "merged": {"x": 1, "y": 2}, "copy": {"x": 1}}
