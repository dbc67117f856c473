"""A store's writes from its kept read of the root (WarmRoot) equal writes from a fresh read.

A long-lived :class:`MemoryStore` keeps each written root's last read and
moves only the files whose identity changed (:mod:`memls.store.warm_root`).
A stale kept read would write a wrong index or miss a file that now holds
the name, so these tests run the same sequence of writes and hand edits on
two copies of a root: one through a single store that keeps its reads, one
through a fresh store per write, as each ``memls`` command is. After every
step both roots must hold the same bytes, and every write must succeed or
be refused the same way in both. The fresh store has the parse cache its
predecessors left, as a new process does: what it held for a file that
changed since is a state an index memls rendered may still show (a lagging
index is rendered again, not taken for a curated one), and the long-lived
store must know that state too. The kept read itself is compared with a
read with every cache off (``MEMLS_NO_CACHE``).

Two clocks: the real one, under which every file is too new to trust by its
identity (the kept read is re-checked by the file's bytes), and one two
minutes ahead, under which every file has settled and is trusted by its
identity; hand edits then move the file's mtime forward, as time would.
"""

from __future__ import annotations

import copy
import os
import time
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memls.store import MemoryRoot, MemoryStore
from memls.store.entry import MemoryEntry
from memls.store.index import index_entries, render_index
from memls.store.index_view import IndexView
from memls.store.reader import read_root
from memls.store.warm_root import WarmRoot

NAMES = ("alpha", "beta", "gamma", "Alpha", "delta beta", "memory-x")
FILES = ("alpha.md", "beta.md", "gamma.md", "delta-beta.md", "notes.md", "b.md", ".hidden.md")
DESCRIPTIONS = ("first", "second", "a [link] text", "first")  # repeats: saves that change nothing
TYPES = (None, "project", "user")
STATUSES = ("living", "historical", "superseded")


def entry_text(name: str, description: str, *, status: str | None = None, body: str = "Body.\n") -> str:
    lines = ["---", f"name: {name}", f'description: "{description}"']
    if status is not None:
        lines.append(f"status: {status}")
    lines += ["metadata:", "  type: project", "---", "", body]
    return "\n".join(lines)


HAND_TEXTS = st.one_of(
    st.builds(entry_text, st.sampled_from(NAMES), st.sampled_from(DESCRIPTIONS),
              status=st.sampled_from((None, *STATUSES)), body=st.sampled_from(("Body.\n", "Other.\n", ""))),
    st.sampled_from((
        "no frontmatter at all\n",
        "---\nname: [unclosed\n---\n",
        "---\ndescription: no name\n---\n",
    )),
)

CURATED_INDEX = "# My notes\n\nRead these first:\n- [alpha](alpha.md) — my own words\n"

store_ops = st.one_of(
    st.tuples(st.just("save"), st.sampled_from(NAMES), st.sampled_from(DESCRIPTIONS),
              st.sampled_from(TYPES), st.booleans()),
    st.tuples(st.just("rename"), st.sampled_from(NAMES), st.sampled_from(NAMES)),
    st.tuples(st.just("delete"), st.sampled_from(NAMES)),
    st.tuples(st.just("set_status"), st.sampled_from(NAMES), st.sampled_from(("living", "historical"))),
    st.tuples(st.just("supersede"), st.sampled_from(NAMES), st.sampled_from(NAMES)),
)
hand_ops = st.one_of(
    st.tuples(st.just("write"), st.sampled_from(FILES), HAND_TEXTS),
    st.tuples(st.just("same_size"), st.sampled_from(FILES)),
    st.tuples(st.just("touch"), st.sampled_from(FILES)),
    st.tuples(st.just("move"), st.sampled_from(FILES), st.sampled_from(FILES)),
    st.tuples(st.just("remove"), st.sampled_from(FILES)),
    st.tuples(st.just("index"), st.sampled_from(("generated", "curated", "absent"))),
)


