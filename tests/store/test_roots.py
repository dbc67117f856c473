"""Layered root resolution (reference §4, §13 items 9-12)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from memls.store.roots import (
    MemoryRoot,
    claude_code_memory_dir,
    claude_code_project_dir_name,
    default_write_root,
    resolve_roots,
    resolve_workspace,
    user_config_dir,
)


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    """A home, a config dir and a workspace, none of them the real ones."""
    home = tmp_path / "home"
    home.mkdir()
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return {"home": home, "config": tmp_path / "cfg", "ws": workspace, "tmp": tmp_path}


def scopes(roots: list[MemoryRoot]) -> list[str]:
    return [r.scope for r in roots]


def resolve(layout: dict[str, Path], **env: str) -> list[MemoryRoot]:
    return resolve_roots(
        layout["ws"], env=env, config_dir=layout["config"], home=layout["home"]
    )


# -- explicit roots ----------------------------------------------------------------


def test_gptme_memory_dirs_gives_only_explicit_roots_in_order(layout):
    a, b = layout["tmp"] / "a", layout["tmp"] / "b"
    roots = resolve(layout, GPTME_MEMORY_DIRS=f"{a}{os.pathsep}{b}")
    assert roots == [MemoryRoot("explicit", a), MemoryRoot("explicit", b)]


def test_memls_memory_dirs_takes_precedence_over_gptme_memory_dirs(layout):
    mine, theirs = layout["tmp"] / "mine", layout["tmp"] / "theirs"
    roots = resolve(layout, MEMLS_MEMORY_DIRS=str(mine), GPTME_MEMORY_DIRS=str(theirs))
    assert roots == [MemoryRoot("explicit", mine)]


def test_blank_memls_memory_dirs_falls_back_to_gptme_memory_dirs(layout):
    theirs = layout["tmp"] / "theirs"
    roots = resolve(layout, MEMLS_MEMORY_DIRS="  ", GPTME_MEMORY_DIRS=str(theirs))
    assert roots == [MemoryRoot("explicit", theirs)]


def test_blank_explicit_list_means_layered_resolution(layout):
    assert "explicit" not in scopes(resolve(layout, GPTME_MEMORY_DIRS=" \t"))


def test_explicit_list_skips_blank_items_and_expands_home(layout):
    value = os.pathsep.join(["~/notes", " ", "", "~"])
    roots = resolve(layout, GPTME_MEMORY_DIRS=value)
    assert [r.path for r in roots] == [layout["home"] / "notes", layout["home"]]


def test_explicit_roots_naming_one_directory_twice_are_collapsed(layout):
    a = layout["tmp"] / "a"
    a.mkdir()
    roots = resolve(layout, GPTME_MEMORY_DIRS=f"{a}{os.pathsep}{a}/../a")
    assert roots == [MemoryRoot("explicit", a)]


# -- layered roots -----------------------------------------------------------------


def test_project_and_agent_layers_come_in_order_with_cc_and_user(layout):
    (layout["ws"] / "memory").mkdir()
    brain = layout["tmp"] / "brain"
    (brain / "memory").mkdir(parents=True)
    roots = resolve(layout, GPTME_AGENT_WORKSPACE=str(brain))
    assert scopes(roots) == ["project", "cc", "agent", "user"]
    assert roots[0].path == layout["ws"] / "memory"
    assert roots[2].path == brain / "memory"
    assert roots[3].path == layout["config"] / "memory"


def test_project_layer_is_the_default_write_root(layout):
    (layout["ws"] / "memory").mkdir()
    roots = resolve(layout)
    assert default_write_root(roots) == MemoryRoot("project", layout["ws"] / "memory")


def test_without_project_dir_the_cc_root_is_the_default_write_root(layout):
    roots = resolve(layout)
    assert scopes(roots) == ["cc", "user"]
    assert default_write_root(roots).scope == "cc"


def test_cc_root_is_listed_even_when_missing(layout):
    cc = resolve(layout)[0]
    assert cc.scope == "cc" and not cc.exists
    expected = claude_code_memory_dir(layout["ws"], home=layout["home"])
    assert cc.path == expected


def test_cc_dir_that_is_the_project_dir_collapses_onto_project(layout):
    project = layout["ws"] / "memory"
    project.mkdir()
    cc = claude_code_memory_dir(layout["ws"], home=layout["home"])
    cc.parent.mkdir(parents=True)
    cc.symlink_to(project, target_is_directory=True)
    assert scopes(resolve(layout)) == ["project", "user"]


def test_agent_working_in_its_own_brain_collapses_agent_onto_project(layout):
    (layout["ws"] / "memory").mkdir()
    roots = resolve(layout, GPTME_AGENT_WORKSPACE=str(layout["ws"]))
    assert scopes(roots) == ["project", "cc", "user"]


def test_agent_layer_is_skipped_when_its_memory_dir_is_missing(layout):
    brain = layout["tmp"] / "brain"
    brain.mkdir()
    assert "agent" not in scopes(resolve(layout, GPTME_AGENT_WORKSPACE=str(brain)))


def test_agent_workspace_is_home_expanded(layout):
    (layout["home"] / "brain" / "memory").mkdir(parents=True)
    roots = resolve(layout, GPTME_AGENT_WORKSPACE=" ~/brain ")
    assert MemoryRoot("agent", layout["home"] / "brain" / "memory") in roots


def test_user_root_defaults_to_the_config_dir_under_xdg_config_home(layout):
    xdg = layout["tmp"] / "xdg"
    roots = resolve_roots(layout["ws"], env={"XDG_CONFIG_HOME": str(xdg)}, home=layout["home"])
    assert roots[-1] == MemoryRoot("user", xdg / "gptme" / "memory")


def test_memory_root_exists_reflects_the_directory(tmp_path):
    root = MemoryRoot("user", tmp_path / "memory")
    assert not root.exists
    root.path.mkdir()
    assert root.exists


# -- default write root -----------------------------------------------------------


def test_default_write_root_prefers_the_first_explicit_root(tmp_path):
    roots = [MemoryRoot("explicit", tmp_path / "a"), MemoryRoot("explicit", tmp_path / "b")]
    assert default_write_root(roots) == roots[0]


def test_default_write_root_falls_back_to_the_first_root(tmp_path):
    roots = [MemoryRoot("agent", tmp_path / "a"), MemoryRoot("user", tmp_path / "u")]
    assert default_write_root(roots) == roots[0]


def test_default_write_root_without_roots_raises_key_error():
    with pytest.raises(KeyError, match="no memory roots resolved"):
        default_write_root([])


# -- Claude Code's directory encoding --------------------------------------------------
# Expected names below were produced by Claude Code's own formula run in node.


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/home/u/my_project", "-home-u-my-project"),
        ("C:\\Users\\u\\p", "C--Users-u-p"),
        ("/a//b.c", "-a--b-c"),
        ("", ""),
        # é is one UTF-16 unit, the emoji two: one dash and two dashes.
        ("/home/u/caf\u00e9/\U0001f600x", "-home-u-caf----x"),
    ],
)
def test_claude_code_dir_name_replaces_each_non_alnum_unit_with_a_dash(path, expected):
    assert claude_code_project_dir_name(path) == expected


def test_claude_code_dir_name_of_exactly_200_units_has_no_hash():
    path = "/" + "a" * 199
    assert claude_code_project_dir_name(path) == "-" + "a" * 199


def test_claude_code_dir_name_over_200_units_is_cut_and_hashed():
    path = "/" + "a" * 200
    assert claude_code_project_dir_name(path) == "-" + "a" * 199 + "-b6ymvl"


def test_claude_code_dir_name_of_long_realistic_path_matches_claude_code():
    path = "/home/user/" + "very_long_directory_name/" * 9 + "project"
    name = claude_code_project_dir_name(path)
    assert name.endswith("-very-long-dire-p6lz5o")
    assert len(name) == 200 + len("-p6lz5o")


def test_claude_code_memory_dir_lives_under_home_projects(tmp_path):
    ws = tmp_path / "my_ws"
    ws.mkdir()
    got = claude_code_memory_dir(ws, home=tmp_path / "h")
    name = str(ws.resolve()).replace("/", "-").replace("_", "-")
    assert got == tmp_path / "h" / ".claude" / "projects" / name / "memory"


# -- user config dir ---------------------------------------------------------------


def test_user_config_dir_uses_absolute_xdg_config_home(tmp_path):
    env = {"XDG_CONFIG_HOME": str(tmp_path / "x")}
    assert user_config_dir(env=env, home=tmp_path) == tmp_path / "x" / "gptme"


@pytest.mark.parametrize("xdg", ["", "relative/dir"])
def test_user_config_dir_ignores_unset_or_relative_xdg_config_home(tmp_path, xdg):
    env = {"XDG_CONFIG_HOME": xdg}
    assert user_config_dir(env=env, home=tmp_path) == tmp_path / ".config" / "gptme"


def test_user_config_dir_takes_home_from_the_given_env(tmp_path):
    assert user_config_dir(env={"HOME": str(tmp_path)}) == tmp_path / ".config" / "gptme"


# -- workspace -----------------------------------------------------------------------


def test_workspace_argument_wins_and_is_made_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "w").mkdir()
    env = {"GPTME_WORKSPACE": "/elsewhere"}
    assert resolve_workspace(Path("w"), env=env) == (tmp_path / "w").resolve()


def test_workspace_comes_from_gptme_workspace_env(tmp_path):
    assert resolve_workspace(env={"GPTME_WORKSPACE": f" {tmp_path} "}) == tmp_path.resolve()


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "protocol.file.allow=always", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        timeout=30,
    )


def test_workspace_is_the_git_top_level_from_a_subdirectory(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    (repo / "sub" / "dir").mkdir(parents=True)
    _git(repo, "init", "-q")
    monkeypatch.chdir(repo / "sub" / "dir")
    assert resolve_workspace(env={}) == repo.resolve()


def test_workspace_inside_a_submodule_is_the_super_project(tmp_path, monkeypatch):
    child = tmp_path / "child"
    child.mkdir()
    _git(child, "init", "-q")
    _git(child, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q",
         "--allow-empty", "-m", "init")
    parent = tmp_path / "parent"
    parent.mkdir()
    _git(parent, "init", "-q")
    _git(parent, "submodule", "add", "-q", str(child), "mod")
    monkeypatch.chdir(parent / "mod")
    assert resolve_workspace(env={}) == parent.resolve()


def test_workspace_without_git_is_the_current_directory(tmp_path, monkeypatch):
    empty_path = tmp_path / "no-bin"
    empty_path.mkdir()
    monkeypatch.setenv("PATH", str(empty_path))
    monkeypatch.chdir(tmp_path)
    assert resolve_workspace(env={}) == tmp_path.resolve()


def test_workspace_outside_any_repository_is_the_current_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert resolve_workspace(env={}) == tmp_path.resolve()
