"""The persistent parse cache: exact, never stale, never trusted when foreign."""

from __future__ import annotations

import gc
import os
import pwd
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from memls.store import cache as cache_module
from memls.store.cache import RACY_WINDOW_NS, ParseCache, cache_file, stamp_of
from memls.store.model import DEFAULT_STACK, Workspace
from memls.store.parse import parse_document
from memls.store.reader import read_root
from memls.store.roots import MemoryRoot

OLD = 1_600_000_000  # a settled mtime (2020), far outside the racy window


def write_entry(root: Path, name: str, description: str, *, settled: bool = True) -> Path:
    path = root / f"{name}.md"
    path.write_text(f"---\nname: {name}\ndescription: {description}\ntype: project\n---\n\nbody of {name}\n")
    if settled:
        os.utime(path, (OLD, OLD))
    return path


@pytest.fixture(autouse=True)
def looked_at_later(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reads happen an hour after the writes, so every file has settled.

    Writing a file (or ``os.utime``) sets its ctime to now, which the racy
    rule rightly distrusts; tests that are about the racy rule undo this.
    """
    later = lambda: time.time_ns() + 3600 * 10**9  # noqa: E731
    monkeypatch.setattr("memls.store.reader.now_ns", later)
    monkeypatch.setattr("memls.store.model.now_ns", later)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    root.mkdir()
    for i in range(5):
        write_entry(root, f"note-{i}", f"description {i}")
    return root


def cached_names(root: Path, kind: str = "entries") -> set[str]:
    return set(ParseCache.open(root, kind).entries)


def test_cold_then_warm_read_give_identical_files(root: Path) -> None:
    (root / "no-frontmatter.md").write_text("just prose\n")
    os.utime(root / "no-frontmatter.md", (OLD, OLD))
    cold = read_root(root, "project")
    assert cached_names(root) == {f"note-{i}.md" for i in range(5)} | {"no-frontmatter.md"}
    warm = read_root(root, "project")
    assert warm.files == cold.files
    assert warm.entries == cold.entries
    assert warm.errors == cold.errors == [(root / "no-frontmatter.md", f"no frontmatter: {root / 'no-frontmatter.md'}")]


def test_cached_entry_equals_a_fresh_parse_of_the_same_bytes(root: Path) -> None:
    read_root(root, "project")
    for entry in read_root(root, "project").entries:
        assert entry == parse_document(entry.path.read_text(), path=entry.path, scope="project").entry


def test_cache_kind_must_be_known(root: Path) -> None:
    with pytest.raises(ValueError, match="unknown cache kind"):
        cache_file(root, "everything")


def test_workspace_cold_and_warm_load_give_identical_models(root: Path) -> None:
    mr = MemoryRoot(path=root, scope="project")
    cold = Workspace.load([mr])
    assert cached_names(root, "documents")
    warm = Workspace.load([mr])
    def view(ws: Workspace) -> dict:
        return {d.path: (d.kind, d.text, d.parsed) for d in ws.documents()}
    assert view(warm) == view(cold)


def test_workspace_load_serves_documents_from_the_previous_loads_cache(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    Workspace.load([MemoryRoot(path=root, scope="project")])
    assert cached_names(root, "documents") == {f"note-{i}.md" for i in range(5)}
    parsed: list[str] = []
    monkeypatch.setattr("memls.store.model.parse_document", lambda *a, **k: parsed.append("x"))
    Workspace.load([MemoryRoot(path=root, scope="project")])
    assert parsed == []  # every entry came from the cache


def test_store_reads_and_the_model_keep_separate_caches(root: Path) -> None:
    read_root(root, "project")
    assert not cache_file(root, "documents").exists()
    Workspace.load([MemoryRoot(path=root, scope="project")])
    assert cache_file(root, "documents") != cache_file(root, "entries")
    assert cache_file(root, "documents").exists()


def test_changed_file_is_parsed_again(root: Path) -> None:
    read_root(root, "project")
    path = write_entry(root, "note-1", "a rewritten and longer description")
    os.utime(path, (OLD + 10, OLD + 10))
    entry = {e.name: e for e in read_root(root, "project").entries}["note-1"]
    assert entry.description == "a rewritten and longer description"


def test_same_size_same_mtime_rewrite_is_not_served_stale(root: Path) -> None:
    read_root(root, "project")
    path = write_entry(root, "note-2", "DESCRIPTION 2")  # same size as "description 2"
    os.utime(path, (OLD, OLD))  # mtime put back: only ctime and content differ
    entry = {e.name: e for e in read_root(root, "project").entries}["note-2"]
    assert entry.description == "DESCRIPTION 2"


def test_file_changed_within_the_racy_window_is_not_remembered(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("memls.store.reader.now_ns", time.time_ns)
    write_entry(root, "fresh", "just written", settled=False)
    read_root(root, "project")
    assert "fresh.md" not in cached_names(root)
    assert {e.name for e in read_root(root, "project").entries} >= {"fresh", "note-0"}


def test_entry_observed_inside_racy_window_is_refused_and_outside_is_kept(root: Path) -> None:
    path = root / "note-0.md"
    stamp = stamp_of(os.stat(path))
    doc = parse_document(path.read_text(), path=path, scope="project")
    racy = ParseCache(root, cache_file(root, "documents"))
    racy.remember(path.name, str(path), "project", stamp, doc, observed_ns=stamp[2] + RACY_WINDOW_NS // 2)
    assert racy.lookup(path.name, str(path), "project", stamp) is None
    settled = ParseCache(root, cache_file(root, "documents"))
    settled.remember(path.name, str(path), "project", stamp, doc, observed_ns=stamp[2] + 2 * RACY_WINDOW_NS)
    assert settled.lookup(path.name, str(path), "project", stamp) is doc


def test_cache_for_another_scope_is_not_used(root: Path) -> None:
    read_root(root, "project")
    assert {e.scope for e in read_root(root, "user").entries} == {"user"}


def test_cache_writable_by_others_is_ignored(root: Path) -> None:
    read_root(root, "project")
    os.chmod(cache_file(root, "entries"), 0o666)
    assert ParseCache.open(root, "entries").entries == {}


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")
def test_cache_owned_by_another_user_is_ignored(root: Path) -> None:
    read_root(root, "project")
    nobody = pwd.getpwnam("nobody")
    os.chown(cache_file(root, "entries"), nobody.pw_uid, nobody.pw_gid)
    assert ParseCache.open(root, "entries").entries == {}


def test_corrupt_cache_is_ignored_and_replaced(root: Path) -> None:
    read_root(root, "project")
    location = cache_file(root, "entries")
    location.write_bytes(location.read_bytes()[:200] + b"\x00garbage")
    assert ParseCache.open(root, "entries").entries == {}
    assert len(read_root(root, "project").entries) == 5
    assert len(cached_names(root)) == 5  # rewritten whole


def test_a_cache_written_in_chunks_pauses_before_each_and_reads_back_whole(
        root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(5, 12):
        write_entry(root, f"note-{i}", f"description {i}")
    monkeypatch.setattr(cache_module, "CHUNK_ENTRIES", 5)
    Workspace.load([MemoryRoot("project", root)])  # fills the documents cache
    cache = ParseCache.open(root, "documents")
    written_at_pauses: list[bool] = []
    location = cache_file(root, "documents")
    location.unlink()
    cache.changed = set(cache.entries)  # all to write again
    sealed: list[bytes] = []  # every pickle made for the file, in order (the header first)
    seal = cache_module._seal
    monkeypatch.setattr(cache_module, "_seal", lambda blob: sealed.append(blob) or seal(blob))
    pickled_at_pauses: list[int] = []

    def pause() -> None:
        written_at_pauses.append(location.exists())
        pickled_at_pauses.append(len(sealed))

    cache.save(pause=pause)
    assert written_at_pauses == [False, False, False]  # 12 entries in chunks of 5, none written yet
    # Each chunk is pickled after its own pause, not all of them after the last one:
    # the pauses are there so a background writer holds no CPU while the server works.
    assert pickled_at_pauses == [1, 2, 3]  # the header, then one chunk more at each pause
    assert len(sealed) == 5  # header, three chunks, the end mark
    assert ParseCache.open(root, "documents").entries.keys() == cache.entries.keys()
    assert Workspace.load([MemoryRoot("project", root)]).entry_count() == 12


def _has_own_dict(obj: object, key: str) -> bool:
    """Whether ``obj`` was given a ``__dict__`` (one holding ``key``), found without asking for one."""
    return any(type(r) is dict and key in r for r in gc.get_referents(obj))


def test_writing_the_documents_cache_gives_the_model_s_entries_no_dict(root: Path) -> None:
    """The server writes the cache after its scan froze the model: a dict made then stays outside it.

    Python keeps a parsed object's attributes without a ``__dict__`` until
    something asks for one, then keeps the dict; pickling the model's own
    entry and frontmatter (or copying them through their dicts) made two
    per document, that every later full collection walked.
    """
    ws = Workspace()
    ws.set_stack(DEFAULT_STACK, [MemoryRoot("project", root)])
    for state in ws.roots:  # the server's scan: a bulk load, its caches written afterwards
        for path, st in ws.listing(state):
            ws.load_document(path, st, root=state)
    caches = ws.detach_caches()
    assert caches
    for cache in caches:
        cache.save()
    assert ParseCache.open(root, "documents").entries.keys() == {f"note-{i}.md" for i in range(5)}
    parses = [doc.parsed for doc in ws.documents() if doc.parsed is not None and doc.parsed.entry is not None]
    assert len(parses) == 5
    for parsed in parses:
        assert not _has_own_dict(parsed.entry, "description")
        assert not _has_own_dict(parsed.frontmatter, "yaml_text")
    # What the cache holds is the same parse, placed anywhere.
    warm = Workspace.load([MemoryRoot("project", root)])
    assert sorted(d.parsed.entry.description for d in warm.documents() if d.parsed and d.parsed.entry) \
        == sorted(p.entry.description for p in parses)


def test_a_cache_cut_before_its_end_is_a_cold_cache(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_module, "CHUNK_ENTRIES", 2)
    read_root(root, "project")
    location = cache_file(root, "entries")
    whole = location.read_bytes()
    location.write_bytes(whole[:-1])  # the end of the stream is lost: the chunks before it prove nothing
    assert ParseCache.open(root, "entries").entries == {}
    assert len(read_root(root, "project").entries) == 5


def test_cache_written_by_another_python_is_ignored(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    read_root(root, "project")
    monkeypatch.setattr(cache_module.sys, "version", "0.0.0-other")
    assert ParseCache.open(root, "entries").entries == {}


def test_cache_of_another_engine_source_is_ignored(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    read_root(root, "project")
    monkeypatch.setattr(cache_module, "_engine_fingerprint", lambda: "edited")
    assert ParseCache.open(root, "entries").entries == {}


def test_engine_fingerprint_covers_the_engine_only() -> None:
    """Editing the CLI's help text or the server must not invalidate every user's cache."""
    package = Path(cache_module.__file__).parent
    assert package.name == "store"
    assert not (package / "cli.py").exists()


def test_cache_files_of_an_earlier_layout_are_deleted_when_a_cache_file_is_first_written(root: Path) -> None:
    directory = Path(os.environ["MEMLS_CACHE_DIR"])
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    retired = directory / "0123abcd.parse-cache"
    retired.write_bytes(b"an old cache")
    read_root(root, "project")
    assert cache_file(root, "entries").exists()
    assert not retired.exists()


def test_no_cache_variable_turns_the_cache_off(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLS_NO_CACHE", "1")
    read_root(root, "project")
    Workspace.load([MemoryRoot(path=root, scope="project")])
    assert not cache_file(root, "entries").exists()
    assert not cache_file(root, "documents").exists()


def test_cache_is_written_outside_the_root_privately(root: Path) -> None:
    before = sorted(p.name for p in root.iterdir())
    read_root(root, "project")
    Workspace.load([MemoryRoot(path=root, scope="project")])
    assert sorted(p.name for p in root.iterdir()) == before
    for kind in ("entries", "documents"):
        location = cache_file(root, kind)
        assert Path(os.environ["MEMLS_CACHE_DIR"]) == location.parent
        assert location.stat().st_mode & 0o777 == 0o600
        assert location.parent.stat().st_mode & 0o777 == 0o700


def test_a_shared_cache_directory_the_user_made_keeps_its_mode(root: Path, tmp_path: Path, monkeypatch) -> None:
    """Stranger s24a: memls made a sticky 1777 MEMLS_CACHE_DIR 0700, locking the other users out of it."""
    shared = tmp_path / "shared-cache"
    shared.mkdir()
    shared.chmod(0o1777)
    monkeypatch.setenv("MEMLS_CACHE_DIR", str(shared))
    read_root(root, "project")
    location = cache_file(root, "entries")
    assert location.parent == shared and location.stat().st_mode & 0o777 == 0o600
    assert shared.stat().st_mode & 0o7777 == 0o1777


def test_unchanged_read_does_not_rewrite_the_cache(root: Path) -> None:
    read_root(root, "project")
    location = cache_file(root, "entries")
    inode = location.stat().st_ino
    read_root(root, "project")
    assert location.stat().st_ino == inode


def test_deleted_file_is_not_read_from_the_cache(root: Path) -> None:
    read_root(root, "project")
    (root / "note-3.md").unlink()
    assert "note-3" not in {e.name for e in read_root(root, "project").entries}
    assert "note-3.md" not in cached_names(root)


def test_overlaid_read_parses_only_the_staged_files(root: Path) -> None:
    before = read_root(root, "project")
    staged = {
        root / "new.md": b"---\nname: new\ndescription: d\n---\n",
        root / "note-4.md": None,
        root / "note-1.md": b"---\nname: renamed-inside\ndescription: d\n---\n",
    }
    after = before.overlaid(staged)
    assert [f.filename for f in after.files] == ["new.md", "note-0.md", "note-1.md", "note-2.md", "note-3.md"]
    assert after.visible_files()["renamed-inside"] == "note-1.md"
    assert "note-4" not in after.visible_files()
    kept = {f.filename: f for f in before.files}
    assert all(f is kept[f.filename] for f in after.files if f.filename in ("note-0.md", "note-2.md"))
    assert before.overlaid({}) is before


def test_few_changes_in_a_large_cache_are_reparsed_without_rewriting_it(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read_root(root, "project")
    monkeypatch.setattr(cache_module, "REWRITE_FRACTION", 2)  # 5 entries: rewrite from 2 changes
    inode = cache_file(root, "entries").stat().st_ino
    write_entry(root, "note-0", "changed once")
    os.utime(root / "note-0.md", (OLD + 30, OLD + 30))
    assert {e.name: e for e in read_root(root, "project").entries}["note-0"].description == "changed once"
    assert cache_file(root, "entries").stat().st_ino == inode
    write_entry(root, "note-1", "changed too")
    os.utime(root / "note-1.md", (OLD + 30, OLD + 30))
    read_root(root, "project")
    assert cache_file(root, "entries").stat().st_ino != inode


def test_documents_are_cached_without_paths_and_placed_when_loaded(root: Path) -> None:
    mr = MemoryRoot(path=root, scope="project")
    Workspace.load([mr])  # parses everything: the model's documents carry their paths
    records = [cached[3] for cached in ParseCache.open(root, "documents").entries.values()]
    assert len(records) == 5
    assert all(r.path is None and r.entry.path is None for r in records)
    warm = Workspace.load([mr])
    docs = list(warm.documents())
    assert docs and all(d.parsed.path == d.path == d.entry.path for d in docs)


def test_store_reads_never_freeze_the_host_process_objects(root: Path) -> None:
    """A library must not call gc.freeze: frozen objects that later become cyclic garbage leak."""
    import gc

    from memls.store.checks import CheckContext, check_workspace

    before = gc.get_freeze_count()
    read_root(root, "project")
    check_workspace(CheckContext(Workspace.load([MemoryRoot(path=root, scope="project")])))
    assert gc.get_freeze_count() == before
    assert gc.isenabled()


# Run with a copy of PyYAML without its libyaml extension first on the path,
# like the editor extension's bundled libraries.
_WITHOUT_LIBYAML = """
import sys, time
from pathlib import Path
import yaml
assert not yaml.__with_libyaml__, yaml.__file__
from memls.store import reader
from memls.store.cache import ParseCache
reader.now_ns = lambda: time.time_ns() + 3600 * 10**9
reader.read_root(Path(sys.argv[1]), "project")
print(len(ParseCache.open(Path(sys.argv[1]), "entries").entries))
"""


@pytest.mark.skipif(not yaml.__with_libyaml__, reason="this PyYAML has no libyaml to tell apart")
def test_cache_written_by_an_install_without_libyaml_is_not_read_by_one_with_it(root: Path, tmp_path: Path) -> None:
    pure = tmp_path / "pure-site"
    shutil.copytree(Path(yaml.__file__).parent, pure / "yaml",
                    ignore=lambda _, names: [n for n in names if n.startswith("_yaml") or n == "__pycache__"])
    env = {**os.environ, "PYTHONPATH": str(pure)}
    written = subprocess.run([sys.executable, "-c", _WITHOUT_LIBYAML, str(root)],
                             capture_output=True, text=True, check=True, env=env)
    assert written.stdout.split() == ["5"]  # the pure install wrote and reads its cache
    assert ParseCache.open(root, "entries").entries == {}


def _every_byte_flipped(data: bytes, start: int):
    """``data`` with one bit flipped at each position from ``start``: what a bad disk sector leaves."""
    for i in range(start, len(data)):
        yield data[:i] + bytes([data[i] ^ 0x10]) + data[i + 1:]


@pytest.mark.parametrize("kind", ["single", "chunks", "marshal"])
def test_a_cache_file_with_any_byte_flipped_is_a_cold_cache(tmp_path: Path, kind: str) -> None:
    """Loaded as it is, a flipped byte would be a parse one letter off, or an index line pointing elsewhere."""
    payload = {f"e{i}.md": ("e13", f"- [e{i}](e{i}.md) \u2014 fact {i}", i) for i in range(3)}
    location = tmp_path / "cache" / f"x.{kind}"
    store, load, magic = {
        "single": (cache_module.store_private, cache_module.load_private, cache_module.MAGIC),
        "chunks": (lambda loc, ident, p: cache_module.store_private_chunks(loc, ident, [p]),
                   cache_module.load_private_chunks, cache_module.CHUNKS_MAGIC),
        "marshal": (cache_module.store_marshalled, cache_module.load_marshalled, cache_module.MARSHAL_MAGIC),
    }[kind]
    store(location, "root", payload)
    assert load(location, "root") == payload
    whole = location.read_bytes()
    for flipped in _every_byte_flipped(whole, len(magic)):
        location.write_bytes(flipped)
        os.chmod(location, 0o600)
        assert load(location, "root") is None


def _temp_files(directory: Path) -> set[str]:
    return {p.name for p in directory.iterdir() if p.name.startswith(".tmp-")}


def test_a_temp_file_left_by_a_killed_write_is_deleted_with_the_retired_files_a_live_one_is_kept(root: Path) -> None:
    directory = Path(os.environ["MEMLS_CACHE_DIR"])
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    stale_age = cache_module.STALE_TEMP_SECONDS + 60
    left = directory / ".tmp-k1ll3d_x.documents"  # a server killed while writing its cache
    left.write_bytes(b"half a cache")
    os.utime(left, (time.time() - stale_age, time.time() - stale_age))
    live = directory / ".tmp-wr1t1ng0.entries"  # another process writing right now
    live.write_bytes(b"being written")
    other = directory / ".tmp-notes.txt"  # not a name memls gives its temp files
    other.write_bytes(b"someone else's")
    os.utime(other, (time.time() - stale_age, time.time() - stale_age))
    read_root(root, "project")
    assert cache_file(root, "entries").exists()
    assert _temp_files(directory) == {live.name, other.name}


def test_rewriting_a_cache_file_untouched_for_long_sweeps_temp_files_of_dead_writers(root: Path) -> None:
    read_root(root, "project")
    location = cache_file(root, "entries")
    directory = location.parent
    stale = time.time() - cache_module.STALE_TEMP_SECONDS - 60
    left = directory / ".tmp-k1ll3d_x.entries"
    left.write_bytes(b"half a cache")
    os.utime(left, (stale, stale))
    os.utime(location, (stale, stale))  # the cache file a killed write was replacing
    write_entry(root, "note-9", "a new entry")  # so the next read writes the cache again
    read_root(root, "project")
    assert location.stat().st_mtime > stale
    assert _temp_files(directory) == set()


def test_a_recent_cache_file_is_rewritten_without_listing_the_directory(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read_root(root, "project")
    swept = []
    monkeypatch.setattr(cache_module, "_delete_retired", swept.append)
    write_entry(root, "note-9", "a new entry")
    read_root(root, "project")
    assert swept == []


def test_a_bulk_read_moves_what_it_built_to_the_oldest_generation_a_small_one_leaves_it_young() -> None:
    """Only a pause that built many objects moves them on (asking whether anything is frozen walks every frozen object)."""
    assert gc.isenabled() and gc.get_freeze_count() == 0
    with cache_module.paused_gc():
        big = [[i] for i in range(2 * cache_module.GC_MOVE_MIN_OBJECTS)]
    with cache_module.paused_gc():
        small = [[i] for i in range(10)]
    gc.disable()
    try:
        oldest = {id(o) for o in gc.get_objects(generation=2)}
    finally:
        gc.enable()
    assert id(big) in oldest
    assert id(small) not in oldest


def test_writing_a_private_cache_file_does_not_import_tempfile(tmp_path: Path) -> None:
    """A server writes its lease's editor file before its start ends; ``tempfile`` and what it imports were 2 ms."""
    probe = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from memls.store.cache import write_private\n"
        f"target = Path({str(tmp_path / 'cache' / 'x.lease-editor')!r})\n"
        "write_private(target, b'123')\n"
        "write_private(target, b'456')\n"
        "assert target.read_bytes() == b'456' and target.stat().st_mode & 0o777 == 0o600\n"
        "assert sorted(os.listdir(target.parent)) == ['x.lease-editor'], os.listdir(target.parent)\n"
        "print('tempfile' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
