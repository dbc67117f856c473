"""Three-way merge of MEMORY.md by entry (issue 15, part 3): the engine of ``memls merge-index``."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memls.store.entry import MemoryEntry
from memls.store.index import parse_index_lines, render_index
from memls.store.index_merge import merge_index, rebase_buffer

NAMES = ("alpha", "beta", "Gamma", "delta", "eps-2", "zeta", "\u00e9clair", "omega")
TYPES = ("user", "project", "reference", "general", "zz-custom")
DESCRIPTIONS = ("one", "two", "a longer description", "\u00fcber")
# Titles that sort elsewhere than their names do: uppercase sorts before lowercase.
TITLES = {"alpha": "Zulu alpha", "zeta": "Alpha zeta", "delta": "delta", "omega": "OMEGA"}

# name -> (type, description); a name not in the dict has no living entry.
State = dict[str, tuple[str, str]]


def render(state: State) -> str:
    return render_index([MemoryEntry(n, d, type=t) for n, (t, d) in state.items()])


def render_titled(state: State) -> str:
    return render_index(
        [MemoryEntry(n, d, type=t, title=TITLES.get(n)) for n, (t, d) in state.items()]
    )


def pointer(name: str, description: str) -> str:
    return MemoryEntry(name, description).index_line()


entry_states = st.one_of(st.none(), st.tuples(st.sampled_from(TYPES), st.sampled_from(DESCRIPTIONS)))


@st.composite
def branches(draw) -> tuple[State, State, State, State]:
    """Base, ours, theirs and the expected union: each entry changed by at most one side."""
    base: State = {}
    ours: State = {}
    theirs: State = {}
    union: State = {}
    for name in NAMES:
        before = draw(entry_states)
        who = draw(st.sampled_from(("nobody", "ours", "theirs", "both-same")))
        after = draw(entry_states) if who != "nobody" else before
        o = after if who in ("ours", "both-same") else before
        t = after if who in ("theirs", "both-same") else before
        for state, value in ((base, before), (ours, o), (theirs, t), (union, after)):
            if value is not None:
                state[name] = value
    return base, ours, theirs, union


@settings(max_examples=300, deadline=None)
@given(branches())
def test_two_generated_indexes_merge_into_the_index_of_the_union(case):
    base, ours, theirs, union = case
    result = merge_index(render(base), render(ours), render(theirs))
    assert result.clean
    assert result.text == render(union)


@settings(max_examples=300, deadline=None)
@given(branches())
def test_generated_indexes_with_titles_merge_into_the_rendering_of_the_union(case):
    # The renderer sorts by name; a titled line's link text sorts elsewhere.
    base, ours, theirs, union = case
    result = merge_index(render_titled(base), render_titled(ours), render_titled(theirs))
    assert result.clean
    assert result.text == render_titled(union)


def test_a_titled_entry_merged_into_a_generated_index_sorts_by_its_name():
    # issue 15: "[Bob](bob.md)" went before "[amy](amy.md)" and index --check failed.
    zed = MemoryEntry("zed", "z")
    amy, bob = MemoryEntry("amy", "a"), MemoryEntry("bob", "b", title="Bob")
    result = merge_index(render_index([zed]), render_index([zed, amy]), render_index([zed, bob]))
    assert result.text == render_index([zed, amy, bob])


def test_sections_of_custom_types_keep_the_renderers_order_which_their_headings_do_not_show():
    # Types sort as strings ("Zeta" before "alpha"); their headings read "## Zeta", "## Alpha".
    z, a, b = (MemoryEntry(n, "d", type=t) for n, t in (("z", "Zeta"), ("a", "alpha"), ("b", "beta")))
    base = render_index([z, a])
    result = merge_index(base, render_index([z, a, MemoryEntry("y", "d", type="Zeta")]), render_index([z, a, b]))
    assert result.text == render_index([z, a, b, MemoryEntry("y", "d", type="Zeta")])


@settings(max_examples=300, deadline=None)
@given(branches())
def test_merging_is_symmetric_when_nothing_conflicts(case):
    base, ours, theirs, _ = case
    for b, o, t in ((render(base), render(ours), render(theirs)), curated_versions(base, ours, theirs)):
        there, back = merge_index(b, o, t), merge_index(b, t, o)
        assert there.clean and back.clean
        assert there.text == back.text


@settings(max_examples=200, deadline=None)
@given(branches(), st.data())
def test_a_side_that_did_not_change_the_index_takes_the_other_sides_text(case, data):
    base, _, theirs, _ = case
    b = data.draw(st.sampled_from((render(base), curated(base))))
    t = data.draw(st.sampled_from((render(theirs), curated(theirs), curated(theirs) + "no newline")))
    assert merge_index(b, b, t).text == t
    assert merge_index(b, t, b).text == t


PROSE_HEAD = ["# Team memory", "", "Read the feedback entries before any release.", ""]
PROSE_TAIL = ["", "<!-- keep this list short -->"]


def curated(state: State, *, order: list[str] | None = None) -> str:
    """A hand-kept index: prose around pointer lines in the given (save) order."""
    names = order if order is not None else sorted(state)
    lines = [pointer(n, state[n][1]) for n in names if n in state]
    return "\n".join([*PROSE_HEAD, *lines, *PROSE_TAIL]) + "\n"


def curated_versions(base: State, ours: State, theirs: State) -> tuple[str, str, str]:
    """Each side edits the base's lines in place and appends its new entries, as a save does."""
    order = sorted(base)
    return (
        curated(base, order=order),
        curated(ours, order=order + sorted(set(ours) - set(base))),
        curated(theirs, order=order + sorted(set(theirs) - set(base), reverse=True)),
    )


