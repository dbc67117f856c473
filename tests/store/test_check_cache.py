"""The check results cache: replayed only while every file a check reads is unchanged."""

from __future__ import annotations

import os
import time
from datetime import date
from pathlib import Path

import pytest

from memls.store.check_cache import check_roots
from memls.store.checks import CheckContext, check_workspace
from memls.store.model import Workspace
from memls.store.roots import MemoryRoot
from memls.store.settings import Settings

OLD = 1_600_000_000  # a settled mtime (2020)
TODAY = date(2026, 11, 30)


@pytest.fixture(autouse=True)
def looked_at_later(monkeypatch: pytest.MonkeyPatch) -> None:
    """Checks happen an hour after the writes, so every file has settled."""
    later = lambda: time.time_ns() + 3600 * 10**9  # noqa: E731
    monkeypatch.setattr("memls.store.check_cache.now_ns", later)
    monkeypatch.setattr("memls.store.reader.now_ns", later)
    monkeypatch.setattr("memls.store.model.now_ns", later)


def write(root: Path, filename: str, text: str) -> Path:
    path = root / filename
    path.write_text(text)
    os.utime(path, (OLD, OLD))
    return path


@pytest.fixture
def root(tmp_path: Path) -> MemoryRoot:
    directory = tmp_path / "memory"
    directory.mkdir()
    write(directory, "old.md", "---\nname: old\ndescription: d\nstatus: superseded\nsuperseded_by: new\n---\n")
    write(directory, "new.md", "---\nname: new\ndescription: d\n---\n")
    write(directory, "broken.md", "---\nname: broken\ndescription: d\nsupersedes: [gone]\n---\n")
    return MemoryRoot("project", directory)


def fresh(root: MemoryRoot, settings: Settings | None = None) -> dict:
    results = check_workspace(CheckContext(Workspace.load([root]), settings or Settings(), TODAY))
    return {path: problems for path, problems in results.items() if problems}


def test_first_run_checks_and_second_run_replays_the_same_problems(root: MemoryRoot, monkeypatch: pytest.MonkeyPatch) -> None:
    first = check_roots([root], Settings(), today=TODAY)
    assert first.workspace is not None
    assert first.results == fresh(root)
    assert first.documents == 4  # three entries and the missing MEMORY.md (index-missing)
    monkeypatch.setattr("memls.store.model.Workspace.load", lambda *a: pytest.fail("model loaded"))
    second = check_roots([root], Settings(), today=TODAY)
    assert second.workspace is None
    assert second.results == first.results
    assert second.documents == 4


@pytest.mark.parametrize("change", ["edit", "add", "delete", "index"])
def test_any_changed_file_is_checked_again_with_what_it_reaches(root: MemoryRoot, change: str) -> None:
    check_roots([root], Settings(), today=TODAY)
    directory = root.path
    if change == "edit":
        path = write(directory, "broken.md", "---\nname: broken\ndescription: d\n---\n")
        os.utime(path, (OLD + 5, OLD + 5))
    elif change == "add":
        write(directory, "gone.md", "---\nname: gone\ndescription: d\n---\n")
    elif change == "delete":
        (directory / "new.md").unlink()
    else:
        write(directory, "MEMORY.md", "# Persistent Memory\n")
    run = check_roots([root], Settings(), today=TODAY)
    assert run.how != "replayed"
    assert run.results == fresh(root)


def test_a_body_edit_rechecks_only_the_entries_sharing_a_name_with_it(root: MemoryRoot) -> None:
    write(root.path, "alone.md", "---\nname: alone\ndescription: d\n---\n")
    write(root.path, "MEMORY.md", Workspace.load([root]).roots[0].index_view.rendering())
    check_roots([root], Settings(), today=TODAY)
    path = write(root.path, "old.md", "---\nname: old\ndescription: d\nstatus: superseded\nsuperseded_by: new\n---\nmore\n")
    os.utime(path, (OLD + 5, OLD + 5))
    run = check_roots([root], Settings(), today=TODAY)
    assert (run.how, run.rechecked) == ("incremental", 2)  # old.md and new.md, which it links to
    assert run.results == fresh(root)


def test_other_severities_are_not_served_the_results_of_the_defaults(root: MemoryRoot) -> None:
    check_roots([root], Settings(), today=TODAY)
    quiet = Settings(severity={"missing-supersedes-target": "off"})
    run = check_roots([root], quiet, today=TODAY)
    assert run.workspace is not None
    assert all(p.code != "missing-supersedes-target" for ps in run.results.values() for p in ps)


