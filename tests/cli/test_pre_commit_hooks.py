"""``.pre-commit-hooks.yaml`` run by the real pre-commit on real commits.

A snapshot of this working tree becomes a git repository (pre-commit installs
hooks from a repository at a commit); a project repository points its
``.pre-commit-config.yaml`` at it, and ``git commit`` runs the hooks through
the hook script ``pre-commit install`` writes. pre-commit builds memls into
an environment of its own from the snapshot (``language: python``), once per
test session (``PRE_COMMIT_HOME`` is a session directory).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.editor_helpers import README, documented_block

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
PRE_COMMIT = BIN / "pre-commit"
MEMLS = BIN / "memls"

pytestmark = [
    pytest.mark.skipif(
        not PRE_COMMIT.exists(),
        reason=f"pre-commit is not installed at {PRE_COMMIT} (it comes with the test extra)",
    ),
    pytest.mark.timeout(900),
]

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="session")
def hooks_repo(tmp_path_factory) -> tuple[Path, str]:
    """This working tree (tracked and new files, as they are now) committed in a repository of its own."""
    snapshot = tmp_path_factory.mktemp("memls-hooks-repo")
    listed = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=REPO,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, snapshot / name)
    env = {**os.environ, **GIT_ENV}
    for args in (("init", "-q"), ("add", "-A"), ("commit", "-q", "-m", "snapshot")):
        done = git(snapshot, *args, env=env)
        assert done.returncode == 0, done.stderr
    return snapshot, git(snapshot, "rev-parse", "HEAD").stdout.strip()


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


ENTRY = "---\nname: {name}\ndescription: \"{description}\"\nmetadata:\n  type: project\n{extra}---\n\nBody.\n"


@pytest.fixture
def project(tmp_path, hooks_repo, pre_commit_home) -> tuple[Path, dict[str, str]]:
    """A project repository with a generated MEMORY.md, both hooks installed, one commit."""
    snapshot, rev = hooks_repo
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("MEMLS_MEMORY_DIRS", "GPTME_MEMORY_DIRS",
                                                          "GPTME_WORKSPACE")}
    env.update(GIT_ENV, HOME=str(home), PRE_COMMIT_HOME=str(pre_commit_home), MEMLS_NO_CACHE="1",
               PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}")
    work = tmp_path / "project"
    memory = work / "memory"
    memory.mkdir(parents=True)
    (memory / "release-day.md").write_text(ENTRY.format(name="release-day", description="Release on Tuesdays.",
                                                        extra=""))
    (work / "README.md").write_text("# A project\n")
    # The README's block, pointed at the snapshot instead of the published repository.
    config = documented_block("pre-commit-config", "yaml", README)
    config = re.sub(r"(?m)^(\s*- repo: ).*$", lambda m: f"{m.group(1)}{snapshot}", config)
    config = re.sub(r"(?m)^(\s*rev: ).*$", lambda m: f"{m.group(1)}{rev}", config)
    assert str(snapshot) in config and rev in config
    (work / ".pre-commit-config.yaml").write_text(config)
    assert git(work, "init", "-q", env=env).returncode == 0
    assert subprocess.run([str(MEMLS), "index", "--write"], cwd=work, env=env).returncode == 0
    installed = subprocess.run([str(PRE_COMMIT), "install"], cwd=work, env=env, capture_output=True,
                               text=True, timeout=60)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    commit(work, env, "first")
    return work, env


def commit(work: Path, env: dict[str, str], message: str) -> subprocess.CompletedProcess[str]:
    """``git add -A`` and ``git commit``, the hooks run by git; the first run builds the environment."""
    assert git(work, "add", "-A", env=env).returncode == 0
    done = git(work, "commit", "-q", "-m", message, env=env)
    if message == "first":
        assert done.returncode == 0, done.stdout + done.stderr
    return done


def head_message(work: Path) -> str:
    return git(work, "log", "-1", "--format=%s").stdout.strip()


def test_a_commit_with_a_dangling_link_is_refused_by_memls_check(project):
    work, env = project
    (work / "memory" / "release-day.md").write_text(ENTRY.format(
        name="release-day", description="Release on Tuesdays.",
        extra="status: superseded\nsuperseded_by: release-dya\n"))
    done = commit(work, env, "dangling")
    assert done.returncode != 0
    output = done.stdout + done.stderr
    assert "memls check" in output and "Failed" in output, output
    assert "memory/release-day.md:7:16: error dangling-superseded-by" in output
    assert head_message(work) == "first"


def test_a_clean_commit_with_other_files_passes_both_hooks(project):
    work, env = project
    (work / "memory" / "deploy-window.md").write_text(ENTRY.format(
        name="deploy-window", description="Deploys between 9 and 5.", extra=""))
    assert subprocess.run([str(MEMLS), "index", "--write"], cwd=work, env=env).returncode == 0
    (work / "README.md").write_text("# A project\n\nNo frontmatter here.\n")
    (work / "notes.txt").write_text("not memory\n")
    done = commit(work, env, "clean")
    assert done.returncode == 0, done.stdout + done.stderr
    assert head_message(work) == "clean"


def test_memls_index_regenerates_a_stale_generated_index_and_fails_that_commit(project):
    work, env = project
    entry = work / "memory" / "release-day.md"
    entry.write_text(entry.read_text().replace("Release on Tuesdays.", "Release on Wednesdays."))
    refused = commit(work, env, "stale index")
    assert refused.returncode != 0
    assert "files were modified by this hook" in refused.stdout + refused.stderr
    assert "- [release-day](release-day.md) — Release on Wednesdays.\n" in (
        work / "memory" / "MEMORY.md").read_text()
    assert head_message(work) == "first"
    again = commit(work, env, "index regenerated")
    assert again.returncode == 0, again.stdout + again.stderr
    assert head_message(work) == "index regenerated"


def test_memls_index_leaves_a_curated_index_alone(project):
    work, env = project
    index = work / "memory" / "MEMORY.md"
    curated = index.read_text() + "\nAsk Dana before changing the release rules.\n"
    index.write_text(curated)
    entry = work / "memory" / "release-day.md"
    entry.write_text(entry.read_text().replace("Body.", "Body, longer."))
    done = commit(work, env, "curated")
    assert done.returncode == 0, done.stdout + done.stderr
    assert index.read_text() == curated
