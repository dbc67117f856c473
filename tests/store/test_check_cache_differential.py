"""Checks re-run only where files changed give exactly what a full check gives.

A differential property: random sequences of real file changes in two
layered roots (edits of a name, status or supersession link, new files,
deletes, renames, rewordings of a description, title or type in place (the
entry's index line moves, nothing else), YAML that stops loading, hand edits of ``MEMORY.md``, an
index policy, rewrites of the same size with the same mtime, touches
without a change, checks while files are inside the racy window), and after
each, ``check_roots`` with its cache must equal a full check without one
(``MEMLS_NO_CACHE=1``): the same paths in the same order, the same problems
in the same order, with the same spans, messages, related locations and
data, and the same document count.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from memls.store.cache import RACY_WINDOW_NS
from memls.store.check_cache import check_roots
from memls.store.model import Workspace
from memls.store.roots import MemoryRoot
from memls.store.settings import Settings
from memls.store.warm_start import check_started, start_listing, warm_start

TODAY = date(2026, 11, 30)
NAMES = ["alpha", "beta", "gamma", "Alpha", "memory-x"]
FILES = ["alpha.md", "beta.md", "gamma.md", "other.md", "memory-notes.md"]
STATUSES = ["living", "superseded", "historical", "bogus", None]
HOUR_NS = 3600 * 10**9
# A title whose rendered line parses as a pointer to a file that is not there: a generated index with a broken line.
POINTS_ELSEWHERE = '"x](gone.md) — y [z"'
# New values of a description, title or type.
REWORDINGS = ["d", "e", "project", "user", "Reworded", POINTS_ELSEWHERE]

names = st.sampled_from(NAMES)
entry_text = st.builds(
    lambda name, status, supersedes, successor, description, body, recheck, type_, title: "".join([
        "---\n",
        f"name: {name}\n",
        f"description: {description}\n",
        f"title: {title}\n" if title else "",
        f"metadata:\n  type: {type_}\n" if type_ else "",
        f"status: {status}\n" if status else "",
        f"supersedes: [{', '.join(supersedes)}]\n" if supersedes else "",
        f"superseded_by: {successor}\n" if successor else "",
        f"recheck: {recheck}\n" if recheck else "",
        "---\n",
        body,
    ]),
    names, st.sampled_from(STATUSES), st.lists(names, max_size=2), st.none() | names,
    st.sampled_from(["d", "e", "two words"]), st.sampled_from(["", "body\n", "other body\n"]),
    st.sampled_from([None, "2020-01-01", "2030-01-01"]), st.sampled_from([None, "project", "feedback"]),
    st.sampled_from([None, "A title"]),
)
broken_text = st.builds(lambda name: f"---\nname: {name}\ndescription: [unclosed\n---\n", names)

operation = st.one_of(
    st.tuples(st.just("write"), st.integers(0, 1), st.sampled_from(FILES), entry_text | broken_text),
    st.tuples(st.just("delete"), st.integers(0, 1), st.sampled_from(FILES)),
    st.tuples(st.just("rename"), st.integers(0, 1), st.sampled_from(FILES), st.sampled_from(FILES)),
    st.tuples(st.just("same-size"), st.integers(0, 1), st.sampled_from(FILES)),
    st.tuples(st.just("touch"), st.integers(0, 1), st.sampled_from(FILES)),
    st.tuples(st.just("reword"), st.integers(0, 1), st.sampled_from(FILES),
              st.sampled_from(["description", "title", "type"]), st.sampled_from(REWORDINGS)),
    st.tuples(st.just("index"), st.integers(0, 1), st.sampled_from(["generate", "drop-line", "junk", "delete"])),
    st.tuples(st.just("policy"), st.integers(0, 1), st.sampled_from(['{"version": 1, "budget": 4000, '
                                                                    '"selected": ["alpha.md"]}', "{", None])),
    st.tuples(st.just("racy-check")),
)


@contextmanager
def scratch_with_cache(monkeypatch: pytest.MonkeyPatch, prefix: str) -> Iterator[tuple[Clock, Path]]:
    """A scratch directory whose ``cache`` the runs in it share, and the clock the caches read (:class:`Clock`).

    One per Hypothesis example (pytest's ``tmp_path`` is one per test), removed after it.
    """
    clock = Clock()
    for module in ("check_cache", "reader", "model", "replay"):
        monkeypatch.setattr(f"memls.store.{module}.now_ns", clock)
    base = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        monkeypatch.setenv("MEMLS_CACHE_DIR", str(base / "cache"))
        monkeypatch.delenv("MEMLS_NO_CACHE", raising=False)
        yield clock, base
    finally:
        shutil.rmtree(base, ignore_errors=True)


class Clock:
    """What ``now_ns`` the caches see: an hour after the writes, or right now (racy)."""

    def __init__(self) -> None:
        self.offset = HOUR_NS

    def __call__(self) -> int:
        return time.time_ns() + self.offset


def apply(op: tuple, roots: list[MemoryRoot]) -> None:
    kind = op[0]
    if kind == "racy-check":
        return
    directory = roots[op[1]].path
    if kind == "write":
        (directory / op[2]).write_text(op[3])
    elif kind == "delete":
        (directory / op[2]).unlink(missing_ok=True)
    elif kind == "rename":
        if (directory / op[2]).exists():
            os.replace(directory / op[2], directory / op[3])
    elif kind == "same-size":
        path = directory / op[2]
        if path.exists():
            st_before = path.stat()
            data = path.read_bytes()
            changed = data.replace(b"d\n", b"x\n", 1) if b"d\n" in data else data[::-1]
            path.write_bytes(changed)
            os.utime(path, ns=(st_before.st_atime_ns, st_before.st_mtime_ns))
    elif kind == "touch":
        path = directory / op[2]
        if path.exists():
            os.utime(path)
    elif kind == "reword":
        path = directory / op[2]
        if path.exists():
            key = {"type": "  type"}.get(op[3], op[3])
            text = path.read_text()
            if key == "status" and not re.search(r"(?m)^status: ", text):
                text = text.replace("\n---\n", "\nstatus: living\n---\n", 1)
            path.write_text(re.sub(rf"(?m)^{key}: .*$", f"{key}: {op[4]}", text, count=1))
    elif kind == "index":
        index = directory / "MEMORY.md"
        if op[2] == "delete":
            index.unlink(missing_ok=True)
            return
        rendering = Workspace.load([roots[op[1]]]).roots[0].index_view.rendering()
        if op[2] == "drop-line":
            lines = rendering.split("\n")
            rendering = "\n".join(line for line in lines if "alpha" not in line)
        elif op[2] == "junk":
            rendering += "- [gone](gone.md) — a hand-written line\n"
        index.write_text(rendering)
    elif kind == "policy":
        policy = directory / ".memory-index.json"
        if op[2] is None:
            policy.unlink(missing_ok=True)
        else:
            policy.write_text(op[2])


def layered_roots(base: Path, initial: list) -> list[MemoryRoot]:
    """A project and a user root under ``base``, holding the ``initial`` (root, file name, text) files."""
    roots = [MemoryRoot("project", base / "project"), MemoryRoot("user", base / "user")]
    for root in roots:
        root.path.mkdir()
    for i, filename, text in initial:
        (roots[i].path / filename).write_text(text)
    return roots


def full(roots: list[MemoryRoot]):
    os.environ["MEMLS_NO_CACHE"] = "1"
    try:
        return check_roots(roots, Settings(), today=TODAY)
    finally:
        del os.environ["MEMLS_NO_CACHE"]


def exactly(run) -> tuple:
    """Everything a caller can see of a run, in order, the problems' data included."""
    return (
        run.documents,
        [(path, [(p, p.data) for p in problems]) for path, problems in run.results.items()],
    )


@pytest.mark.parametrize("records_kept", ["rewritten", "left-stale"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@example(  # MEMORY.md checked while racy (kept by its bytes), then rewritten: judged again
    initial=[(0, "alpha.md", "---\nname: alpha\ndescription: d\n---\n")],
    operations=[("index", 0, "generate"), ("racy-check",), ("index", 0, "junk")],
)
@given(initial=st.lists(st.tuples(st.integers(0, 1), st.sampled_from(FILES), entry_text), max_size=6),
       operations=st.lists(operation, min_size=1, max_size=12))
def test_incremental_check_equals_a_full_check_after_any_file_changes(
    records_kept: str, initial: list, operations: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``left-stale``: the per-file records are rewritten only when the index moved, as after the
    small changes of a large root, so runs answer from records many changes old."""
    if records_kept == "left-stale":
        monkeypatch.setattr("memls.store.check_cache.REWRITE_FRACTION", 0)  # no change is large enough
    with scratch_with_cache(monkeypatch, "memls-differential-") as (clock, base):
        roots = layered_roots(base, initial)
        assert exactly(check_roots(roots, Settings(), today=TODAY)) == exactly(full(roots))
        for op in operations:
            apply(op, roots)
            clock.offset = 0 if op[0] == "racy-check" else HOUR_NS
            run = check_roots(roots, Settings(), today=TODAY)
            event(f"answered: {run.how}")
            assert exactly(run) == exactly(full(roots)), op


def started(roots: list[MemoryRoot]) -> tuple[str, list, Callable[[], None]]:
    """A language server's start: from the stored results when they can answer, else the model checked in full.

    With what stores the answer (re-checked or checked in full), which the server runs once it has shown it.
    """
    listing = start_listing({"folder": roots})
    assert listing is not None
    warm = warm_start(listing, Settings(), today=TODAY)
    if warm is not None:
        how, results, keep = warm.how, warm.results, warm.keep
    else:
        checked = check_started(listing, Settings(), Workspace.load(roots), today=TODAY)
        assert checked is not None
        how, (results, keep) = "full", checked
    return how, [(path, [(p, p.data) for p in problems]) for path, problems in results.items()], keep


# When a start stores what it re-checked: at once, after the next change (the server was slow to get
# there), or never (it stopped first).
KEPT = ["at once", "after the next change", "never"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(initial=st.lists(st.tuples(st.integers(0, 1), st.sampled_from(FILES), entry_text), max_size=6),
       operations=st.lists(st.tuples(operation, st.sampled_from(KEPT)), min_size=1, max_size=12))
def test_a_start_from_the_stored_results_equals_a_full_check_after_any_file_changes(
    initial: list, operations: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files change while no server runs; each start answers from the last one's results where it can
    (replayed, or the changed files re-checked), never while a file is racy, and always as a full check,
    whenever the start before stored what it re-checked, or if it never did."""
    with scratch_with_cache(monkeypatch, "memls-differential-") as (clock, base):
        roots = layered_roots(base, initial)
        assert started(roots)[:2] == ("full", exactly(full(roots))[1])
        pending: Callable[[], None] | None = None
        for op, kept in operations:
            apply(op, roots)
            if pending is not None:
                pending()
                pending = None
            clock.offset = 0 if op[0] == "racy-check" else HOUR_NS
            how, results, keep = started(roots)
            after = time.time_ns()
            event(f"started: {how}")
            assert results == exactly(full(roots))[1], op
            if kept == "at once":
                keep()
            elif kept == "after the next change":
                pending = keep
            # Written less than the racy window before the start looked, whatever this machine's speed.
            racy = clock.offset == 0 and any(path.stat().st_mtime_ns >= after - RACY_WINDOW_NS
                                             for root in roots if root.path.is_dir() for path in root.path.iterdir())
            if racy:
                assert how == "full", "a racy file was answered from stored results"


def test_the_property_reaches_every_way_of_answering(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The three ways (replayed, the component, full) each answer in the property's setting."""
    monkeypatch.setattr("memls.store.check_cache.now_ns", Clock())
    monkeypatch.setenv("MEMLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("MEMLS_NO_CACHE", raising=False)
    root = MemoryRoot("project", tmp_path / "memory")
    root.path.mkdir()
    (root.path / "alpha.md").write_text("---\nname: alpha\ndescription: d\n---\n")
    (root.path / "beta.md").write_text("---\nname: beta\ndescription: d\nsupersedes: [alpha]\n---\n")
    assert check_roots([root], Settings(), today=TODAY).how == "full"
    assert check_roots([root], Settings(), today=TODAY).how == "replayed"
    (root.path / "beta.md").write_text("---\nname: beta\ndescription: d\nsupersedes: [alpha]\n---\nbody\n")
    run = check_roots([root], Settings(), today=TODAY)
    assert (run.how, run.rechecked) == ("incremental", 2)
    assert exactly(run) == exactly(full([root]))


living_entry = st.builds(
    lambda description, type_, title: "".join([
        "---\n", "name: {name}\n", f"description: {description}\n",
        f"title: {title}\n" if title else "", f"metadata:\n  type: {type_}\n" if type_ else "", "---\n",
    ]),
    st.sampled_from(REWORDINGS), st.sampled_from([None, "project", "feedback"]),
    st.sampled_from([None, "A title", POINTS_ELSEWHERE]),
)
around_an_index = st.one_of(
    st.tuples(st.just("reword"), st.just(0), st.sampled_from(FILES),
              st.sampled_from(["description", "title", "type"]), st.sampled_from(REWORDINGS)),
    st.tuples(st.just("reword"), st.just(0), st.sampled_from(FILES), st.just("name"), names),
    st.tuples(st.just("reword"), st.just(0), st.sampled_from(FILES), st.just("status"),
              st.sampled_from(["living", "superseded", "historical"])),
    st.tuples(st.just("index"), st.just(0), st.sampled_from(["generate", "drop-line", "junk", "delete"])),
    st.tuples(st.just("write"), st.just(0), st.sampled_from(FILES), entry_text),
    st.tuples(st.just("delete"), st.just(0), st.sampled_from(FILES)),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@example(  # a title its line cannot hold is reworded: the entry gets a line, and the index lacks it
    initial=["---\nname: {name}\ndescription: d\n---\n"] * 2
    + [f"---\nname: {{name}}\ndescription: d\ntitle: {POINTS_ELSEWHERE}\n---\n"],
    index="generate", operations=[("reword", 0, "gamma.md", "title", "d")],
)
@given(initial=st.lists(living_entry, min_size=2, max_size=5),
       index=st.sampled_from(["generate", "drop-line", "junk"]),
       operations=st.lists(around_an_index, min_size=1, max_size=10))
def test_incremental_check_equals_a_full_check_after_rewordings_around_an_index(
    initial: list, index: str, operations: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Entries' lines move (descriptions, titles, types; names, which may shadow one another, and
    statuses) under a generated, curated or short index: whether its problems stand or are judged
    again, they are a full check's."""
    monkeypatch.setattr("memls.store.check_cache.REWRITE_FRACTION", 0)  # records as many changes old as can be
    with scratch_with_cache(monkeypatch, "memls-differential-") as (clock, base):
        roots = [MemoryRoot("project", base / "project")]
        roots[0].path.mkdir()
        for filename, text in zip(FILES, initial):
            (roots[0].path / filename).write_text(text.replace("{name}", filename[:-3]))
        apply(("index", 0, index), roots)
        assert exactly(check_roots(roots, Settings(), today=TODAY)) == exactly(full(roots))
        for op in operations:
            apply(op, roots)
            run = check_roots(roots, Settings(), today=TODAY)
            event(f"answered: {run.how}, {run.rechecked} re-checked")
            assert exactly(run) == exactly(full(roots)), op
