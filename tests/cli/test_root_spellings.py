"""A cached answer is the answer of the command as spelled now, whatever spelling cached it.

One memory directory can be named many ways: through a symlinked directory
(``~/src -> /data/src``), with ``..`` (``sub/../memory``), relative or absolute.
The caches are found by the directory's identity, but every answer names
paths as the command spelled them (``check``'s ``path:line`` lines, the
paths in ``audit``'s messages). So a run that replays what another spelling
computed must print what ``MEMLS_NO_CACHE=1`` prints for this one: a
``check`` of one file through another spelling once printed "No problems"
and exited 0 for a broken entry, and ``audit`` named files through a link
that had since been removed. Real processes of the console script, real
symlinks.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

BROKEN = "---\nname: beta\ndescription: second\nsuperseded_by: nothere\n---\nbody\n"
FINE = "---\nname: alpha\ndescription: first\n---\nbody\n"
NOT_AN_ENTRY = "no frontmatter\n"
# The same directory, spelled directly, through a symlinked directory, and with ``..``.
SPELLINGS = ("real/mem", "link/mem", "real/x/../mem")
COMMANDS = ("check", "check-file", "check-github", "check-json", "check-roots", "check-roots-json",
            "audit", "list", "index", "show")
# Where the command runs, under the tree: a relative spelling names the root from there.
WORKING_DIRECTORIES = (".", "real", "home")


def memls(args: list[str], *, cwd: Path, env: dict[str, str], cached: bool) -> tuple[int, str, str]:
    """What the console script exits with and prints."""
    env = {**env, "MEMLS_NO_CACHE": "0" if cached else "1"}
    proc = subprocess.run([sys.executable, "-c", "from memls.quick import main; main()", *args],
                          cwd=cwd, capture_output=True, text=True, env=env, timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


def base_env(base: Path, cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMLS_", "GPTME_", "XDG_"))}
    return {**env, "HOME": str(base / "home"), "MEMLS_CACHE_DIR": str(cache)}


def command_line(command: str, spelling: str, base: Path) -> tuple[list[str], dict[str, str]]:
    """The arguments and extra environment of one command over the root spelled ``spelling``."""
    if command == "check":
        return ["check", spelling], {}
    if command == "check-file":
        return ["check", f"{spelling}/beta.md"], {}
    if command == "check-github":
        return ["check", spelling, "--format", "github"], {}
    if command == "check-json":  # with each problem's fixes, made from the model
        return ["check", spelling, "--format", "json"], {}
    roots = {"MEMLS_MEMORY_DIRS": spelling}  # relative to the working directory, or absolute
    if command == "show":
        return ["show", "alpha"], roots
    if command == "check-roots":  # the roots the settings resolve, as a hook runs it
        return ["check"], roots
    if command == "check-roots-json":
        return ["check", "--format", "json"], roots
    return [command], roots


@pytest.fixture(scope="module")
def tree() -> Iterator[Path]:
    """One memory root with a broken entry, a file that is no entry and an index; three spellings of it; settled."""
    base = Path(tempfile.mkdtemp(prefix="memls-spellings-"))
    root = base / "real" / "mem"
    root.mkdir(parents=True)
    (base / "real" / "x").mkdir()
    (base / "home").mkdir()
    (base / "link").symlink_to(base / "real", target_is_directory=True)
    (root / "alpha.md").write_text(FINE, encoding="utf-8")
    (root / "beta.md").write_text(BROKEN, encoding="utf-8")
    (root / "bad.md").write_text(NOT_AN_ENTRY, encoding="utf-8")
    # An index makes the directory a root by its look: a file check reports its files.
    (root / "MEMORY.md").write_text("# Memory\n\n- [alpha](alpha.md) — first\n", encoding="utf-8")
    time.sleep(2.2)  # every file has settled: answers are remembered
    yield base
    shutil.rmtree(base, ignore_errors=True)


step = st.tuples(st.sampled_from(SPELLINGS), st.sampled_from(COMMANDS), st.booleans(),
                 st.sampled_from(WORKING_DIRECTORIES))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(step, min_size=2, max_size=4))
def test_a_cached_answer_is_the_uncached_answer_of_the_spelling_used_now(tree: Path, steps: list) -> None:
    """Also from another working directory: a relative spelling's answer names paths from where it ran
    (an answer cached under ``r`` was replayed to ``/abs/r`` and to other directories, paths and all)."""
    cache = Path(tempfile.mkdtemp(prefix="cache-", dir=tree))
    try:
        env = base_env(tree, cache)
        for spelling, command, absolute, where in steps:
            cwd = tree / where
            spelling = os.path.join(tree, spelling) if absolute else os.path.relpath(tree / spelling, cwd)
            args, extra = command_line(command, spelling, cwd)
            run_env = {**env, **extra}
            cached = memls(args, cwd=cwd, env=run_env, cached=True)
            assert cached == memls(args, cwd=cwd, env=run_env, cached=False), (spelling, command, where)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


@pytest.mark.parametrize("command", ["check-roots", "check-roots-json", "audit"])
@pytest.mark.parametrize("second", ["absolute", "elsewhere"])
def test_an_answer_cached_under_a_relative_spelling_is_not_replayed_to_another_spelling(tree: Path, command, second):
    """Found by stranger s24a: ``MEMLS_MEMORY_DIRS=real/mem memls check``, then the same root spelled
    absolutely (or relatively from another directory) printed ``real/mem/...`` paths from the first run."""
    env = base_env(tree, Path(tempfile.mkdtemp(prefix="cache-", dir=tree)))
    args, extra = command_line(command, "real/mem", tree)
    memls(args, cwd=tree, env={**env, **extra}, cached=True)
    cwd = tree / "home"
    spelling = str(tree / "real" / "mem") if second == "absolute" else os.path.relpath(tree / "real" / "mem", cwd)
    args, extra = command_line(command, spelling, cwd)
    cached = memls(args, cwd=cwd, env={**env, **extra}, cached=True)
    assert cached == memls(args, cwd=cwd, env={**env, **extra}, cached=False)


def test_a_file_check_finds_the_error_after_a_check_of_its_root_through_a_link(tree: Path) -> None:
    """The tester's case: pre-commit from the git top after the user checked through ``/link``."""
    env = base_env(tree, tree / "cache-file-check")
    memls(["check", str(tree / "link" / "mem")], cwd=tree, env=env, cached=True)
    for spelled in ("real/mem/beta.md", "real/x/../mem/beta.md", str(tree / "real/x/../mem/beta.md")):
        status, out, err = memls(["check", spelled], cwd=tree, env=env, cached=True)
        assert status == 1 and "dangling-superseded-by" in out, (spelled, out, err)
        assert (status, out, err) == memls(["check", spelled], cwd=tree, env=env, cached=False)