@settings(max_examples=300, deadline=None)
@given(branches())
def test_a_curated_index_keeps_its_prose_and_holds_each_entry_of_the_union_once(case):
    base, ours, theirs, union = case
    result = merge_index(*curated_versions(base, ours, theirs))
    assert result.clean
    lines = result.text.split("\n")
    assert lines[: len(PROSE_HEAD)] == PROSE_HEAD
    assert lines[-len(PROSE_TAIL) - 1 :] == [*PROSE_TAIL, ""]
    pointers = [line for line in lines if parse_index_lines(line)]
    assert sorted(pointers) == sorted(pointer(n, d) for n, (_, d) in union.items())
    # Lines already in the base keep their order.
    kept = [p for p in pointers if any(p == pointer(n, base[n][1]) for n in base)]
    assert kept == [pointer(n, base[n][1]) for n in sorted(base) if pointer(n, base[n][1]) in kept]


def test_a_line_added_to_a_curated_index_stays_next_to_where_it_was_added():
    base = "# Notes\n\n## Tools\n- [git](git.md) \u2014 hooks\n\n## People\n- [ana](ana.md) \u2014 lead\n"
    ours = base.replace("hooks\n", "hooks\n- [make](make.md) \u2014 targets\n")
    theirs = base + "- [bo](bo.md) \u2014 ops\n"
    result = merge_index(base, ours, theirs)
    assert result.clean
    assert result.text == (
        "# Notes\n\n## Tools\n- [git](git.md) \u2014 hooks\n- [make](make.md) \u2014 targets\n"
        "\n## People\n- [ana](ana.md) \u2014 lead\n- [bo](bo.md) \u2014 ops\n"
    )


def test_the_same_entry_changed_differently_on_both_sides_is_one_conflict_around_its_line():
    base_state = {"alpha": ("project", "one"), "beta": ("project", "two")}
    base = render(base_state)
    ours = render({**base_state, "alpha": ("project", "ours says"), "gamma": ("user", "new")})
    theirs = render({**base_state, "alpha": ("project", "theirs says")})
    result = merge_index(base, ours, theirs)
    assert result.conflicts == 1
    assert result.text == (
        "# Persistent Memory\n\n## User\n- [gamma](gamma.md) \u2014 new\n\n## Project\n"
        "<<<<<<< ours\n- [alpha](alpha.md) \u2014 ours says\n=======\n"
        "- [alpha](alpha.md) \u2014 theirs says\n>>>>>>> theirs\n"
        "- [beta](beta.md) \u2014 two\n"
    )


def test_the_same_entry_added_differently_on_both_sides_is_a_conflict():
    result = merge_index("", render({"a": ("user", "one")}), render({"a": ("user", "two")}))
    assert result.conflicts == 1
    assert "<<<<<<< ours\n- [a](a.md) \u2014 one\n=======\n- [a](a.md) \u2014 two\n>>>>>>> theirs\n" in result.text


def test_a_line_removed_on_one_side_is_removed_even_if_the_other_side_changed_it():
    base = render({"a": ("user", "one"), "b": ("user", "two")})
    ours = render({"b": ("user", "two")})  # a was superseded or deleted
    theirs = render({"a": ("user", "one, reworded"), "b": ("user", "two")})
    assert merge_index(base, ours, theirs).text == ours


def test_the_same_prose_rewritten_differently_on_both_sides_is_a_conflict():
    base = "# Notes\n\nRead me first.\n- [a](a.md) \u2014 one\n"
    result = merge_index(
        base, base.replace("first", "twice"), base.replace("first", "last")
    )
    assert result.conflicts == 1
    assert "<<<<<<< ours\nRead me twice.\n=======\nRead me last.\n>>>>>>> theirs\n" in result.text


