"""``memls index --refresh``: a generated ``MEMORY.md`` follows the entries, a curated one is left whole.

Run in a real git repository: "generated" is judged against the entries as
last committed (``HEAD``), which only git knows after the fact.
"""

from __future__ import annotations

import os
import subprocess
import time

import pytest
from click.testing import CliRunner, Result

from memls.cli import cli

ENTRY = '---\nname: {name}\ndescription: "{description}"\nmetadata:\n  type: project\n---\n\nBody.\n'


def memls(*args: str) -> Result:
    env = {"MEMLS_MEMORY_DIRS": None, "GPTME_MEMORY_DIRS": None, "GPTME_WORKSPACE": None,
           "MEMLS_NO_CACHE": "1"}
    return CliRunner().invoke(cli, list(args), env=env)


def git(*args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    subprocess.run(["git", *args], check=True, capture_output=True, env=env)


@pytest.fixture
def written(tmp_path, monkeypatch):
    """memory/ (in the working directory) with two entries and the index memls wrote for them."""
    monkeypatch.chdir(tmp_path)
    memory = tmp_path / "memory"
    memory.mkdir()
    for name, description in (("alpha", "First fact."), ("beta", "Second fact.")):
        (memory / f"{name}.md").write_text(ENTRY.format(name=name, description=description))
    assert memls("index", "--write").exit_code == 0
    return memory


@pytest.fixture
def repo(written):
    """A git repository whose memory/ has two entries and a generated index, committed."""
    git("init", "-q")
    git("add", "-A")
    git("commit", "-q", "-m", "init")
    return written


def test_an_index_generated_for_the_committed_entries_is_rendered_again_and_exit_1(repo, tmp_path):
    (tmp_path / "README.md").write_text("# hi\n")
    (repo / "beta.md").write_text(ENTRY.format(name="beta", description="Second fact, revised."))
    result = memls("index", "--refresh", "memory/beta.md", "README.md")
    assert result.exit_code == 1
    assert result.stdout == "Regenerated memory/MEMORY.md\n"
    assert memls("index", "--check").exit_code == 0
    again = memls("index", "--refresh", "memory/beta.md")
    assert again.exit_code == 0 and again.stdout == ""


def test_a_curated_index_is_never_touched(repo):
    index = repo / "MEMORY.md"
    curated = index.read_text().replace("— First fact.", "— read this first")
    index.write_text(curated)
    (repo / "gamma.md").write_text(ENTRY.format(name="gamma", description="Third fact."))
    result = memls("index", "--refresh", "memory/gamma.md", "memory/MEMORY.md")
    assert result.exit_code == 0, result.output
    assert index.read_text() == curated


def test_an_index_hand_edited_after_the_commit_is_curated(repo):
    index = repo / "MEMORY.md"
    edited = index.read_text() + "Keep this line.\n"
    index.write_text(edited)
    (repo / "alpha.md").write_text(ENTRY.format(name="alpha", description="First fact, revised."))
    assert memls("index", "--refresh", "memory/alpha.md").exit_code == 0
    assert index.read_text() == edited


def test_files_outside_memory_roots_refresh_nothing(repo, tmp_path):
    (tmp_path / "README.md").write_text("# hi\n")
    (repo / "alpha.md").write_text(ENTRY.format(name="alpha", description="Changed."))
    before = (repo / "MEMORY.md").read_bytes()
    assert memls("index", "--refresh", "README.md").exit_code == 0
    assert (repo / "MEMORY.md").read_bytes() == before


def test_paths_without_refresh_are_a_usage_error(repo):
    result = memls("index", "memory/alpha.md")
    assert result.exit_code == 2
    assert "only with --refresh" in result.stderr


def test_outside_git_an_index_memls_rendered_follows_each_hand_edit_of_an_entry(written):
    # No commit to judge by: the index is generated because memls wrote those bytes as its rendering.
    memory = written
    for revision in ("Second fact, revised.", "Second fact, revised twice."):
        (memory / "beta.md").write_text(ENTRY.format(name="beta", description=revision))
        assert memls("index", "--refresh", "memory/beta.md").exit_code == 1
        assert f"- [beta](beta.md) \u2014 {revision}\n" in (memory / "MEMORY.md").read_text()
    curated = (memory / "MEMORY.md").read_text() + "\nMy own note.\n"
    (memory / "MEMORY.md").write_text(curated)
    (memory / "alpha.md").write_text(ENTRY.format(name="alpha", description="First fact, revised."))
    assert memls("index", "--refresh", "memory/alpha.md").exit_code == 0
    assert (memory / "MEMORY.md").read_text() == curated


def test_outside_git_an_index_another_tool_rendered_follows_a_hand_edit(tmp_path, monkeypatch):
    """Stranger s29b: gptme-util wrote the index (memls keeps no provenance of it) and an entry was
    edited by hand; the refresh read the root under no scope, so it neither found the state the parse
    cache held (the one the index was rendered from) nor kept the cache the other commands read."""
    hour_later = lambda: time.time_ns() + 3600 * 10**9  # noqa: E731 - every file settled: the cache keeps it
    for module in ("cache", "reader"):
        monkeypatch.setattr(f"memls.store.{module}.now_ns", hour_later)
    monkeypatch.chdir(tmp_path)
    memory = tmp_path / "memory"
    memory.mkdir()
    for name, description in (("alpha", "First fact."), ("beta", "Second fact.")):
        (memory / f"{name}.md").write_text(ENTRY.format(name=name, description=description))
    rendering = memls("index").stdout
    (memory / "MEMORY.md").write_text(rendering)  # as another tool writes it
    assert memls_cached("list").exit_code == 0
    (memory / "beta.md").write_text(ENTRY.format(name="beta", description="Second fact, revised."))
    result = memls_cached("index", "--refresh", "memory/beta.md")
    assert result.exit_code == 1, result.output
    assert "- [beta](beta.md) \u2014 Second fact, revised.\n" in (memory / "MEMORY.md").read_text()
    assert memls_cached("index", "--refresh", "memory/beta.md").exit_code == 0


def memls_cached(*args: str) -> Result:
    """:func:`memls` with the parse cache on, as a person's commands run."""
    env = {"MEMLS_MEMORY_DIRS": None, "GPTME_MEMORY_DIRS": None, "GPTME_WORKSPACE": None, "MEMLS_NO_CACHE": None}
    return CliRunner().invoke(cli, list(args), env=env)
