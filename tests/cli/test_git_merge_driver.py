"""``memls setup git`` and ``memls merge-index`` with the real git (issue 15, part 3).

Every merge here is ``git merge`` in a temporary repository, with the driver
configured by ``memls setup git`` run as the installed console script, so git
itself calls memls the way it will for a user.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

MEMLS = Path(sys.executable).parent / "memls"

pytestmark = [
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
    pytest.mark.skipif(not MEMLS.exists(), reason=f"console script not installed at {MEMLS}"),
]


def environment(home: Path, memory: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "GPTME_", "MEMLS_"))}
    env.update(
        HOME=str(home),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
        GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid",
        MEMLS_MEMORY_DIRS=str(memory),
    )
    return env


class Repo:
    """A git repository with a memory/ root, driven by real git and the real memls."""

    def __init__(self, path: Path, home: Path) -> None:
        self.path = path
        self.memory = path / "memory"
        self.env = environment(home, self.memory)
        path.mkdir()
        self.git("init", "-q", "-b", "main")

    def run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            list(argv), cwd=self.path, env=self.env, capture_output=True, text=True, timeout=120
        )
        if check:
            assert done.returncode == 0, (argv, done.stdout, done.stderr)
        return done

    def git(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run("git", *args, check=check)

    def memls(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run(str(MEMLS), *args, check=check)

    def commit(self, message: str) -> None:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)

    @property
    def index(self) -> str:
        return (self.memory / "MEMORY.md").read_text(encoding="utf-8")


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    repo = Repo(tmp_path / "repo", tmp_path)
    repo.memls("save", "alpha", "Alpha rule.", "--type", "project")
    repo.memls("save", "delta", "Delta rule.", "--type", "project")
    # The first save starts MEMORY.md as gptme does (one plain line); rendering
    # it once makes it generated, and every later save keeps it so.
    repo.memls("index", "--write")
    repo.commit("base memories")
    return repo


def branch_apart(repo: Repo) -> None:
    """Two branches that each save a memory next to the other's; left also supersedes alpha."""
    repo.git("checkout", "-q", "-b", "left")
    repo.memls("save", "beta", "Beta rule.", "--type", "project")
    repo.memls("save", "alpha-two", "Alpha rule, revised.", "--type", "project")
    repo.memls("supersede", "alpha", "alpha-two")
    repo.commit("left: beta, alpha superseded")
    repo.git("checkout", "-q", "main")
    repo.git("checkout", "-q", "-b", "right")
    repo.memls("save", "charlie", "Charlie rule.", "--type", "project")
    repo.memls("save", "user-pref", "Prefers short answers.", "--type", "user")
    repo.commit("right: charlie, user-pref")
    repo.git("checkout", "-q", "left")


def test_without_the_driver_two_saves_conflict_in_memory_md(repo):
    # The problem the driver exists for: git's own line merge of the same history.
    branch_apart(repo)
    merged = repo.git("merge", "--no-edit", "right", check=False)
    assert merged.returncode != 0
    assert "CONFLICT (content): Merge conflict in memory/MEMORY.md" in merged.stdout


def test_with_the_driver_two_branches_that_save_and_supersede_merge_cleanly_and_check(repo):
    repo.memls("setup", "git")
    repo.commit("merge MEMORY.md by entry")
    branch_apart(repo)
    merged = repo.git("merge", "--no-edit", "right", check=False)
    assert merged.returncode == 0, (merged.stdout, merged.stderr)
    assert repo.memls("index", "--check", check=False).returncode == 0, repo.index
    checked = repo.memls("check", check=False)
    assert checked.returncode == 0, checked.stdout
    assert repo.index == repo.memls("index").stdout
    assert "(alpha.md)" not in repo.index and "(alpha-two.md)" in repo.index
    for name in ("beta", "charlie", "delta", "user-pref"):
        assert f"({name}.md)" in repo.index


