"""The server's lease on a root lives in the cache directory, so never inside a memory root."""

from __future__ import annotations

import subprocess
import sys
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


def test_a_lease_excludes_and_is_excluded_by_the_file_lock_earlier_builds_lease_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Servers of earlier builds took the lease through filelock's ``UnixFileLock``: the same ``flock``."""
    from filelock import Timeout, UnixFileLock

    root = tmp_path / "memory"
    root.mkdir()
    monkeypatch.setenv("MEMLS_CACHE_DIR", str(tmp_path / "cache"))
    lease = RootLease(root)
    assert lease.try_acquire()
    earlier = UnixFileLock(lease_file(root), timeout=0, mode=0o600, is_singleton=False, thread_local=False,
                           fallback_to_soft=False, preserve_lock_file=True)
    with pytest.raises(Timeout):
        earlier.acquire()
    lease.release()
    earlier.acquire()
    try:
        assert not RootLease(root).try_acquire()
    finally:
        earlier.release()
    assert RootLease(root).try_acquire()


def test_taking_a_lease_does_not_import_the_file_lock_library(tmp_path: Path) -> None:
    """A server takes its lease before its start ends; importing filelock was 6 ms of it."""
    probe = (
        "import os, sys\n"
        f"os.environ['MEMLS_CACHE_DIR'] = {str(tmp_path / 'cache')!r}\n"
        "from pathlib import Path\n"
        "from memls.store.lease import RootLease\n"
        f"lease = RootLease(Path({str(tmp_path / 'memory')!r}), '1')\n"
        "assert lease.try_acquire()\n"
        "print('filelock' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# Two servers of one folder, started together: each asks about its roots in its own order.
RACER = """
import sys, time
from pathlib import Path
from memls.store.lease import RootLease, take_leases
go, roots = float(sys.argv[1]), [Path(p) for p in sys.argv[2:]]
leases = [RootLease(root) for root in roots]
while time.time() < go:
    pass
take_leases(leases)
print(" ".join(str(lease.root_dir) for lease in leases if lease.held), flush=True)
sys.stdin.read()  # the leases are held until the test has both answers
"""


def test_two_servers_started_together_never_split_a_folders_roots_between_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each root's lease goes to one server, and all of one folder's roots to the same one (s20a F1)."""
    import os
    import time

    roots = [tmp_path / name for name in ("project", "user", "claude")]
    monkeypatch.setenv("MEMLS_CACHE_DIR", str(tmp_path / "cache"))
    env = {**os.environ, "MEMLS_CACHE_DIR": str(tmp_path / "cache")}
    splits = []
    for attempt in range(12):
        go = time.time() + 0.4
        orders = [roots, roots[::-1]]  # the first root each asks about differs
        racers = [subprocess.Popen([sys.executable, "-c", RACER, str(go), *map(str, order)], env=env,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for order in orders]
        held = [set(racer.stdout.readline().split()) for racer in racers]  # type: ignore[union-attr]
        for racer in racers:
            racer.communicate("")
        assert held[0].isdisjoint(held[1]) and held[0] | held[1] == {str(root) for root in roots}, held
        if held[0] and held[1]:
            splits.append((attempt, held))
    assert not splits
