"""One rule decides which MEMORY.md lines may be written, and every index writer follows it.

A hand-written entry can hold text no pointer line can carry: a line break,
a NUL, a bracket in the link text, a lone surrogate (YAML's ``"\\ud835"``,
which no UTF-8 file can hold). The link text (title, else name) with such a
character keeps the entry out of the index; a description is made safe on
the line. Either way the rest of the index is written, and every line of it
is one line for every reader (``str.splitlines`` included).
"""

from __future__ import annotations

from functools import reduce
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memls.store.entry import MemoryEntry
from memls.store.index import (
    IndexPolicy,
    add_index_line,
    add_index_lines,
    gets_index_line,
    parse_index_lines,
    refresh_index_line,
    render_index,
    render_policy_view,
)
from memls.store.index_view import IndexView
from memls.store.text import index_line_hazards

from .store_test_helpers import entry_file, index_text, store_for, write_policy

# Every character, the hazards made likely: line breaks of every reader, NUL,
# C0/C1 controls, brackets, lone surrogates.
HAZARDS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029\x00\x01\x1b\x7f\x9f[]\ud835\udc00"
texts = st.text(st.sampled_from(HAZARDS) | st.characters(), max_size=12)
fields = st.fixed_dictionaries({
    "name": texts.filter(bool),
    "description": texts,
    "title": st.none() | texts,
    "type": st.sampled_from(["project", "user", "decision"]) | texts.filter(bool),
    "status": st.sampled_from(["living", "living", "historical"]),
})
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def entries_of(all_fields: list[dict]) -> list[MemoryEntry]:
    return [MemoryEntry(**f, path=Path(f"/memory/e{i}.md")) for i, f in enumerate(all_fields)]


def assert_writable_and_one_line_per_pointer(text: str) -> None:
    text.encode("utf-8")  # no lone surrogate: the file can be written
    assert "\x00" not in text
    # Every reader splits it into the same lines: no line holds a second break.
    assert text.splitlines() == text[:-1].split("\n")


@SETTINGS
@given(all_fields=st.lists(fields, max_size=8, unique_by=lambda f: f["name"]))
@example(all_fields=[{"name": "s", "description": "d\ud835x", "title": None, "type": "project", "status": "living"},
                     {"name": "t", "description": "t", "title": None, "type": "project", "status": "living"}])
@example(all_fields=[{"name": "n\x85l", "description": "nul\x00x", "title": None, "type": "project", "status": "living"}])
def test_every_rendering_encodes_splits_into_its_own_lines_and_lists_every_safe_entry(all_fields):
    entries = entries_of(all_fields)
    text = render_index(entries)
    assert_writable_and_one_line_per_pointer(text)
    lines = text.splitlines()
    targets = [link.target for link in parse_index_lines(text)]
    for entry in entries:
        if gets_index_line(entry):
            assert entry.index_line() in lines
            assert targets.count(entry.filename) == 1
            title, description = entry.index_parts()
            assert not index_line_hazards(title, link_text=True)
            assert not index_line_hazards(description, link_text=False)
        else:
            assert entry.filename not in targets
    # The server's incremental view renders the same bytes.
    assert IndexView.build((e.filename, e) for e in entries).rendering() == text
    # So does a policy view selecting the living ones.
    living = tuple(e.filename for e in entries if e.is_living)
    assert render_policy_view(entries, IndexPolicy(1, 10**6, living)) == text


@SETTINGS
@given(before=fields, after=fields, curated=st.booleans())
def test_a_line_added_or_refreshed_in_a_curated_index_stays_one_safe_line(before, after, curated):
    old, new = entries_of([before, after])
    new.path = old.path  # the same file, saved again
    start = "# Mine\n\n- [my words](e0.md) — my hook\n" if curated else add_index_line("# Mine\n", old)
    for text in (add_index_line("# Mine\n", new), refresh_index_line(start, old, new)):
        assert_writable_and_one_line_per_pointer(text)
        if not new.index_line_hazards():
            assert [link.target for link in parse_index_lines(text)] == ["e0.md"]


FILENAMES = ["e0.md", "e1.md", "a)b.md", "x y.md", "e0.md.md", "\u00e9t\u00e9.md"]
index_lines = st.sampled_from([
    "# Mine", "", "prose [with](links) here", "- [e0](e0.md) \u2014 mine", "- [x](a)b.md) \u2014 odd",
    "* [e1](e1.md)", "- [x y](x y.md)", "see ](e1.md) inline", "- [\u00e9](\u00e9t\u00e9.md) \u2014 \u00e9",
])