def test_a_curated_index_keeps_its_text_through_the_merge(repo):
    repo.memls("setup", "git")
    curated = (
        "# Team memory\n\nRead the project rules before a release.\n\n"
        "- [The alpha rule](alpha.md) \u2014 always first\n"
        "- [delta](delta.md) \u2014 Delta rule.\n\n<!-- keep it short -->\n"
    )
    (repo.memory / "MEMORY.md").write_text(curated, encoding="utf-8")
    repo.commit("curate the index")
    repo.git("checkout", "-q", "-b", "left")
    repo.memls("save", "beta", "Beta rule.", "--type", "project")
    repo.commit("left: beta")
    repo.git("checkout", "-q", "main")
    repo.git("checkout", "-q", "-b", "right")
    repo.memls("save", "charlie", "Charlie rule.", "--type", "project")
    repo.commit("right: charlie")
    repo.git("checkout", "-q", "left")
    merged = repo.git("merge", "--no-edit", "right", check=False)
    assert merged.returncode == 0, (merged.stdout, merged.stderr)
    lines = repo.index.split("\n")
    assert lines[:5] == curated.split("\n")[:5]
    assert "<!-- keep it short -->" in lines
    assert "- [beta](beta.md) \u2014 Beta rule." in lines
    assert "- [charlie](charlie.md) \u2014 Charlie rule." in lines
    assert repo.memls("check", check=False).returncode == 0


def test_the_same_entry_changed_differently_is_a_conflict_marked_around_its_line(repo):
    repo.memls("setup", "git")
    repo.commit("merge MEMORY.md by entry")
    repo.git("checkout", "-q", "-b", "left")
    repo.memls("save", "alpha", "Alpha, as left says.", "--type", "project")
    repo.memls("save", "beta", "Beta rule.", "--type", "project")
    repo.commit("left")
    repo.git("checkout", "-q", "main")
    repo.memls("save", "alpha", "Alpha, as main says.", "--type", "project")
    repo.commit("main")
    merged = repo.git("merge", "--no-edit", "left", check=False)
    assert merged.returncode != 0
    assert "Merge conflict in memory/MEMORY.md" in merged.stdout
    assert repo.index == (
        "# Persistent Memory\n\n## Project\n"
        "<<<<<<< ours\n- [alpha](alpha.md) \u2014 Alpha, as main says.\n=======\n"
        "- [alpha](alpha.md) \u2014 Alpha, as left says.\n>>>>>>> theirs\n"
        "- [beta](beta.md) \u2014 Beta rule.\n- [delta](delta.md) \u2014 Delta rule.\n"
    )


# -- memls setup git ---------------------------------------------------------------


def test_setup_git_adds_the_attribute_once_keeps_other_lines_and_configures_the_driver(repo):
    (repo.path / ".gitattributes").write_text("*.png binary\n*.md text", encoding="utf-8")
    repo.memls("setup", "git")
    again = repo.memls("setup", "git")
    assert "nothing to change" in again.stdout
    assert (repo.path / ".gitattributes").read_text() == "*.png binary\n*.md text\nMEMORY.md merge=memls\n"
    driver = repo.git("config", "--local", "merge.memls.driver").stdout.strip()
    assert driver == (
        f"{MEMLS} merge-index --marker-size %L --base-label %S --ours-label %X --theirs-label %Y"
        " %O %A %B %P"
    )
    assert repo.git("check-attr", "merge", "memory/MEMORY.md").stdout.strip().endswith("merge: memls")


def test_setup_git_ignores_the_roots_lock_file_once_and_remove_leaves_the_ignore_line(repo):
    (repo.path / ".gitignore").write_text("*.pyc", encoding="utf-8")
    repo.memls("setup", "git")
    repo.memls("setup", "git")
    assert (repo.path / ".gitignore").read_text() == "*.pyc\n.memory.lock\n"
    # Every writer (memls, gptme, the pre-commit hooks) leaves memory/.memory.lock behind.
    assert repo.git("check-ignore", "--no-index", "-q", "memory/.memory.lock", check=False).returncode == 0
    repo.memls("setup", "git", "--remove")
    assert (repo.path / ".gitignore").read_text() == "*.pyc\n.memory.lock\n"


