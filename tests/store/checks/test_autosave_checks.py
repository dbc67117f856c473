"""index-line-kept: the editor's autosave of an unfinished entry leaves its index line alone."""

from __future__ import annotations

from memls.store.checks import CheckContext, check_document, check_paths
from memls.store.index_sync import autosave_keeps_index_line, lifted_by_manual_save_only
from memls.store.parse import parse_document

from .conftest import entry_text


def _decide(text: str) -> str | None:
    parsed = parse_document(text)
    return autosave_keeps_index_line(parsed.entry, [])


def test_autosave_of_a_whole_entry_updates_the_index():
    assert _decide(entry_text("a", "says when to read it")) is None


def test_autosave_with_a_half_typed_description_key_keeps_the_line():
    half_typed = entry_text("a", "d").replace("description:", "descdescription:")
    assert _decide(half_typed) == "has no description"


def test_autosave_of_an_entry_with_an_error_keeps_the_line(check_root):
    checked = check_root({"a.md": entry_text("a", extra="status: done\n")})
    doc = checked.workspace.roots[0].documents[checked.workspace.roots[0].path / "a.md"]
    problems = check_document(checked.ctx, doc)
    assert autosave_keeps_index_line(doc.entry, problems) == "has errors"


def test_index_line_kept_is_reported_on_the_name_only_for_held_entries(check_root):
    checked = check_root({"a.md": entry_text("a"), "b.md": entry_text("b")})
    root = checked.workspace.roots[0].path
    assert checked.problems("index-line-kept") == []  # `memls check` never has it
    ctx = CheckContext(checked.workspace, held_index_lines={root / "a.md": "has no description"})
    results = check_paths(ctx, [root / "a.md", root / "b.md"])
    [problem] = [p for p in results[root / "a.md"] if p.code == "index-line-kept"]
    assert problem.severity == "information"
    assert "has no description" in problem.message and "MEMORY.md" in problem.message
    assert (problem.span.start_line, problem.span.start_col) == (1, 6)  # the `name` value
    assert not [p for p in results[root / "b.md"] if p.code == "index-line-kept"]


def test_autosave_that_changes_the_name_type_title_or_status_keeps_the_line_for_a_manual_save():
    previous = parse_document(entry_text("gamma", "gamma desc")).entry
    for text, what in (
        (entry_text("gam", "gamma desc"), "name"),
        (entry_text("gamma", "gamma desc", type_="proj"), "type"),
        (entry_text("gamma", "gamma desc", extra="title: Gam\n"), "title"),
        (entry_text("gamma", "gamma desc", extra="status: historical\n"), "status"),
    ):
        reason = autosave_keeps_index_line(parse_document(text).entry, [], previous)
        assert reason == f"changed its {what}" and lifted_by_manual_save_only(reason)


def test_autosave_with_only_a_new_description_updates_the_line():
    previous = parse_document(entry_text("gamma", "gamma desc")).entry
    assert autosave_keeps_index_line(parse_document(entry_text("gamma", "better desc")).entry, [], previous) is None
    assert not lifted_by_manual_save_only("has no description")
