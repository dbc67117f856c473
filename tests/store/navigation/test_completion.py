"""Completion in the frontmatter: link names, status and type values, keys."""

from __future__ import annotations

from memls.store.completion import completions
from memls.store.model import Workspace
from memls.store.roots import MemoryRoot
from memls.store.spans import Span

from .conftest import at, edited


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


def test_type_completion_does_not_offer_the_half_typed_value_of_the_document_itself(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    (root / "a.md").write_text('---\nname: a\ndescription: "d"\nmetadata:\n  type: decision\n---\n')
    (root / "b.md").write_text('---\nname: b\ndescription: "d"\nmetadata:\n  type: pro\n---\n')
    ws = Workspace.load([MemoryRoot("explicit", root)])
    labels = [c.label for c in completions(ws, root / "b.md", 4, 11)]
    assert "project" in labels and "decision" in labels
    assert "pro" not in labels
