"""The supersession family: duplicate names and the links between entries of one root.

Every test builds a minimal root, asserts the code, severity and exact span
(0-based, end exclusive), and, for each fix, applies it through
``apply_fixes`` and checks again: the problem is gone, nothing new appeared
and the engine's ``audit`` (gptme's codes) is clean.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memls.store.apply import apply_fixes
from memls.store.catalogue import spec
from memls.store.checks import audit_code_of, fixes_for, supersession
from memls.store.entry import DESCRIPTION_PROMPT
from memls.store.reader import read_root
from memls.store.roots import MemoryRoot
from memls.store.settings import Settings
from memls.store.spans import Span
from memls.store.store import MemoryStore

from .conftest import Checked, entry_text, write_root

# entry_text puts `name:` on line 1 (value from column 6) and ``extra`` from line 5 on.
EXTRA = 5


def name_span(name: str) -> Span:
    return Span(1, 6, 1, 6 + len(name))


def value_span(line: int, key: str, value: str) -> Span:
    start = len(key) + 2
    return Span(line, start, line, start + len(value))


def item_span(line: int, value: str) -> Span:
    return Span(line, 2, line, 2 + len(value))


def only(checked: Checked, code: str, path: Path | None = None):
    found = checked.problems(code, path)
    assert len(found) == 1, found
    return found[0]


def signature(checked: Checked) -> set[tuple[str, str, str]]:
    """What a user sees, minus hints (a completed link may rightly add a 'superseded' hint)
    and minus the index family (an entry that becomes living needs its `MEMORY.md` line,
    which the index family's own fix regenerates)."""
    return {
        (p.code, p.path.name, p.message) for p in checked.problems()
        if p.severity != "hint" and spec(p.code).family != "index"
    }


def apply_and_recheck(checked: Checked, fix, roots: list[MemoryRoot]) -> Checked:
    texts = {}
    for path in fix.paths:
        doc = checked.workspace.document(path)
        if doc is not None:
            texts[path] = doc.text
    apply_fixes([fix], texts, root=roots[0].path)
    return Checked(roots)


def assert_fixed(before: Checked, problem, fix, roots: list[MemoryRoot], *,
                 prompts: frozenset[tuple[str, str]] = frozenset()) -> Checked:
    """Apply ``fix``: the problem goes, no non-hint problem appears, the audit is clean.

    ``prompts`` are (code, file) problems the fix leaves on purpose: a created
    entry's missing description is reported until the user writes one.
    """
    after = apply_and_recheck(before, fix, roots)
    fixed = (problem.code, problem.path.name, problem.message)
    assert fixed not in signature(after)
    left = {s for s in signature(after) if (s[0], s[1]) not in prompts}
    assert left <= signature(before) - {fixed}
    assert MemoryStore([roots[0]]).audit() == []
    return after


# A created entry starts without a description, reported until the user writes one.
PLACEHOLDER_PROMPT = frozenset({("missing-description", "ghost.md")})


def titles(fixes) -> list[str]:
    return [f.title for f in fixes]


@pytest.fixture
def root_dir(tmp_path) -> Path:
    return tmp_path / "memory"


def check(root_dir: Path, files: dict[str, str], **kwargs) -> tuple[Checked, list[MemoryRoot]]:
    write_root(root_dir, files)
    roots = [MemoryRoot("explicit", root_dir)]
    return Checked(roots, **kwargs), roots


def superseded(name: str, by: str, *, also: str = "") -> str:
    return entry_text(name, extra=f"status: superseded\nsuperseded_by: {by}\n{also}")


# -- duplicate-name ------------------------------------------------------------------


def test_duplicate_name_points_at_later_file_name_with_the_first_as_related(root_dir):
    checked, _ = check(root_dir, {"a.md": entry_text("x"), "b.md": entry_text("x")})
    problem = only(checked, "duplicate-name")
    assert problem.path == root_dir / "b.md"
    assert problem.severity == "error"
    assert problem.span == name_span("x")
    assert "'x'" in problem.message and "a.md" in problem.message
    assert problem.related[0].location.path == root_dir / "a.md"
    assert problem.related[0].location.span == name_span("x")
    assert problem.data["audit"] == ("b.md", f"name 'x' is also used by {root_dir / 'a.md'}")


def test_hidden_duplicate_reports_only_its_duplicate_name(root_dir):
    checked, _ = check(root_dir, {
        "a.md": entry_text("x"),
        "b.md": entry_text("x", extra="status: superseded\nsuperseded_by: ghost\nsupersedes: [x]\n"),
    })
    assert [p.code for p in checked.problems(path=root_dir / "b.md")
            if p.code in ("duplicate-name", "dangling-superseded-by", "self-supersession")] == ["duplicate-name"]


def test_distinct_names_are_not_duplicates(root_dir):
    checked, _ = check(root_dir, {"a.md": entry_text("a"), "b.md": entry_text("b")})
    assert checked.problems("duplicate-name") == []


def test_duplicate_name_fix_renames_to_a_free_name(root_dir):
    pytest.importorskip("memls.store.rename_plan", reason="store/rename_plan.py (plan_rename) not written yet")
    checked, roots = check(root_dir, {
        "a.md": superseded("a", "c"), "b.md": entry_text("a"), "c.md": entry_text("c", extra="supersedes: [a]\n"),
    })
    problem = only(checked, "duplicate-name")
    fixes = fixes_for(checked.ctx, problem)
    assert len(fixes) == 1 and not fixes[0].safe
    after = assert_fixed(checked, problem, fixes[0], roots)
    assert after.problems("duplicate-name") == []
    # The link meant the visible 'a' (a.md) and still does.
    assert MemoryStore(roots).get("c").supersedes == ["a"]
    assert (root_dir / "a.md").exists()


# -- dangling links ------------------------------------------------------------------


def test_dangling_superseded_by_points_at_the_value(root_dir):
    checked, _ = check(root_dir, {"a.md": superseded("a", "ghost")})
    problem = only(checked, "dangling-superseded-by")
    assert problem.severity == "error"
    assert problem.span == value_span(EXTRA + 1, "superseded_by", "ghost")
    assert "'ghost'" in problem.message
    assert problem.data["audit"] == ("a", "replacement 'ghost' does not exist")


def test_dangling_supersedes_points_at_the_missing_item(root_dir):
    checked, _ = check(root_dir, {
        "a.md": superseded("a", "b"),
        "b.md": entry_text("b", extra="supersedes:\n- a\n- ghost\n"),
    })
    problem = only(checked, "dangling-supersedes")
    assert problem.severity == "error"
    assert problem.path == root_dir / "b.md"
    assert problem.span == item_span(EXTRA + 2, "ghost")
    assert "'ghost'" in problem.message
    assert problem.data["audit"] == ("b", "superseded entry 'ghost' does not exist")


def test_existing_link_targets_are_not_dangling(root_dir):
    checked, _ = check(root_dir, {
        "a.md": superseded("a", "b"), "b.md": entry_text("b", extra="supersedes: [a]\n"),
    })
    assert checked.problems("dangling-supersedes") == checked.problems("dangling-superseded-by") == []


def test_removing_a_dangling_successor_sets_historical_and_is_clean(root_dir):
    checked, roots = check(root_dir, {"a.md": superseded("a", "ghost")})
    problem = only(checked, "dangling-superseded-by")
    fix = fixes_for(checked.ctx, problem)[0]
    assert fix.title.startswith("Remove") and not fix.safe
    assert_fixed(checked, problem, fix, roots)
    assert "status: historical" in (root_dir / "a.md").read_text()


def test_retargeting_a_dangling_successor_adds_the_back_link(root_dir):
    checked, roots = check(root_dir, {"a.md": superseded("a", "nw"), "new.md": entry_text("new")})
    problem = only(checked, "dangling-superseded-by")
    # The title names the other file the fix changes (defect 7 of issue 11).
    fix = next(f for f in fixes_for(checked.ctx, problem)
               if f.title == "Change to 'new' and add 'a' to supersedes in new.md")
    assert fix.paths == {root_dir / "a.md", root_dir / "new.md"}
    assert_fixed(checked, problem, fix, roots)


def test_creating_a_missing_successor_links_it_back_and_never_overwrites(root_dir):
    checked, roots = check(root_dir, {"a.md": superseded("a", "ghost")})
    problem = only(checked, "dangling-superseded-by")
    fix = next(f for f in fixes_for(checked.ctx, problem) if f.title == "Create entry 'ghost' (ghost.md)")
    assert fix.paths == {root_dir / "ghost.md"}
    assert_fixed(checked, problem, fix, roots, prompts=PLACEHOLDER_PROMPT)
    ghost = MemoryStore(roots).get("ghost")
    # No description to publish, only a prompt in a comment (issue 16 item 6).
    assert ghost.supersedes == ["a"] and ghost.description == ""
    assert f'description: ""  {DESCRIPTION_PROMPT}\n' in (root_dir / "ghost.md").read_text(encoding="utf-8")


def test_no_create_fix_when_the_target_file_exists_under_another_name(root_dir):
    # ghost.md holds an entry named 'other': creating ghost.md would overwrite it.
    checked, _ = check(root_dir, {"a.md": superseded("a", "ghost"), "ghost.md": entry_text("other")})
    problem = only(checked, "dangling-superseded-by")
    assert not any(t.startswith("Create") for t in titles(fixes_for(checked.ctx, problem)))


def test_removing_a_dangling_supersedes_item_is_clean(root_dir):
    checked, roots = check(root_dir, {
        "a.md": superseded("a", "b"), "b.md": entry_text("b", extra="supersedes:\n- a\n- ghost\n"),
    })
    problem = only(checked, "dangling-supersedes")
    fix = fixes_for(checked.ctx, problem)[0]
    assert fix.title == "Remove 'ghost' from supersedes"
    assert_fixed(checked, problem, fix, roots)


def test_no_remove_fix_for_a_dangling_item_of_an_aliased_supersedes_list(root_dir):
    # The list's text belongs to key x: deleting it there would change x, not supersedes.
    checked, _ = check(root_dir, {
        "a.md": superseded("a", "b"),
        "b.md": entry_text("b", extra="x: &L [a, ghost]\nsupersedes: *L\n"),
    })
    problem = only(checked, "dangling-supersedes")
    assert not any(t.startswith("Remove") for t in titles(fixes_for(checked.ctx, problem)))


def test_a_dangling_aliased_successor_is_reported_and_removed_at_the_alias_not_its_anchor(root_dir):
    # ``*S`` repeats the keyword anchored two keys above: the link is the alias, the keyword stays.
    text = entry_text("a", extra="keywords:\n- &S ghost\n- other\nstatus: superseded\nsuperseded_by: *S  # moved\n")
    checked, roots = check(root_dir, {"a.md": text})
    problem = only(checked, "dangling-superseded-by")
    alias_line = EXTRA + 4
    assert problem.span == Span(alias_line, 15, alias_line, 17)
    fix = next(f for f in fixes_for(checked.ctx, problem) if f.title.startswith("Remove superseded_by"))
    after = apply_and_recheck(checked, fix, roots)
    lines = text.split("\n")
    del lines[alias_line]
    assert (root_dir / "a.md").read_text(encoding="utf-8") == "\n".join(lines).replace(
        "status: superseded", "status: historical")
    assert after.problems("dangling-superseded-by") == []


def test_retargeting_an_aliased_successor_rewrites_the_alias_alone(root_dir):
    text = entry_text("a", extra="keywords: [&S nwe, other]\nstatus: superseded\nsuperseded_by: *S\n")
    checked, roots = check(root_dir, {"a.md": text, "new.md": entry_text("new", extra="supersedes: [a]\n")})
    problem = only(checked, "dangling-superseded-by")
    fix = next(f for f in fixes_for(checked.ctx, problem) if "'new'" in f.title)
    apply_and_recheck(checked, fix, roots)
    assert (root_dir / "a.md").read_text(encoding="utf-8") == text.replace("superseded_by: *S", "superseded_by: new")


def test_an_aliased_item_of_a_supersedes_list_is_removed_alone(root_dir):
    checked, roots = check(root_dir, {
        "a.md": superseded("a", "b"),
        "b.md": entry_text("b", extra="keywords: [&G ghost]\nsupersedes:\n- a\n- *G\n"),
    })
    problem = only(checked, "dangling-supersedes")
    assert problem.span == Span(EXTRA + 3, 2, EXTRA + 3, 4)
    fix = fixes_for(checked.ctx, problem)[0]
    assert fix.title == "Remove 'ghost' from supersedes"
    assert_fixed(checked, problem, fix, roots)
    assert "keywords: [&G ghost]\nsupersedes:\n- a\n---" in (root_dir / "b.md").read_text(encoding="utf-8")


def test_retargeting_a_dangling_predecessor_marks_it_superseded(root_dir):
    checked, roots = check(root_dir, {
        "old.md": entry_text("old"), "b.md": entry_text("b", extra="supersedes: [olt]\n"),
    })
    problem = only(checked, "dangling-supersedes")
    fix = next(f for f in fixes_for(checked.ctx, problem) if f.title ==
               "Change to 'old' and set superseded_by: b, status: superseded in old.md")
    assert_fixed(checked, problem, fix, roots)
    old = MemoryStore(roots).get("old")
    assert (old.status, old.superseded_by) == ("superseded", "b")


def test_creating_a_missing_predecessor_makes_it_superseded_by_the_linker(root_dir):
    checked, roots = check(root_dir, {"b.md": entry_text("b", extra="supersedes: [ghost]\n")})
    problem = only(checked, "dangling-supersedes")
    fix = next(f for f in fixes_for(checked.ctx, problem) if f.title == "Create entry 'ghost' (ghost.md)")
    assert_fixed(checked, problem, fix, roots, prompts=PLACEHOLDER_PROMPT)
    ghost = MemoryStore(roots).get("ghost")
    assert (ghost.status, ghost.superseded_by) == ("superseded", "b")


def test_a_bare_string_supersedes_is_its_own_item(root_dir):
    checked, roots = check(root_dir, {"b.md": entry_text("b", extra="supersedes: ghost\n")})
    problem = only(checked, "dangling-supersedes")
    assert problem.span == value_span(EXTRA, "supersedes", "ghost")
    fix = fixes_for(checked.ctx, problem)[0]
    assert_fixed(checked, problem, fix, roots)
    assert "supersedes" not in (root_dir / "b.md").read_text()


def test_retargeting_skips_a_candidate_that_already_has_another_successor(root_dir):
    checked, _ = check(root_dir, {
        "old.md": superseded("old", "c"),
        "c.md": entry_text("c", extra="supersedes: [old]\n"),
        "b.md": entry_text("b", extra="supersedes: [olt]\n"),
    })
    problem = only(checked, "dangling-supersedes")
    assert "Change to 'old'" not in titles(fixes_for(checked.ctx, problem))


# -- cross-root-link -----------------------------------------------------------------


def test_link_to_an_entry_of_another_root_is_a_cross_root_link(tmp_path):
    project = write_root(tmp_path / "project", {"a.md": superseded("a", "b")})
    user = write_root(tmp_path / "user", {"b.md": entry_text("b", extra="supersedes: [a]\n")})
    checked = Checked([MemoryRoot("project", project), MemoryRoot("user", user)])
    problem = only(checked, "cross-root-link", project / "a.md")
    assert problem.severity == "warning"
    assert problem.path == project / "a.md"
    assert problem.span == value_span(EXTRA + 1, "superseded_by", "b")
    assert problem.related[0].location == type(problem.related[0].location)(user / "b.md", name_span("b"))
    assert checked.problems("dangling-superseded-by") == []
    # gptme's audit of the project root calls it dangling; the rollup says the same.
    assert audit_code_of(problem) == "dangling-superseded-by"
    assert problem.data["audit"] == ("a", "replacement 'b' does not exist")


def test_cross_root_supersedes_item_rolls_up_to_dangling_supersedes(tmp_path):
    project = write_root(tmp_path / "project", {"b.md": entry_text("b", extra="supersedes: [a]\n")})
    user = write_root(tmp_path / "user", {"a.md": entry_text("a")})
    checked = Checked([MemoryRoot("project", project), MemoryRoot("user", user)])
    problem = only(checked, "cross-root-link")
    assert problem.span == Span(EXTRA, 13, EXTRA, 14)
    assert audit_code_of(problem) == "dangling-supersedes"


def test_cross_root_link_fix_removes_the_link(tmp_path):
    project = write_root(tmp_path / "project", {"a.md": superseded("a", "b")})
    user = write_root(tmp_path / "user", {"b.md": entry_text("b")})
    roots = [MemoryRoot("project", project), MemoryRoot("user", user)]
    checked = Checked(roots)
    problem = only(checked, "cross-root-link")
    fixes = fixes_for(checked.ctx, problem)
    assert titles(fixes) == ["Remove superseded_by 'b' and set status: historical"]
    after = assert_fixed(checked, problem, fixes[0], roots)
    assert after.problems("cross-root-link") == []


# -- asymmetric-supersession ------------------------------------------------------------


def test_successor_that_does_not_list_back_is_asymmetric_on_superseded_by(root_dir):
    checked, _ = check(root_dir, {"a.md": superseded("a", "b"), "b.md": entry_text("b")})
    problem = only(checked, "asymmetric-supersession")
    assert problem.severity == "error"
    assert problem.path == root_dir / "a.md"
    assert problem.span == value_span(EXTRA + 1, "superseded_by", "b")
    assert problem.related[0].location.path == root_dir / "b.md"
    assert problem.data["audit"] == ("a", "'b' does not point back to this entry")


def test_adding_the_missing_supersedes_back_link_is_safe_and_clean(root_dir):
    checked, roots = check(root_dir, {"a.md": superseded("a", "b"), "b.md": entry_text("b")})
    problem = only(checked, "asymmetric-supersession")
    [fix] = fixes_for(checked.ctx, problem)
    assert fix.safe and fix.paths == {root_dir / "b.md"}
    after = assert_fixed(checked, problem, fix, roots)
    assert after.problems("asymmetric-supersession") == []


def test_predecessor_without_superseded_by_is_asymmetric_on_the_item(root_dir):
    checked, _ = check(root_dir, {"a.md": entry_text("a"), "b.md": entry_text("b", extra="supersedes:\n- a\n")})
    problem = only(checked, "asymmetric-supersession")
    assert problem.path == root_dir / "b.md"
    assert problem.span == item_span(EXTRA + 1, "a")
    assert problem.related[0].location == type(problem.related[0].location)(root_dir / "a.md", name_span("a"))
    assert problem.data["audit"] == ("b", "'a' does not point back to this entry")


def test_marking_the_predecessor_superseded_is_safe_and_clean(root_dir):
    checked, roots = check(root_dir, {"a.md": entry_text("a"), "b.md": entry_text("b", extra="supersedes:\n- a\n")})
    problem = only(checked, "asymmetric-supersession")
    [fix] = fixes_for(checked.ctx, problem)
    assert fix.safe and fix.paths == {root_dir / "a.md"}
    assert_fixed(checked, problem, fix, roots)
    a = MemoryStore(roots).get("a")
    assert (a.status, a.superseded_by) == ("superseded", "b")


def test_predecessor_superseded_by_a_third_entry_gets_no_automatic_fix(root_dir):
    checked, _ = check(root_dir, {
        "a.md": superseded("a", "c"),
        "b.md": entry_text("b", extra="supersedes: [a]\n"),
        "c.md": entry_text("c", extra="supersedes: [a]\n"),
    })
    problem = only(checked, "asymmetric-supersession")
    assert problem.path == root_dir / "b.md"
    assert "'c'" in problem.message
    assert problem.related[0].location.span == value_span(EXTRA + 1, "superseded_by", "c")
    assert fixes_for(checked.ctx, problem) == []


def test_symmetric_links_are_not_asymmetric(root_dir):
    checked, _ = check(root_dir, {
        "a.md": superseded("a", "b"), "b.md": entry_text("b", extra="supersedes: [a]\n"),
    })
    assert checked.problems("asymmetric-supersession") == []


# -- self-supersession ------------------------------------------------------------------


def test_superseded_by_itself_is_self_supersession_and_audits_as_asymmetric(root_dir):
    checked, _ = check(root_dir, {"a.md": superseded("a", "a")})
    problem = only(checked, "self-supersession")
    assert problem.severity == "error"
    assert problem.span == value_span(EXTRA + 1, "superseded_by", "a")
    assert audit_code_of(problem) == "asymmetric-supersession"
    assert checked.problems("supersession-cycle") == checked.problems("living-with-successor") == []


def test_removing_superseded_by_itself_is_clean_but_not_safe_when_it_rewrites_the_status(root_dir):
    checked, roots = check(root_dir, {"a.md": superseded("a", "a")})
    problem = only(checked, "self-supersession")
    [fix] = fixes_for(checked.ctx, problem)
    assert fix.title == "Remove superseded_by 'a' and set status: living"
    assert not fix.safe  # `status: superseded` is written in the file: the user's choice
    assert_fixed(checked, problem, fix, roots)


def test_removing_superseded_by_itself_is_safe_when_no_status_is_written(root_dir):
    checked, roots = check(root_dir, {"a.md": entry_text("a", extra="superseded_by: a\n")})
    [fix] = fixes_for(checked.ctx, only(checked, "self-supersession"))
    assert fix.safe
    assert_fixed(checked, only(checked, "self-supersession"), fix, roots)


def test_supersedes_itself_points_at_the_item_and_its_removal_is_clean(root_dir):
    checked, roots = check(root_dir, {"a.md": entry_text("a", extra="supersedes: [b, a]\n"),
                                      "b.md": superseded("b", "a")})
    problem = only(checked, "self-supersession")
    assert problem.span == Span(EXTRA, 16, EXTRA, 17)
    [fix] = fixes_for(checked.ctx, problem)
    assert fix.safe
    assert_fixed(checked, problem, fix, roots)


# -- supersession-cycle ------------------------------------------------------------------


def test_two_entry_cycle_is_reported_on_each_member_with_the_next_as_related(root_dir):
    checked, _ = check(root_dir, {
        "a.md": superseded("a", "b", also="supersedes: [b]\n"),
        "b.md": superseded("b", "a", also="supersedes: [a]\n"),
    })
    cycle = sorted(checked.problems("supersession-cycle"), key=lambda p: p.path)
    assert [p.path.name for p in cycle] == ["a.md", "b.md"]
    assert cycle[0].severity == "error"
    assert cycle[0].span == value_span(EXTRA + 1, "superseded_by", "b")
    assert cycle[0].related[0].location.path == root_dir / "b.md"
    assert cycle[1].related[0].location.path == root_dir / "a.md"
    assert fixes_for(checked.ctx, cycle[0]) == []


def test_chain_leading_into_a_cycle_does_not_report_its_tail(root_dir):
    checked, _ = check(root_dir, {
        "a.md": superseded("a", "b"),
        "b.md": superseded("b", "c", also="supersedes: [a, c]\n"),
        "c.md": superseded("c", "b", also="supersedes: [b]\n"),
    })
    assert sorted(p.path.name for p in checked.problems("supersession-cycle")) == ["b.md", "c.md"]


def test_a_plain_chain_is_no_cycle(root_dir):
    checked, _ = check(root_dir, {
        "a.md": superseded("a", "b"),
        "b.md": superseded("b", "c", also="supersedes: [a]\n"),
        "c.md": entry_text("c", extra="supersedes: [b]\n"),
    })
    assert checked.problems("supersession-cycle") == []


# -- forked-succession --------------------------------------------------------------------


def test_two_living_successors_each_get_forked_succession_on_their_item(root_dir):
    checked, _ = check(root_dir, {
        "a.md": superseded("a", "b"),
        "b.md": entry_text("b", extra="supersedes: [a]\n"),
        "c.md": entry_text("c", extra="supersedes:\n- a\n"),
    })
    on_b = only(checked, "forked-succession", root_dir / "b.md")
    on_c = only(checked, "forked-succession", root_dir / "c.md")
    assert on_b.severity == "warning"
    assert on_b.span == Span(EXTRA, 13, EXTRA, 14)
    assert on_b.related[0].location == type(on_b.related[0].location)(root_dir / "c.md", item_span(EXTRA + 1, "a"))
    assert on_c.span == item_span(EXTRA + 1, "a")
    assert fixes_for(checked.ctx, on_b) == []


def test_a_superseded_second_successor_is_no_fork(root_dir):
    checked, _ = check(root_dir, {
        "a.md": superseded("a", "b"),
        "b.md": entry_text("b", extra="supersedes: [a]\n"),
        "c.md": entry_text("c", extra="status: historical\nsupersedes: [a]\n"),
    })
    assert checked.problems("forked-succession") == []


# -- living-with-successor ------------------------------------------------------------------


def test_living_with_successor_points_at_superseded_by_when_status_is_absent(root_dir):
    checked, _ = check(root_dir, {
        "a.md": entry_text("a", extra="superseded_by: b\n"), "b.md": entry_text("b", extra="supersedes: [a]\n"),
    })
    problem = only(checked, "living-with-successor")
    assert problem.severity == "warning"
    assert problem.span == value_span(EXTRA, "superseded_by", "b")


def test_living_with_successor_points_at_the_status_value_and_its_fix_is_clean(root_dir):
    checked, roots = check(root_dir, {
        "a.md": entry_text("a", extra="status: living\nsuperseded_by: b\n"),
        "b.md": entry_text("b", extra="supersedes: [a]\n"),
    })
    problem = only(checked, "living-with-successor")
    assert problem.span == value_span(EXTRA, "status", "living")
    [fix] = fixes_for(checked.ctx, problem)
    assert not fix.safe  # an explicit `status: living` is the user's choice
    assert_fixed(checked, problem, fix, roots)


def test_setting_superseded_is_safe_when_no_status_is_written_and_the_successor_links_back(root_dir):
    checked, roots = check(root_dir, {
        "a.md": entry_text("a", extra="superseded_by: b\n"), "b.md": entry_text("b", extra="supersedes: [a]\n"),
    })
    problem = only(checked, "living-with-successor")
    [fix] = fixes_for(checked.ctx, problem)
    assert fix.safe
    assert_fixed(checked, problem, fix, roots)


def test_setting_superseded_is_not_safe_when_the_successor_does_not_link_back(root_dir):
    checked, _ = check(root_dir, {"a.md": entry_text("a", extra="superseded_by: b\n"), "b.md": entry_text("b")})
    [fix] = fixes_for(checked.ctx, only(checked, "living-with-successor"))
    assert not fix.safe


def test_superseded_entry_with_successor_is_not_living_with_successor(root_dir):
    checked, _ = check(root_dir, {
        "a.md": superseded("a", "b"), "b.md": entry_text("b", extra="supersedes: [a]\n"),
    })
    assert checked.problems("living-with-successor") == []


# -- superseded-without-successor -------------------------------------------------------------


def test_superseded_without_successor_points_at_the_status_value(root_dir):
    checked, _ = check(root_dir, {"a.md": entry_text("a", extra="status: superseded\n")})
    problem = only(checked, "superseded-without-successor")
    assert problem.severity == "warning"
    assert problem.span == value_span(EXTRA, "status", "superseded")


@pytest.mark.parametrize("status", ["historical", "living"])
def test_setting_another_status_clears_superseded_without_successor(root_dir, status):
    checked, roots = check(root_dir, {"a.md": entry_text("a", extra="status: superseded\n")})
    problem = only(checked, "superseded-without-successor")
    fix = next(f for f in fixes_for(checked.ctx, problem) if f.title == f"Set status: {status}")
    assert not fix.safe
    assert_fixed(checked, problem, fix, roots)
    assert MemoryStore(roots).get("a").status == status


def test_superseded_without_successor_offers_the_entry_that_lists_it(root_dir):
    checked, roots = check(root_dir, {
        "a.md": entry_text("a", extra="status: superseded\n"), "b.md": entry_text("b", extra="supersedes: [a]\n"),
    })
    problem = only(checked, "superseded-without-successor")
    fix = next(f for f in fixes_for(checked.ctx, problem) if f.title == "Set superseded_by: b")
    after = assert_fixed(checked, problem, fix, roots)
    assert after.problems("asymmetric-supersession") == []


def test_historical_entry_without_successor_is_fine(root_dir):
    checked, _ = check(root_dir, {"a.md": entry_text("a", extra="status: historical\n")})
    assert checked.problems("superseded-without-successor") == []


# -- superseded-reference ------------------------------------------------------------------------


def test_link_to_a_superseded_successor_is_a_deprecated_hint(root_dir):
    checked, _ = check(root_dir, {
        "a.md": superseded("a", "b"),
        "b.md": superseded("b", "c", also="supersedes: [a]\n"),
        "c.md": entry_text("c", extra="supersedes: [b]\n"),
    })
    problem = only(checked, "superseded-reference", root_dir / "a.md")
    assert problem.severity == "hint"
    assert problem.tags == ("deprecated",)
    assert problem.span == value_span(EXTRA + 1, "superseded_by", "b")
    # A supersedes item names a superseded entry by definition: that is no problem.
    assert checked.problems("superseded-reference", root_dir / "c.md") == []


def test_link_to_a_living_entry_is_not_deprecated(root_dir):
    checked, _ = check(root_dir, {"a.md": entry_text("a", extra="superseded_by: b\n"),
                                  "b.md": entry_text("b", extra="supersedes: [a]\n")})
    assert checked.problems("superseded-reference") == []


# -- the family as a whole -------------------------------------------------------------------------


def test_a_healthy_pair_has_no_supersession_problem(root_dir):
    checked, _ = check(root_dir, {
        "a.md": superseded("a", "b"), "b.md": entry_text("b", extra="supersedes: [a]\n"),
    })
    from memls.store.checks import supersession

    found = {p.code for p in checked.problems() if p.code in supersession.CODES}
    assert found == set()


def test_a_code_switched_off_is_not_reported(root_dir):
    checked, _ = check(root_dir, {"a.md": superseded("a", "ghost")},
                       settings=Settings(severity={"dangling-superseded-by": "off"}))
    assert checked.problems("dangling-superseded-by") == []


def test_links_of_an_entry_whose_yaml_does_not_load_are_not_checked(root_dir):
    # `description: a: b` is invalid YAML; the readers' line fallback guesses the
    # links, and a guess is not a fact to report a dangling link from.
    text = "---\nname: a\ndescription: a: b\nsuperseded_by: ghost\nstatus: superseded\n---\n"
    checked, _ = check(root_dir, {"a.md": text})
    assert checked.codes() & set(supersession.CODES) == set()
    assert only(checked, "invalid-yaml")


def test_empty_supersedes_item_is_only_the_frontmatter_problem(root_dir):
    checked, _ = check(root_dir, {"a.md": entry_text("a", extra="supersedes:\n  - \n")})
    assert checked.problems("dangling-supersedes") == []
    problem = only(checked, "invalid-field")
    assert problem.message == "supersedes item 1 is empty; write a name there or remove the item"
    assert not any("None" in p.message for p in checked.problems())


def test_superseded_by_of_another_type_is_not_a_link(root_dir):
    text = entry_text("a", extra="status: superseded\nsuperseded_by: [b]\n")
    checked, _ = check(root_dir, {"a.md": text, "b.md": entry_text("b", extra="supersedes: [a]\n")})
    a, b = root_dir / "a.md", root_dir / "b.md"
    assert [p.code for p in checked.problems(path=a) if p.code in supersession.CODES] == []
    assert "[b]" in only(checked, "invalid-field").message
    # From b's side, a has no successor it could name.
    assert "'a' does not link back" in only(checked, "asymmetric-supersession", b).message
    assert not any("['b']" in p.message for p in checked.problems())


# -- audit parity with the engine's audit on random roots ------------------------------------------

NAME_POOL = ["a", "b", "c", "d"]
MISSING = "zz"
link_names = st.sampled_from([*NAME_POOL, MISSING])
random_entry = st.fixed_dictionaries({
    "name": st.sampled_from(NAME_POOL),
    "status": st.sampled_from([None, "living", "superseded", "historical"]),
    "supersedes": st.lists(link_names, max_size=3),
    "superseded_by": st.none() | link_names,
})


def random_entry_text(fields: dict) -> str:
    extra = ""
    if fields["status"]:
        extra += f"status: {fields['status']}\n"
    if fields["supersedes"]:
        extra += "supersedes: [" + ", ".join(fields["supersedes"]) + "]\n"
    if fields["superseded_by"]:
        extra += f"superseded_by: {fields['superseded_by']}\n"
    return entry_text(fields["name"], extra=extra)


def audit_rollup(checked: Checked) -> set[tuple[str, str, str]]:
    return {(audit_code_of(p), *p.data["audit"]) for p in checked.problems() if "audit" in p.data}


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=st.lists(random_entry, min_size=2, max_size=6))
def test_audit_rollups_equal_the_engine_audit_on_random_roots(tmp_path_factory, entries):
    root = tmp_path_factory.mktemp("memory")
    write_root(root, {f"{i}-{e['name']}.md": random_entry_text(e) for i, e in enumerate(entries)})
    roots = [MemoryRoot("explicit", root)]
    expected = {(i.code, i.entry, i.detail) for i in MemoryStore(roots).audit()}
    assert audit_rollup(Checked(roots)) == expected


