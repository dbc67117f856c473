"""Freshness and layering: a recheck date that has passed, an entry hiding a farther one."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from memls.store.checks import fixes_for
from memls.store.checks.layering import recheck_date
from memls.store.roots import MemoryRoot
from memls.store.spans import Span

from .conftest import Checked, entry_text, write_root

TODAY = date(2026, 11, 30)
# entry_text puts ``extra`` lines from line 5 on; ``recheck: `` is 9 columns.
RECHECK_LINE = 5


# -- recheck-due -----------------------------------------------------------------------


def test_recheck_in_the_past_is_information_at_the_recheck_value(check_root):
    checked = check_root({"alpha.md": entry_text("alpha", extra="recheck: '2026-11-29'\n")}, today=TODAY)
    [problem] = checked.problems("recheck-due")
    assert problem.severity == "information"
    assert problem.span == Span(RECHECK_LINE, 9, RECHECK_LINE, 21)
    assert problem.message == (
        "'alpha' was due to be rechecked on 2026-11-29; verify it and set a new recheck date"
    )
    assert fixes_for(checked.ctx, problem) == []


def test_recheck_unquoted_date_and_datetime_prefix_are_read(check_root):
    checked = check_root({
        "a.md": entry_text("a", extra="recheck: 2025-01-01\n"),
        "b.md": entry_text("b", extra="recheck: '2025-01-01T09:30:00Z'\n"),
    }, today=TODAY)
    assert sorted(p.path.name for p in checked.problems("recheck-due")) == ["a.md", "b.md"]


def test_recheck_today_or_later_is_not_due(check_root):
    checked = check_root({
        "a.md": entry_text("a", extra="recheck: '2026-11-30'\n"),
        "b.md": entry_text("b", extra="recheck: '2027-01-01'\n"),
    }, today=TODAY)
    assert checked.problems("recheck-due") == []


def test_free_form_recheck_is_never_a_problem(check_root):
    checked = check_root({
        "a.md": entry_text("a", extra="recheck: after the next release\n"),
        "b.md": entry_text("b", extra="recheck: '2026-02-30'\n"),
    }, today=TODAY)
    assert checked.problems("recheck-due") == []


def test_recheck_of_a_retired_entry_is_not_due(check_root):
    checked = check_root(
        {"a.md": entry_text("a", extra="status: historical\nrecheck: '2020-01-01'\n")}, today=TODAY
    )
    assert checked.problems("recheck-due") == []


def test_recheck_date_reads_iso_dates_only():
    assert recheck_date("2026-03-04") == date(2026, 3, 4)
    assert recheck_date("2026-03-04 10:00:00") == date(2026, 3, 4)
    assert recheck_date("2026-03-04x") is None
    assert recheck_date("04/03/2026") is None


# -- shadowed-entry -------------------------------------------------------------------------


def layered(tmp_path: Path, project: dict, user: dict) -> Checked:
    near = write_root(tmp_path / "project", project)
    far = write_root(tmp_path / "user", user)
    return Checked([MemoryRoot("project", near), MemoryRoot("user", far)], today=TODAY)


def test_nearer_entry_reports_the_farther_one_it_hides(tmp_path):
    checked = layered(
        tmp_path,
        {"style.md": entry_text("style", "project style")},
        {"style.md": entry_text("style", "user style")},
    )
    [problem] = checked.problems("shadowed-entry")
    assert problem.severity == "information"
    assert problem.path == tmp_path / "project" / "style.md"
    assert problem.span == Span(1, 6, 1, 11)
    assert problem.message == (
        "'style' hides the same-named entry in the 'user' root; rename one if both should be seen"
    )
    [related] = problem.related
    assert related.location.path == tmp_path / "user" / "style.md"
    assert related.location.span == Span(1, 6, 1, 11)
    assert fixes_for(checked.ctx, problem) == []


def test_shadowing_matches_names_not_filenames(tmp_path):
    checked = layered(
        tmp_path,
        {"a.md": entry_text("shared")},
        {"b.md": entry_text("shared")},
    )
    [problem] = checked.problems("shadowed-entry")
    assert problem.related[0].location.path == tmp_path / "user" / "b.md"


def test_distinct_names_across_roots_are_not_shadowed(tmp_path):
    checked = layered(tmp_path, {"a.md": entry_text("a")}, {"b.md": entry_text("b")})
    assert checked.problems("shadowed-entry") == []


def test_only_the_visible_nearer_entry_carries_the_problem(tmp_path):
    # project holds two files named "x": only the first (visible) one reports shadowing.
    checked = layered(
        tmp_path,
        {"a.md": entry_text("x"), "b.md": entry_text("x")},
        {"x.md": entry_text("x")},
    )
    assert [p.path.name for p in checked.problems("shadowed-entry")] == ["a.md"]


def test_duplicate_within_one_root_is_not_shadowing(check_root):
    checked = check_root({"a.md": entry_text("x"), "b.md": entry_text("x")})
    assert checked.problems("shadowed-entry") == []