def test_crlf_versions_merge_by_their_lines_and_keep_the_line_ends_of_ours():
    base = render({"a": ("user", "one")})
    ours = render({"a": ("user", "one"), "b": ("user", "two")}).replace("\n", "\r\n")
    theirs = render({"a": ("user", "one"), "c": ("user", "three")})
    union = render({"a": ("user", "one"), "b": ("user", "two"), "c": ("user", "three")})
    assert merge_index(base, ours, theirs).text == union.replace("\n", "\r\n")
    assert merge_index(base, theirs, ours).text == union


def test_no_final_newline_is_added_when_no_version_had_one():
    base = "# P\n\n- [a](a.md) \u2014 A"
    result = merge_index(base, base + "\n- [b](b.md) \u2014 B", base + "\n- [c](c.md) \u2014 C")
    assert result.text == base + "\n- [b](b.md) \u2014 B\n- [c](c.md) \u2014 C"


def test_conflict_markers_carry_the_labels_given():
    result = merge_index("", "- [a](a.md) \u2014 x\n", "- [a](a.md) \u2014 y\n", labels=("HEAD", "topic"))
    assert result.text.startswith("<<<<<<< HEAD\n") and result.text.endswith(">>>>>>> topic\n")


def test_the_marker_size_git_asks_for_is_used():
    result = merge_index("", "- [a](a.md) \u2014 x\n", "- [a](a.md) \u2014 y\n", marker_size=9)
    assert result.text.startswith("<<<<<<<<< ours\n") and "\n=========\n" in result.text


ANY_LINES = (
    "", "# Notes", "## Project", "prose a", "prose b",
    "- [a](a.md) \u2014 1", "- [a](a.md) \u2014 2", "- [b](b.md) \u2014 1", "- [b](b.md) \u2014 2",
    "- [c](c.md) \u2014 1", "- [Title](c.md) \u2014 1",
)
any_index = st.lists(st.sampled_from(ANY_LINES), max_size=8).map(
    lambda lines: "\n".join(lines) + ("\n" if lines else "")
)


@settings(max_examples=1000, deadline=None)
@given(any_index, any_index, any_index)
def test_any_three_texts_merge_the_same_whichever_side_is_ours(base, ours, theirs):
    # Duplicate pointers, stray headings and reordered lines included.
    there, back = merge_index(base, ours, theirs), merge_index(base, theirs, ours)
    assert there.conflicts == back.conflicts
    if there.clean:
        assert there.text == back.text


# -- a line moved on one side, its entry changed on the other (issue 15) ---------

SECTIONS = ("## Top", "## Tools", "## Later")
# name -> (section, description)
Curated = dict[str, tuple[str, str]]


def curated_sections(state: Curated) -> str:
    """A hand-kept index in sections; within a section, lines in name order."""
    lines = ["# Team memory", "", "Read these first."]
    for section in SECTIONS:
        lines += ["", section, *(pointer(n, d) for n, (s, d) in sorted(state.items()) if s == section)]
    return "\n".join(lines) + "\n"


@st.composite
def moves(draw) -> tuple[Curated, Curated, Curated, Curated, set[str]]:
    """Base, ours, theirs, the expected result, and the entries both sides edited differently.

    Each base entry may be moved by one side, reworded by either or both,
    removed by either (a deletion, a supersession, or the old half of a
    rename); new entries are added by one side.
    """
    base: Curated = {}
    ours: Curated = {}
    theirs: Curated = {}
    union: Curated = {}
    contested: set[str] = set()
    for name in NAMES:
        if not draw(st.booleans()):
            who = draw(st.sampled_from(("nobody", "ours", "theirs")))
            if who != "nobody":
                value = (draw(st.sampled_from(SECTIONS)), draw(st.sampled_from(DESCRIPTIONS)))
                (ours if who == "ours" else theirs)[name] = value
                union[name] = value
            continue
        section, desc = draw(st.sampled_from(SECTIONS)), draw(st.sampled_from(DESCRIPTIONS))
        base[name] = (section, desc)
        mover = draw(st.sampled_from(("nobody", "ours", "theirs")))
        moved_to = draw(st.sampled_from(SECTIONS))
        editor = draw(st.sampled_from(("nobody", "ours", "theirs", "both-same", "both-differ")))
        remover = draw(st.sampled_from(("nobody", "ours", "theirs")))
        side_desc = {"ours": desc + " (ours)", "theirs": desc + " (theirs)"}
        if editor == "both-same":
            side_desc = {"ours": desc + " (both)", "theirs": desc + " (both)"}
        for side, state in (("ours", ours), ("theirs", theirs)):
            if remover == side:
                continue
            state[name] = (
                moved_to if mover == side else section,
                side_desc[side] if editor in (side, "both-same", "both-differ") else desc,
            )
        if remover != "nobody":
            continue
        if editor == "both-differ":
            contested.add(name)
        final = {"nobody": desc, "ours": side_desc["ours"], "theirs": side_desc["theirs"]}
        final_desc = final.get(editor, side_desc["ours"])
        union[name] = (moved_to if mover != "nobody" else section, final_desc)
    return base, ours, theirs, union, contested