class Clock:
    """File timestamps as the test moves them: one step of time per hand edit."""

    def __init__(self, ahead: bool):
        self.ahead = ahead
        self.tick = time.time_ns() // 1_000_000_000

    def edited(self, *paths: Path) -> None:
        """Under the clock that runs ahead, an edit gets a later mtime than any before it."""
        if not self.ahead:
            return
        self.tick += 1
        for path in paths:
            if path.exists():
                os.utime(path, (self.tick, self.tick))


@contextmanager
def clock(ahead: bool):
    """Everything settled (a clock two minutes ahead), or the real clock (nothing settled)."""
    if not ahead:
        yield
        return
    def ahead_ns() -> int:
        return time.time_ns() + 120_000_000_000

    with mock.patch("memls.store.warm_root.now_ns", ahead_ns), mock.patch("memls.store.reader.now_ns", ahead_ns):
        yield


@contextmanager
def caches_off():
    os.environ["MEMLS_NO_CACHE"] = "1"
    try:
        yield
    finally:
        del os.environ["MEMLS_NO_CACHE"]


def run_store_op(store: MemoryStore, op: tuple) -> str:
    """What the write did: "ok", or the refusal's type and words (the root's path taken out)."""
    root = store.roots[0].path
    try:
        if op[0] == "save":
            _, name, description, type_, new = op
            store.save(name, description, "Saved body.\n", type=type_, new=new)
        elif op[0] == "rename":
            store.rename(op[1], op[2])
        elif op[0] == "delete":
            store.delete(op[1])
        elif op[0] == "set_status":
            store.set_status(op[1], op[2])
        else:
            store.supersede(op[1], op[2])
    except Exception as exc:  # noqa: BLE001 - the refusal itself is what is compared
        return f"{type(exc).__name__}: {str(exc).replace(str(root), '<root>')}"
    return "ok"


def run_hand_op(root: Path, op: tuple, clock_: Clock, generated_index: str | None) -> None:
    kind = op[0]
    if kind == "write":
        (root / op[1]).write_text(op[2], encoding="utf-8")
        clock_.edited(root / op[1])
    elif kind == "same_size":  # a different text of the same size, the mtime put back
        path = root / op[1]
        if path.exists():
            data = path.read_bytes()
            st_ = path.stat()
            path.write_bytes(data.swapcase())
            os.utime(path, ns=(st_.st_atime_ns, st_.st_mtime_ns))
            clock_.edited(path)
    elif kind == "touch":
        path = root / op[1]
        if path.exists():
            os.utime(path)
            clock_.edited(path)
    elif kind == "move":
        source, target = root / op[1], root / op[2]
        if source.exists() and source != target:
            source.rename(target)
            clock_.edited(target)
    elif kind == "remove":
        (root / op[1]).unlink(missing_ok=True)
    else:
        index = root / "MEMORY.md"
        if op[1] == "absent":
            index.unlink(missing_ok=True)
        else:
            index.write_text(generated_index if op[1] == "generated" and generated_index is not None
                             else CURATED_INDEX, encoding="utf-8")
            clock_.edited(index)


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(root.iterdir()) if p.is_file() and p.name != ".memory.lock"}


