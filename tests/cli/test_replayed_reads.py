"""``list``, ``index`` and ``show`` print what a full read prints, replayed or not."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from memls.cli import CHECK_FORMATS
from memls.store.report import FORMATS

from .conftest import Run

OLD = 1_600_000_000  # a settled mtime (2020)


@pytest.fixture(autouse=True)
def looked_at_later(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reads happen an hour after the writes, so every file has settled and views are stored."""
    later = lambda: time.time_ns() + 3600 * 10**9  # noqa: E731
    monkeypatch.setattr("memls.store.replay.now_ns", later)
    monkeypatch.setattr("memls.store.reader.now_ns", later)


def write(memory_dir: Path, filename: str, name: str, description: str, type_: str = "general") -> None:
    memory_dir.mkdir(exist_ok=True)
    path = memory_dir / filename
    path.write_text(f"---\nname: {name}\ndescription: {description}\nmetadata:\n  type: {type_}\n---\nbody\n")
    os.utime(path, (OLD, OLD))


READS = (("list",), ("list", "--type", "feedback"), ("index",), ("index", "--budget", "90"),
         ("show", "alpha"), ("show", "beta"))


def outputs(run: Run, **kwargs) -> list[tuple[int, str, str]]:
    results = [run(*args, **kwargs) for args in READS]
    return [(r.exit_code, r.stdout, r.stderr) for r in results]


def test_replayed_reads_print_what_a_full_read_prints_before_and_after_a_change(
    run: Run, memory_dir: Path
) -> None:
    write(memory_dir, "alpha.md", "alpha", "first", "feedback")
    write(memory_dir, "beta.md", "beta", "second")
    (memory_dir / "junk.md").write_bytes(b"\xff")
    os.utime(memory_dir / "junk.md", (OLD, OLD))
    first = outputs(run)
    assert outputs(run) == first  # replayed
    assert first == outputs(run, env={"MEMLS_NO_CACHE": "1"})
    assert "1 file(s) skipped" in first[0][2]
    write(memory_dir, "beta.md", "beta", "second, edited", "feedback")
    write(memory_dir, "gamma.md", "gamma", "third", "feedback")
    after = outputs(run)
    assert after != first
    assert after == outputs(run, env={"MEMLS_NO_CACHE": "1"})
    assert "gamma" in after[0][1] and "second, edited" in after[4 + 1][1]


def test_check_formats_offered_are_the_reports_formats() -> None:
    assert CHECK_FORMATS == FORMATS


def test_a_list_view_is_replayed_only_to_the_code_that_formatted_it(
    run: Run, memory_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(memory_dir, "alpha.md", "alpha", "first")
    before = run("list").stdout
    monkeypatch.setattr("memls.reads.entry_line", lambda entry: f"* {entry.name}")
    monkeypatch.setattr("memls.reads._source_digest", lambda: "another formatter")
    assert run("list").stdout == "* alpha\n" != before
