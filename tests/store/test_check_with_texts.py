"""The stored results re-checked with editor buffers over some files give what the model with those buffers gives.

A language server restarted under an editor's restored unsaved buffers asks
``checked_with_texts`` instead of loading the whole model: a differential
property over random layered roots (with generated, curated and broken
indexes, policies, stale per-file records) and random texts for a few of
their entries, against a full check of the whole model loaded from the
files with those texts opened over them (``Workspace.update``, as the
server opens a buffer). A text whose YAML does not load leaves the other
entries told what its file told them there, and nowhere else: so the oracle
is that model, not the files rewritten.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from memls.store.check_cache import REWRITE_FRACTION, check_roots, checked_with_texts
from memls.store.checks import CheckContext, check_workspace
from memls.store.model import Workspace
from memls.store.replay import observe
from memls.store.roots import MemoryRoot
from memls.store.settings import Settings
from memls.store.warm_start import start_listing, warm_start

from .test_check_cache_differential import (
    FILES,
    HOUR_NS,
    Clock,
    apply,
    broken_text,
    entry_text,
    exactly,
    full,
    scratch_with_cache,
)
from .test_check_cache_differential import operation as file_operation

TODAY = date(2026, 11, 30)
LINKED = "---\nname: alpha\ndescription: d\nsupersedes: [beta]\n---\nbody\n"
SUCCEEDED = "---\nname: beta\ndescription: d\nstatus: superseded\nsuperseded_by: alpha\n---\n"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    for module in ("check_cache", "reader", "model", "replay"):
        monkeypatch.setattr(f"memls.store.{module}.now_ns", clock)
    monkeypatch.setenv("MEMLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("MEMLS_NO_CACHE", raising=False)
    return clock


def one_root(tmp_path: Path) -> list[MemoryRoot]:
    root = MemoryRoot("project", tmp_path / "memory")
    root.path.mkdir()
    (root.path / "alpha.md").write_text(LINKED)
    (root.path / "beta.md").write_text(SUCCEEDED)
    (root.path / "gamma.md").write_text("---\nname: gamma\ndescription: d\n---\n")
    apply(("index", 0, "generate"), [root])
    return [root]


def with_buffers(roots: list[MemoryRoot], texts: dict[Path, str]) -> tuple:
    """What a check of the whole model, with ``texts`` opened over their files, gives (as :func:`found` shows a run)."""
    workspace = Workspace.load(roots)
    for path, text in texts.items():
        workspace.update(path, text)
    results = check_workspace(CheckContext(workspace, Settings(), TODAY))
    found = {path: problems for path, problems in results.items() if problems}
    documents = len({doc.path for doc in workspace.documents()} | found.keys())
    return documents, {path: [(p, p.data) for p in problems] for path, problems in found.items()}


def found(run) -> tuple:
    """A run as :func:`with_buffers` shows a check: which files come first is the model's registration order there."""
    return run.documents, {path: [(p, p.data) for p in problems] for path, problems in run.results.items()}


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(initial=st.lists(st.tuples(st.integers(0, 1), st.sampled_from(FILES), entry_text), min_size=1, max_size=6),
       operations=st.lists(file_operation, max_size=6), data=st.data())
