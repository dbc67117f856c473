"""Lenient and strict entry parsing: gptme's rules, coercions and messages."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memls.store.entry import MemoryEntry
from memls.store.errors import MemoryFrontmatterError, MemoryParseError
from memls.store.parse import FieldProblem, entry_from_text, parse_document, parse_entry

CC_FILE = """---
name: prefer-short-answers
description: "User prefers short, direct answers."
metadata:
  type: feedback
  originSessionId: abc-123
---

Erik said so on 2026-09-07.

"""


def doc(frontmatter: str, body: str = "", path: Path | None = None):
    return parse_document(f"---\n{frontmatter}\n---\n{body}", path=path)


# --- §13 schema scenarios --------------------------------------------------


def test_claude_code_file_parses_type_metadata_and_trimmed_body():  # §13.1
    entry = entry_from_text(CC_FILE)
    assert entry.name == "prefer-short-answers"
    assert entry.description == "User prefers short, direct answers."
    assert entry.type == "feedback"
    assert entry.metadata == {"originSessionId": "abc-123"}
    assert entry.body == "Erik said so on 2026-09-07."
    assert entry.status == "living"
    assert entry.type_placement == "metadata"


def test_serialize_then_parse_is_equal_and_keeps_metadata_block():  # §13.2
    entry = MemoryEntry(
        name="prefer-short-answers",
        description="User prefers short, direct answers.",
        type="feedback",
        body="Erik said so.",
        metadata={"originSessionId": "abc-123"},
    )
    text = entry.to_markdown()
    assert "metadata:\n  type: feedback\n  originSessionId: abc-123" in text
    assert entry_from_text(text, strict=True) == entry


def test_entry_with_every_optional_field_round_trips():  # §13.3
    entry = MemoryEntry(
        name="x",
        title="X the thing",
        description="d",
        type="project",
        status="superseded",
        supersedes=["w"],
        superseded_by="y",
        provenance={"session": "b831"},
        confidence=0.9,
        keywords=["pacing floor", "deploy*"],
        recheck="2026-09-28",
        body="body",
    )
    parsed = entry_from_text(entry.to_markdown(), strict=True)
    assert parsed == entry
    assert parsed.index_line() == "- [X the thing](x.md) — d"


def test_unquoted_colon_and_top_level_type_parse_leniently():  # §13.4
    text = "---\nname: a\ndescription: note: this has a colon\ntype: reference\n---\n"
    entry = entry_from_text(text)
    assert entry.type == "reference"
    assert entry.description == "note: this has a colon"
    assert entry.type_placement == "top"


def test_heading_without_frontmatter_is_not_an_entry():  # §13.5
    with pytest.raises(MemoryParseError, match="no frontmatter: <text>"):
        entry_from_text("# Just a heading\n")


def test_missing_name_falls_back_to_file_stem():  # §13.6
    entry = entry_from_text("---\ndescription: d\n---\n", path=Path("/r/some-fact.md"))
    assert entry.name == "some-fact"


def test_numeric_name_is_kept_as_string_leniently_and_refused_strictly():  # §13.8
    text = "---\nname: 42\n---\n"
    assert entry_from_text(text, path=Path("stem.md")).name == "42"
    with pytest.raises(MemoryFrontmatterError, match="invalid name"):
        entry_from_text(text, path=Path("stem.md"), strict=True)


# --- not an entry ----------------------------------------------------------


def test_no_frontmatter_message_names_the_path():
    document = parse_document("plain notes", path=Path("/r/notes.md"))
    assert document.entry is None
    assert document.not_entry == "no frontmatter: /r/notes.md"
    assert document.strict_error == "no frontmatter: /r/notes.md"
    assert type(document.strict_exception) is MemoryParseError


def test_empty_block_is_empty_frontmatter_leniently_and_not_a_mapping_strictly():
    document = parse_document("---\n\n---\n")
    assert document.not_entry == "empty frontmatter: <text>"
    assert document.strict_problems == [
        FieldProblem("", "invalid YAML: frontmatter is not a mapping")
    ]
    with pytest.raises(MemoryFrontmatterError, match="not a mapping"):
        entry_from_text("---\n\n---\n", strict=True)


def test_empty_mapping_is_empty_frontmatter_in_both_modes():
    document = parse_document("---\n{}\n---\n")
    assert document.not_entry == document.strict_error == "empty frontmatter: <text>"
    assert type(document.strict_exception) is MemoryParseError


def test_text_without_name_or_path_has_no_name():
    with pytest.raises(MemoryParseError, match="entry has no name: <text>"):
        entry_from_text("---\ndescription: d\n---\n")


def test_strict_raises_no_name_after_earlier_field_problems_only():
    document = parse_document("---\nmetadata: nope\ndescription: 42\n---\n")
    assert document.strict_error == "invalid metadata: expected mapping"
    document = parse_document("---\ndescription: 42\n---\n")
    assert document.strict_error == "entry has no name: <text>"
    assert type(document.strict_exception) is MemoryParseError
    assert document.strict_problems == [
        FieldProblem("description", "invalid description: expected string")
    ]


def test_falsy_name_without_path_is_no_name_leniently_and_invalid_name_strictly():
    document = parse_document("---\nname: ''\n---\n")
    assert document.not_entry == "entry has no name: <text>"
    assert document.strict_error == "invalid name: expected non-empty string"


def test_invalid_utf8_file_is_a_parse_error_naming_the_file(tmp_path: Path):
    path = tmp_path / "bad.md"
    path.write_bytes(b"---\nname: \xff\n---\n")
    with pytest.raises(MemoryParseError, match=r"not UTF-8 text: .*bad\.md \(byte 10\)"):
        parse_entry(path)


def test_parse_entry_reads_file_with_bom_and_crlf(tmp_path: Path):
    path = tmp_path / "a.md"
    path.write_bytes(b"\xef\xbb\xbf---\r\nname: a\r\n---\r\n\r\nbody\r\n")
    entry = parse_entry(path, scope="project", strict=True)
    assert (entry.name, entry.body, entry.path, entry.scope) == ("a", "body", path, "project")


# --- strict field rules (§2.2, §9) -----------------------------------------

BAD_VALUES = [
    ("status: bogus", "status", "invalid status: expected one of living, superseded, historical"),
    ("status: false", "status", "invalid status: expected one of living, superseded, historical"),
    ("status:", "status", "invalid status: expected one of living, superseded, historical"),
    ("confidence: nope", "confidence", "invalid confidence: expected number"),
    ("confidence: 2", "confidence", "invalid confidence: expected 0..1"),
    ("confidence: -0.1", "confidence", "invalid confidence: expected 0..1"),
    ("confidence: .nan", "confidence", "invalid confidence: expected 0..1"),
    ("confidence: true", "confidence", "invalid confidence: expected number"),
    ("confidence: " + "9" * 400, "confidence", "invalid confidence: expected 0..1"),
    ("metadata: nope", "metadata", "invalid metadata: expected mapping"),
    ("metadata: {type: 42}", "type", "invalid type: expected string"),
    ("type: [a]", "type", "invalid type: expected string"),
    ("provenance: nope", "provenance", "invalid provenance: expected mapping"),
    ("supersedes: 42", "supersedes", "invalid supersedes: expected string list"),
    ("supersedes: {a: b}", "supersedes", "invalid supersedes: expected string list"),
    ("keywords: [fine, 42]", "keywords", "invalid keywords: expected string list"),
    ("superseded_by: 42", "superseded_by", "invalid superseded_by: expected string"),
    ("recheck: 42", "recheck", "invalid recheck: expected string"),
    ("recheck: 2026-09-28", "recheck", "invalid recheck: expected string"),
    ("title: 42", "title", "invalid title: expected string"),
    ("description: 42", "description", "invalid description: expected string"),
    ("description: 2026-09-28", "description", "invalid description: expected string"),
    ("name: false", "name", "invalid name: expected non-empty string"),
    ("name: ''", "name", "invalid name: expected non-empty string"),
    ("name: '   '", "name", "invalid name: expected non-empty string"),
]


@pytest.mark.parametrize(("line", "field", "message"), BAD_VALUES, ids=[b[0] for b in BAD_VALUES])
def test_each_bad_value_gives_exactly_one_strict_problem(line: str, field: str, message: str):
    name_line = "" if line.startswith("name:") else "name: a\n"
    text = f"---\n{name_line}{line}\n---\n"
    document = parse_document(text, path=Path("stem.md"))
    assert document.strict_problems == [FieldProblem(field, message)]
    with pytest.raises(MemoryFrontmatterError) as raised:
        entry_from_text(text, path=Path("stem.md"), strict=True)
    assert str(raised.value) == message
    assert document.entry is not None  # lenient readers still see the entry


def test_all_strict_problems_are_collected_in_gptme_check_order():
    text = (
        "---\nrecheck: 1\nkeywords: 1\nsuperseded_by: 1\nsupersedes: 1\ntitle: 1\n"
        "description: 1\nstatus: x\nprovenance: 1\nconfidence: x\nname: 1\n"
        "metadata: {type: 1}\n---\n"
    )
    document = parse_document(text)
    assert [p.field for p in document.strict_problems] == [
        "type",
        "name",
        "confidence",
        "provenance",
        "status",
        "description",
        "title",
        "supersedes",
        "superseded_by",
        "keywords",
        "recheck",
    ]
    assert document.strict_error == "invalid type: expected string"


def test_valid_values_give_no_strict_problems():
    text = (
        "---\nname: a\ntitle: T\ndescription: d\nmetadata: null\nprovenance: null\n"
        "confidence: 1\nsupersedes: one\nkeywords: null\nsuperseded_by: ''\nrecheck: ''\n"
        "status: historical\n---\n"
    )
    document = parse_document(text)
    assert document.strict_problems == [] and document.strict_error is None
    assert entry_from_text(text, strict=True) == document.entry


def test_yaml_error_is_one_strict_problem_with_document_position():
    document = parse_document("---\nname: a\ndescription: note: colon\n---\n")
    assert len(document.strict_problems) == 1
    problem = document.strict_problems[0]
    assert problem.field == ""
    assert problem.message.startswith("invalid YAML: mapping values are not allowed")
    assert problem.message.endswith("at line 3, column 18")
    with pytest.raises(MemoryFrontmatterError, match="invalid YAML"):
        entry_from_text(document.text, strict=True)


def test_non_mapping_yaml_is_not_a_mapping_strictly():
    document = parse_document("---\njust text\n---\n")
    assert document.strict_error == "invalid YAML: frontmatter is not a mapping"
    assert document.not_entry == "empty frontmatter: <text>"


# --- lenient coercions -----------------------------------------------------


def test_lenient_status_unknown_or_falsy_becomes_living():
    assert doc("name: a\nstatus: bogus").entry.status == "living"
    assert doc("name: a\nstatus: false").entry.status == "living"
    assert doc("name: a\nstatus: historical").entry.status == "historical"


def test_lenient_confidence_coercions():
    assert doc("name: a\nconfidence: '0.5'").entry.confidence == 0.5
    assert doc("name: a\nconfidence: true").entry.confidence == 1.0
    assert doc("name: a\nconfidence: nope").entry.confidence is None
    assert doc("name: a\nconfidence: [1]").entry.confidence is None
    assert doc("name: a\nconfidence: 3").entry.confidence == 3.0


def test_lenient_non_mappings_become_empty_dicts():
    entry = doc("name: a\nmetadata: nope\nprovenance: [1]").entry
    assert entry.metadata == {} and entry.provenance == {}


def test_lenient_description_is_stringified_and_stripped():
    assert doc("name: a\ndescription: '  d  '").entry.description == "d"
    assert doc("name: a\ndescription: 42").entry.description == "42"
    assert doc("name: a\ndescription: 2026-09-28").entry.description == "2026-09-28"
    assert doc("name: a\ndescription:").entry.description == ""


def test_lenient_title_is_stringified_or_none_when_falsy():
    assert doc("name: a\ntitle: 42").entry.title == "42"
    assert doc("name: a\ntitle: ''").entry.title is None
    assert doc("name: a\ntitle: 0").entry.title is None


def test_lenient_string_lists():
    assert doc("name: a\nsupersedes: old").entry.supersedes == ["old"]
    assert doc("name: a\nsupersedes: 42").entry.supersedes == ["42"]
    assert doc("name: a\nkeywords: [x, 42, true]").entry.keywords == ["x", "42", "True"]
    assert doc("name: a\nkeywords:").entry.keywords == []


def test_lenient_optional_strings():
    assert doc("name: a\nrecheck: 2026-09-28").entry.recheck == "2026-09-28"
    assert doc("name: a\nsuperseded_by: 42").entry.superseded_by == "42"
    assert doc("name: a\nsuperseded_by: ''").entry.superseded_by is None


def test_lenient_name_rules():
    path = Path("/r/stem.md")
    assert doc("name: false", path=path).entry.name == "stem"
    assert doc("name: ''", path=path).entry.name == "stem"
    assert doc("name: true", path=path).entry.name == "True"
    assert doc("name: other", path=path).entry.name == "other"


def test_type_resolution_order_and_type_removed_from_metadata():
    entry = doc("name: a\ntype: user\nmetadata:\n  type: project\n  k: v").entry
    assert (entry.type, entry.metadata, entry.type_placement) == ("project", {"k": "v"}, "metadata")
    entry = doc("name: a\ntype: user\nmetadata:\n  type: ''\n  k: v").entry
    assert (entry.type, entry.metadata, entry.type_placement) == ("user", {"k": "v"}, "top")
    entry = doc("name: a").entry
    assert (entry.type, entry.type_placement) == ("general", "metadata")
    assert doc("name: a\nmetadata: {type: 42}").entry.type == "42"


def test_top_level_type_placement_survives_a_rewrite():
    text = '---\nname: a\ndescription: "d"\ntype: reference\n---\n\nbody\n'
    entry = entry_from_text(text, strict=True)
    assert entry.type_placement == "top"
    assert entry.to_markdown() == text


def test_unknown_keys_are_kept_in_file_order():
    entry = doc("zeta: 1\nname: a\nalpha: [x]\ndescription: d\nmid: {k: v}").entry
    assert list(entry.extra.items()) == [("zeta", 1), ("alpha", ["x"]), ("mid", {"k": "v"})]
    assert "name" not in entry.extra


def test_yaml_typed_values_are_kept_in_metadata_and_extra():
    entry = doc("name: a\nwhen: 2026-09-28\nmetadata:\n  flag: yes").entry
    assert entry.extra == {"when": datetime.date(2026, 9, 28)}
    assert entry.metadata == {"flag": True}


# --- the lenient line parser fallback --------------------------------------


def test_line_fallback_reads_flat_keys_and_one_nested_level():
    text = (
        "---\nname: 'quoted'\ndescription: note: colon\nmetadata:\n  type: feedback\n"
        '  originSessionId: "abc"\nstatus: superseded\n---\n'
    )
    document = parse_document(text)
    entry = document.entry
    assert document.strict_error is not None
    assert entry.name == "quoted"
    assert entry.description == "note: colon"
    assert entry.type == "feedback" and entry.metadata == {"originSessionId": "abc"}
    assert entry.status == "superseded"


def test_line_fallback_drops_list_items_and_flattens_deeper_nesting():
    text = "---\nname: a\nx: y: z\nkeywords:\n- one\n- two\nmetadata:\n  a:\n    b: c\n---\n"
    entry = entry_from_text(text)
    # gptme's quirk, kept: ``keywords:`` opened an (empty) mapping, listed as its str().
    assert entry.keywords == ["{}"]
    assert entry.metadata == {"a": "", "b": "c"}


def test_line_fallback_keeps_unknown_string_keys_in_extra():
    entry = entry_from_text("---\nname: a\nx: y: z\nowner: 'me'\n---\n")
    assert entry.extra == {"x": "y: z", "owner": "me"}


def test_line_fallback_with_no_keys_is_empty_frontmatter():
    document = parse_document("---\n- just: [a list\n---\n")
    assert document.not_entry == "empty frontmatter: <text>"


# --- document-level facts --------------------------------------------------


def test_parse_document_normalises_text_and_reads_body():
    document = parse_document("\ufeff---\r\nname: a\r\n---\r\n\r\nx\r\ny\r\n", scope="user")
    assert document.text == "---\nname: a\n---\n\nx\ny\n"
    assert document.entry.body == "x\ny"
    assert document.entry.scope == "user"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "---",
        "---\n",
        "---\n\x00\n---\n",
        "---\nname: \ud800\n---\n",
        "---\nname: !!timestamp nope\n---\n",
        "---\n? [a]\n: 1\n---\n",
        "---\nname: &a [*a]\n---\n",
        "---\n<<: {name: a}\n---\n",
        "---\nname: a\nmetadata: &m\n  x: *m\n---\n",
    ],
)
def test_parse_document_never_raises(text: str):
    parse_document(text)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=80), st.sampled_from(["---\n", "\ufeff---\r\n", ""]))
def test_parse_document_never_raises_on_arbitrary_frontmatter(inner: str, opening: str):
    document = parse_document(f"{opening}{inner}\n---\nbody")
    assert (document.entry is None) == (document.not_entry is not None)