def test_setup_git_remove_takes_out_only_its_line_and_section(repo):
    (repo.path / ".gitattributes").write_text("*.png binary\n", encoding="utf-8")
    repo.git("config", "--local", "merge.other.driver", "true")
    repo.memls("setup", "git")
    repo.memls("setup", "git", "--remove")
    assert (repo.path / ".gitattributes").read_text() == "*.png binary\n"
    assert repo.git("config", "--local", "--get-regexp", "^merge\\.memls", check=False).stdout == ""
    assert repo.git("config", "--local", "merge.other.driver").stdout.strip() == "true"


def test_setup_git_remove_deletes_a_gitattributes_that_held_only_its_line(repo):
    repo.memls("setup", "git")
    repo.memls("setup", "git", "--remove")
    assert not (repo.path / ".gitattributes").exists()


def test_setup_git_dry_run_prints_the_change_and_writes_nothing(repo):
    shown = repo.memls("setup", "git", "--dry-run").stdout
    assert "+MEMORY.md merge=memls" in shown
    assert "git config --local merge.memls.driver" in shown
    assert not (repo.path / ".gitattributes").exists()
    assert repo.git("config", "--local", "merge.memls.driver", check=False).returncode != 0


def test_setup_git_outside_a_repository_is_one_error_line(tmp_path):
    outside = tmp_path / "plain"
    outside.mkdir()
    done = subprocess.run(
        [str(MEMLS), "setup", "git"], cwd=outside, env=environment(tmp_path, outside / "memory"),
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr == f"Error: {outside} is not inside a git repository (run it in your repository)\n"


# -- memls merge-index as git calls it ------------------------------------------------


def test_merge_index_writes_the_result_into_ours_and_exits_0(run, tmp_path):
    base, ours, theirs = (tmp_path / n for n in ("base", "ours", "theirs"))
    base.write_text("# Persistent Memory\n\n## User\n- [a](a.md) \u2014 A\n", encoding="utf-8")
    ours.write_text(base.read_text() + "- [b](b.md) \u2014 B\n", encoding="utf-8")
    theirs.write_text(base.read_text() + "- [c](c.md) \u2014 C\n", encoding="utf-8")
    result = run("merge-index", str(base), str(ours), str(theirs), "memory/MEMORY.md")
    assert result.exit_code == 0, result.stderr
    assert ours.read_text() == (
        "# Persistent Memory\n\n## User\n- [a](a.md) \u2014 A\n- [b](b.md) \u2014 B\n- [c](c.md) \u2014 C\n"
    )


def test_merge_index_with_a_conflict_exits_1_and_names_the_path(run, tmp_path):
    base, ours, theirs = (tmp_path / n for n in ("base", "ours", "theirs"))
    base.write_text("- [a](a.md) \u2014 A\n", encoding="utf-8")
    ours.write_text("- [a](a.md) \u2014 ours\n", encoding="utf-8")
    theirs.write_text("- [a](a.md) \u2014 theirs\n", encoding="utf-8")
    result = run("merge-index", str(base), str(ours), str(theirs), "memory/MEMORY.md")
    assert result.exit_code == 1
    assert result.stderr == "memls merge-index: memory/MEMORY.md: 1 conflict(s)\n"
    assert ours.read_text().startswith("<<<<<<< ours\n- [a](a.md) \u2014 ours\n=======\n")


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_version_that_is_not_utf8_is_merged_line_by_line_as_git_would_keeping_both_sides(run, tmp_path):
    base, ours, theirs = (tmp_path / n for n in ("base", "ours", "theirs"))
    base.write_bytes(b"# P\n\n- [a](a.md) \xe9\n")
    ours.write_bytes(b"# P\n\n- [a](a.md) \xe9\n- [b](b.md) B\n")
    theirs.write_bytes(b"# P\n\n- [a](a.md) \xe9\n- [c](c.md) C\n")
    result = run("merge-index", str(base), str(ours), str(theirs), "memory/MEMORY.md")
    assert result.exit_code == 1
    assert result.stderr == "memls merge-index: memory/MEMORY.md: not UTF-8, merged line by line\n"
    assert ours.read_bytes() == (
        b"# P\n\n- [a](a.md) \xe9\n<<<<<<< ours\n- [b](b.md) B\n=======\n- [c](c.md) C\n>>>>>>> theirs\n"
    )


def test_merge_index_keeps_crlf_and_labels_its_markers_as_git_asks(run, tmp_path):
    base, ours, theirs = (tmp_path / n for n in ("base", "ours", "theirs"))
    base.write_bytes("- [a](a.md) \u2014 A\r\n".encode())
    ours.write_bytes("- [a](a.md) \u2014 ours\r\n- [b](b.md) \u2014 B\r\n".encode())
    theirs.write_bytes("- [a](a.md) \u2014 theirs\r\n".encode())
    result = run("merge-index", "--ours-label", "HEAD", "--theirs-label", "topic",
                 str(base), str(ours), str(theirs))
    assert result.exit_code == 1
    assert ours.read_bytes().decode() == (
        "<<<<<<< HEAD\r\n- [a](a.md) \u2014 ours\r\n=======\r\n- [a](a.md) \u2014 theirs\r\n"
        ">>>>>>> topic\r\n- [b](b.md) \u2014 B\r\n"
    )


def test_labels_an_older_git_passes_unexpanded_fall_back_to_ours_and_theirs(run, tmp_path):
    base, ours, theirs = (tmp_path / n for n in ("base", "ours", "theirs"))
    base.write_text("- [a](a.md) \u2014 A\n", encoding="utf-8")
    ours.write_text("- [a](a.md) \u2014 ours\n", encoding="utf-8")
    theirs.write_text("- [a](a.md) \u2014 theirs\n", encoding="utf-8")
    run("merge-index", "--ours-label", "%X", "--theirs-label", "%Y", str(base), str(ours), str(theirs))
    assert ours.read_text().startswith("<<<<<<< ours\n") and ours.read_text().endswith(">>>>>>> theirs\n")


def test_a_line_moved_on_one_branch_takes_the_update_saved_on_the_other(repo):
    # issue 15: the mover's old description won silently.
    repo.memls("setup", "git")
    curated = (
        "# Persistent Memory\n\n## Important\n- [delta](delta.md) \u2014 Delta rule.\n\n"
        "## Later\n- [alpha](alpha.md) \u2014 Alpha rule.\n"
    )
    (repo.memory / "MEMORY.md").write_text(curated, encoding="utf-8")
    repo.commit("curate")
    repo.git("checkout", "-q", "-b", "left")
    (repo.memory / "MEMORY.md").write_text(
        "# Persistent Memory\n\n## Important\n- [alpha](alpha.md) \u2014 Alpha rule.\n"
        "- [delta](delta.md) \u2014 Delta rule.\n\n## Later\n", encoding="utf-8")
    repo.commit("move alpha up")
    repo.git("checkout", "-q", "main")
    repo.memls("save", "alpha", "Alpha rule, revised.")
    repo.commit("revise alpha")
    merged = repo.git("merge", "--no-edit", "left", check=False)
    assert merged.returncode == 0, (merged.stdout, merged.stderr)
    assert repo.index == (
        "# Persistent Memory\n\n## Important\n- [alpha](alpha.md) \u2014 Alpha rule, revised.\n"
        "- [delta](delta.md) \u2014 Delta rule.\n\n## Later\n"
    )
    assert repo.memls("check", check=False).returncode == 0


def test_a_titled_save_on_each_branch_merges_into_the_rendering(repo):
    repo.memls("setup", "git")
    repo.commit("driver")
    repo.git("checkout", "-q", "-b", "left")
    repo.memls("save", "bob", "b", "--title", "Bob", "--type", "project")
    repo.commit("left")
    repo.git("checkout", "-q", "main")
    repo.memls("save", "amy", "a", "--type", "project")
    repo.commit("main")
    merged = repo.git("merge", "--no-edit", "left", check=False)
    assert merged.returncode == 0, (merged.stdout, merged.stderr)
    assert repo.memls("index", "--check", check=False).returncode == 0, repo.index