def seed(root: Path, *, managed: bool) -> None:
    root.mkdir(parents=True)
    (root / "alpha.md").write_text(entry_text("alpha", "first"), encoding="utf-8")
    (root / "beta.md").write_text(entry_text("beta", "second"), encoding="utf-8")
    (root / "notes.md").write_text(entry_text("gamma", "held by notes.md"), encoding="utf-8")
    if managed:
        (root / ".memory-index.json").write_text(
            '{"version": 1, "budget": 4000, "selected": ["alpha.md"]}\n', encoding="utf-8")


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    ahead=st.booleans(),
    managed=st.booleans(),
    index=st.sampled_from(("generated", "curated", "absent")),
    steps=st.lists(st.one_of(store_ops, hand_ops), min_size=1, max_size=16),
)
def test_writes_from_the_kept_read_equal_writes_from_a_fresh_read(tmp_path_factory, ahead, managed, index, steps):
    base = tmp_path_factory.mktemp("warm")
    warm_root, cold_root = base / "warm", base / "cold"
    for root in (warm_root, cold_root):
        seed(root, managed=managed)
    with caches_off():
        generated = MemoryStore([MemoryRoot("explicit", cold_root)]).render_root_index() if not managed else None
    for root in (warm_root, cold_root):
        run_hand_op(root, ("index", index), Clock(False), generated)
    warm_store = MemoryStore([MemoryRoot("explicit", warm_root)])
    clocks = {warm_root: Clock(ahead), cold_root: Clock(ahead)}
    with clock(ahead):
        for step in steps:
            if step[0] in ("save", "rename", "delete", "set_status", "supersede"):
                warm = run_store_op(warm_store, step)
                cold = run_store_op(MemoryStore([MemoryRoot("explicit", cold_root)]), step)
                assert warm == cold, step
            else:
                with caches_off():
                    generated = MemoryStore([MemoryRoot("explicit", cold_root)]).render_root_index() \
                        if not managed else None
                for root in (warm_root, cold_root):
                    run_hand_op(root, step, clocks[root], generated)
            assert snapshot(warm_root) == snapshot(cold_root), step
            assert_kept_read_is_the_disk(warm_store, warm_root)


def assert_kept_read_is_the_disk(store: MemoryStore, root: Path) -> None:
    """The kept read, refreshed, is what a fresh read without caches finds; its view, the rendering.

    A copy is refreshed: each refresh stands for a process reading the root,
    and this look is none of the store's.
    """
    warm = store._warm.get((root, "explicit"))
    if warm is None:
        return
    warm = copy.deepcopy(warm)
    read = warm.refresh()
    with caches_off():
        fresh = read_root(root, "explicit", cache=False)
    assert read.files == fresh.files
    assert read.names() == fresh.names()
    rendered = render_index(index_entries(fresh.entries_for_index, managed=False))
    assert warm.view(read).rendering() == rendered


def test_a_file_taking_the_name_between_two_saves_is_the_one_the_second_updates(tmp_path):
    """Which file holds the name is asked of the disk, not of the kept read."""
    root = tmp_path / "memory"
    store = MemoryStore([MemoryRoot("explicit", root)])
    store.save("deploy", "how we deploy")
    kept = (root / "deploy.md").read_bytes()
    (root / "a-first.md").write_text(entry_text("deploy", "an earlier file, same name"), encoding="utf-8")
    store.save("deploy", "updated")
    assert 'description: "updated"' in (root / "a-first.md").read_text(encoding="utf-8")
    assert (root / "deploy.md").read_bytes() == kept


def test_a_create_only_save_sees_the_entry_a_hand_move_put_elsewhere(tmp_path):
    root = tmp_path / "memory"
    store = MemoryStore([MemoryRoot("explicit", root)])
    store.save("deploy", "how we deploy")
    (root / "deploy.md").rename(root / "zz-deploy.md")
    (root / "deploy.md").write_text(entry_text("other", "holds the slug's file"), encoding="utf-8")
    with pytest.raises(FileExistsError, match="entry named 'deploy' already exists: zz-deploy.md"):
        store.save("deploy", "updated", new=True)


