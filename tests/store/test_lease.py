"""The server's lease on a root lives in the cache directory, so never inside a memory root."""

from __future__ import annotations

from pathlib import Path

import pytest

from memls.store.files import LOCK_FILENAME
from memls.store.lease import RootLease, lease_file


def test_a_lease_is_not_taken_in_a_cache_dir_inside_the_root_the_server_acts_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    (root / "MEMORY.md").write_text("# Memory\n", encoding="utf-8")
    monkeypatch.setenv("MEMLS_CACHE_DIR", str(root / ".cache"))
    lease = RootLease(root)
    assert lease.try_acquire() and lease.held
    assert sorted(p.name for p in root.iterdir() if p.name != LOCK_FILENAME) == ["MEMORY.md"]
    lease.release()


def test_a_lease_in_a_cache_dir_beside_the_root_excludes_a_second_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    monkeypatch.setenv("MEMLS_CACHE_DIR", str(tmp_path / "cache"))
    first, second = RootLease(root), RootLease(root)
    assert first.try_acquire()
    assert not second.try_acquire()
    first.release()
    assert second.try_acquire()
    second.release()


def test_the_lease_file_is_private_like_every_cache_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    monkeypatch.setenv("MEMLS_CACHE_DIR", str(tmp_path / "cache"))
    lease = RootLease(root)
    assert lease.try_acquire()
    assert lease_file(root).stat().st_mode & 0o777 == 0o600
    lease.release()


def test_a_lease_file_an_earlier_build_left_readable_becomes_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    monkeypatch.setenv("MEMLS_CACHE_DIR", str(tmp_path / "cache"))
    path = lease_file(root)
    path.parent.mkdir(mode=0o700)
    path.touch()
    path.chmod(0o644)
    lease = RootLease(root)
    assert lease.try_acquire()
    assert path.stat().st_mode & 0o777 == 0o600
    lease.release()
