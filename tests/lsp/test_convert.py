"""Positions across encodings: engine code points <-> UTF-8 / UTF-16 / UTF-32 client units."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol.types import Position, PositionEncodingKind, Range

from memls.lsp.convert import Positions, path_to_uri, uri_to_path
from memls.store.spans import Span

from .conftest import char_units

UTF8, UTF16, UTF32 = PositionEncodingKind.Utf8, PositionEncodingKind.Utf16, PositionEncodingKind.Utf32
# 'é' is 2 UTF-8 bytes / 1 UTF-16 unit; '😀' is 4 bytes / 2 UTF-16 units; '中' is 3 bytes / 1 unit.
LINE = "café 😀 中x"
X = LINE.index("x")  # 8 code points


def test_ascii_columns_are_the_same_in_every_encoding():
    for encoding in (UTF8, UTF16, UTF32):
        assert Positions("name: a\nb", encoding).to_client(0, 6) == Position(line=0, character=6)


def test_utf16_counts_astral_characters_as_two_units():
    assert Positions(LINE, UTF16).to_client(0, X) == Position(line=0, character=9)


def test_utf8_counts_bytes():
    assert Positions(LINE, UTF8).to_client(0, X) == Position(line=0, character=14)


def test_utf32_counts_code_points():
    assert Positions(LINE, UTF32).to_client(0, X) == Position(line=0, character=X)


def test_only_the_line_of_the_position_counts():
    positions = Positions("😀😀😀\nab", UTF16)
    assert positions.to_client(1, 1) == Position(line=1, character=1)


def test_client_position_inside_a_surrogate_pair_lands_after_the_character():
    assert Positions("😀a", UTF16).from_client(Position(line=0, character=1)) == (0, 1)


def test_client_position_past_the_line_end_clamps_to_the_end():
    assert Positions("é\nb", UTF8).from_client(Position(line=0, character=99)) == (0, 1)


def test_client_position_past_the_last_line_clamps_to_the_end_of_text():
    assert Positions("a\nbc", UTF16).from_client(Position(line=7, character=0)) == (1, 2)


def test_engine_column_past_the_line_end_clamps_to_the_line_end():
    assert Positions("é", UTF8).to_client(0, 5) == Position(line=0, character=2)


def test_span_and_range_convert_both_ends():
    positions = Positions("x: 😀\ny: é", UTF16)
    rng = positions.range(Span(0, 3, 1, 4))
    assert rng == Range(start=Position(line=0, character=3), end=Position(line=1, character=4))
    assert positions.span(Range(start=Position(line=0, character=5), end=Position(line=1, character=4))) \
        == Span(0, 4, 1, 4)


def test_file_uri_round_trips_a_path_with_spaces_and_non_ascii(tmp_path):
    path = tmp_path / "my memory" / "café.md"
    assert uri_to_path(path_to_uri(path)) == path


def test_a_localhost_file_uri_names_the_local_path(tmp_path):
    """Some clients write ``file://localhost/...``: the same file as ``file:///...``, not a network share."""
    path = tmp_path / "café notes.md"
    local = path_to_uri(path).replace("file://", "file://localhost", 1)
    assert uri_to_path(local) == path
    assert uri_to_path(local.replace("localhost", "LocalHost", 1)) == path


def test_non_file_uri_is_not_a_path():
    assert uri_to_path("untitled:Untitled-1") is None


text_lines = st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"),
                              max_size=12), min_size=1, max_size=4)


@settings(max_examples=150)
@given(lines=text_lines, data=st.data())
def test_every_code_point_position_round_trips_in_every_encoding(lines, data):
    text = "\n".join(lines)
    line = data.draw(st.integers(0, len(lines) - 1))
    col = data.draw(st.integers(0, len(lines[line])))
    for encoding in (UTF8, UTF16, UTF32):
        positions = Positions(text, encoding)
        client = positions.to_client(line, col)
        codec = {UTF8: "utf-8", UTF16: "utf-16-le", UTF32: "utf-32-le"}[encoding]
        width = {UTF8: 1, UTF16: 2, UTF32: 4}[encoding]
        assert client.character == len(lines[line][:col].encode(codec)) // width
        assert positions.from_client(client) == (line, col)