def test_answers_name_paths_as_spelled_now_after_the_link_that_cached_them_is_gone(tmp_path: Path) -> None:
    """``audit`` and ``check`` once replayed the paths of a symlink that had since been re-pointed or removed."""
    for name in ("A", "B", "home"):
        (tmp_path / name).mkdir()
    (tmp_path / "A" / "beta.md").write_text(BROKEN, encoding="utf-8")
    (tmp_path / "A" / "bad.md").write_text(NOT_AN_ENTRY, encoding="utf-8")
    (tmp_path / "B" / "beta.md").write_text(FINE.replace("alpha", "beta"), encoding="utf-8")
    link = tmp_path / "L"
    link.symlink_to(tmp_path / "A", target_is_directory=True)
    time.sleep(2.2)
    env = base_env(tmp_path, tmp_path / "cache")
    through_link = {**env, "MEMLS_MEMORY_DIRS": str(link)}
    directly = {**env, "MEMLS_MEMORY_DIRS": str(tmp_path / "A")}
    for args in (["audit"], ["check"], ["check", "--format", "github"]):
        memls(args, cwd=tmp_path, env=through_link, cached=True)
    link.unlink()
    link.symlink_to(tmp_path / "B", target_is_directory=True)
    for args in (["audit"], ["check"], ["check", "--format", "github"], ["check", "A"]):
        answer = memls(args, cwd=tmp_path, env=directly, cached=True)
        assert str(link) not in answer[1], (args, answer)
        assert answer == memls(args, cwd=tmp_path, env=directly, cached=False), args
    link.unlink()
    for args in (["audit"], ["check"]):
        answer = memls(args, cwd=tmp_path, env=directly, cached=True)
        assert answer == memls(args, cwd=tmp_path, env=directly, cached=False), args
