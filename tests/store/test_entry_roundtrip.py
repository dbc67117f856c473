"""parse(serialize(e)) == e: the reader is the exact inverse of the writer."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from memls.store.entry import KNOWN_KEYS, STATUSES, MemoryEntry
from memls.store.parse import entry_from_text, parse_document

# Text YAML keeps verbatim inside one double-quoted line: no control characters,
# surrogates or line breaks (YAML also breaks at U+2028 / U+2029), and not the
# two non-characters PyYAML's reader refuses.
LINE_TEXT = st.text(
    st.characters(
        blacklist_categories=("Cc", "Cs", "Zl", "Zp"),
        blacklist_characters="\ufffe\uffff",
    ),
    max_size=40,
)
# Text YAML dumps itself (metadata, lists, extra keys) may hold anything but NEL:
# PyYAML's emitter writes U+0085 raw inside a quoted scalar, where its own reader
# folds it as a line break (gptme shares that limit; it is not the reader's).
ANY_TEXT = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x85"), max_size=20
)
SLUG = st.from_regex(r"[a-z0-9]+(-[a-z0-9]+)*", fullmatch=True)


def reads_back_as_plain_name(name: str) -> bool:
    """``name`` is written unquoted, so only strings YAML reads back unchanged qualify."""
    try:
        return yaml.safe_load(f"name: {name}") == {"name": name}
    except yaml.YAMLError:
        return False


NAME = st.one_of(
    SLUG.filter(reads_back_as_plain_name),  # "0" or "2026" would read back as a number
    st.text(st.sampled_from("abcXYZ09 _-.:#'\"é日!?&*[]{}@`%|>,"), min_size=1, max_size=20)
    .filter(lambda n: n.strip() != "")
    .filter(reads_back_as_plain_name),
)
SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    ANY_TEXT,
)
YAML_VALUE = st.recursive(
    SCALAR,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(ANY_TEXT, inner, max_size=3)
    ),
    max_leaves=6,
)
NON_EMPTY_TEXT = ANY_TEXT.filter(bool)


@st.composite
def entries(draw: st.DrawFn) -> MemoryEntry:
    """Every entry the serializer can write and gptme's save could produce.

    Preconditions (what save guarantees): description is stripped and one
    line; title, superseded_by and recheck are None or non-empty (empty ones
    are not written); type is non-empty and not repeated inside metadata; the
    body has no ``\\r`` (read as LF) and no newline at either end.
    """
    return MemoryEntry(
        name=draw(NAME),
        description=draw(LINE_TEXT.map(str.strip)),
        type=draw(NON_EMPTY_TEXT),
        body=draw(st.text(max_size=60).map(lambda b: b.replace("\r", "").strip("\n"))),
        title=draw(st.none() | LINE_TEXT.filter(bool)),
        status=draw(st.sampled_from(STATUSES)),
        supersedes=draw(st.lists(ANY_TEXT, max_size=3)),
        superseded_by=draw(st.none() | NON_EMPTY_TEXT),
        provenance=draw(st.dictionaries(ANY_TEXT, YAML_VALUE, max_size=3)),
        confidence=draw(st.none() | st.floats(min_value=0, max_value=1)),
        keywords=draw(st.lists(ANY_TEXT, max_size=3)),
        recheck=draw(st.none() | NON_EMPTY_TEXT),
        metadata=draw(
            st.dictionaries(ANY_TEXT.filter(lambda k: k != "type"), YAML_VALUE, max_size=3)
        ),
        path=draw(st.none() | st.just(Path("/root/entry.md"))),
        scope=draw(st.none() | st.sampled_from(["project", "user"])),
        extra=draw(
            st.dictionaries(ANY_TEXT.filter(lambda k: k not in KNOWN_KEYS), YAML_VALUE, max_size=3)
        ),
        type_placement=draw(st.sampled_from(["metadata", "top"])),
    )


@settings(max_examples=200, deadline=None)
@given(entries())
def test_strict_parse_of_serialized_entry_is_the_entry(entry: MemoryEntry):
    text = entry.to_markdown()
    assert entry_from_text(text, path=entry.path, scope=entry.scope, strict=True) == entry


@settings(max_examples=100, deadline=None)
@given(entries())
def test_serialized_entry_has_no_strict_problems_and_reserializes_identically(entry: MemoryEntry):
    text = entry.to_markdown()
    document = parse_document(text, path=entry.path, scope=entry.scope)
    assert document.strict_problems == []
    assert document.entry is not None
    assert document.entry.to_markdown() == text


CC_EXAMPLE = """---
name: prefer-short-answers
description: "User prefers short, direct answers."
metadata:
  type: feedback
  originSessionId: abc-123
---

Erik said so on 2026-09-07.
"""

FULL_EXAMPLE = """---
name: x
title: "X the thing"
description: "d"
metadata:
  type: project
status: superseded
supersedes:
- w
superseded_by: y
provenance:
  session: b831
confidence: 0.9
keywords:
- pacing floor
- deploy*
recheck: '2026-09-28'
---

body
"""


@pytest.mark.parametrize("text", [CC_EXAMPLE, FULL_EXAMPLE], ids=["claude-code", "every-field"])
def test_reference_examples_reserialize_byte_for_byte(text: str):
    assert entry_from_text(text, strict=True).to_markdown() == text


def test_every_field_example_is_what_the_serializer_writes():
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
    assert entry.to_markdown() == FULL_EXAMPLE


def test_empty_body_file_ends_with_delimiter_and_blank_line_and_reads_back():
    entry = MemoryEntry(name="a", description='say "hi" \\ bye')
    text = entry.to_markdown()
    assert text == (
        '---\nname: a\ndescription: "say \\"hi\\" \\\\ bye"\nmetadata:\n  type: general\n---\n\n'
    )
    assert entry_from_text(text, strict=True) == entry


def test_unknown_keys_and_top_level_type_survive_a_rewrite_in_order():
    text = (
        '---\nname: a\ndescription: "d"\ntype: user\nmetadata:\n  originSessionId: s\n'
        "owner: me\nlinks:\n- https://example.com\n---\n\nbody\n"
    )
    entry = entry_from_text(text, strict=True)
    assert entry.extra == {"owner": "me", "links": ["https://example.com"]}
    assert entry.to_markdown() == text


def test_entry_record_keeps_every_field_but_the_place() -> None:
    from dataclasses import fields

    from memls.store.entry import entry_from_record, entry_record

    entry = MemoryEntry(
        name="n", description="d", type="project", body="b", title="T", status="superseded",
        supersedes=["a"], superseded_by="z", provenance={"by": "x"}, confidence=0.5,
        keywords=["k"], recheck="2027-01-01", metadata={"m": 1}, path=Path("/r/n.md"),
        scope="user", extra={"x-key": [1]}, type_placement="top",
    )
    defaults = MemoryEntry(name="other")
    # Every field is set to a non-default value above, so a field the record forgot fails here.
    assert all(getattr(entry, f.name) != getattr(defaults, f.name) for f in fields(MemoryEntry))
    assert len(entry_record(entry)) == len(fields(MemoryEntry)) - 2
    assert entry_from_record(entry_record(entry), entry.path, entry.scope) == entry
