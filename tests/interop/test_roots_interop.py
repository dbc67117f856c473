"""memls resolves the same (scope, path) roots as the real gptme for the same environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("gptme.memory", reason="gptme is not installed (pip install -e '.[interop]')")

from memls.store.roots import claude_code_memory_dir, resolve_roots  # noqa: E402

# gptme reads HOME, XDG_CONFIG_HOME and its variables at call time from the
# process environment, so it runs in a child process with exactly that environment.
GPTME_ROOTS = """
import json, sys
from pathlib import Path
from gptme.memory.roots import resolve_roots
ws = sys.argv[1]
roots = resolve_roots(Path(ws) if ws else None)
print(json.dumps([[r.scope, str(r.path)] for r in roots]))
"""


def gptme_roots(env: dict[str, str], workspace: Path | None, cwd: Path) -> list[tuple[str, str]]:
    result = subprocess.run(
        [sys.executable, "-c", GPTME_ROOTS, str(workspace) if workspace else ""],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return [tuple(pair) for pair in json.loads(result.stdout)]


def memls_roots(env: dict[str, str], workspace: Path | None) -> list[tuple[str, str]]:
    return [(r.scope, str(r.path)) for r in resolve_roots(workspace, env=env)]


@pytest.fixture
def world(tmp_path: Path) -> dict:
    home = tmp_path / "home"
    home.mkdir()
    ws = tmp_path / "ws"
    ws.mkdir()
    brain = tmp_path / "brain"
    (brain / "memory").mkdir(parents=True)
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "GIT_CEILING_DIRECTORIES": str(tmp_path),
    }
    return {"tmp": tmp_path, "home": home, "ws": ws, "brain": brain, "env": env}


def assert_same_roots(world: dict, workspace: Path | None, **extra_env: str) -> list:
    env = {**world["env"], **extra_env}
    ours = memls_roots(env, workspace)
    assert ours == gptme_roots(env, workspace, cwd=world["ws"])
    return ours


def test_project_cc_agent_and_user_roots_match_gptme(world):
    (world["ws"] / "memory").mkdir()
    roots = assert_same_roots(world, world["ws"], GPTME_AGENT_WORKSPACE=str(world["brain"]))
    assert [scope for scope, _ in roots] == ["project", "cc", "agent", "user"]


def test_workspace_from_gptme_workspace_env_matches_gptme(world):
    (world["ws"] / "memory").mkdir()
    assert_same_roots(world, None, GPTME_WORKSPACE=str(world["ws"]))


def test_workspace_from_current_directory_matches_gptme(world, monkeypatch):
    monkeypatch.chdir(world["ws"])
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(world["tmp"]))
    roots = assert_same_roots(world, None)
    assert roots[0][1] == str(claude_code_memory_dir(world["ws"], home=world["home"]))


def test_missing_project_and_agent_dirs_match_gptme(world):
    roots = assert_same_roots(world, world["ws"], GPTME_AGENT_WORKSPACE=str(world["tmp"] / "nope"))
    assert [scope for scope, _ in roots] == ["cc", "user"]


def test_agent_in_its_own_brain_collapses_like_gptme(world):
    (world["ws"] / "memory").mkdir()
    assert_same_roots(world, world["ws"], GPTME_AGENT_WORKSPACE=str(world["ws"]))


def test_cc_symlinked_to_project_collapses_like_gptme(world):
    project = world["ws"] / "memory"
    project.mkdir()
    cc = claude_code_memory_dir(world["ws"], home=world["home"])
    cc.parent.mkdir(parents=True)
    cc.symlink_to(project, target_is_directory=True)
    roots = assert_same_roots(world, world["ws"])
    assert [scope for scope, _ in roots] == ["project", "user"]


def test_explicit_dirs_with_blanks_home_and_duplicates_match_gptme(world):
    a = world["tmp"] / "a"
    a.mkdir()
    dirs = os.pathsep.join([str(a), " ", "~/notes", f"{a}/../a", "rel"])
    (world["ws"] / "memory").mkdir()
    roots = assert_same_roots(
        world, world["ws"], GPTME_MEMORY_DIRS=dirs, GPTME_AGENT_WORKSPACE=str(world["brain"])
    )
    assert {scope for scope, _ in roots} == {"explicit"}