def test_retargeting_an_anchored_link_keeps_its_anchor_so_its_alias_follows(root_dir):
    # Rewritten whole, the value '&s nwe' would lose '&s', and 'note: *s' would name nothing.
    text = entry_text("a", extra="status: superseded\nsuperseded_by: &s nwe\nnote: *s\n")
    checked, roots = check(root_dir, {"a.md": text, "new.md": entry_text("new", extra="supersedes: [a]\n")})
    problem = only(checked, "dangling-superseded-by")
    fix = next(f for f in fixes_for(checked.ctx, problem) if f.title.startswith("Change to 'new'"))
    apply_and_recheck(checked, fix, roots)
    written = (root_dir / "a.md").read_text()
    assert "superseded_by: &s new\nnote: *s\n" in written
    assert {e.name: e.extra.get("note") for e in read_root(root_dir, "explicit").entries}["a"] == "new"

@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    names=st.lists(st.text("abcde-01", min_size=1, max_size=9), max_size=25, unique=True),
    target=st.text("abcde-01", max_size=9),
    own_index=st.integers(min_value=0, max_value=30),
)
def test_retarget_candidates_are_difflibs_close_matches(tmp_path_factory, names, target, own_index):
    # The closest names are found from letter counts kept per root; the answer is difflib's.
    import difflib

    from memls.store.model import Workspace

    root = tmp_path_factory.mktemp("m")
    for i, name in enumerate(names):
        (root / f"f{i:02d}.md").write_text(f'---\nname: "{name}"\ndescription: d\n---\n')
    state = Workspace.load([MemoryRoot("explicit", root)]).roots[0]
    own = names[own_index] if own_index < len(names) else "zzz"
    expected = difflib.get_close_matches(target, [n for n in state.by_name if n != own], n=3, cutoff=0.6)
    assert supersession._close_names(state, target, own) == expected
