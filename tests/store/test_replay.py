"""Views replayed while no file of their roots changed: never a stale answer."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from memls.store.errors import AmbiguousNameError
from memls.store.replay import replayed, replayed_member
from memls.store.roots import MemoryRoot
from memls.store.store import MemoryStore

OLD = 1_600_000_000  # a settled mtime (2020)


@pytest.fixture
def looked_at_later(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reads happen an hour after the writes, so every file has settled."""
    later = lambda: time.time_ns() + 3600 * 10**9  # noqa: E731
    monkeypatch.setattr("memls.store.replay.now_ns", later)
    monkeypatch.setattr("memls.store.reader.now_ns", later)


def write(root: Path, filename: str, name: str, description: str = "d", type_: str = "general") -> Path:
    path = root / filename
    path.write_text(f"---\nname: {name}\ndescription: {description}\nmetadata:\n  type: {type_}\n---\nbody of {name}\n")
    os.utime(path, (OLD, OLD))
    return path


@pytest.fixture
def root(tmp_path: Path) -> MemoryRoot:
    directory = tmp_path / "memory"
    directory.mkdir()
    write(directory, "alpha.md", "alpha", "first", "feedback")
    write(directory, "beta.md", "beta", "second")
    write(directory, "gamma-file.md", "gamma", "third", "project")
    (directory / "broken.md").write_bytes(b"\xff not UTF-8\n")
    os.utime(directory / "broken.md", (OLD, OLD))
    return MemoryRoot("project", directory)


def counted(value: object) -> tuple[list[int], object]:
    calls: list[int] = []

    def compute() -> object:
        calls.append(1)
        return value

    return calls, compute


@pytest.mark.usefixtures("looked_at_later")
def test_a_view_is_computed_once_and_replayed_while_no_file_changed(root: MemoryRoot) -> None:
    calls, compute = counted(["a view", 1])
    assert replayed("test", [root], "", compute) == ["a view", 1]
    assert replayed("test", [root], "", compute) == ["a view", 1]
    assert len(calls) == 1


@pytest.mark.usefixtures("looked_at_later")
@pytest.mark.parametrize("change", ["edit", "add", "delete", "index", "policy", "broken-link"])
def test_any_changed_document_makes_the_view_computed_again(root: MemoryRoot, change: str) -> None:
    calls, compute = counted("view")
    replayed("test", [root], "", compute)
    directory = root.path
    if change == "edit":  # same size, same mtime: ctime and inode still tell
        path = write(directory, "beta.md", "betA", "second")
        os.utime(path, (OLD, OLD))
    elif change == "add":
        write(directory, "delta.md", "delta")
    elif change == "delete":
        (directory / "beta.md").unlink()
    elif change == "index":
        (directory / "MEMORY.md").write_text("# Persistent Memory\n")
    elif change == "policy":
        (directory / ".memory-index.json").write_text("{}")
    else:
        (directory / "dangling.md").symlink_to(directory / "nowhere.md")
    replayed("test", [root], "", compute)
    assert len(calls) == 2


def test_a_view_of_files_written_within_the_racy_window_is_never_replayed(root: MemoryRoot) -> None:
    write(root.path, "fresh.md", "fresh")
    os.utime(root.path / "fresh.md")  # now: may still change within its timestamp tick
    calls, compute = counted("view")
    replayed("test", [root], "", compute)
    replayed("test", [root], "", compute)
    assert len(calls) == 2


@pytest.mark.usefixtures("looked_at_later")
def test_views_of_other_kinds_or_arguments_are_apart(root: MemoryRoot) -> None:
    assert replayed("one", [root], "", lambda: 1) == 1
    assert replayed("two", [root], "", lambda: 2) == 2
    assert replayed("one", [root], "budget", lambda: 3) == 3
    assert replayed("one", [root], "", lambda: 4) == 1