def test_a_same_size_edit_with_the_mtime_put_back_is_read_again(tmp_path):
    """A file too new to trust by its identity is compared by its bytes on every write."""
    root = tmp_path / "memory"
    store = MemoryStore([MemoryRoot("explicit", root)])
    store.save("aaaa", "d")
    store.save("other", "x")
    path = root / "aaaa.md"
    before = path.stat()
    path.write_text(path.read_text(encoding="utf-8").replace("name: aaaa", "name: bbbb"), encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size
    with pytest.raises(FileExistsError, match="entry named 'bbbb' already exists: aaaa.md"):
        store.save("bbbb", "x", new=True)
    with pytest.raises(ValueError, match="aaaa.md holds another entry, 'bbbb'"):
        store.save("aaaa", "d2")


view_entries = st.dictionaries(
    st.sampled_from(FILES[:-1]),
    st.builds(lambda name, status, type_, description: MemoryEntry(
        name=name, status=status, type=type_, description=description),
        st.sampled_from(NAMES), st.sampled_from(STATUSES), st.sampled_from(("project", "user", "runbook")),
        st.sampled_from(DESCRIPTIONS)),
)


@settings(max_examples=200, deadline=None)
@given(before=view_entries, after=view_entries, deleted=st.sets(st.sampled_from(FILES[:-1])))
def test_a_rendering_with_staged_changes_leaves_the_kept_view_as_it_was(before, after, deleted):
    """What a write asks of the kept view (its staged files laid over it) must not stay in it."""
    def rendered(entries: dict[str, MemoryEntry]) -> str:
        ordered = [replace(e, path=Path("/r") / f) for f, e in sorted(entries.items())]
        return render_index(index_entries(ordered, managed=False))

    def with_paths(entries: dict[str, MemoryEntry]) -> dict[str, MemoryEntry]:
        return {f: replace(e, path=Path("/r") / f) for f, e in entries.items()}

    view = IndexView.build(sorted(with_paths(before).items()))
    changes: dict[str, MemoryEntry | None] = {**with_paths(after), **dict.fromkeys(deleted - after.keys())}
    merged = {f: e for f, e in {**before, **after}.items() if f not in deleted - after.keys()}
    assert view.rendering_with(changes) == rendered(merged)
    assert view.rendering() == rendered(before)
    for filename, entry in changes.items():  # and it still moves from where it was
        view.update(filename, entry)
    assert view.rendering() == rendered(merged)


def test_with_the_caches_off_a_store_keeps_no_read(tmp_path, monkeypatch):
    root = tmp_path / "memory"
    store = MemoryStore([MemoryRoot("explicit", root)])
    store.save("alpha", "one")
    assert any(isinstance(w, WarmRoot) for w in store._warm.values())
    monkeypatch.setenv("MEMLS_NO_CACHE", "1")
    store.save("alpha", "two")
    assert store._warm == {}


def hidden_by_full_walk(before, after, deleted: set[str]) -> str | None:
    """The first file a change would hide, by walking every name (the proof before it was narrowed)."""
    still_visible = set(after.visible_files().values())
    for filename in sorted(before.visible_files().values()):  # file order
        if filename in deleted or filename in still_visible:
            continue
        return filename
    return None


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    files=st.dictionaries(st.sampled_from(FILES[:-1]), HAND_TEXTS, max_size=6),
    staged=st.dictionaries(st.sampled_from(FILES[:-1]), st.one_of(st.none(), HAND_TEXTS), min_size=1, max_size=3),
)
def test_the_no_hiding_proof_over_the_touched_names_equals_the_walk_over_every_name(
    tmp_path_factory, files, staged
):
    """A write is refused when it would hide a file readers saw; asking only the names it touches must agree."""
    from memls.store.errors import RoundTripError
    from memls.store.transaction import RootTransaction

    root = tmp_path_factory.mktemp("proof") / "memory"
    root.mkdir()
    for filename, text in files.items():
        (root / filename).write_text(text, encoding="utf-8")
    tx = RootTransaction(MemoryRoot("explicit", root))
    for filename, text in staged.items():
        tx.staged[root / filename] = None if text is None else text.encode("utf-8")
    after = tx._read_staged()
    expected = hidden_by_full_walk(tx._read, after, {f for f, t in staged.items() if t is None})
    try:
        tx._refuse_hiding(after)
    except RoundTripError as exc:
        assert expected is not None and f"refusing this change: {expected} would be hidden" in str(exc)
    else:
        assert expected is None
