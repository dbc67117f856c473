"""MEMORY.md rendering, budget, policy and pointer lines (reference §6, §13 items 18-21, 52-74)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memls.store.entry import MemoryEntry
from memls.store.index import (
    INDEX_HEADER,
    POLICY_FILENAME,
    IndexLink,
    IndexPolicy,
    add_index_line,
    claude_code_visible_limit,
    parse_index_lines,
    pointers_to,
    refresh_index_line,
    remove_index_line,
    render_index,
    render_policy_view,
    upsert_index_line,
    without_line_numbers,
    without_lines,
)
from memls.store.spans import split_lines

HEADER_ONLY = "# Persistent Memory\n"


def entry(name: str, description: str = "", type: str = "general", **kw) -> MemoryEntry:
    return MemoryEntry(name=name, description=description, type=type, **kw)


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


# -- full rendering ------------------------------------------------------------------


def test_golden_grouped_index_matches_gptme_bytes():
    entries = [
        entry("b-proj", "B", "project"),
        entry("custom", "C", "decision"),
        entry("old", "gone", "project", status="historical"),
        entry("a-proj", "A", "project"),
        entry("fb", "F", "feedback"),
    ]
    assert render_index(entries) == (
        "# Persistent Memory\n"
        "\n"
        "## Feedback\n"
        "- [fb](fb.md) — F\n"
        "\n"
        "## Project\n"
        "- [a-proj](a-proj.md) — A\n"
        "- [b-proj](b-proj.md) — B\n"
        "\n"
        "## Decision\n"
        "- [custom](custom.md) — C\n"
    )


def test_empty_index_is_the_20_byte_header():
    assert render_index([]) == HEADER_ONLY
    assert utf8_len(render_index([])) == 20


def test_index_of_only_non_living_entries_is_the_header():
    entries = [entry("a", status="historical"), entry("b", status="superseded")]
    assert render_index(entries) == HEADER_ONLY


def test_custom_types_follow_known_ones_in_case_sensitive_order_and_are_capitalised():
    entries = [entry("a", type="alpha"), entry("z", type="Zeta"), entry("m", type="myType"),
               entry("g"), entry("u", type="user")]
    headings = [line for line in render_index(entries).splitlines() if line.startswith("## ")]
    assert headings == ["## User", "## General", "## Zeta", "## Alpha", "## Mytype"]


def test_lines_use_title_and_path_filename_when_present():
    e = entry("n", "d", title="The title", path=Path("/r/file-name.md"))
    assert "- [The title](file-name.md) — d\n" in render_index([e])


def test_lines_within_a_group_are_sorted_by_name():
    text = render_index([entry("b"), entry("c"), entry("a")])
    assert re.findall(r"\[(\w)\]", text) == ["a", "b", "c"]


# -- budget --------------------------------------------------------------------------


def test_budget_130_with_two_groups_omits_both_entries():
    entries = [entry("first", "x" * 80, "project"), entry("second", "y" * 80, "feedback")]
    assert render_index(entries, budget=130) == (
        "# Persistent Memory\n\n- … 2 more entries omitted (budget 130 bytes)\n"
    )


def test_budget_400_over_20_entries_truncates_deterministically():
    entries = [entry(f"entry-{i:02d}", "d" * 40, "project") for i in range(20)]
    assert utf8_len(render_index(entries)) > 400
    text = render_index(entries, budget=400)
    assert utf8_len(text) <= 400
    assert "more entries omitted" in text
    assert render_index(list(reversed(entries)), budget=400) == text


def test_budget_keeps_the_largest_prefix_that_fits():
    entries = [entry(f"e{i}", "d" * 10, "project") for i in range(10)]
    text = render_index(entries, budget=250)
    kept = text.count("](")
    omitted = int(re.search(r"… (\d+) more", text).group(1))
    assert kept + omitted == 10
    one_more = render_index(entries[: kept + 1]).rstrip("\n")
    marker = f"\n\n- … {omitted - 1} more entries omitted (budget 250 bytes)\n"
    assert utf8_len(one_more + marker) > 250


def test_budget_marker_says_entries_even_for_one():
    entries = [entry("a", "x" * 50), entry("b", "y" * 50)]
    full = render_index(entries)
    text = render_index(entries, budget=utf8_len(full) - 1)
    assert text.endswith(f"- … 1 more entries omitted (budget {utf8_len(full) - 1} bytes)\n")


def test_budget_exactly_the_full_size_renders_everything_without_marker():
    # The full text is shorter than "nothing + omission marker", so the size is
    # not monotonic at n = total; the full rendering must still win.
    entries = [entry("a", "x")]
    full = render_index(entries)
    assert render_index(entries, budget=utf8_len(full)) == full


def test_budget_omits_whole_later_groups():
    entries = [entry("u", "d" * 80, "user"), entry("p", "d" * 80, "project")]
    assert utf8_len(render_index(entries)) > 200
    text = render_index(entries, budget=200)
    assert "## User" in text and "## Project" not in text
    assert "1 more entries omitted" in text


def test_budget_counts_utf8_bytes_not_characters():
    ascii_entries = [entry("a", "e" * 30), entry("b", "e" * 30)]
    wide_entries = [entry("a", "é" * 30), entry("b", "é" * 30)]
    budget = utf8_len(render_index(ascii_entries))
    assert render_index(ascii_entries, budget=budget) == render_index(ascii_entries)
    assert "more entries omitted" in render_index(wide_entries, budget=budget)


@pytest.mark.parametrize("budget", [1, 0, -5])
def test_budget_too_small_for_header_raises(budget):
    with pytest.raises(ValueError, match="too small"):
        render_index([entry("a", "b")], budget=budget)


def test_budget_that_cannot_hold_the_omission_marker_raises():
    with pytest.raises(ValueError, match="budget 40 is too small for the index header"):
        render_index([entry("a", "x" * 100)], budget=40)


# -- policy parsing ------------------------------------------------------------------

REQUIRES = ".memory-index.json requires version, budget, selected"
VERSION = "unsupported .memory-index.json version"
POSITIVE = "index policy budget must be a positive integer"
AT_LEAST = (
    "index policy budget must be at least 20 bytes "
    "(the index header alone requires that many bytes)"
)
LOCAL = "index policy selected must contain local entry filenames"
DUPLICATE = "index policy selected contains duplicate filenames"


def policy_text(**overrides) -> str:
    data = {"version": 1, "budget": 1000, "selected": ["a.md"]}
    data.update(overrides)
    return json.dumps(data)


def test_policy_parse_accepts_a_valid_policy():
    assert IndexPolicy.parse(policy_text()) == IndexPolicy(1, 1000, ("a.md",))


def test_policy_parse_rejects_invalid_json_naming_the_file():
    with pytest.raises(ValueError, match=r"^invalid \.memory-index\.json: Expecting"):
        IndexPolicy.parse("{not json")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[]", REQUIRES),
        ('"policy"', REQUIRES),
        ('{"version": 1, "budget": 1000}', REQUIRES),
        (policy_text(extra=True), REQUIRES),
        (policy_text(version=2), VERSION),
        (policy_text(version=True), VERSION),
        (policy_text(version="1"), VERSION),
        (policy_text(budget=True), POSITIVE),
        (policy_text(budget=0), POSITIVE),
        (policy_text(budget=-3), POSITIVE),
        (policy_text(budget=1.5), POSITIVE),
        (policy_text(budget=19), AT_LEAST),
        (policy_text(selected="a.md"), LOCAL),
        (policy_text(selected=[5]), LOCAL),
        (policy_text(selected=["../kept.md"]), LOCAL),
        (policy_text(selected=["sub\\kept.md"]), LOCAL),
        (policy_text(selected=[".hidden.md"]), LOCAL),
        (policy_text(selected=["notes.txt"]), LOCAL),
        (policy_text(selected=["MEMORY.md"]), LOCAL),
        (policy_text(selected=["memory-archive.md"]), LOCAL),
        (policy_text(selected=["a.md", "b.md", "a.md"]), DUPLICATE),
    ],
)
def test_policy_parse_rejects_malformed_policy_with_gptme_message(text, message):
    with pytest.raises(ValueError) as excinfo:
        IndexPolicy.parse(text)
    assert str(excinfo.value) == message


def test_policy_minimum_budget_is_the_empty_index_size():
    assert IndexPolicy.parse(policy_text(budget=20)).budget == utf8_len(render_index([]))


def test_policy_read_of_a_root_without_policy_is_legacy(tmp_path):
    assert IndexPolicy.read(tmp_path) is None


def test_policy_read_parses_the_file(tmp_path):
    (tmp_path / POLICY_FILENAME).write_text(policy_text(selected=["x.md", "y.md"]))
    assert IndexPolicy.read(tmp_path) == IndexPolicy(1, 1000, ("x.md", "y.md"))


def test_policy_read_propagates_io_errors_other_than_absence(tmp_path):
    (tmp_path / POLICY_FILENAME).mkdir()
    with pytest.raises(OSError):
        IndexPolicy.read(tmp_path)


def test_policy_read_refuses_a_symlinked_policy(tmp_path):
    real = tmp_path / "elsewhere.json"
    real.write_text(policy_text())
    (tmp_path / POLICY_FILENAME).symlink_to(real)
    with pytest.raises(ValueError, match="must not be a symlink"):
        IndexPolicy.read(tmp_path)


def test_policy_read_rejects_non_utf8_bytes_as_invalid(tmp_path):
    (tmp_path / POLICY_FILENAME).write_bytes(b"\xff{}")
    with pytest.raises(ValueError, match=r"^invalid \.memory-index\.json: "):
        IndexPolicy.read(tmp_path)


def test_policy_dumps_in_gptme_layout_with_unicode_kept():
    policy = IndexPolicy(1, 500, ("café.md", "b.md"))
    assert policy.dumps() == (
        '{\n  "version": 1,\n  "budget": 500,\n  "selected": [\n'
        '    "café.md",\n    "b.md"\n  ]\n}\n'
    )
    assert IndexPolicy.parse(policy.dumps()) == policy


@pytest.mark.parametrize(
    ("selected", "expected"),
    [
        (("old.md", "tail.md"), ("new.md", "tail.md")),
        (("old.md", "tail.md", "new.md"), ("new.md", "tail.md")),
        (("tail.md", "old.md"), ("tail.md", "new.md")),
        (("tail.md",), ("tail.md",)),
        (("new.md", "tail.md"), ("new.md", "tail.md")),
    ],
)
def test_replace_selected_transfers_selection_listing_new_once(selected, expected):
    policy = IndexPolicy(1, 900, selected)
    assert policy.replace_selected("old.md", "new.md") == IndexPolicy(1, 900, expected)


# -- policy view -----------------------------------------------------------------------


def test_policy_view_renders_exactly_the_selected_entries():
    entries = [entry("a", "A", "project"), entry("b", "B", "user"), entry("c", "C")]
    view = render_policy_view(entries, IndexPolicy(1, 1000, ("c.md", "a.md")))
    assert view == render_index([entries[0], entries[2]])
    assert "[b]" not in view


def test_policy_view_selects_by_filename_not_name():
    e = entry("some name", "d", path=Path("/r/file.md"))
    assert "](file.md)" in render_policy_view([e], IndexPolicy(1, 1000, ("file.md",)))


def test_policy_view_with_empty_selection_is_the_header():
    assert render_policy_view([entry("a")], IndexPolicy(1, 20, ())) == HEADER_ONLY


def test_policy_view_rejects_a_missing_selected_file():
    with pytest.raises(ValueError) as excinfo:
        render_policy_view([entry("a")], IndexPolicy(1, 1000, ("gone.md",)))
    assert str(excinfo.value) == "selected memory 'gone.md' is missing or not living"


def test_policy_view_rejects_a_historical_selected_file():
    entries = [entry("a", status="historical")]
    with pytest.raises(ValueError, match="selected memory 'a.md' is missing or not living"):
        render_policy_view(entries, IndexPolicy(1, 1000, ("a.md",)))


def test_policy_view_overflow_reports_size_and_limit():
    entries = [entry("a", "x" * 100)]
    size = utf8_len(render_index(entries))
    with pytest.raises(ValueError) as excinfo:
        render_policy_view(entries, IndexPolicy(1, size - 1, ("a.md",)))
    assert str(excinfo.value) == (
        f"selected memory index needs {size} bytes, exceeds budget {size - 1}; "
        "shorten descriptions or revise .memory-index.json before writing"
    )


def test_policy_view_overflow_counts_utf8_bytes():
    ascii_view = render_policy_view([entry("a", "e" * 40)], IndexPolicy(1, 1000, ("a.md",)))
    policy = IndexPolicy(1, utf8_len(ascii_view), ("a.md",))
    assert render_policy_view([entry("a", "e" * 40)], policy) == ascii_view
    with pytest.raises(ValueError, match="budget"):
        render_policy_view([entry("a", "é" * 40)], policy)


def test_one_shot_budget_tightens_the_policy_cap():
    entries = [entry("a", "x" * 10)]
    size = utf8_len(render_index(entries))
    with pytest.raises(ValueError, match=f"exceeds budget {size - 1};"):
        render_policy_view(entries, IndexPolicy(1, 1000, ("a.md",)), budget=size - 1)


def test_one_shot_budget_cannot_raise_the_policy_cap():
    entries = [entry("a", "x" * 10)]
    size = utf8_len(render_index(entries))
    with pytest.raises(ValueError, match=f"exceeds budget {size - 1};"):
        render_policy_view(entries, IndexPolicy(1, size - 1, ("a.md",)), budget=10_000)


# -- upsert / remove ---------------------------------------------------------------------


def test_upsert_into_empty_index_writes_header_blank_and_line():
    assert upsert_index_line("", entry("my-fact", "A fact.")) == (
        "# Persistent Memory\n\n- [my-fact](my-fact.md) — A fact.\n"
    )


def test_upsert_replaces_the_line_for_the_same_file_keeping_prose():
    before = "# Notes\n\nHand prose.\n- [a](a.md) — old\n- [b](b.md) — B\n"
    after = upsert_index_line(before, entry("a", "new", title="New title"))
    assert after == "# Notes\n\nHand prose.\n- [New title](a.md) — new\n- [b](b.md) — B\n"


def test_upsert_replaces_every_line_pointing_at_the_file():
    before = "- [a](a.md) — one\nx\n- [dup](a.md) — two\n"
    assert upsert_index_line(before, entry("a", "N")) == "- [a](a.md) — N\nx\n- [a](a.md) — N\n"


def test_upsert_appends_a_new_line():
    before = f"{INDEX_HEADER}\n\n- [a](a.md) — A\n"
    assert upsert_index_line(before, entry("b", "B")) == before + "- [b](b.md) — B\n"


def test_upsert_adds_a_missing_trailing_newline_before_appending():
    assert upsert_index_line("prose", entry("b", "B")) == "prose\n- [b](b.md) — B\n"


def test_upsert_does_not_match_a_similar_filename():
    before = "- [ab](ab.md) — x\n"
    assert upsert_index_line(before, entry("b", "B")) == before + "- [b](b.md) — B\n"


def test_upsert_normalises_crlf_like_gptme_rewriting_through_universal_newlines():
    before = "# Persistent Memory\r\n\r\n- [a](a.md) — A\r\n"
    assert upsert_index_line(before, entry("b", "B")) == (
        "# Persistent Memory\n\n- [a](a.md) — A\n- [b](b.md) — B\n"
    )


def test_an_entry_whose_title_holds_a_bracket_gets_no_line_where_gptme_duplicates_it():
    # gptme's pattern never matches such a pointer, so each upsert appends another;
    # memls writes no line whose link text breaks the link (unsafe-index-text says so).
    e = entry("a", "d", title="see [x]")
    assert upsert_index_line("", e) == ""
    before = "# Persistent Memory\n\n- [b](b.md) — B\n"
    assert add_index_line(before, e) == before


def test_remove_drops_every_pointer_to_the_file_including_bracket_titles():
    before = "# H\n- [a](a.md) — A\n- [b](b.md) — B\n- [see [x]](a.md) — again\n"
    assert remove_index_line(before, "a.md") == "# H\n- [b](b.md) — B\n"


def test_remove_without_pointer_leaves_text_unchanged():
    before = "# H\n- [b](b.md) — B\n"
    assert remove_index_line(before, "a.md") == before


# -- pointer parsing -------------------------------------------------------------------


def test_parse_index_lines_reports_title_and_target_spans():
    text = "# Persistent Memory\n\n## User\n- [Title](t.md) — a — b\n"
    [link] = parse_index_lines(text)
    assert link == IndexLink(3, "Title", "t.md", "a — b", (3, 8), (10, 14))
    line = text.split("\n")[3]
    assert line[slice(*link.title_span)] == "Title"
    assert line[slice(*link.target_span)] == "t.md"


def test_parse_index_lines_tolerates_a_missing_description():
    [link] = parse_index_lines("- [a](a.md)\n")
    assert (link.target, link.description) == ("a.md", None)


def test_parse_index_lines_keeps_brackets_in_titles():
    [link] = parse_index_lines("- [see [x]](a.md) — d")
    assert (link.title, link.target, link.description) == ("see [x]", "a.md", "d")


def test_a_pointer_is_its_first_link_not_a_later_link_on_its_line():
    """gptme finds an entry's line by its first link; a line that also links elsewhere is still that entry's."""
    text = ("- [Deploy notes, read first](e01.md): see also [runbook](runbook.md)\n"
            "- [Deploy](e05.md) - see [the docs](https://example.com/x)\n")
    assert [(link.title, link.target, link.description) for link in parse_index_lines(text)] == [
        ("Deploy notes, read first", "e01.md", None), ("Deploy", "e05.md", None)]
    e05 = entry("e05", "d", path=Path("/m/e05.md"))
    assert add_index_line(text, e05).count("e05.md") == 1  # the upsert finds the same line


def test_a_pointer_s_target_keeps_balanced_parentheses_of_its_file_name():
    text = "- [odd](a(b).md) my own hook\n- [n](notes (old).md) \u2014 d\n- [x](a.md) (see note)\n"
    assert [link.target for link in parse_index_lines(text)] == ["a(b).md", "notes (old).md", "a.md"]


def test_a_byte_order_mark_before_the_first_pointer_is_not_part_of_it():
    """The check reads the text without it; a save's search for the entry's line must find the same line."""
    text = "\ufeff- [Alpha](alpha-one.md) my hook\n"
    [link] = pointers_to(text, {"alpha-one.md"})
    assert (link.title, text.split("\n")[0][slice(*link.target_span)]) == ("Alpha", "alpha-one.md")


def test_parse_index_lines_skips_prose_headings_and_plain_bullets():
    text = "# H\nprose [x](y.md)\n- plain bullet\n## Group\n  - [i](i.md) — indented\n"
    assert parse_index_lines(text) == []


def test_parse_index_lines_ignores_a_trailing_carriage_return():
    [link] = parse_index_lines("x\r\n- [a](a.md) — d\r\n")
    assert (link.line, link.description) == (1, "d")


# -- Claude Code's visible head ----------------------------------------------------------


def test_visible_limit_is_none_when_claude_code_loads_everything():
    assert claude_code_visible_limit(render_index([entry("a")])) is None


def test_visible_limit_of_exactly_200_lines_is_none():
    assert claude_code_visible_limit("x\n" * 200) is None


def test_visible_limit_cuts_after_200_lines():
    assert claude_code_visible_limit("x\n" * 201) == 200


def test_visible_limit_cuts_at_the_line_crossing_25_kib():
    # Line k spans bytes [k*1001, k*1001 + 1000); line 25 is the first to end past 25600.
    assert claude_code_visible_limit(("x" * 1000 + "\n") * 30) == 25


def test_visible_limit_counts_utf8_bytes():
    assert claude_code_visible_limit("é" * 12800) is None
    assert claude_code_visible_limit("é" * 12800 + "e") == 0


def test_a_hand_written_multi_line_description_renders_as_one_index_line():
    """A ``description: |`` block would otherwise leave its second line loose in MEMORY.md."""
    entry = MemoryEntry(name="nl", description="line one\nline two\n", path=Path("/m/nl.md"))
    text = render_index([entry])
    assert "- [nl](nl.md) \u2014 line one line two\n" in text
    assert "\nline two" not in text


# Lines a hand-edited index may hold around pointers to ``a.md``: the target's text
# in a title, a hook or prose, a bracket in a title, a wrapped target, several breaks.
_INDEX_PIECES = ("- [a](a.md) \u2014 x", "- [b](b.md)", "- [(a.md)](b.md)", "## Project", "",
                 "- [x](a.md) \u2014 see (a.md)", "prose about (a.md)", "- [c]](c.md) \u2014 d",
                 "- [a](<a.md>)", "- [a] (a.md)", "- [see [x]](a.md) \u2014 ](b.md)")


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(st.sampled_from(_INDEX_PIECES), max_size=8),
       breaks=st.lists(st.sampled_from(("\n", "\r\n", "\r")), min_size=8, max_size=8),
       final=st.booleans(),
       wanted=st.sampled_from(({"a.md"}, {"b.md"}, {"a.md", "c.md"}, {"<a.md>"}, {"zz.md"})))
def test_pointers_found_by_their_target_text_are_the_parsed_pointers_to_those_targets(
        lines, breaks, final, wanted):
    text = "".join(line + eol for line, eol in zip(lines, breaks))
    if not final:
        text = text.rstrip("\r\n")
    assert pointers_to(text, wanted) == [link for link in parse_index_lines(text) if link.target in wanted]
    doomed = {link.line for link in parse_index_lines(text) if link.target in wanted}
    assert without_lines(text, wanted) == without_line_numbers(split_lines(text), doomed)


def _refreshed_line_by_line(text: str, before: MemoryEntry, after: MemoryEntry) -> str:
    """The refresh done the plain way: every line parsed, the text split and joined again."""
    parts = re.split(r"(\r\n|\r|\n)", text)
    lines, breaks = parts[0::2], parts[1::2] + [""]
    links = [link for link in parse_index_lines(text) if link.target == before.filename]
    if not links:
        pattern = re.compile(rf"- \[[^\]]*\]\({re.escape(after.filename)}\).*")
        matched = [i for i, line in enumerate(lines) if pattern.fullmatch(line)]
        if not text:
            return f"{INDEX_HEADER}\n\n{after.index_line()}\n"
        if matched:
            return "".join((after.index_line() if i in matched else line) + eol
                           for i, (line, eol) in enumerate(zip(lines, breaks)))
        eol = next((b for b in breaks if b), "\n")
        return (text if not lines[-1] else text + eol) + after.index_line() + eol
    for link in links:
        line = lines[link.line]
        title = after.index_title if link.title in (before.index_title, before.name) else link.title
        (t0, t1), (f0, f1) = link.title_span, link.target_span
        tail = line[f1:]
        if link.description is not None and link.description == before.description:
            tail = tail[: len(tail) - len(link.description)] + after.description
        lines[link.line] = line[:t0] + title + line[t1:f0] + after.filename + tail
    return "".join(line + eol for line, eol in zip(lines, breaks))


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(st.sampled_from(_INDEX_PIECES), max_size=8),
       breaks=st.lists(st.sampled_from(("\n", "\r\n", "\r")), min_size=8, max_size=8),
       final=st.booleans(), listed=st.booleans(),
       description=st.sampled_from(("x", "new words", "")), title=st.sampled_from((None, "A title")))
def test_a_refreshed_line_is_spliced_in_exactly_where_the_plain_line_by_line_edit_puts_it(
        lines, breaks, final, listed, description, title):
    text = "".join(line + eol for line, eol in zip(lines, breaks))
    if not final:
        text = text.rstrip("\r\n")
    before = MemoryEntry(name="a", description="x", type="general", path=Path("/r/a.md"))
    after = MemoryEntry(name="a", description=description, type="general", title=title, path=Path("/r/a.md"))
    if listed:
        assert refresh_index_line(text, before, after) == _refreshed_line_by_line(text, before, after)
    else:  # no line of its own: added, or a gptme-style line taken over
        unlisted = MemoryEntry(name="zz", description="", type="general", path=Path("/r/zz.md"))
        assert refresh_index_line(text, None, after) == _refreshed_line_by_line(text, unlisted, after)
        assert add_index_line(text, after) == _refreshed_line_by_line(text, unlisted, after)


@settings(max_examples=400, deadline=None)
@given(
    parts=st.lists(st.tuples(
        st.sampled_from(["- [A](a.md) \u2014 d", "- [B](b.md) \u2014 d", "- [A2](a.md)", "# Persistent Memory",
                         "", "prose (a.md)", "## Project"]),
        st.sampled_from(["\n", "\r\n", "\r", ""]),
    ), max_size=8),
    filename=st.sampled_from(["a.md", "b.md"]),
)
def test_removing_an_index_line_cuts_only_its_lines_as_the_line_by_line_rebuild_did(parts, filename):
    # The rebuild split every line of the index for each removal; the cut touches only the doomed ones.
    from memls.store.index import _lines_and_breaks, _without_lines_numbered, pointers_to

    text = "".join(line + (eol or "\n" if i < len(parts) - 1 else eol) for i, (line, eol) in enumerate(parts))
    doomed = {link.line for link in pointers_to(text, {filename})}
    expected = _without_lines_numbered(*_lines_and_breaks(text), doomed) if doomed else text
    assert remove_index_line(text, filename) == expected
