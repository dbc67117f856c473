"""Combining safe fixes into one edit (store.fix_merge): no overlaps, no repeats."""

from __future__ import annotations

from pathlib import Path

from memls.store.checks import CheckContext, check_workspace
from memls.store.diagnostics import CreateFile, Fix, Problem, TextEdit
from memls.store.fix_merge import combinable_safe_fixes, overlap
from memls.store.model import Workspace
from memls.store.roots import MemoryRoot
from memls.store.spans import Span

from .store_test_helpers import entry_file


def test_overlapping_spans_and_inserts_inside_an_edit_collide_touching_ones_do_not():
    assert overlap(Span(1, 2, 1, 2), Span(1, 0, 1, 5))
    assert overlap(Span(1, 0, 1, 4), Span(1, 3, 1, 5))
    assert not overlap(Span(1, 0, 1, 3), Span(1, 3, 1, 5))


def test_insertions_at_one_point_go_together_in_problem_order():
    # Both LSP and apply_edits apply same-position inserts in the order given.
    assert not overlap(Span(1, 0, 1, 0), Span(1, 0, 1, 0))


def test_one_repair_offered_by_several_problems_is_chosen_once(tmp_path):
    entry_file(tmp_path, "a.md")
    (tmp_path / "MEMORY.md").write_text("# Persistent Memory\n\n- [gone](gone.md) \u2014 d\n", encoding="utf-8")
    ws = Workspace.load([MemoryRoot("explicit", tmp_path)])
    ctx = CheckContext(ws)
    problems = check_workspace(ctx)[tmp_path / "MEMORY.md"]
    assert len(problems) >= 2
    chosen = combinable_safe_fixes(ctx, problems)
    assert [fix.title for _, fix in chosen] == [
        "Add the line for 'a' and remove the line for 'gone.md' in MEMORY.md"
    ]


def test_a_fix_touching_a_created_file_is_left_for_the_next_run(monkeypatch):
    path = Path("/r/x.md")
    create = Fix("create", (CreateFile(path, "t"),), safe=True)
    edit = Fix("edit", (TextEdit(path, Span(0, 0, 0, 0), "y"),), safe=True)
    p1 = Problem(path, Span(0, 0, 0, 0), "c1", "error", "m")
    p2 = Problem(path, Span(0, 0, 0, 0), "c2", "error", "m")
    import memls.store.fix_merge as fix_merge

    monkeypatch.setattr(fix_merge, "safe_fixes", lambda ctx, problems: [(p1, create), (p2, edit)])
    assert [fix.title for _, fix in fix_merge.combinable_safe_fixes(None, [p1, p2])] == ["create"]


def test_two_fixes_each_adding_the_missing_key_to_one_entry_are_not_combined(tmp_path):
    # Each would write ``supersedes:`` before the closing line: together, the key twice.
    entry_file(tmp_path, "new.md")
    for old in ("old1", "old2"):
        entry_file(tmp_path, f"{old}.md", extra="status: superseded\nsuperseded_by: new\n")
    ctx = CheckContext(Workspace.load([MemoryRoot("explicit", tmp_path)]))
    problems = [p for ps in check_workspace(ctx).values() for p in ps if p.code == "asymmetric-supersession"]
    assert len(problems) == 2
    chosen = combinable_safe_fixes(ctx, problems)
    assert [fix.title for _, fix in chosen] == ["Add 'old1' to supersedes in new.md"]