def test_results_with_texts_equal_a_check_of_the_model_with_those_buffers_opened(
    initial: list, operations: list, data: st.DataObject, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Records rewritten after every change, or as many changes old as can be (as at 10k entries,
    # where a change of a few files leaves them): a start then knows which ones are behind.
    lagging = data.draw(st.booleans(), label="records lag behind the files")
    monkeypatch.setattr("memls.store.check_cache.REWRITE_FRACTION", 0 if lagging else REWRITE_FRACTION)
    with scratch_with_cache(monkeypatch, "memls-texts-") as (clock, base):
        roots = [MemoryRoot("project", base / "project"), MemoryRoot("user", base / "user")]
        for root in roots:
            root.path.mkdir()
        for i, filename, text in initial:
            (roots[i].path / filename).write_text(text)
        check_roots(roots, Settings(), today=TODAY)
        for op in operations:  # the records left behind are the first run's, or a later one's
            apply(op, roots)
            clock.offset = 0 if op[0] == "racy-check" else HOUR_NS
            check_roots(roots, Settings(), today=TODAY)
        for op in data.draw(st.lists(file_operation, max_size=2), label="changed since the last check"):
            apply(op, roots)
        clock.offset = HOUR_NS
        present = sorted(path for root in roots for path in root.path.iterdir() if path.name != "MEMORY.md"
                         and not path.name.startswith("."))
        if not present:
            return
        chosen = data.draw(st.lists(st.sampled_from(present), min_size=1, max_size=2, unique=True))
        by_path = {path: data.draw(entry_text | broken_text) for path in chosen}
        run = checked_with_texts(roots, Settings(), observe(roots), by_path, today=TODAY)
        event("answered" if run is not None else "left to the model")
        if run is None:
            return
        expected = with_buffers(roots, by_path)
        assert found(run) == expected
        # A server's start: the buffers re-checked over the replay (or the re-check of what changed
        # since the last check), from what it knows of the stored records: the same problems, in the same order.
        warm = warm_start(start_listing({"stack": roots}), Settings(), today=TODAY)
        over = warm.with_texts(Settings(), by_path, today=TODAY) if warm is not None else None
        event(f"over a {warm.how} start" if warm is not None and over is not None else "no start to re-check over")
        if warm is not None and warm.run is not None and warm.run.basis is not None and warm.run.basis.behind:
            event(f"{sum(map(len, warm.run.basis.behind))} records behind")
        if over is not None:  # (a start tells no count of documents)
            assert {path: [(p, p.data) for p in problems] for path, problems in over.results.items()} == expected[1]
            assert list(over.results) == list(run.results)
            assert over.plain == run.plain


def test_a_body_edit_is_answered_from_the_records_without_the_model(tmp_path: Path, cache: Clock) -> None:
    roots = one_root(tmp_path)
    check_roots(roots, Settings(), today=TODAY)
    text = LINKED + "more body\n"
    run = checked_with_texts(roots, Settings(), observe(roots), {roots[0].path / "alpha.md": text}, today=TODAY)
    assert run is not None and run.how == "incremental" and run.workspace is None
    # alpha, and beta which alpha links to: nothing else was read again.
    assert run.rechecked == 2
    assert found(run) == with_buffers(roots, {roots[0].path / "alpha.md": text})
    (roots[0].path / "alpha.md").write_text(text)
    assert exactly(run) == exactly(full(roots))


def test_a_text_retiring_a_listed_entry_is_answered_with_its_line_problem_without_the_model(
    tmp_path: Path, cache: Clock
) -> None:
    roots = one_root(tmp_path)
    check_roots(roots, Settings(), today=TODAY)
    text = "---\nname: gamma\ndescription: d\nstatus: historical\n---\n"
    run = checked_with_texts(roots, Settings(), observe(roots), {roots[0].path / "gamma.md": text}, today=TODAY)
    assert run is not None and run.how == "incremental" and run.workspace is None
    assert run.rechecked == 1  # gamma alone: MEMORY.md's line about it is found, not the index judged
    (problem,) = run.results[roots[0].path / "MEMORY.md"]
    assert problem.code == "index-lists-non-living"
    assert found(run) == with_buffers(roots, {roots[0].path / "gamma.md": text})


def test_a_text_linking_to_a_missing_memory_shows_the_dangling_link(tmp_path: Path, cache: Clock) -> None:
    roots = one_root(tmp_path)
    check_roots(roots, Settings(), today=TODAY)
    before = check_roots(roots, Settings(), today=TODAY).results
    assert before.get(roots[0].path / "alpha.md") is None
    text = LINKED.replace("[beta]", "[ghost]")
    run = checked_with_texts(roots, Settings(), observe(roots), {roots[0].path / "alpha.md": text}, today=TODAY)
    assert run is not None
    assert any("ghost" in p.message for p in run.results[roots[0].path / "alpha.md"])
    # Nothing was kept: the files still replay what they hold.
    assert check_roots(roots, Settings(), today=TODAY).results == before


def test_a_buffer_whose_yaml_does_not_load_holds_its_files_place_for_the_other_entries(tmp_path: Path,
                                                                                       cache: Clock) -> None:
    """Two files named alpha, one half typed in a buffer: the other is still told what the whole file tells it."""
    root = MemoryRoot("project", tmp_path / "memory")
    root.path.mkdir()
    alpha, beta = root.path / "alpha.md", root.path / "beta.md"
    alpha.write_text("---\nname: alpha\ndescription: d\nstatus: living\n---\n")
    beta.write_text("---\nname: alpha\ndescription: d\nstatus: bogus\nsuperseded_by: alpha\n---\nbody\n")
    check_roots([root], Settings(), today=TODAY)
    half_typed = "---\nname: alpha\ndescription: [unclosed\n---\n"
    run = checked_with_texts([root], Settings(), observe([root]), {alpha: half_typed}, today=TODAY)
    assert run is not None and run.results.get(alpha)
    assert found(run) == with_buffers([root], {alpha: half_typed})


@pytest.mark.parametrize("which", ["MEMORY.md", "new.md"])
def test_texts_of_an_index_or_of_no_file_are_left_to_the_model(tmp_path: Path, cache: Clock, which: str) -> None:
    roots = one_root(tmp_path)
    check_roots(roots, Settings(), today=TODAY)
    texts = {roots[0].path / which: "---\nname: new\ndescription: d\n---\n"}
    assert checked_with_texts(roots, Settings(), observe(roots), texts, today=TODAY) is None


def test_a_managed_index_to_judge_again_is_left_to_the_model(tmp_path: Path, cache: Clock) -> None:
    roots = one_root(tmp_path)
    apply(("policy", 0, '{"version": 1, "budget": 4000, "selected": ["alpha.md"]}'), roots)
    check_roots(roots, Settings(), today=TODAY)
    renamed = LINKED.replace("name: alpha", "name: alpha2")
    assert checked_with_texts(roots, Settings(), observe(roots), {roots[0].path / "alpha.md": renamed},
                              today=TODAY) is None


def test_a_warm_start_with_texts_replaces_the_replay_of_what_they_touch(tmp_path: Path, cache: Clock) -> None:
    roots = one_root(tmp_path)
    check_roots(roots, Settings(), today=TODAY)
    listing = start_listing({"folder": roots})
    assert listing is not None
    warm = warm_start(listing, Settings(), today=TODAY)
    assert warm is not None
    broken = "---\nname: beta\ndescription: [unclosed\n---\n"
    beta = roots[0].path / "beta.md"
    changed = warm.with_texts(Settings(), {beta: broken}, today=TODAY)
    assert changed is not None and beta in changed.results and beta not in changed.plain
    assert beta not in warm.results


def test_a_buffer_over_a_file_changed_since_the_last_check_leaves_what_the_file_connected_as_the_buffer_has_it(
    tmp_path: Path, cache: Clock
) -> None:
    """beta.md, written since the last check, guesses the name gamma that alpha points at; its buffer names beta.

    A start re-checks beta and alpha (connected through gamma) from the
    files; the buffer's re-check over that start must check alpha again
    too, though neither the buffer nor beta's stored record holds gamma.
    """
    root = MemoryRoot("project", tmp_path / "memory")
    root.path.mkdir()
    alpha, beta = root.path / "alpha.md", root.path / "beta.md"
    alpha.write_text("---\nname: alpha\ndescription: d\nstatus: living\nsuperseded_by: gamma\n---\n")
    check_roots([root], Settings(), today=TODAY)
    beta.write_text("---\nname: gamma\ndescription: [unclosed\n---\n")
    warm = warm_start(start_listing({"stack": [root]}), Settings(), today=TODAY)
    assert warm is not None and warm.how == "incremental"
    texts = {beta: "---\nname: beta\ndescription: d\nstatus: living\n---\n"}
    over = warm.with_texts(Settings(), texts, today=TODAY)
    assert over is not None
    shown = {path: [(p, p.data) for p in problems] for path, problems in over.results.items()}
    assert shown == with_buffers([root], texts)[1]
    assert any(p.data.get("target") == "gamma" for p in over.results[alpha])
