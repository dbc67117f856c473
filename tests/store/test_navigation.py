"""Navigation over a small on-disk root: definition, references, hover, completion, symbols."""

from __future__ import annotations

from pathlib import Path

import pytest

from memls.store.diagnostics import Location
from memls.store.model import Workspace
from memls.store.navigation import (
    completions,
    definition,
    document_symbols,
    entry_chain,
    hover,
    reference_at,
    references,
    workspace_symbols,
)
from memls.store.roots import MemoryRoot
from memls.store.spans import Span

ALPHA = """\
---
name: alpha
description: "The old way"
metadata:
  type: project
status: superseded
superseded_by: beta
---

# Alpha
"""

BETA = """\
---
name: beta
title: "Beta title"
description: "The middle way"
metadata:
  type: project
status: superseded
supersedes:
  - alpha
superseded_by: gamma
---
"""

GAMMA = """\
---
name: gamma
description: "The new way"
metadata:
  type: project
supersedes: [beta]
keywords:
  - deployment
---

# Gamma

Some text.

## Details

```
# not a heading
```

### Deeper
"""

DELTA = """\
---
name: delta
description: "Package installs use uv"
metadata:
  type: tooling
keywords: [pip]
---
"""

INDEX = """\
# Persistent Memory

## Project
- [gamma](c.md) \u2014 The new way
- [Ghost](ghost.md) \u2014 gone

## Tooling
- [delta](d.md) \u2014 Package installs use uv
"""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    root.mkdir()
    for name, text in {
        "a.md": ALPHA, "b.md": BETA, "c.md": GAMMA, "d.md": DELTA, "MEMORY.md": INDEX,
    }.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def ws(root: Path) -> Workspace:
    return Workspace.load([MemoryRoot("explicit", root)])


def at(path: Path, needle: str, offset: int = 0) -> tuple[int, int]:
    """(line, col) of the first ``needle`` in the file, plus ``offset`` columns."""
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n")):
        col = line.find(needle)
        if col != -1:
            return number, col + offset
    raise AssertionError(f"{needle!r} not in {path}")


def edited(ws: Workspace, path: Path, text: str) -> Path:
    ws.update(path, text)
    return path


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


# -- chain and hover --------------------------------------------------------------


def test_entry_chain_runs_oldest_to_newest_from_any_member(ws, root):
    beta = ws.document(root / "b.md")
    assert [d.name for d in entry_chain(ws, beta)] == ["alpha", "beta", "gamma"]


def test_entry_chain_stops_on_a_cycle(ws, root):
    a = edited(ws, root / "x.md", "---\nname: x\ndescription: d\nsuperseded_by: y\nsupersedes: [y]\n---\n")
    edited(ws, root / "y.md", "---\nname: y\ndescription: d\nsuperseded_by: x\nsupersedes: [x]\n---\n")
    assert [d.name for d in entry_chain(ws, ws.document(a))] == ["y", "x"]


def test_hover_on_link_shows_title_description_type_status_and_chain(ws, root):
    info = hover(ws, root / "a.md", *at(root / "a.md", "beta", 2))
    assert info is not None
    assert info.span == Span(6, 15, 6, 19)
    assert "**Beta title** (`beta`)" in info.markdown
    assert "The middle way" in info.markdown
    assert "type: `project`" in info.markdown and "status: `superseded`" in info.markdown
    assert "alpha → **beta** → gamma" in info.markdown


def test_hover_on_missing_target_says_so(ws, root):
    path = edited(ws, root / "e.md", "---\nname: e\ndescription: d\nsupersedes: [nobody]\n---\n")
    info = hover(ws, path, 3, 15)
    assert info is not None and info.markdown == "no entry named 'nobody' in this root"


def test_hover_on_status_key_lists_its_values(ws, root):
    info = hover(ws, root / "a.md", 5, 2)
    assert info is not None and info.span == Span(5, 0, 5, 6)
    for value in ("living", "superseded", "historical"):
        assert f"`{value}`" in info.markdown


def test_hover_on_metadata_type_key_explains_the_type(ws, root):
    info = hover(ws, root / "a.md", 4, 3)
    assert info is not None and info.span == Span(4, 2, 4, 6)
    assert "`feedback`" in info.markdown and "groups entries" in info.markdown


