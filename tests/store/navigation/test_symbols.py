"""Symbols: one document's outline, and entries found by name across roots."""

from __future__ import annotations

from memls.store.diagnostics import Location
from memls.store.spans import Span
from memls.store.symbols import document_symbols, workspace_symbols

from .conftest import edited


def test_entry_symbols_are_the_name_with_keys_and_nested_headings(ws, root):
    symbols = document_symbols(ws.document(root / "c.md"))
    entry, gamma = symbols
    assert (entry.name, entry.kind) == ("gamma", "entry")
    assert (entry.selection_span, entry.span) == (Span(1, 6, 1, 11), Span(0, 0, 8, 3))
    assert [(c.name, c.detail) for c in entry.children] == [
        ("name", "gamma"), ("description", "The new way"), ("metadata", "type: project"),
        ("supersedes", "beta"), ("keywords", "deployment"),
    ]
    assert entry.children[4].span == Span(6, 0, 7, 14)
    assert gamma.name == "Gamma"
    assert (gamma.selection_span, gamma.span) == (Span(10, 2, 10, 7), Span(10, 0, 20, 10))
    details = gamma.children[0]
    assert (details.name, details.detail, [c.name for c in details.children]) == ("Details", "##", ["Deeper"])


def test_index_symbols_group_pointer_lines_under_type_headings(ws, root):
    project, tooling = document_symbols(ws.document(root / "MEMORY.md"))
    assert (project.name, project.kind, project.span) == ("Project", "heading", Span(2, 0, 4, 26))
    assert [(c.name, c.detail, c.selection_span) for c in project.children] == [
        ("gamma", "The new way", Span(3, 3, 3, 8)), ("Ghost", "gone", Span(4, 3, 4, 8)),
    ]
    assert [c.name for c in tooling.children] == ["delta"]


def test_workspace_symbols_rank_name_prefix_substring_keyword_description(ws, root):
    edited(ws, root / "e.md", '---\nname: old-pipeline\ndescription: "x"\nstatus: historical\n---\n')
    edited(ws, root / "f.md", '---\nname: pipeline\ndescription: "y"\n---\n')
    edited(ws, root / "g.md", '---\nname: zeta\ndescription: "about pipes"\n---\n')
    names = [s.name for s in workspace_symbols(ws, "pip")]
    # prefix, substring (not living), keyword, description
    assert names == ["pipeline", "old-pipeline", "delta", "zeta"]


def test_workspace_symbols_put_living_first_within_a_rank_and_locate_the_name(ws, root):
    found = workspace_symbols(ws, "ta")
    assert [(s.name, s.living) for s in found] == [("delta", True), ("beta", False)]
    assert found[1].location == Location(root / "b.md", Span(1, 6, 1, 10))
    assert found[1].detail == "The middle way"


def test_workspace_symbols_rank_beats_living(ws, root):
    assert [s.name for s in workspace_symbols(ws, "a")] == ["alpha", "delta", "gamma", "beta"]


def test_workspace_symbols_match_a_name_subsequence(ws, root):
    assert [s.name for s in workspace_symbols(ws, "gma")] == ["gamma"]


def test_workspace_symbols_empty_query_lists_all_up_to_limit(ws, root):
    assert [s.name for s in workspace_symbols(ws, "")] == ["delta", "gamma", "alpha", "beta"]
    assert len(workspace_symbols(ws, "", limit=3)) == 3