@SETTINGS
@given(
    lines=st.lists(index_lines, max_size=6),
    eol=st.sampled_from(["\n", "\r\n", "\r"]),
    ending=st.booleans(),
    all_fields=st.lists(fields, max_size=5),
    names=st.lists(st.sampled_from(FILENAMES), max_size=5, unique=True),
)
def test_adding_many_lines_at_once_is_adding_them_one_by_one(lines, eol, ending, all_fields, names):
    """``add_index_lines`` (a trimmed index's thousands of missing lines) writes what ``add_index_line`` in turn writes."""
    text = eol.join(lines) + (eol if ending and lines else "")
    entries = [MemoryEntry(**f, path=Path(f"/memory/{name}")) for f, name in zip(all_fields, names)]
    assert add_index_lines(text, entries) == reduce(add_index_line, entries, text)


def test_an_entry_whose_title_holds_a_bracket_nul_or_surrogate_is_left_out_and_the_rest_written():
    entries = entries_of([
        {"name": "s", "title": "t\udc00"}, {"name": "b", "title": "see [x]"},
        {"name": "z", "title": "a\x00b"}, {"name": "ok", "description": "fine"},
    ])
    assert render_index(entries) == "# Persistent Memory\n\n## General\n- [ok](e3.md) — fine\n"


def test_a_description_is_made_safe_on_its_line_instead_of_leaving_the_entry_out():
    entries = entries_of([{"name": "a", "description": "nul\x00x"}, {"name": "b", "description": "d\ud835x"},
                          {"name": "c", "description": "page\x0cbreak"}])
    assert [e.index_line() for e in entries] == [
        "- [a](e0.md) — nulx", "- [b](e1.md) — d\ufffdx", "- [c](e2.md) — page break"]


def test_write_index_without_an_index_writes_every_entry_but_the_unsafe_one(tmp_path):
    root = tmp_path / "memory"
    entry_file(root, "t.md", description="t")
    entry_file(root, "s.md", extra='title: "s\\ud835x"\n')
    mstore = store_for(root)
    mstore.write_index()
    assert index_text(root) == "# Persistent Memory\n\n## Project\n- [t](t.md) — t\n"
    assert mstore.check_index() is True


def test_a_save_creates_the_index_of_a_root_holding_an_unsafe_entry(tmp_path):
    root = tmp_path / "memory"
    entry_file(root, "s.md", description="math \\ud835 symbol")
    entry_file(root, "z.md", extra='title: "bad\\0title"\n')
    mstore = store_for(root)
    mstore.save("u", "u desc", type="project")
    assert index_text(root) == "# Persistent Memory\n\n- [u](u.md) — u desc\n"  # gptme's first upsert
    mstore.write_index()
    assert index_text(root) == (
        "# Persistent Memory\n\n## Project\n- [s](s.md) — math \ufffd symbol\n- [u](u.md) — u desc\n")
    mstore.save("v", "v desc", type="project")  # a generated index stays generated
    assert index_text(root).endswith("- [u](u.md) — u desc\n- [v](v.md) — v desc\n")


def test_a_policy_view_leaves_a_selected_unsafe_entry_out_and_writes_the_rest(tmp_path):
    root = tmp_path / "memory"
    entry_file(root, "t.md", description="t")
    entry_file(root, "s.md", name='"s\\ud835x"')
    write_policy(root, ["s.md", "t.md"])
    store_for(root).write_index()
    assert index_text(root) == "# Persistent Memory\n\n## Project\n- [t](t.md) — t\n"


def test_a_curated_line_keeps_its_link_text_when_the_entry_takes_one_no_line_can_hold():
    old = MemoryEntry("a", "d", path=Path("/memory/a.md"))
    new = MemoryEntry("a", "d2", title="see [x]", path=Path("/memory/a.md"))
    assert refresh_index_line("- [a](a.md) — d\n", old, new) == "- [a](a.md) — d2\n"


def test_a_hand_written_type_no_heading_can_hold_leaves_its_entry_out(tmp_path):
    root = tmp_path / "memory"
    entry_file(root, "t.md", description="t")
    entry_file(root, "a.md", type_='"x\\u2028y\\ud835"')
    mstore = store_for(root)
    mstore.write_index()
    assert index_text(root) == "# Persistent Memory\n\n## Project\n- [t](t.md) — t\n"
    assert mstore.check_index() is True