def test_a_lone_cr_a_crlf_and_an_lf_each_end_a_line_as_the_lsp_counts_them():
    positions = Positions("a\rbb\r\nccc\nd😀x", UTF16)
    assert positions.to_client(3, 2) == Position(line=3, character=3)
    assert positions.from_client(Position(line=2, character=9)) == (2, 3)
    assert positions.from_client(Position(line=1, character=2)) == (1, 2)  # not into the "\r\n"


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.sampled_from("a \u2014\u00e9\U0001f600\ud800")),
       encoding=st.sampled_from([PositionEncodingKind.Utf16, PositionEncodingKind.Utf8,
                                 PositionEncodingKind.Utf32]))
def test_a_prefix_is_counted_in_client_units_as_character_by_character_counting_does(text, encoding):
    """Counted at C speed (a MEMORY.md line holds an em dash); a lone surrogate counts as the old count did."""
    if encoding == PositionEncodingKind.Utf8 and "\ud800" in text:
        text = text.replace("\ud800", "")  # (not encodable as UTF-8 one character at a time either)
    positions = Positions(f"x\n{text}", encoding)
    for col in range(len(text) + 1):
        assert positions.to_client(1, col).character == sum(char_units(c, encoding) for c in text[:col])


def _problems(path, other):
    from memls.store.catalogue import codes
    from memls.store.diagnostics import Location, Problem, Related

    some = codes()
    return [
        Problem(path, Span(0, 0, 0, 4), some[0], "error", "plain"),
        Problem(path, Span(1, 2, 1, 9), some[1], "warning", "after an emoji 😀 é",
                related=(Related(Location(other, Span(1, 1, 1, 3)), "the other end"),
                         Related(Location(path.parent / "unread.md", Span(2, 0, 2, 5)), "not converted")),
                tags=("deprecated",)),
        Problem(path, Span(0, 3, 7, 40), some[2], "information", "past the end", tags=("unnecessary", "odd")),
        Problem(path, Span(2, 0, 2, 1), some[3], "hint", "a hint", data={"target": "x"}),
    ]


def test_a_diagnostics_wire_form_built_directly_is_what_the_converter_makes_of_the_lsp_object(tmp_path):
    """The start publishes every file's problems in wire form (memls.lsp.diagnostics.publish_checked).

    Whatever the encoding, related support, tags, and positions past a line's
    or the text's end, the dictionaries are the converter's, field for field.
    """
    from lsprotocol import types
    from pygls.protocol import default_converter

    from memls.lsp.convert import diagnostic, diagnostic_json

    converter = default_converter()
    path, other = tmp_path / "a.md", tmp_path / "b.md"
    for encoding in (UTF8, UTF16, UTF32):
        positions = Positions("😀😀 name\n" + LINE + "\nlast", encoding)
        related = {path: positions, other: Positions("x\n中😀é wide", encoding)}
        for support in (True, False):
            for problem in _problems(path, other):
                made = diagnostic(problem, positions, related, related_support=support)
                assert diagnostic_json(problem, positions, related, related_support=support) \
                    == converter.unstructure(made, types.Diagnostic)


def test_a_wire_forms_fingerprint_is_the_lsp_objects_so_an_unchanged_result_is_not_sent_again(tmp_path):
    """What a start published in wire form is compared with later checks' LSP objects (memls.lsp.diagnostics)."""
    from memls.lsp.convert import diagnostic, diagnostic_json
    from memls.lsp.diagnostics import _fingerprint, _wire_fingerprint

    path, other = tmp_path / "a.md", tmp_path / "b.md"
    positions = Positions("😀😀 name\n" + LINE + "\nlast", UTF16)
    related = {path: positions, other: Positions("x\n中😀é wide", UTF16)}
    problems = _problems(path, other)
    made = [diagnostic(p, positions, related) for p in problems]
    wire = [diagnostic_json(p, positions, related) for p in problems]
    assert _wire_fingerprint(wire) == _fingerprint(made)
    assert _wire_fingerprint(wire[1:]) != _fingerprint(made)