@pytest.mark.usefixtures("looked_at_later")
def test_no_cache_variable_computes_every_time(root: MemoryRoot, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLS_NO_CACHE", "1")
    calls, compute = counted("view")
    replayed("test", [root], "", compute)
    replayed("test", [root], "", compute)
    assert len(calls) == 2


def uncached_store(root: MemoryRoot, monkeypatch: pytest.MonkeyPatch) -> MemoryStore:
    monkeypatch.setenv("MEMLS_NO_CACHE", "1")
    return MemoryStore([root])


@pytest.mark.usefixtures("looked_at_later")
def test_replayed_index_equals_the_rendering_before_and_after_a_change(
    root: MemoryRoot, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = MemoryStore([root])
    first = store.render_root_index()
    errors = store.errors
    assert len(errors) == 1
    with monkeypatch.context() as patched:
        patched.setattr("memls.store.store.read_root", lambda *a, **k: pytest.fail("root read"))
        assert store.render_root_index() == first
    assert store.errors == errors
    write(root.path, "delta.md", "delta", "fourth", "feedback")
    after = store.render_root_index()
    assert "delta" in after and after != first
    assert store.render_root_index(budget=120) != after
    assert after == uncached_store(root, monkeypatch).render_root_index()


@pytest.mark.usefixtures("looked_at_later")
@pytest.mark.parametrize("name", ["alpha", "gamma", "gamma-file", "nothing", "broken"])
def test_get_from_the_replayed_names_equals_get_from_a_full_read(
    root: MemoryRoot, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    store = MemoryStore([root])
    store.get("alpha")  # the names view is stored
    with monkeypatch.context() as patched:
        patched.setattr("memls.store.store.read_root", lambda *a, **k: pytest.fail("root read"))
        replayed_entry = store.get(name)
    errors = store.errors
    full = uncached_store(root, monkeypatch)
    assert replayed_entry == full.get(name)
    assert errors == full.errors and len(errors) == 1


@pytest.mark.usefixtures("looked_at_later")
def test_get_from_the_replayed_names_keeps_the_exact_name_rule_and_refuses_ambiguity(
    root: MemoryRoot,
) -> None:
    write(root.path, "zeta.md", "other-zeta")
    write(root.path, "zeta-2.md", "zeta")  # the exact name wins over a file stem
    write(root.path, "s1.md", "sigma")
    write(root.path, "Sigma.md", "other-sigma")  # "Sigma": a slug match and a stem match
    store = MemoryStore([root])
    store.get("alpha")  # the names view is stored
    assert store.get("zeta").path == root.path / "zeta-2.md"
    with pytest.raises(AmbiguousNameError):
        store.get("Sigma")


@pytest.mark.usefixtures("looked_at_later")
def test_get_rereads_the_file_it_found_and_never_answers_from_a_stale_name(
    root: MemoryRoot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A change the file's identity cannot show (a digest collision) still gives the disk's answer."""
    monkeypatch.setattr("memls.store.replay.fingerprint_digest", lambda fingerprint: b"same")
    store = MemoryStore([root])
    assert store.get("beta").description == "second"
    write(root.path, "beta.md", "renamed-beta", "moved")
    found = store.get("beta")  # beta.md no longer holds "beta": looked up by a full read
    assert found is not None and found.name == "renamed-beta"
    assert found == uncached_store(root, monkeypatch).get("beta")


@pytest.mark.usefixtures("looked_at_later")
def test_audit_is_replayed_while_unchanged_and_equals_a_fresh_audit_after_a_change(
    root: MemoryRoot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("memls.store.check_cache.now_ns", lambda: time.time_ns() + 3600 * 10**9)
    write(root.path, "old.md", "old")
    (root.path / "old.md").write_text("---\nname: old\ndescription: d\nstatus: superseded\nsuperseded_by: gone\n---\n")
    os.utime(root.path / "old.md", (OLD, OLD))
    store = MemoryStore([root])
    first = store.audit()
    assert [issue.code for issue in first] == ["invalid-entry", "dangling-superseded-by"]
    with monkeypatch.context() as patched:
        patched.setattr("memls.store.check_cache.check_roots", lambda *a, **k: pytest.fail("checked"))
        assert store.audit() == first
    write(root.path, "gone.md", "gone")
    after = store.audit()
    assert after == uncached_store(root, monkeypatch).audit()
    assert [issue.code for issue in after] == ["invalid-entry", "asymmetric-supersession"]


@pytest.mark.usefixtures("looked_at_later")
def test_a_member_view_keeps_every_key_asked_until_a_file_changes(root: MemoryRoot) -> None:
    calls: list[str] = []

    def member(key: str) -> str:
        return replayed_member("test", [root], "", key, lambda: calls.append(key) or f"value of {key}")

    assert [member("a"), member("b"), member("a"), member("b")] == ["value of a", "value of b"] * 2
    assert calls == ["a", "b"]
    write(root.path, "delta.md", "delta")
    assert [member("a"), member("b")] == ["value of a", "value of b"]
    assert calls == ["a", "b", "a", "b"]


def test_a_member_of_files_written_within_the_racy_window_is_never_replayed(root: MemoryRoot) -> None:
    write(root.path, "fresh.md", "fresh")
    os.utime(root.path / "fresh.md")  # now: may still change within its timestamp tick
    calls: list[int] = []
    for _ in range(2):
        replayed_member("test", [root], "", "key", lambda: calls.append(1) or "value")
    assert len(calls) == 2


@pytest.mark.usefixtures("looked_at_later")
@pytest.mark.parametrize("change", ["gone", "file", "empty"])
def test_a_root_that_disappears_or_turns_into_a_file_is_a_change(root: MemoryRoot, change: str) -> None:
    for path in root.path.iterdir():
        path.unlink()
    root.path.rmdir()
    calls, compute = counted("view")
    replayed("test", [root], "", compute)  # stored: the root is missing
    if change == "file":
        root.path.write_text("not a directory\n")
    elif change == "empty":
        root.path.mkdir()
    replayed("test", [root], "", compute)
    assert len(calls) == (1 if change == "gone" else 2)
