"""A server start's replay of the last check: only over the files it was computed from, and only one stack."""

from __future__ import annotations

import os
import time
from datetime import date
from pathlib import Path

import pytest

from memls.store.checks import CheckContext, check_workspace
from memls.store.model import Workspace
from memls.store.roots import MemoryRoot
from memls.store.settings import Settings
from memls.store.warm_start import check_started, start_listing, warm_start

OLD = 1_600_000_000  # a settled mtime (2020)
TODAY = date(2026, 11, 30)


@pytest.fixture(autouse=True)
def looked_at_later(monkeypatch: pytest.MonkeyPatch) -> None:
    """The starts happen an hour after the writes, so every file has settled."""
    later = lambda: time.time_ns() + 3600 * 10**9  # noqa: E731
    for module in ("check_cache", "replay", "reader", "model"):
        monkeypatch.setattr(f"memls.store.{module}.now_ns", later)


def write(root: Path, filename: str, text: str) -> None:
    (root / filename).write_text(text)
    os.utime(root / filename, (OLD, OLD))


@pytest.fixture
def root(tmp_path: Path) -> MemoryRoot:
    directory = tmp_path / "memory"
    directory.mkdir()
    write(directory, "a.md", "---\nname: a\ndescription: first\nsupersedes:\n  - ghost\n---\n")
    write(directory, "b.md", "---\nname: b\ndescription: [unclosed\n---\n")
    write(directory, "MEMORY.md", "# Memory\n\n- [a](a.md) \u2014 first\n")
    return MemoryRoot("project", directory)


def first_start(root: MemoryRoot, settings: Settings) -> dict:
    """A start that finds nothing to replay: the model is loaded and checked, and the results kept once shown."""
    listing = start_listing({"folder": [root]})
    assert listing is not None
    assert warm_start(listing, settings, today=TODAY) is None
    checked = check_started(listing, settings, Workspace.load([root]), today=TODAY)
    assert checked is not None
    results, keep = checked
    keep()
    return results


def test_a_start_over_unchanged_files_replays_what_the_first_start_found(root: MemoryRoot):
    settings = Settings()
    found = first_start(root, settings)
    listing = start_listing({"folder": [root]})
    assert listing is not None
    warm = warm_start(listing, settings, today=TODAY)
    assert warm is not None
    assert warm.results == found
    expected = check_workspace(CheckContext(Workspace.load([root]), settings, TODAY))
    assert warm.results == {path: problems for path, problems in expected.items() if problems}
    assert warm.entries == 2
    assert warm.still_current()


def test_a_full_starts_results_are_replayed_only_once_the_caller_keeps_them(root: MemoryRoot):
    """Storing every record waits until the problems are shown: until then the next start checks in full."""
    settings = Settings()
    listing = start_listing({"folder": [root]})
    assert listing is not None
    checked = check_started(listing, settings, Workspace.load([root]), today=TODAY)
    assert checked is not None
    results, keep = checked
    assert warm_start(start_listing({"folder": [root]}), settings, today=TODAY) is None  # type: ignore[arg-type]
    keep()
    warm = warm_start(start_listing({"folder": [root]}), settings, today=TODAY)  # type: ignore[arg-type]
    assert warm is not None and warm.how == "replayed" and warm.results == results


def test_a_file_changed_after_the_replay_makes_it_stale(root: MemoryRoot):
    settings = Settings()
    first_start(root, settings)
    listing = start_listing({"folder": [root]})
    assert listing is not None
    warm = warm_start(listing, settings, today=TODAY)
    assert warm is not None
    write(root.path, "c.md", "---\nname: c\ndescription: third\n---\n")
    assert not warm.still_current()


def test_a_start_after_files_changed_rechecks_them_from_the_stored_results_and_the_next_replays_once_kept(
        root: MemoryRoot):
    """The answer is stored only when the caller keeps it (once shown): until then a start re-checks again."""
    settings = Settings()
    first_start(root, settings)
    write(root.path, "a.md", "---\nname: a\ndescription: first\n---\n")  # its dangling link removed
    write(root.path, "c.md", "---\nname: c\ndescription: third\nsuperseded_by: a\n---\n")  # a one-sided link
    (root.path / "b.md").unlink()
    listing = start_listing({"folder": [root]})
    assert listing is not None
    warm = warm_start(listing, settings, today=TODAY)
    assert warm is not None and warm.how == "incremental"
    expected = check_workspace(CheckContext(Workspace.load([root]), settings, TODAY))
    assert warm.results == {path: problems for path, problems in expected.items() if problems}
    assert root.path / "c.md" in warm.results and root.path / "b.md" not in warm.results
    before_kept = warm_start(start_listing({"folder": [root]}), settings, today=TODAY)  # type: ignore[arg-type]
    assert before_kept is not None and before_kept.how == "incremental" and before_kept.results == warm.results
    warm.keep()
    again = warm_start(start_listing({"folder": [root]}), settings, today=TODAY)  # type: ignore[arg-type]
    assert again is not None and again.how == "replayed" and again.results == warm.results


@pytest.mark.parametrize("filename", ["c.md", "MEMORY.md"])
def test_a_start_while_a_file_is_racy_checks_the_model_in_full(root: MemoryRoot, filename: str):
    """A file changed within the racy window may change again unseen: the model must read the bytes checked."""
    settings = Settings()
    first_start(root, settings)
    (root.path / filename).write_text("---\nname: c\ndescription: third\n---\n")
    soon = time.time_ns() + 3600 * 10**9  # "now" as the starts see it (looked_at_later)
    os.utime(root.path / filename, ns=(soon, soon))
    listing = start_listing({"folder": [root]})
    assert listing is not None
    assert warm_start(listing, settings, today=TODAY) is None


def test_a_start_whose_managed_index_must_be_judged_again_checks_the_model_in_full(root: MemoryRoot):
    """A policy's index is judged against every entry: only the model the start loads anyway can tell."""
    settings = Settings()
    write(root.path, ".memory-index.json", '{"version": 1, "selected": ["a.md"]}')
    first_start(root, settings)
    write(root.path, ".memory-index.json", '{"version": 1, "selected": ["a.md", "b.md"]}')
    listing = start_listing({"folder": [root]})
    assert listing is not None
    assert warm_start(listing, settings, today=TODAY) is None


def test_another_day_or_other_severities_are_not_replayed(root: MemoryRoot):
    first_start(root, Settings())
    listing = start_listing({"folder": [root]})
    assert listing is not None
    assert warm_start(listing, Settings(), today=date(2026, 12, 1)) is None
    assert warm_start(listing, Settings(severity={"dangling-supersedes": "off"}), today=TODAY) is None


def test_several_stacks_never_replay(root: MemoryRoot, tmp_path: Path):
    other = tmp_path / "other"
    other.mkdir()
    assert start_listing({"one": [root], "two": [MemoryRoot("project", other)]}) is None


def test_a_model_holding_other_roots_is_not_kept(root: MemoryRoot, tmp_path: Path):
    listing = start_listing({"folder": [root]})
    assert listing is not None
    other = tmp_path / "other"
    other.mkdir()
    workspace = Workspace.load([root, MemoryRoot("explicit", other)])
    assert check_started(listing, Settings(), workspace, today=TODAY) is None