def test_another_day_is_a_full_check(root: MemoryRoot) -> None:
    check_roots([root], Settings(), today=TODAY)
    assert check_roots([root], Settings(), today=date(2026, 12, 1)).workspace is not None


def test_files_inside_the_racy_window_are_not_remembered(root: MemoryRoot, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("memls.store.check_cache.now_ns", time.time_ns)
    (root.path / "new.md").touch()  # changed just now
    check_roots([root], Settings(), today=TODAY)
    assert check_roots([root], Settings(), today=TODAY).how != "replayed"


def racy_index_checked(root: MemoryRoot, text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """MEMORY.md written just now (``memls save``), then checked at once (a hook): its ``stat`` proves nothing."""
    (root.path / "MEMORY.md").write_text(text)
    with monkeypatch.context() as now:
        now.setattr("memls.store.check_cache.now_ns", time.time_ns)
        check_roots([root], Settings(), today=TODAY)


def test_a_memory_md_checked_while_racy_is_not_judged_again_while_its_bytes_stand(
    root: MemoryRoot, monkeypatch: pytest.MonkeyPatch
) -> None:
    check_roots([root], Settings(), today=TODAY)
    racy_index_checked(root, "# Memory\n\n- [new](new.md) \u2014 d\n- [gone](gone.md) \u2014 x\n", monkeypatch)
    run = check_roots([root], Settings(), today=TODAY)  # settled now: a new identity, the same bytes
    # The three entries were racy too (their ctimes are just now), and are re-checked: the index is not.
    assert (run.how, run.rechecked) == ("incremental", 3)
    assert run.results == fresh(root) and root.path / "MEMORY.md" in run.results
    assert check_roots([root], Settings(), today=TODAY).how == "replayed"


def test_a_memory_md_checked_while_racy_is_judged_again_once_its_bytes_changed(
    root: MemoryRoot, monkeypatch: pytest.MonkeyPatch
) -> None:
    check_roots([root], Settings(), today=TODAY)
    racy_index_checked(root, "# Memory\n\n- [new](new.md) \u2014 d\n- [gone](gone.md) \u2014 x\n", monkeypatch)
    index = root.path / "MEMORY.md"
    before = index.stat()
    index.write_text("# Memory\n\n- [new](new.md) \u2014 d\n- [none](none.md) \u2014 x\n")  # the same size
    os.utime(index, ns=(before.st_atime_ns, before.st_mtime_ns))
    run = check_roots([root], Settings(), today=TODAY)
    assert run.rechecked == 4  # the three racy entries, and the index
    assert run.results == fresh(root)
    assert "none.md" in " ".join(p.message for p in run.results[index])


def test_no_cache_variable_always_checks(root: MemoryRoot, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLS_NO_CACHE", "1")
    check_roots([root], Settings(), today=TODAY)
    assert check_roots([root], Settings(), today=TODAY).workspace is not None
    assert not list(Path(os.environ["MEMLS_CACHE_DIR"]).glob("*.results"))


@pytest.mark.parametrize("corrupt", [("results",), ("records",), ("results", "records")])
def test_a_corrupt_results_file_is_never_an_error(root: MemoryRoot, corrupt: tuple[str, ...]) -> None:
    check_roots([root], Settings(), today=TODAY)
    for suffix in corrupt:
        (location,) = Path(os.environ["MEMLS_CACHE_DIR"]).glob(f"*.{suffix}")
        location.write_bytes(location.read_bytes()[:40] + b"\x00garbage")
    run = check_roots([root], Settings(), today=TODAY)
    assert run.results == fresh(root)
    if len(corrupt) == 2:  # nothing left to go on: a full check
        assert run.workspace is not None


def test_an_index_problem_follows_the_name_line_of_an_entry_whose_yaml_does_not_load(tmp_path: Path) -> None:
    """Its index line does not change, but where its ``index-missing-entry`` points does."""
    directory = tmp_path / "memory"
    directory.mkdir()
    write(directory, "a.md", "---\nname: a\ndescription: d\n---\n")
    write(directory, "b.md", "---\nname: b\ndescription: e\nbad: [unclosed\n---\n")
    write(directory, "MEMORY.md", "# Persistent Memory\n\n## General\n- [a](a.md) — d\n- [x](x.md) — hand\n")
    root = MemoryRoot("project", directory)
    check_roots([root], Settings(), today=TODAY)
    path = write(directory, "b.md", "---\n# a comment\nname: b\ndescription: e\nbad: [unclosed\n---\n")
    os.utime(path, (OLD + 5, OLD + 5))
    run = check_roots([root], Settings(), today=TODAY)
    (missing,) = [p for p in run.results[directory / "MEMORY.md"] if p.code == "index-missing-entry"]
    assert missing.related[0].location.span.start_line == 2
    assert run.results == fresh(root)


def test_an_entry_added_to_a_generated_index_is_placed_by_every_entry_s_stored_line(tmp_path: Path) -> None:
    """The index is re-checked from the stored index fields of the entries that did not change."""
    directory = tmp_path / "memory"
    directory.mkdir()
    for name, type_ in (("a", "project"), ("b", "feedback"), ("d", "feedback"), ("e", "project")):
        write(directory, f"{name}.md", f"---\nname: {name}\ndescription: {name} it\nmetadata:\n  type: {type_}\n---\n")
    root = MemoryRoot("project", directory)
    write(directory, "MEMORY.md", Workspace.load([root]).roots[0].index_view.rendering())
    check_roots([root], Settings(), today=TODAY)
    write(directory, "c.md", "---\nname: c\ndescription: new\nmetadata:\n  type: feedback\n---\n")
    run = check_roots([root], Settings(), today=TODAY)
    assert (run.how, run.workspace) == ("incremental", None)  # the whole model was not loaded
    (missing,) = run.results[directory / "MEMORY.md"]
    assert missing.code == "index-missing-entry"
    assert run.results == fresh(root)
    assert [p.span for p in run.results[directory / "MEMORY.md"]] == [p.span for p in fresh(root)[directory / "MEMORY.md"]]


def test_a_change_too_small_to_pay_for_a_rewrite_leaves_the_records_and_is_rechecked_again(
    root: MemoryRoot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("memls.store.check_cache.REWRITE_FRACTION", 0)  # no change is ever large enough
    check_roots([root], Settings(), today=TODAY)
    (records,) = Path(os.environ["MEMLS_CACHE_DIR"]).glob("*.records")
    written = records.stat().st_mtime_ns, records.stat().st_ino
    path = write(root.path, "old.md", "---\nname: old\ndescription: d\nstatus: superseded\nsuperseded_by: new\n---\nmore\n")
    os.utime(path, (OLD + 5, OLD + 5))
    first = check_roots([root], Settings(), today=TODAY)
    assert (records.stat().st_mtime_ns, records.stat().st_ino) == written
    assert first.results == fresh(root)
    assert check_roots([root], Settings(), today=TODAY).how == "replayed"  # the answer itself was kept
    (root.path / "new.md").unlink()
    second = check_roots([root], Settings(), today=TODAY)
    # old.md again (changed against the records), new.md (gone), and the index it leaves.
    assert (second.how, second.rechecked) == ("incremental", 3)
    assert second.results == fresh(root)


def test_names_no_reader_can_open_are_problems_of_their_own_in_every_way_of_answering(root: MemoryRoot) -> None:
    """A directory and a dangling link named like entries: the listing marks them, a check says why."""
    (root.path / "folder.md").mkdir()
    (root.path / "dangling.md").symlink_to(root.path / "nowhere.md")
    first = check_roots([root], Settings(), today=TODAY)
    assert first.results == fresh(root)
    assert {root.path / "folder.md", root.path / "dangling.md"} <= first.results.keys()
    assert check_roots([root], Settings(), today=TODAY).results == first.results  # replayed
    path = write(root.path, "new.md", "---\nname: new\ndescription: changed\n---\n")
    os.utime(path, (OLD + 5, OLD + 5))
    (root.path / "other.md").mkdir()
    run = check_roots([root], Settings(), today=TODAY)
    assert run.how == "incremental"
    assert run.results == fresh(root)
    assert root.path / "other.md" in run.results


def generated_index(root: MemoryRoot) -> None:
    write(root.path, "MEMORY.md", Workspace.load([root]).roots[0].index_view.rendering())


def test_a_changed_description_leaves_the_problems_of_an_index_judged_from_its_text_alone(tmp_path: Path) -> None:
    """The entry's line moves, but an index without line findings is judged from its own text."""
    root = MemoryRoot("project", tmp_path / "memory")
    root.path.mkdir()
    for n in range(210):  # past Claude Code's 200 lines: the index has a problem of its own
        write(root.path, f"e{n:03d}.md", f"---\nname: e{n:03d}\ndescription: d\n---\n")
    generated_index(root)
    check_roots([root], Settings(), today=TODAY)
    path = write(root.path, "e007.md", '---\nname: e007\ndescription: "Reworded"\n---\n')
    os.utime(path, (OLD + 5, OLD + 5))
    run = check_roots([root], Settings(), today=TODAY)
    assert (run.how, run.rechecked) == ("incremental", 1)  # the entry alone, not MEMORY.md
    (limit,) = run.results[root.path / "MEMORY.md"]
    assert limit.code == "index-beyond-claude-code-limit"
    assert run.results == fresh(root)


def test_a_changed_description_re_places_the_missing_lines_of_a_curated_index(tmp_path: Path) -> None:
    """Where a missing entry's line goes is read from the rendering: that index is judged again."""
    root = MemoryRoot("project", tmp_path / "memory")
    root.path.mkdir()
    for name in ("a", "b", "c"):
        write(root.path, f"{name}.md", f"---\nname: {name}\ndescription: d\n---\n")
    generated_index(root)
    index = root.path / "MEMORY.md"
    write(root.path, "MEMORY.md", "".join(line for line in index.read_text().splitlines(keepends=True)
                                          if "(b.md)" not in line))
    (before,) = check_roots([root], Settings(), today=TODAY).results[index]
    path = write(root.path, "a.md", "---\nname: a\ndescription: reworded\n---\n")
    os.utime(path, (OLD + 5, OLD + 5))
    run = check_roots([root], Settings(), today=TODAY)
    (after,) = run.results[index]
    assert after.code == "index-missing-entry"
    assert after.span != before.span  # a's line no longer matches the rendering's
    assert run.results == fresh(root)


def test_a_renamed_entry_leaves_the_index_problems_standing_while_its_line_still_points_at_it(tmp_path: Path) -> None:
    root = MemoryRoot("project", tmp_path / "memory")
    root.path.mkdir()
    for name in ("a", "b", "c"):
        write(root.path, f"{name}.md", f"---\nname: {name}\ndescription: d\n---\n")
    generated_index(root)
    check_roots([root], Settings(), today=TODAY)
    path = write(root.path, "b.md", "---\nname: renamed\ndescription: d\n---\n")
    os.utime(path, (OLD + 5, OLD + 5))
    run = check_roots([root], Settings(), today=TODAY)
    assert (run.how, run.rechecked) == ("incremental", 1)  # b.md alone: its line still points at it
    assert run.results == fresh(root)


@pytest.mark.parametrize("change", ["retired", "deleted", "yaml broken"])
def test_a_listed_entry_that_stops_living_gets_its_line_problem_without_the_index_judged_again(
    tmp_path: Path, change: str
) -> None:
    """An index without line findings gains the changed entry's, found from that entry's line alone."""
    root = MemoryRoot("project", tmp_path / "memory")
    root.path.mkdir()
    for n in range(210):  # past Claude Code's 200 lines: the index has a problem of its own, which stays
        write(root.path, f"e{n:03d}.md", f"---\nname: e{n:03d}\ndescription: d\n---\n")
    generated_index(root)
    check_roots([root], Settings(), today=TODAY)
    path = root.path / "e007.md"
    if change == "deleted":
        path.unlink()
    else:
        text = "---\nname: e007\ndescription: d\nstatus: historical\n---\n"
        write(root.path, "e007.md", text if change == "retired" else "---\nname: [e007\n---\n")
        os.utime(path, (OLD + 5, OLD + 5))
    run = check_roots([root], Settings(), today=TODAY)
    assert run.how == "incremental" and run.rechecked == 1  # the entry alone, not MEMORY.md
    codes = sorted(problem.code for problem in run.results[root.path / "MEMORY.md"])
    # A file whose YAML does not load keeps its place under the name it had (no finding).
    line_codes = {"retired": ["index-lists-non-living"], "deleted": ["index-broken-link"], "yaml broken": []}[change]
    assert codes == sorted([*line_codes, "index-beyond-claude-code-limit"])
    assert run.results == fresh(root)
    # With a line finding now, the next change of an entry's line judges the index again.
    write(root.path, "e008.md", "---\nname: e008\ndescription: d\nstatus: historical\n---\n")
    os.utime(root.path / "e008.md", (OLD + 6, OLD + 6))
    again = check_roots([root], Settings(), today=TODAY)
    assert again.results == fresh(root)
    if line_codes:
        assert again.rechecked == 2  # e008 and MEMORY.md


@pytest.mark.parametrize("change", ["the shown file is renamed", "a retired file takes the name and lives"])
def test_a_file_a_name_change_shows_is_judged_for_its_missing_line(tmp_path: Path, change: str) -> None:
    """Which file of a name the index shows moves with another file's change: that file is judged too."""
    root = MemoryRoot("project", tmp_path / "memory")
    root.path.mkdir()
    if change == "the shown file is renamed":
        write(root.path, "a.md", "---\nname: n\ndescription: d\n---\n")
        write(root.path, "b.md", "---\nname: n\ndescription: d\n---\n")  # shadowed by a.md: no line
        changed, text = "a.md", "---\nname: other\ndescription: d\n---\n"
        missing = "b.md"
    else:
        write(root.path, "a.md", "---\nname: p\ndescription: d\nstatus: historical\n---\n")  # no line
        write(root.path, "b.md", "---\nname: n\ndescription: d\n---\n")
        changed, text = "a.md", "---\nname: n\ndescription: d\nstatus: living\n---\n"
        missing = "a.md"  # it shadows b.md now, and has no line
    generated_index(root)
    assert root.path / "MEMORY.md" not in check_roots([root], Settings(), today=TODAY).results
    path = write(root.path, changed, text)
    os.utime(path, (OLD + 5, OLD + 5))
    run = check_roots([root], Settings(), today=TODAY)
    (problem,) = run.results[root.path / "MEMORY.md"]
    assert (problem.code, problem.data["filename"]) == ("index-missing-entry", missing)
    assert run.results == fresh(root)


def test_a_replay_names_every_path_as_the_check_did(tmp_path: Path) -> None:
    """Paths are stored as their text and made again as children of their directory: the same paths, spelled the same."""
    directory = tmp_path / "wörk dir" / "memory"
    directory.mkdir(parents=True)
    write(directory, "a b.md", "---\nname: a b\ndescription: d\nsupersedes: [gone]\n---\n")
    write(directory, "ünï.md", "---\nname: other\ndescription: d\n---\n")
    root = MemoryRoot("project", directory)
    first = check_roots([root], Settings(), today=TODAY)
    second = check_roots([root], Settings(), today=TODAY)
    assert second.how == "replayed" and second.results == first.results
    spelled = [(type(p), str(p), [(type(q.path), str(q.path)) for q in problems]) for p, problems in first.results.items()]
    assert [(type(p), str(p), [(type(q.path), str(q.path)) for q in problems])
            for p, problems in second.results.items()] == spelled
    assert all(q.path is path for path, problems in second.results.items() for q in problems if q.path == path)


def _placed_alike_in_every_unit(path: Path, problems: list) -> bool:
    """The oracle: an ASCII file whose problems' spans all lie inside its lines."""
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    return text.isascii() and all(
        0 <= line < len(lines) and 0 <= col <= len(lines[line])
        for problem in problems for line, col in ((problem.span[0], problem.span[1]), (problem.span[2], problem.span[3])))


def test_every_way_of_answering_says_which_files_problems_are_placed_alike_in_every_unit(tmp_path: Path) -> None:
    """A reader converting positions to a client's units (UTF-16) skips reading those files (run.plain)."""
    directory = tmp_path / "memory"
    directory.mkdir()
    write(directory, "plain.md", "---\nname: plain\ndescription: d\nsupersedes: [gone]\n---\n")
    write(directory, "wide.md", "---\nname: wide\ndescription: \U0001F600 d\nsupersedes: [\"\U0001F600 gone\"]\n---\n")
    write(directory, "later.md", "---\nname: later\ndescription: d\nsupersedes: [gone]\n---\n\u00e9t\u00e9\n")
    root = MemoryRoot("project", directory)

    def expected(run) -> dict:
        return {path: len(path.read_text(encoding="utf-8")) for path, problems in run.results.items()
                if path.exists() and _placed_alike_in_every_unit(path, problems)}

    first = check_roots([root], Settings(), today=TODAY)
    assert first.how == "full"
    assert first.plain == expected(first) and directory / "plain.md" in first.plain
    assert directory / "wide.md" in first.results and directory / "wide.md" not in first.plain
    assert directory / "later.md" in first.results and directory / "later.md" not in first.plain
    replayed = check_roots([root], Settings(), today=TODAY)
    assert replayed.how == "replayed" and replayed.plain == first.plain
    # An edit that brings a wide character to the plain file, and one that takes it out of the wide one.
    path = write(directory, "plain.md", "---\nname: plain\ndescription: \u00e9\nsupersedes: [gone]\n---\n")
    os.utime(path, (OLD + 5, OLD + 5))
    path = write(directory, "wide.md", "---\nname: wide\ndescription: d\nsupersedes: [gone2]\n---\n")
    os.utime(path, (OLD + 5, OLD + 5))
    changed = check_roots([root], Settings(), today=TODAY)
    assert changed.how == "incremental"
    assert changed.plain == expected(changed) and directory / "wide.md" in changed.plain
    assert directory / "plain.md" not in changed.plain
    again = check_roots([root], Settings(), today=TODAY)
    assert again.how == "replayed" and again.plain == changed.plain


def test_the_state_a_replay_is_keyed_by_depends_on_the_files_identities_alone(tmp_path: Path) -> None:
    """Equal listings give one key, whichever of their values are shared objects or interned strings."""
    import sys

    from memls.store.check_cache import _Listing, _state_digest

    root = MemoryRoot("project", tmp_path)
    stamp = (10, 2, 3, 4, 5)
    shared = _Listing(root, {sys.intern("a.md"): stamp, sys.intern("b.md"): stamp}, set(), (stamp, None, False))
    names = ["".join(["a", ".md"]), "".join(["b", ".md"])]
    apart = _Listing(root, {name: tuple(list(stamp)) for name in names}, set(), (tuple(list(stamp)), None, False))
    assert _state_digest([shared]) == _state_digest([apart])


def test_a_change_beside_an_index_trimmed_on_purpose_reads_only_the_entries_its_one_warning_names(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The index lacks 39 living entries: its one ``index-missing-entry`` names the first ten, and a
    check after one entry changed loads those and the changed one, not all 39."""
    directory = tmp_path / "memory"
    directory.mkdir()
    for i in range(40):
        write(directory, f"e{i:02d}.md", f"---\nname: e{i:02d}\ndescription: entry {i}\n---\n")
    write(directory, "MEMORY.md", "# Mine\n\n- [e00](e00.md) \u2014 the one I keep\n")
    root = MemoryRoot("project", directory)
    check_roots([root], Settings(), today=TODAY)
    path = write(directory, "e30.md", "---\nname: e30\ndescription: entry 30, longer now\n---\n")
    os.utime(path, (OLD + 5, OLD + 5))
    loaded: list[str] = []
    load_document = Workspace.load_document

    def counted(self, path, *args, **kwargs):
        loaded.append(path.name)
        return load_document(self, path, *args, **kwargs)

    monkeypatch.setattr(Workspace, "load_document", counted)
    run = check_roots([root], Settings(), today=TODAY)
    monkeypatch.undo()
    assert (run.how, run.workspace) == ("incremental", None)
    assert run.results == fresh(root)
    (missing,) = [p for p in run.results[directory / "MEMORY.md"] if p.code == "index-missing-entry"]
    assert missing.data["missing"] == 39
    assert "e30.md" in loaded and len(set(loaded)) <= 1 + 1 + 10  # MEMORY.md, e30.md and the ten named


@pytest.mark.timeout(30)  # a FIFO opened for reading blocks
def test_an_index_no_reader_can_open_is_told_from_an_absent_one_in_every_way_of_answering(root: MemoryRoot) -> None:
    """A FIFO ``MEMORY.md`` is reported as unreadable, not missing; removed, the index is missing again."""
    index = root.path / "MEMORY.md"
    os.mkfifo(index)
    first = check_roots([root], Settings(), today=TODAY)
    assert first.results == fresh(root)
    assert [p.code for p in first.results[index]] == ["invalid-entry"]
    assert check_roots([root], Settings(), today=TODAY).results == first.results  # replayed
    index.unlink()
    run = check_roots([root], Settings(), today=TODAY)
    assert [p.code for p in run.results[index]] == ["index-missing"]
    assert run.results == fresh(root)
    index.symlink_to("/dev/zero")
    run = check_roots([root], Settings(), today=TODAY)
    assert [p.code for p in run.results[index]] == ["invalid-entry"]
    assert run.results == fresh(root)
