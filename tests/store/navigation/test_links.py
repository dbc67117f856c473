"""Links: what a name under the cursor refers to (definition), who names it (references), the chain."""

from __future__ import annotations

from memls.store.diagnostics import Location
from memls.store.links import definition, entry_chain, reference_at, references
from memls.store.spans import Span

from .conftest import at, edited

# -- definition -------------------------------------------------------------------


def test_definition_from_supersedes_item_lands_on_target_name_value(ws, root):
    assert definition(ws, root / "b.md", *at(root / "b.md", "- alpha", 3)) == Location(
        root / "a.md", Span(1, 6, 1, 11)
    )


def test_definition_from_superseded_by_value_lands_on_successor_name(ws, root):
    line, col = at(root / "a.md", "superseded_by: beta", 16)
    assert definition(ws, root / "a.md", line, col) == Location(root / "b.md", Span(1, 6, 1, 10))


def test_definition_from_flow_list_item(ws, root):
    line, col = at(root / "c.md", "[beta]", 1)
    assert definition(ws, root / "c.md", line, col) == Location(root / "b.md", Span(1, 6, 1, 10))


def test_definition_from_index_target_and_title_resolves_by_filename(ws, root):
    index = root / "MEMORY.md"
    expected = Location(root / "c.md", Span(1, 6, 1, 11))
    assert definition(ws, index, *at(index, "c.md")) == expected
    assert definition(ws, index, *at(index, "[gamma]", 1)) == expected


def test_definition_of_missing_target_is_none(ws, root):
    index = root / "MEMORY.md"
    assert definition(ws, index, *at(index, "ghost.md")) is None
    path = edited(ws, root / "e.md", "---\nname: e\ndescription: d\nsupersedes: [nobody]\n---\n")
    assert definition(ws, path, 3, 14) is None


def test_definition_of_a_name_only_a_file_whose_yaml_does_not_load_seems_to_hold_lands_on_that_file(ws, root):
    # The checks call no such link dangling (the entry may be that file): definition leads there.
    broken = edited(ws, root / "eps.md", '---\nname: eps\ndescription: [oops "d"\n---\n')
    path = edited(ws, root / "e.md", "---\nname: e\ndescription: d\nsupersedes: [eps]\n---\n")
    assert definition(ws, path, 3, 14) == Location(broken, Span(0, 0, 0, 0))


def test_definition_outside_any_link_is_none(ws, root):
    assert definition(ws, root / "b.md", *at(root / "b.md", "The middle")) is None


def test_reference_at_index_line_names_the_target_entry_and_filename(ws, root):
    index = root / "MEMORY.md"
    ref = reference_at(ws, index, *at(index, "c.md", 2))
    assert ref is not None
    assert (ref.kind, ref.name, ref.index_target, ref.span) == ("index", "gamma", "c.md", Span(3, 10, 3, 14))


def test_reference_at_excludes_the_quotes_of_a_quoted_value(ws, root):
    path = edited(ws, root / "e.md", '---\nname: "epsilon"\ndescription: d\nsuperseded_by: "beta"\n---\n')
    ref = reference_at(ws, path, 3, 17)
    assert ref is not None and (ref.kind, ref.name, ref.span) == ("superseded_by", "beta", Span(3, 16, 3, 20))
    assert reference_at(ws, path, 1, 8).span == Span(1, 7, 1, 14)


def test_reference_at_reads_the_line_when_the_yaml_is_broken(ws, root):
    path = edited(ws, root / "e.md", "---\nname: e\ndescription: a: b: [\nsuperseded_by: gamma\n---\n")
    ref = reference_at(ws, path, 3, 16)
    assert ref is not None
    assert (ref.kind, ref.name, ref.span) == ("superseded_by", "gamma", Span(3, 15, 3, 20))
    assert definition(ws, path, 3, 16) == Location(root / "c.md", Span(1, 6, 1, 11))


# -- references -------------------------------------------------------------------


def test_references_from_name_value_list_declaration_links_and_index_line(ws, root):
    found = references(ws, root / "c.md", 1, 8)
    assert found == [
        Location(root / "MEMORY.md", Span(3, 10, 3, 14)),
        Location(root / "b.md", Span(9, 15, 9, 20)),
        Location(root / "c.md", Span(1, 6, 1, 11)),
    ]


def test_references_from_a_reference_match_references_from_the_name(ws, root):
    line, col = at(root / "b.md", "gamma", 1)
    assert references(ws, root / "b.md", line, col) == references(ws, root / "c.md", 1, 6)


def test_references_without_declaration(ws, root):
    found = references(ws, root / "a.md", 1, 6, include_declaration=False)
    assert found == [Location(root / "b.md", Span(8, 4, 8, 9))]


def test_references_of_a_name_with_no_entry_lists_the_links_only(ws, root):
    path = edited(ws, root / "e.md", "---\nname: e\ndescription: d\nsuperseded_by: nobody\n---\n")
    assert references(ws, path, 3, 16) == [Location(path, Span(3, 15, 3, 21))]


def test_entry_chain_runs_oldest_to_newest_from_any_member(ws, root):
    beta = ws.document(root / "b.md")
    assert [d.name for d in entry_chain(ws, beta)] == ["alpha", "beta", "gamma"]


def test_entry_chain_stops_on_a_cycle(ws, root):
    a = edited(ws, root / "x.md", "---\nname: x\ndescription: d\nsuperseded_by: y\nsupersedes: [y]\n---\n")
    edited(ws, root / "y.md", "---\nname: y\ndescription: d\nsuperseded_by: x\nsupersedes: [x]\n---\n")
    assert [d.name for d in entry_chain(ws, ws.document(a))] == ["y", "x"]