def sections_of(text: str) -> dict[str, list[str]]:
    """Pointer lines (conflict blocks as their text) under each section heading."""
    out: dict[str, list[str]] = {}
    heading = ""
    for line in text.split("\n"):
        if line.startswith("## "):
            heading = line
        elif parse_index_lines(line):
            out.setdefault(heading, []).append(line)
    return out


@settings(max_examples=400, deadline=None)
@given(moves())
def test_an_entry_moved_on_one_side_takes_the_other_sides_change_in_its_new_place(case):
    base, ours, theirs, union, contested = case
    result = merge_index(curated_sections(base), curated_sections(ours), curated_sections(theirs))
    assert result.conflicts == len(contested)
    assert result.text.startswith("# Team memory\n\nRead these first.\n")
    found = sections_of(result.text)
    for name in contested:
        section = union[name][0]
        assert pointer(name, ours[name][1]) in found.get(section, [])
        assert pointer(name, theirs[name][1]) in found.get(section, [])
    expected = {
        section: sorted(pointer(n, d) for n, (s, d) in union.items() if s == section and n not in contested)
        for section in SECTIONS
    }
    got = {
        section: sorted(
            line for line in found.get(section, [])
            if parse_index_lines(line)[0].target[:-3] not in contested
        )
        for section in SECTIONS
    }
    assert got == expected


def test_a_moved_line_whose_entry_was_renamed_on_the_other_side_gives_way_to_the_new_name():
    base = "# P\n\n## Top\n- [a](a.md) \u2014 A\n\n## Rest\n- [x](x.md) \u2014 X\n"
    ours = "# P\n\n## Top\n- [a](a.md) \u2014 A\n- [x](x.md) \u2014 X\n\n## Rest\n"
    theirs = "# P\n\n## Top\n- [a](a.md) \u2014 A\n\n## Rest\n- [y](y.md) \u2014 X\n"
    result = merge_index(base, ours, theirs)
    assert result.clean
    assert result.text == "# P\n\n## Top\n- [a](a.md) \u2014 A\n\n## Rest\n- [y](y.md) \u2014 X\n"


# -- rebase_buffer: an editor's unsaved buffer over a file memls wrote -----------

REBASE_BASE = "# Memory\n\nHand notes.\n\n- [a](a.md) \u2014 v0\n- [b](b.md) \u2014 second\n"
REBASE_WRITTEN = REBASE_BASE.replace("\u2014 v0", "\u2014 v1")


def test_rebase_buffer_brings_memls_lines_and_keeps_every_typed_line():
    buffer = REBASE_BASE.replace("Hand notes.", "Hand notes, edited.") + "- typed\n"
    assert rebase_buffer(REBASE_BASE, REBASE_WRITTEN, buffer) == \
        REBASE_WRITTEN.replace("Hand notes.", "Hand notes, edited.") + "- typed\n"


def test_rebase_buffer_keeps_the_buffers_line_ends_byte_order_mark_and_missing_final_break():
    crlf = "\ufeff" + (REBASE_BASE + "- typed").replace("\n", "\r\n")
    assert rebase_buffer(REBASE_BASE, REBASE_WRITTEN, crlf) == "\ufeff" + (REBASE_WRITTEN + "- typed").replace(
        "\n", "\r\n")
    mixed = REBASE_BASE.replace("Hand notes.\n", "Hand notes.\r\n") + "- typed\n"
    assert rebase_buffer(REBASE_BASE, REBASE_WRITTEN, mixed) == REBASE_WRITTEN.replace(
        "Hand notes.\n", "Hand notes.\r\n") + "- typed\n"


def test_rebase_buffer_leaves_a_line_both_changed_to_the_user():
    buffer = REBASE_BASE.replace("\u2014 v0", "\u2014 my words")
    assert rebase_buffer(REBASE_BASE, REBASE_WRITTEN, buffer) is None


def test_rebase_buffer_of_a_buffer_that_already_has_memls_lines_is_that_buffer():
    buffer = REBASE_WRITTEN + "- typed\n"
    assert rebase_buffer(REBASE_BASE, REBASE_WRITTEN, buffer) == buffer
    assert rebase_buffer(REBASE_WRITTEN, REBASE_WRITTEN, buffer) == buffer


def test_rebase_buffer_never_drops_a_line_the_user_changed_that_memls_removed():
    written = REBASE_BASE.replace("- [b](b.md) \u2014 second\n", "")  # b superseded: its line left the index
    buffer = REBASE_BASE.replace("\u2014 second", "\u2014 second, as I put it")
    assert rebase_buffer(REBASE_BASE, written, buffer) is None
    assert rebase_buffer(REBASE_BASE, written, REBASE_BASE + "- typed\n") == written + "- typed\n"
