"""Fixes on disk: ``apply_fixes`` refuses stale or overwriting fixes; ``fix_all`` converges on safe fixes only."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from memls.store.apply import StaleFixError, apply_fixes, planned_files
from memls.store.checks import CheckContext, check_workspace, fixes_for
from memls.store.diagnostics import CreateFile, Fix, RenameFile, TextEdit
from memls.store.fix_all import MAX_PASSES, fix_all, reload
from memls.store.model import Workspace
from memls.store.roots import MemoryRoot
from memls.store.spans import Span

TODAY = date(2026, 11, 30)


def entry(name: str, extra: str = "", description: str = "A fact.") -> str:
    return f'---\nname: {name}\ndescription: "{description}"\nmetadata:\n  type: project\n{extra}---\n\nBody.\n'


def write(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(root.iterdir()) if p.name != ".memory.lock"}


def context(root: Path) -> CheckContext:
    return CheckContext(Workspace.load([MemoryRoot("explicit", root)]), today=TODAY)


def codes(ctx: CheckContext) -> set[str]:
    return {p.code for ps in check_workspace(ctx).values() for p in ps}


# -- apply_fixes -----------------------------------------------------------------------


def test_apply_fixes_writes_the_edit(tmp_path):
    root = write(tmp_path / "memory", {"a.md": "hello\n"})
    fix = Fix("t", (TextEdit(root / "a.md", Span(0, 0, 0, 5), "bye"),))
    apply_fixes([fix], {root / "a.md": "hello\n"}, root=root)
    assert (root / "a.md").read_text() == "bye\n"


def test_apply_fixes_edits_a_crlf_file_in_place_keeping_its_line_endings(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    (root / "a.md").write_bytes(b"---\r\nname: a  # mine\r\n---\r\nBody\r\n")
    fix = Fix("t", (TextEdit(root / "a.md", Span(2, 0, 2, 0), "status: historical\n"),))
    apply_fixes([fix], {root / "a.md": "---\nname: a  # mine\n---\nBody\n"}, root=root)
    assert (root / "a.md").read_bytes() == b"---\r\nname: a  # mine\r\nstatus: historical\r\n---\r\nBody\r\n"


@pytest.mark.parametrize("raw", ["---\r\nname: a\r\n---\r\nBody\r\n", "\ufeff---\nname: a\n---\nBody\n"])
def test_apply_fixes_takes_an_editors_crlf_or_bom_text_of_the_unchanged_file_as_not_stale(tmp_path, raw):
    # An editor's buffer holds the file's own endings; the disk is compared as the reader sees both.
    root = tmp_path / "memory"
    root.mkdir()
    (root / "a.md").write_bytes(raw.encode())
    fix = Fix("t", (TextEdit(root / "a.md", Span(1, 6, 1, 7), "b"),))
    apply_fixes([fix], {root / "a.md": raw}, root=root)
    assert (root / "a.md").read_bytes() == raw.replace("name: a", "name: b").encode()


def test_apply_fixes_refuses_a_fix_for_a_file_changed_on_disk(tmp_path):
    root = write(tmp_path / "memory", {"a.md": "hello\n"})
    fix = Fix("t", (TextEdit(root / "a.md", Span(0, 0, 0, 5), "bye"),))
    (root / "a.md").write_text("hello there\n")
    with pytest.raises(StaleFixError, match="a.md changed since it was checked"):
        apply_fixes([fix], {root / "a.md": "hello\n"}, root=root)
    assert (root / "a.md").read_text() == "hello there\n"


def test_apply_fixes_refuses_to_create_over_a_file_that_appeared_since(tmp_path):
    root = write(tmp_path / "memory", {})
    fix = Fix("t", (CreateFile(root / "new.md", "mine\n"),))
    (root / "new.md").write_text("theirs\n")
    with pytest.raises(StaleFixError):
        apply_fixes([fix], {}, root=root)
    assert (root / "new.md").read_text() == "theirs\n"


def test_create_never_overwrites_a_file_the_texts_know(tmp_path):
    path = tmp_path / "new.md"
    with pytest.raises(FileExistsError, match="new.md already exists"):
        planned_files([Fix("t", (CreateFile(path, "mine\n"),))], {path: "theirs\n"})


def test_two_creates_of_one_file_are_refused(tmp_path):
    path = tmp_path / "new.md"
    fixes = [Fix("a", (CreateFile(path, "a\n"),)), Fix("b", (CreateFile(path, "b\n"),))]
    with pytest.raises(FileExistsError):
        planned_files(fixes, {})


def test_rename_never_overwrites(tmp_path):
    root = write(tmp_path / "memory", {"a.md": "a\n", "b.md": "b\n"})
    fix = Fix("t", (RenameFile(root / "a.md", root / "b.md"),))
    with pytest.raises(FileExistsError, match="b.md already exists"):
        apply_fixes([fix], {root / "a.md": "a\n", root / "b.md": "b\n"}, root=root)
    assert snapshot(root) == {"a.md": b"a\n", "b.md": b"b\n"}


def test_rename_moves_the_edited_content(tmp_path):
    root = write(tmp_path / "memory", {"a.md": "a\n"})
    fixes = [Fix("t", (TextEdit(root / "a.md", Span(0, 0, 0, 1), "z"), RenameFile(root / "a.md", root / "c.md")))]
    apply_fixes(fixes, {root / "a.md": "a\n"}, root=root)
    assert snapshot(root) == {"c.md": b"z\n"}


def test_overlapping_edits_from_two_fixes_are_refused_and_nothing_is_written(tmp_path):
    root = write(tmp_path / "memory", {"a.md": "hello\n"})
    fixes = [Fix("a", (TextEdit(root / "a.md", Span(0, 0, 0, 3), "x"),)),
             Fix("b", (TextEdit(root / "a.md", Span(0, 2, 0, 5), "y"),))]
    with pytest.raises(ValueError, match="overlapping"):
        apply_fixes(fixes, {root / "a.md": "hello\n"}, root=root)
    assert (root / "a.md").read_text() == "hello\n"


# -- fix_all -------------------------------------------------------------------------------


def messy_root(tmp_path: Path) -> Path:
    return write(tmp_path / "memory", {
        # asymmetric: new-rule supersedes old-rule, which does not link back (safe: set it)
        "old-rule.md": entry("old-rule"),
        "new-rule.md": entry("new-rule", "supersedes:\n- old-rule\n"),
        # living with a successor that links back (safe: set status)
        "v1.md": entry("v1", "superseded_by: v2\n"),
        "v2.md": entry("v2", "supersedes:\n- v1\n"),
        # needs a choice (not safe): unknown status, dangling link
        "odd.md": entry("odd", "status: done\n"),
        "lost.md": entry("lost", "status: superseded\nsuperseded_by: nowhere\n"),
    })


def test_fix_all_applies_only_safe_fixes_and_reaches_a_fixed_point(tmp_path):
    root = messy_root(tmp_path)
    ctx = context(root)
    report = fix_all(ctx)
    assert report.failed == []
    applied = {p.code for p, _ in report.applied}
    assert {"asymmetric-supersession", "living-with-successor", "index-missing"} <= applied
    # The index created in one pass is regenerated once the statuses change.
    assert applied <= {"asymmetric-supersession", "living-with-successor", "index-missing", "index-drift"}
    assert all(fix.safe for _, fix in report.applied)
    fresh = reload(ctx)
    assert codes(fresh) == {"unknown-status", "dangling-superseded-by"}
    # Nothing safe is left: a second run changes nothing.
    before = snapshot(root)
    assert fix_all(fresh).applied == []
    assert snapshot(root) == before


def test_fix_all_leaves_unsafe_fixes_files_untouched(tmp_path):
    root = messy_root(tmp_path)
    before = snapshot(root)
    fix_all(context(root))
    after = snapshot(root)
    assert after["odd.md"] == before["odd.md"] and after["lost.md"] == before["lost.md"]


def test_fix_all_results_equal_a_fresh_check(tmp_path):
    root = messy_root(tmp_path)
    ctx = context(root)
    fix_all(ctx)
    assert check_workspace(ctx) == check_workspace(reload(ctx))


def test_fix_all_never_applies_a_fix_that_needs_a_choice(tmp_path):
    root = messy_root(tmp_path)
    ctx = context(root)
    unsafe = [
        f for ps in check_workspace(ctx).values() for p in ps for f in fixes_for(ctx, p) if not f.safe
    ]
    assert unsafe  # the root does offer choices
    report = fix_all(ctx)
    assert not {f for _, f in report.applied} & set(unsafe)


CURATED = "# Notes\n\nMy own words.\n\n- [a](a.md) — a\n"


def test_fix_all_fixes_many_lines_of_a_curated_index_in_one_repair(tmp_path):
    files = {"a.md": entry("a"), "MEMORY.md": CURATED}
    files |= {f"f{i:02d}.md": entry(f"f{i:02d}") for i in range(MAX_PASSES + 5)}
    root = write(tmp_path / "memory", files)
    ctx = context(root)
    report = fix_all(ctx)
    # Every missing line offers the same repair, applied once.
    [(_, repair)] = report.applied
    assert repair.title.startswith("Add the lines for 'f00', 'f01', ")
    assert codes(reload(ctx)) == set()
    text = (root / "MEMORY.md").read_text()
    assert text.startswith(CURATED)
    assert text.count("\n- [f") == MAX_PASSES + 5


def test_fix_all_removes_adjacent_bad_lines_of_a_curated_index(tmp_path):
    # Removing line 5 then "line 5" again is a different edit of a different text.
    curated = CURATED + "- [gone](gone.md) — x\n- [old](old.md) — y\n- [gone2](gone2.md) — z\n"
    retired = entry("old", "status: historical\n")
    root = write(tmp_path / "memory", {
        "a.md": entry("a"), "MEMORY.md": curated, "old.md": retired,
        "gone.md": retired.replace("name: old", "name: gone"), "gone2.md": retired.replace("name: old", "name: gone2"),
    })
    ctx = context(root)
    fix_all(ctx)
    assert (root / "MEMORY.md").read_text() == CURATED
    assert codes(reload(ctx)) == set()


OLD = "status: superseded\nsuperseded_by: new\n"


@pytest.mark.parametrize(
    "supersedes",
    ["supersedes: &lst [a]\nkeywords: *lst\n", "supersedes: &lst\n- a\nkeywords: *lst\n",
     "supersedes: &e []\nkeywords: *e\n"],
    ids=["flow", "block", "empty"],
)
def test_fix_all_leaves_a_supersedes_list_another_key_shares_through_its_anchor(tmp_path, supersedes):
    # Adding the back-link would change ``keywords`` too (or strand ``*e``): not a safe fix.
    root = write(tmp_path / "memory", {
        "new.md": entry("new", supersedes), "a.md": entry("a", OLD), "old.md": entry("old", OLD),
    })
    before = (root / "new.md").read_bytes()
    ctx = context(root)
    report = fix_all(ctx)
    assert all("to supersedes in new.md" not in fix.title for _, fix in report.applied)
    assert (root / "new.md").read_bytes() == before
    assert "asymmetric-supersession" in codes(reload(ctx))


def test_fix_all_adds_a_back_link_to_an_anchored_flow_list_keeping_it_flow(tmp_path):
    root = write(tmp_path / "memory", {
        "new.md": entry("new", "supersedes: !!seq &lst [a]  # kept\n"), "a.md": entry("a", OLD),
        "old.md": entry("old", OLD),
    })
    fix_all(context(root))
    assert "supersedes: !!seq &lst [a, old]  # kept\n" in (root / "new.md").read_text()


def test_fix_all_adds_two_back_links_to_one_entry_as_one_list(tmp_path):
    root = write(tmp_path / "memory", {
        "new.md": entry("new"), "old1.md": entry("old1", OLD), "old2.md": entry("old2", OLD),
    })
    ctx = context(root)
    report = fix_all(ctx)
    titles = [fix.title for _, fix in report.applied]
    assert titles.count("Add 'old1' to supersedes in new.md") == 1  # not again after a second key
    assert (root / "new.md").read_text().count("supersedes:") == 1
    assert "supersedes:\n- old1\n- old2\n---" in (root / "new.md").read_text()
    assert codes(reload(ctx)) == set()


def test_apply_fixes_refuses_edits_that_write_a_key_twice_and_writes_nothing(tmp_path):
    root = write(tmp_path / "memory", {"a.md": entry("a")})
    path = root / "a.md"
    text = path.read_text()
    end = Span(5, 0, 5, 0)  # the closing line
    fixes = [Fix(f"add {k}", (TextEdit(path, end, f"keywords: [{k}]\n"),), safe=True) for k in "xy"]
    before = snapshot(root)
    with pytest.raises(ValueError, match="writes the key 'keywords' twice"):
        apply_fixes(fixes, {path: text}, root=root)
    assert snapshot(root) == before