def test_hover_on_unknown_key_says_it_is_kept(ws, root):
    path = edited(ws, root / "e.md", "---\nname: e\ndescription: d\nowner: me\n---\n")
    info = hover(ws, path, 3, 1)
    assert info is not None and "kept unchanged" in info.markdown


def test_hover_on_body_text_is_none(ws, root):
    assert hover(ws, root / "a.md", 9, 2) is None


# -- completion -------------------------------------------------------------------


def labels(candidates):
    return [c.label for c in candidates]


def test_link_completion_lists_living_first_without_own_name(ws, root):
    found = completions(ws, root / "a.md", *at(root / "a.md", "beta", 1))
    assert labels(found) == ["delta", "gamma", "beta"]
    assert [c.deprecated for c in found] == [False, False, True]
    assert found[0].replace_span == Span(6, 15, 6, 19)
    assert found[1].documentation == "The new way" and found[1].detail == "project · living"


def test_link_completion_on_half_typed_item_that_breaks_the_yaml(ws, root):
    text = "---\nname: eps\ndescription: d\nsupersedes:\n- \nstatus: [\n---\n"
    path = edited(ws, root / "e.md", text)
    assert ws.document(path).parsed.frontmatter.error is not None
    found = completions(ws, path, 4, 2)
    assert labels(found) == ["delta", "gamma", "alpha", "beta"]
    assert found[0].replace_span == Span(4, 2, 4, 2) and found[0].insert_text == "delta"


def test_link_completion_after_bare_colon_inserts_a_space(ws, root):
    path = edited(ws, root / "e.md", "---\nname: eps\ndescription: d\nsuperseded_by:\n")
    found = completions(ws, path, 3, 14)
    assert "gamma" in labels(found) and "eps" not in labels(found)
    assert {c.insert_text for c in found if c.label == "gamma"} == {" gamma"}


def test_supersedes_completion_skips_names_already_listed(ws, root):
    path = edited(ws, root / "e.md", "---\nname: eps\ndescription: d\nsupersedes:\n  - alpha\n  - \n---\n")
    assert labels(completions(ws, path, 5, 4)) == ["delta", "gamma", "beta"]


def test_status_value_completion_offers_the_three_statuses(ws, root):
    found = completions(ws, root / "a.md", 5, 10)
    assert labels(found) == ["living", "superseded", "historical"]
    assert found[0].replace_span == Span(5, 8, 5, 18)


def test_type_value_completion_offers_claude_code_types_general_and_root_types(ws, root):
    found = completions(ws, root / "a.md", 4, 8)
    assert labels(found) == ["user", "feedback", "project", "reference", "general", "tooling"]


def test_key_completion_excludes_present_keys(ws, root):
    path = edited(ws, root / "e.md", "---\nname: eps\ndescription: d\nsta\n---\n")
    found = completions(ws, path, 3, 3)
    assert "name" not in labels(found) and "description" not in labels(found)
    status = next(c for c in found if c.label == "status")
    assert status.insert_text == "status: " and status.replace_span == Span(3, 0, 3, 3)
    assert "`historical`" in status.documentation


def test_key_completion_under_metadata_offers_its_keys(ws, root):
    path = edited(ws, root / "e.md", "---\nname: eps\ndescription: d\nmetadata:\n  type: user\n  \n---\n")
    assert labels(completions(ws, path, 5, 2)) == ["originSessionId"]


def test_no_completion_outside_the_frontmatter(ws, root):
    assert completions(ws, root / "a.md", 9, 1) == []
    assert completions(ws, root / "MEMORY.md", 3, 3) == []


# -- symbols ----------------------------------------------------------------------


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


def test_type_completion_does_not_offer_the_half_typed_value_of_the_document_itself(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    (root / "a.md").write_text('---\nname: a\ndescription: "d"\nmetadata:\n  type: decision\n---\n')
    (root / "b.md").write_text('---\nname: b\ndescription: "d"\nmetadata:\n  type: pro\n---\n')
    ws = Workspace.load([MemoryRoot("explicit", root)])
    labels = [c.label for c in completions(ws, root / "b.md", 4, 11)]
    assert "project" in labels and "decision" in labels
    assert "pro" not in labels
