"""Frontmatter text edits: each one changes only what it fixes, and the result parses back.

Every test applies the edit to the document's (normalised) text and reads
the result with the same parser the checks use, so an edit that produced
broken YAML or touched another key fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from memls.store.diagnostics import TextEdit
from memls.store.edits import (
    add_list_item,
    apply_edits,
    insert_first_key,
    insert_keys,
    remove_key,
    remove_list_item,
    replace_list_item,
    set_list,
    set_scalar,
    yaml_scalar,
)
from memls.store.parse import parse_document
from memls.store.spans import Span

PATH = Path("/root/memory/a.md")

BLOCK = """\
---
name: a  # my comment
description: "About a."
supersedes:
- b
- c
metadata:
  type: project
---

Body.
"""
FLOW = BLOCK.replace("supersedes:\n- b\n- c\n", "supersedes: [b, c]\n")
SINGLE = BLOCK.replace("supersedes:\n- b\n- c\n", "supersedes: b\n")
ABSENT = BLOCK.replace("supersedes:\n- b\n- c\n", "")


def doc(text: str):
    return parse_document(text, path=PATH)


def edited(text: str, *edits: TextEdit):
    """The document after the edits (text normalised first, as the model holds it)."""
    parsed = doc(text)
    new = apply_edits(parsed.text, list(edits))
    return new, doc(new)


def data(text: str) -> dict:
    return doc(text).frontmatter.data


# -- add_list_item --------------------------------------------------------------------


@pytest.mark.parametrize("text", [BLOCK, FLOW], ids=["block", "flow"])
def test_add_list_item_appends_to_an_existing_list(text):
    new, parsed = edited(text, add_list_item(doc(text), "supersedes", "d"))
    assert parsed.entry.supersedes == ["b", "c", "d"]
    assert "# my comment" in new and parsed.frontmatter.error is None


def test_add_list_item_keeps_a_block_list_in_block_style():
    new, _ = edited(BLOCK, add_list_item(doc(BLOCK), "supersedes", "d"))
    assert "supersedes:\n- b\n- c\n- d\n" in new


def test_add_list_item_keeps_the_indent_of_an_indented_block_list():
    text = BLOCK.replace("- b\n- c\n", "  - b\n  - c\n")
    new, parsed = edited(text, add_list_item(doc(text), "supersedes", "d"))
    assert "  - c\n  - d\n" in new
    assert parsed.entry.supersedes == ["b", "c", "d"]


def test_add_list_item_turns_a_single_string_into_a_flow_list_on_its_line():
    new, parsed = edited(SINGLE, add_list_item(doc(SINGLE), "supersedes", "d"))
    assert "supersedes: [b, d]\n" in new
    assert parsed.entry.supersedes == ["b", "d"]


def test_add_list_item_creates_an_absent_key_before_the_closing_delimiter():
    new, parsed = edited(ABSENT, add_list_item(doc(ABSENT), "supersedes", "d"))
    assert parsed.entry.supersedes == ["d"]
    assert new.endswith("  type: project\nsupersedes:\n- d\n---\n\nBody.\n")


def test_add_list_item_fills_an_empty_flow_list():
    text = BLOCK.replace("supersedes:\n- b\n- c\n", "supersedes: []\n")
    _, parsed = edited(text, add_list_item(doc(text), "supersedes", "d"))
    assert parsed.entry.supersedes == ["d"]


def _with_supersedes(written: str) -> str:
    return BLOCK.replace("supersedes:\n- b\n- c\n", written)


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("supersedes: &lst [b, c]\n", "supersedes: &lst [b, c, d]\n"),
        ("supersedes: !!seq [b, c]\n", "supersedes: !!seq [b, c, d]\n"),
        ("supersedes: !!seq &lst [b, c]  # why\n", "supersedes: !!seq &lst [b, c, d]  # why\n"),
        ("supersedes: &e []\n", "supersedes: &e [d]\n"),
    ],
    ids=["anchored-flow", "tagged-flow", "tag-anchor-comment", "anchored-empty"],
)
def test_add_list_item_keeps_a_flow_list_flow_with_its_anchor_and_tag(written, expected):
    new, parsed = edited(_with_supersedes(written), add_list_item(doc(_with_supersedes(written)), "supersedes", "d"))
    assert expected in new
    assert parsed.frontmatter.error is None


@pytest.mark.parametrize(
    "written",
    [
        "supersedes: &lst [b, c]\nkeywords: *lst\n",
        "supersedes: &lst\n- b\n- c\nkeywords: *lst\n",
        "supersedes: &lst\n  - b\n  - c\nkeywords: *lst\n",
        "supersedes: &e []\nkeywords: *e\n",
        "supersedes: &e\nkeywords: *e\n",
        "supersedes: &s b\nkeywords: *s\n",
        "supersedes: &lst [b, c]\nkeywords: [*lst]\n",
    ],
    ids=["flow", "block", "indented-block", "empty-flow", "null", "single-string", "nested-alias"],
)
def test_add_list_item_refuses_a_list_another_key_shares_through_its_anchor(written):
    # Growing the anchored list would change ``keywords`` too; dropping the
    # anchor would leave ``*lst`` undefined. No edit does only the one thing.
    assert add_list_item(doc(_with_supersedes(written)), "supersedes", "d") is None


def test_add_list_item_to_an_alias_gives_the_key_its_own_list_and_leaves_the_anchor():
    text = _with_supersedes("keywords: &k [b, c]\nsupersedes: *k\n")
    new, parsed = edited(text, add_list_item(doc(text), "supersedes", "d"))
    assert "keywords: &k [b, c]\nsupersedes: [b, c, d]\n" in new
    assert parsed.frontmatter.data["keywords"] == ["b", "c"]


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("supersedes:   # to fill after the review\n", "supersedes: [d]   # to fill after the review\n"),
        ("supersedes: ~  # none\n", "supersedes: [d]  # none\n"),
        ("supersedes: []  # none yet\n", "supersedes: [d]  # none yet\n"),
    ],
    ids=["empty", "tilde", "empty-flow"],
)
def test_add_list_item_into_an_empty_value_keeps_the_comment_after_it(written, expected):
    new, parsed = edited(_with_supersedes(written), add_list_item(doc(_with_supersedes(written)), "supersedes", "d"))
    assert expected in new
    assert parsed.entry.supersedes == ["d"]


def test_add_list_item_into_an_empty_value_alone_on_its_line_writes_a_block_list():
    text = _with_supersedes("supersedes:\n")
    new, _ = edited(text, add_list_item(doc(text), "supersedes", "d"))
    assert "supersedes:\n- d\n" in new


def test_add_list_item_quotes_a_value_yaml_would_read_as_another_type():
    _, parsed = edited(BLOCK, add_list_item(doc(BLOCK), "supersedes", "yes"))
    assert parsed.frontmatter.data["supersedes"] == ["b", "c", "yes"]


# -- remove_list_item / replace_list_item / set_list -----------------------------------


@pytest.mark.parametrize("text", [BLOCK, FLOW], ids=["block", "flow"])
def test_remove_list_item_removes_only_that_item(text):
    new, parsed = edited(text, *remove_list_item(doc(text), "supersedes", 0))
    assert parsed.entry.supersedes == ["c"]
    assert data(new)["metadata"] == {"type": "project"}


@pytest.mark.parametrize("text", [SINGLE, BLOCK.replace("- c\n", "")], ids=["single", "last-item"])
def test_remove_list_item_removes_the_key_with_its_last_item(text):
    new, parsed = edited(text, *remove_list_item(doc(text), "supersedes", 0))
    assert "supersedes" not in new
    assert parsed.entry.supersedes == []


@pytest.mark.parametrize("text", [BLOCK, FLOW], ids=["block", "flow"])
def test_replace_list_item_replaces_one_item_in_place(text):
    new, parsed = edited(text, replace_list_item(doc(text), "supersedes", 1, "z"))
    assert parsed.entry.supersedes == ["b", "z"]
    assert len(new.splitlines()) == len(doc(text).text.splitlines())


def test_replace_list_item_replaces_a_single_string_value():
    _, parsed = edited(SINGLE, replace_list_item(doc(SINGLE), "supersedes", 0, "z"))
    assert parsed.entry.supersedes == ["z"]


@pytest.mark.parametrize("text", [BLOCK, FLOW, SINGLE, ABSENT], ids=["block", "flow", "single", "absent"])
def test_set_list_replaces_or_creates_the_whole_value(text):
    new, parsed = edited(text, set_list(doc(text), "supersedes", ["x", "y"]))
    assert parsed.entry.supersedes == ["x", "y"]
    assert data(new)["description"] == "About a."


def test_set_list_with_no_items_removes_the_key_and_refuses_an_absent_one():
    _, parsed = edited(BLOCK, set_list(doc(BLOCK), "supersedes", []))
    assert "supersedes" not in parsed.frontmatter.data
    with pytest.raises(ValueError, match="no key 'supersedes'"):
        set_list(doc(ABSENT), "supersedes", [])


# -- scalars and keys --------------------------------------------------------------------


def test_set_scalar_replaces_only_the_value_and_keeps_the_comment():
    new, parsed = edited(BLOCK, set_scalar(doc(BLOCK), "name", "renamed"))
    assert new.splitlines()[1] == "name: renamed  # my comment"
    assert parsed.entry.name == "renamed"


def test_set_scalar_adds_an_absent_key():
    _, parsed = edited(BLOCK, set_scalar(doc(BLOCK), "status", "historical"))
    assert parsed.entry.status == "historical"


def test_set_scalar_replaces_a_block_value_with_a_scalar():
    new, parsed = edited(BLOCK, set_scalar(doc(BLOCK), "supersedes", "b"))
    assert parsed.frontmatter.data["supersedes"] == "b"
    assert "- c" not in new


def test_set_scalar_quotes_what_needs_quoting():
    _, parsed = edited(BLOCK, set_scalar(doc(BLOCK), "description", "a: b # c"))
    assert parsed.entry.description == "a: b # c"


def test_insert_keys_adds_several_keys_in_one_edit():
    _, parsed = edited(ABSENT, insert_keys(doc(ABSENT), [("status", "superseded"), ("superseded_by", "z")]))
    assert (parsed.entry.status, parsed.entry.superseded_by) == ("superseded", "z")


def test_insert_first_key_puts_the_key_on_the_first_frontmatter_line():
    text = BLOCK.replace("name: a  # my comment\n", "")
    new, parsed = edited(text, insert_first_key(doc(text), "name", "a"))
    assert new.splitlines()[1] == "name: a"
    assert parsed.entry.name == "a"


def test_remove_key_removes_a_nested_value_whole():
    new, parsed = edited(BLOCK, remove_key(doc(BLOCK), "metadata"))
    assert "type: project" not in new
    assert parsed.entry.supersedes == ["b", "c"]


def test_edits_on_a_crlf_document_apply_to_its_normalised_text():
    crlf = BLOCK.replace("\n", "\r\n")
    new, parsed = edited(crlf, add_list_item(doc(crlf), "supersedes", "d"),
                         set_scalar(doc(crlf), "description", "New."))
    assert "\r" not in new
    assert parsed.entry.supersedes == ["b", "c", "d"]
    assert parsed.entry.description == "New."


def test_an_edit_needs_frontmatter():
    with pytest.raises(ValueError, match="no frontmatter"):
        set_scalar(doc("just text\n"), "name", "a")


def test_yaml_scalar_reads_back_as_the_same_string():
    for value in ("plain", "yes", "123", "a: b", "- x", "", "ünïcode", "[x]"):
        assert doc(f"---\nname: {yaml_scalar(value)}\n---\n").frontmatter.data["name"] == value


NAMES = st.text(st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from(",[]{}#:'\"&*!|>%@`?- "),
                min_size=1, max_size=12)


@settings(max_examples=300, deadline=None)
@given(NAMES)
def test_a_name_added_to_or_put_in_a_list_reads_back_as_that_one_name(name):
    # A flow list ends a plain item at ",", "]" or "}" where a block list does not:
    # "a, b" written plain into [b, c] would read back as two links, "c]d" as broken YAML.
    for text, before in ((FLOW, ["b", "c"]), (BLOCK, ["b", "c"]), (SINGLE, ["b"]), (ABSENT, [])):
        _, parsed = edited(text, add_list_item(doc(text), "supersedes", name))
        assert parsed.frontmatter.error is None
        assert parsed.frontmatter.data["supersedes"] == [*before, name]
    for text in (FLOW, BLOCK):
        _, parsed = edited(text, replace_list_item(doc(text), "supersedes", 0, name))
        assert parsed.frontmatter.data["supersedes"] == [name, "c"]


# -- apply_edits -------------------------------------------------------------------------


def test_apply_edits_applies_non_overlapping_edits_in_position_order():
    text = "abc\ndef\n"
    edits = [TextEdit(PATH, Span(1, 0, 1, 1), "D"), TextEdit(PATH, Span(0, 1, 0, 2), "B")]
    assert apply_edits(text, edits) == "aBc\nDef\n"


def test_apply_edits_refuses_overlapping_edits():
    edits = [TextEdit(PATH, Span(0, 0, 0, 3), "x"), TextEdit(PATH, Span(0, 2, 1, 1), "y")]
    with pytest.raises(ValueError, match="overlapping"):
        apply_edits("abc\ndef\n", edits)


def test_apply_edits_keeps_insertions_at_one_point_in_the_order_given():
    edits = [TextEdit(PATH, Span(1, 0, 1, 0), "first\n"), TextEdit(PATH, Span(1, 0, 1, 0), "second\n")]
    assert apply_edits("a\n", edits) == "a\nfirst\nsecond\n"


def test_apply_edits_counts_columns_in_code_points():
    assert apply_edits("é😀x\n", [TextEdit(PATH, Span(0, 2, 0, 3), "y")]) == "é😀y\n"


def test_apply_edits_on_a_files_own_text_keeps_crlf_and_the_byte_order_mark():
    raw = "\ufeff---\r\nname: a\r\n---\r\nBody\r\n"
    edits = [TextEdit(PATH, Span(1, 6, 1, 7), "b"), TextEdit(PATH, Span(2, 0, 2, 0), "status: historical\n")]
    assert apply_edits(raw, edits) == "\ufeff---\r\nname: b\r\nstatus: historical\r\n---\r\nBody\r\n"


def test_apply_edits_lines_match_the_normalised_texts_lines_for_lone_cr():
    raw = "a\rb\r\nc\n"
    assert apply_edits(raw, [TextEdit(PATH, Span(2, 0, 2, 1), "C")]) == "a\rb\r\nC\n"


def test_apply_edits_writes_new_lines_with_the_files_line_break_not_a_stray_crs():
    raw = "a\nb\rc\n"  # an LF file; line 1 ends in a stray CR
    assert apply_edits(raw, [TextEdit(PATH, Span(1, 1, 1, 1), "\nnew")]) == "a\nb\nnew\rc\n"


@pytest.mark.parametrize("items", [
    ["a", '"b"', "'c d'", "e"],
    [f"n{i}" for i in range(50)],
], ids=["quoted", "long"])
def test_remove_list_item_of_a_flow_list_removes_that_item_alone_keeping_the_others_bytes(items):
    # Only the item and one separator go: the edit does not rewrite (or grow with) the list.
    text = BLOCK.replace("supersedes:\n- b\n- c\n", "supersedes: [" + ",  ".join(items) + " ]\n")
    for i in range(len(items)):
        edits = remove_list_item(doc(text), "supersedes", i)
        assert [e.new_text for e in edits] == [""]
        rest = items[:i] + items[i + 1:]
        new, parsed = edited(text, *edits)
        assert new == text.replace("[" + ",  ".join(items) + " ]", "[" + ",  ".join(rest) + " ]")
        assert len(parsed.entry.supersedes) == len(items) - 1


def test_remove_list_item_of_a_flow_list_over_several_lines_keeps_the_layout():
    text = BLOCK.replace("supersedes:\n- b\n- c\n", "supersedes: [\n  b,\n  c\n]\n")
    first, _ = edited(text, *remove_list_item(doc(text), "supersedes", 0))
    last, _ = edited(text, *remove_list_item(doc(text), "supersedes", 1))
    assert "supersedes: [\n  c\n]\n" in first
    assert "supersedes: [\n  b\n]\n" in last


# -- remove_list_item: only the item and one comma, or no edit at all -------------------


def _with_supersedes(lines: str) -> str:
    return BLOCK.replace("supersedes:\n- b\n- c\n", lines)


@pytest.mark.parametrize(("before", "index", "after"), [
    ("supersedes: [\n  b, # c1\n  gone\n]\n", 1, "supersedes: [\n  b # c1\n]\n"),
    ("supersedes: [\n  b, # c1\n  gone # c2\n]\n", 1, "supersedes: [\n  b # c1\n  # c2\n]\n"),
    ("supersedes: [\n  gone, # c1\n  b # c2\n]\n", 0, "supersedes: [\n  # c1\n  b # c2\n]\n"),
    ("supersedes: [b, gone # c1\n]\n", 1, "supersedes: [b # c1\n]\n"),
    ("supersedes: [b, gone , c]\n", 1, "supersedes: [b, c]\n"),
    ("supersedes: [gone]  # note why\n", 0, "supersedes: []  # note why\n"),
], ids=["kept-comment", "both-comments", "first-item-comment", "comment-after-removed", "spaced-comma", "last-item"])
def test_remove_flow_list_item_keeps_every_comment_on_its_line(before, index, after):
    # Comments stay where they were attached; only the item and one comma go.
    text = _with_supersedes(before)
    new, parsed = edited(text, *remove_list_item(doc(text), "supersedes", index))
    assert new == _with_supersedes(after)
    assert "gone" not in parsed.entry.supersedes


@pytest.mark.parametrize(("before", "after"), [
    ("x: &g gone\nsupersedes: [b, *g]\n", "x: &g gone\nsupersedes: [b]\n"),
    ("x: &g gone\nsupersedes:\n- b\n- *g\n", "x: &g gone\nsupersedes:\n- b\n"),
], ids=["flow", "block"])
def test_removing_an_aliased_item_deletes_the_alias_and_keeps_its_anchor(before, after):
    text = _with_supersedes(before)
    new, parsed = edited(text, *remove_list_item(doc(text), "supersedes", 1))
    assert new == _with_supersedes(after)
    assert parsed.entry.supersedes == ["b"]


@pytest.mark.parametrize("lines", [
    "supersedes: &L [b, gone]\n",
    "supersedes: !!seq [b, gone]\n",
    "x: &L [b, gone]\nsupersedes: *L\n",
    "supersedes: [b, &g gone]\ny: *g\n",
    "supersedes: &L\n- b\n- gone\n",
], ids=["anchor", "tag", "aliased-value", "anchored-item", "anchored-block"])
def test_remove_list_item_offers_no_edit_when_the_lists_bytes_are_shared_or_named(lines):
    # Deleting inside an aliased, anchored or tagged list would touch (or strand) text
    # outside it: another key, or the link to a live item. No fix beats a wrong one.
    assert remove_list_item(doc(_with_supersedes(lines)), "supersedes", 1) is None


@pytest.mark.parametrize(("before", "after"), [
    ("supersedes:  # why: see ticket 42\n  # ask Ann\n  - gone\n", "supersedes: []  # why: see ticket 42\n  # ask Ann\n"),
    ("supersedes:\n# ask Ann\n- gone\n", "supersedes: []\n# ask Ann\n"),
    ("supersedes:\n  - gone  # the old one\n", "supersedes: []\n  # the old one\n"),
    ("supersedes:\n- gone\n", ""),
], ids=["key-comment", "comment-line", "item-comment", "no-comment"])
def test_removing_the_only_item_of_a_block_list_keeps_every_comment(before, after):
    # Without a comment the key goes with its last item; with one, the key stays as [] and the comments stay.
    text = _with_supersedes(before)
    new, parsed = edited(text, *remove_list_item(doc(text), "supersedes", 0))
    assert new == _with_supersedes(after)
    assert parsed.entry.supersedes == []


@pytest.mark.parametrize("lines", [
    "superseded_by: &old g1\nnote: *old\n",
    "superseded_by: !!str &old g1\nnote: *old\n",
])
def test_no_key_removal_deletes_an_anchor(lines):
    # An alias elsewhere repeats the anchored value: deleting it would leave the alias undefined.
    assert remove_key(doc(BLOCK.replace("supersedes:\n", lines + "supersedes:\n")), "superseded_by") is None


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12))
@settings(max_examples=300, deadline=None)
def test_a_block_scalar_reads_back_as_the_value_it_was_made_from(value):
    # A NEL or line separator written raw in quotes reads back as a space: such values are escaped.
    assert yaml.safe_load(f"k: {yaml_scalar(value)}\n") == {"k": value}


# -- property: a list edit is refused, or changes exactly that list ------------------------------

_NAMES = st.sampled_from(["a", "b", "old", "yes", "a, b", "x #y", "c]d", "0.50", "n: m"])


@st.composite
def _frontmatters(draw):
    """A frontmatter with a ``supersedes`` in one of its spellings, and the comments written in it."""
    items = draw(st.lists(st.sampled_from(["a", "b", "c"]), max_size=3, unique=True))
    form = draw(st.sampled_from(["flow", "block", "indented", "null", "tilde", "string"]))
    anchor = draw(st.booleans())
    tag = draw(st.booleans())
    comment = draw(st.booleans())
    alias = anchor and draw(st.sampled_from(["keywords: *s", "keywords: [*s]", None]))
    props = (["!!seq" if form in ("flow", "block", "indented") else "!!str" if form == "string" else ""] if tag
             else []) + (["&s"] if anchor else [])
    props = [p for p in props if p]
    head = "supersedes:" + "".join(" " + p for p in props)
    tail = "  # c1" if comment else ""
    if form == "flow":
        value = f"{head} [{', '.join(items)}]{tail}"
    elif form in ("block", "indented") and items:
        pad = "  " if form == "indented" else ""
        value = f"{head}{tail}\n" + "\n".join(f"{pad}- {i}" for i in items)
    elif form == "tilde":
        value = f"{head} ~{tail}"
    elif form == "string":
        value = f"{head} {items[0] if items else 'z'}{tail}"
    else:
        value = f"{head}{tail}"
    lines = ["name: n", "description: 'd: quoted'", "# c2", value]
    if alias:
        lines.append(alias)
    lines += ["status: living", "custom: yes", "confidence: 0.50"]
    comments = [c for c in ("# c1" if comment else None, "# c2") if c]
    return "---\n" + "\n".join(lines) + "\n---\nbody\n", comments


def _loaded(text: str):
    try:
        return yaml.safe_load(text[4:].split("\n---", 1)[0])
    except yaml.YAMLError:
        return None


@settings(max_examples=300, deadline=None)
@given(_frontmatters(), _NAMES)
def test_adding_a_list_item_is_refused_or_changes_exactly_that_list(written, item):
    text, comments = written
    before = _loaded(text)
    if before is None:
        return  # a spelling YAML refuses (a tag on an empty value): nothing to edit
    edit = add_list_item(doc(text), "supersedes", item)
    if edit is None:
        assert "&s" in text or "!!" in text, text  # only a shared or tagged value is refused
        return
    new = apply_edits(text, [edit])
    after = _loaded(new)
    old = before.get("supersedes")
    current = old if isinstance(old, list) else [] if old in (None, "") else [old]
    assert after == {**before, "supersedes": [*current, item]}, new
    assert all(c in new for c in comments), new
    assert new.endswith("\n---\nbody\n")


@settings(max_examples=300, deadline=None)
@given(_frontmatters(), st.integers(min_value=0, max_value=2))
def test_removing_a_list_item_is_refused_or_changes_exactly_that_list(written, index):
    text, comments = written
    before = _loaded(text)
    if before is None or not isinstance(before.get("supersedes"), list) or index >= len(before["supersedes"]):
        return
    edits = remove_list_item(doc(text), "supersedes", index)
    if edits is None:
        return
    new = apply_edits(text, list(edits))
    after = _loaded(new)
    rest = [v for i, v in enumerate(before["supersedes"]) if i != index]
    expected = dict(before)
    if rest or "supersedes" in after:
        expected["supersedes"] = rest
    else:
        expected.pop("supersedes")
    assert after == expected, new
    assert all(c in new for c in comments), new
