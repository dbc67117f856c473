"""Per-folder stacks: each workspace folder layers only with its own roots.

An editor with the folders ``alpha`` and ``beta`` has two projects, not one
memory with two project layers: alpha's entries never hide beta's, and a link
from alpha to a name only beta has dangles instead of "crossing roots". Roots
both folders resolve to (the user root) are one shared root.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from memls.store.checks import CheckContext, check_paths, check_workspace
from memls.store.model import Workspace
from memls.store.roots import MemoryRoot, claude_code_memory_dir, editor_stacks

from .checks.conftest import entry_text, write_root

TODAY = date(2026, 11, 30)


def _codes(ws: Workspace, path: Path) -> set[str]:
    return {p.code for p in check_paths(CheckContext(ws, today=TODAY), [path])[path]}


def _two_folders(tmp_path: Path) -> tuple[MemoryRoot, MemoryRoot, MemoryRoot]:
    alpha = write_root(tmp_path / "alpha" / "memory", {
        "shared-style.md": entry_text("shared-style"),
        "old.md": entry_text("old", extra="status: superseded\nsuperseded_by: only-in-beta\n"),
    })
    beta = write_root(tmp_path / "beta" / "memory", {
        "shared-style.md": entry_text("shared-style"),
        "only-in-beta.md": entry_text("only-in-beta", extra="supersedes:\n  - old\n"),
    })
    user = write_root(tmp_path / "user", {"tone.md": entry_text("tone")})
    return MemoryRoot("project", alpha), MemoryRoot("project", beta), MemoryRoot("user", user)


def test_two_folders_project_roots_do_not_shadow_each_other(tmp_path):
    alpha, beta, user = _two_folders(tmp_path)
    ws = Workspace.load_stacks({"alpha": [alpha, user], "beta": [beta, user]})
    assert "shadowed-entry" not in _codes(ws, alpha.path / "shared-style.md")
    assert "shadowed-entry" not in _codes(ws, beta.path / "shared-style.md")


def test_a_link_to_another_folders_entry_dangles_instead_of_crossing_roots(tmp_path):
    alpha, beta, user = _two_folders(tmp_path)
    ws = Workspace.load_stacks({"alpha": [alpha, user], "beta": [beta, user]})
    codes = _codes(ws, alpha.path / "old.md")
    assert "dangling-superseded-by" in codes
    assert "cross-root-link" not in codes


def test_one_stack_still_layers_its_roots(tmp_path):
    alpha, beta, _ = _two_folders(tmp_path)
    ws = Workspace.load([alpha, beta])
    assert "shadowed-entry" in _codes(ws, alpha.path / "shared-style.md")
    assert "cross-root-link" in _codes(ws, alpha.path / "old.md")


def test_the_user_root_is_shared_and_each_folder_shadows_it(tmp_path):
    alpha, beta, user = _two_folders(tmp_path)
    for root in (alpha, beta):
        (root.path / "tone.md").write_text(entry_text("tone"), encoding="utf-8")
    ws = Workspace.load_stacks({"alpha": [alpha, user], "beta": [beta, user]})
    assert [s.path for s in ws.roots] == [alpha.path, user.path, beta.path]
    assert "shadowed-entry" in _codes(ws, alpha.path / "tone.md")
    assert "shadowed-entry" in _codes(ws, beta.path / "tone.md")


def test_removing_a_stack_unloads_only_the_roots_no_other_stack_holds(tmp_path):
    alpha, beta, user = _two_folders(tmp_path)
    ws = Workspace.load_stacks({"alpha": [alpha, user], "beta": [beta, user]})
    change = ws.set_stack("beta", [])
    assert [s.path for s in change.removed] == [beta.path]
    assert change.added == ()
    assert [s.path for s in ws.roots] == [alpha.path, user.path]
    assert ws.document(beta.path / "shared-style.md") is None
    assert ws.root_of(beta.path / "shared-style.md") is None
    assert ws.document(user.path / "tone.md") is not None


def test_adding_a_stack_reports_only_roots_new_to_the_model(tmp_path):
    alpha, beta, user = _two_folders(tmp_path)
    ws = Workspace.load_stacks({"alpha": [alpha, user]})
    change = ws.set_stack("beta", [beta, user])
    assert [s.path for s in change.added] == [beta.path]
    assert change.removed == ()
    assert ws.root_of(user.path / "tone.md") is ws.roots[1]


def test_a_root_that_stood_alone_joins_a_folder_and_leaves_with_it(tmp_path):
    alpha, beta, user = _two_folders(tmp_path)
    ws = Workspace.load_stacks({"alpha": [alpha, user]})
    alone = ws.add_root(MemoryRoot("explicit", beta.path))
    assert ws.farther_than(alone) == [] and ws.layered_with(alone) == []
    change = ws.set_stack("beta", [beta, user])
    assert change.added == ()
    assert ws.farther_than(alone) == [ws.root_of(user.path / "x.md")]
    assert [s.path for s in ws.set_stack("beta", []).removed] == [beta.path]


def test_moving_a_root_between_stacks_in_one_step_keeps_it_loaded(tmp_path):
    alpha, beta, user = _two_folders(tmp_path)
    ws = Workspace.load_stacks({"alpha": [alpha, user]})
    before = ws.root_of(user.path / "tone.md")
    change = ws.set_stacks({"beta": [beta, user]}, remove=["alpha"])
    assert [s.path for s in change.removed] == [alpha.path]
    assert ws.root_of(user.path / "tone.md") is before
    assert ws.document(user.path / "tone.md") is not None


def test_a_reload_keeps_the_stacks(tmp_path):
    alpha, beta, user = _two_folders(tmp_path)
    ws = Workspace.load_stacks({"alpha": [alpha, user], "beta": [beta, user]})
    again = Workspace.load_stacks(ws.stacks())
    results = check_workspace(CheckContext(again, today=TODAY))
    assert not any(p.code in ("shadowed-entry", "cross-root-link") for ps in results.values() for p in ps)


def test_editor_stacks_give_each_folder_its_own_project_and_cc_root(tmp_path):
    home = tmp_path / "home"
    (tmp_path / "alpha" / "memory").mkdir(parents=True)
    (tmp_path / "beta" / "memory").mkdir(parents=True)
    extra = tmp_path / "notes"
    extra.mkdir()
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    user = tmp_path / "config" / "gptme" / "memory"
    user.mkdir(parents=True)
    cc_alpha = claude_code_memory_dir(tmp_path / "alpha", home=home)
    cc_alpha.mkdir(parents=True)
    stacks = editor_stacks([tmp_path / "alpha", tmp_path / "beta"], extra=[extra], env=env, home=home)
    assert {f: [(r.scope, r.path) for r in roots] for f, roots in stacks.items()} == {
        tmp_path / "alpha": [("explicit", extra), ("project", (tmp_path / "alpha" / "memory").resolve()),
                             ("cc", cc_alpha), ("user", user)],
        tmp_path / "beta": [("explicit", extra), ("project", (tmp_path / "beta" / "memory").resolve()),
                            ("user", user)],
    }
