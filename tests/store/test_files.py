"""Safe writes (store/files.py): atomic writes, multi-file commits, the root lock.

Everything here runs against real files, real flocks and real processes;
faults are injected by replacing one ``os`` function for the duration of a
single commit.
"""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from memls.store.errors import ChangedMeanwhile, LockTimeoutError
from memls.store.files import (
    LOCK_FILENAME,
    FileDelete,
    FileWrite,
    atomic_write,
    commit,
    read_bytes_if_exists,
    read_lock,
    root_lock,
)

REPO = Path(__file__).resolve().parents[2]


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def state_of(directory: Path) -> dict[str, tuple[bytes, int]]:
    """Every regular file in ``directory`` with its bytes and permission bits."""
    return {
        p.name: (p.read_bytes(), mode_of(p))
        for p in sorted(directory.iterdir())
        if p.is_file() and not p.is_symlink()
    }


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith((".tmp", ".bak")))


def write_file(path: Path, data: bytes, mode: int) -> Path:
    path.write_bytes(data)
    path.chmod(mode)
    return path


# --------------------------------------------------------------------------
# Single-file writes and modes
# --------------------------------------------------------------------------


def test_atomic_write_keeps_private_mode_0600(tmp_path: Path) -> None:
    path = write_file(tmp_path / "a.md", b"old\n", 0o600)
    atomic_write(path, b"new\n")
    assert path.read_bytes() == b"new\n"
    assert mode_of(path) == 0o600


def test_atomic_write_keeps_read_only_mode_0444(tmp_path: Path) -> None:
    path = write_file(tmp_path / "a.md", b"old\r\n", 0o444)
    atomic_write(path, b"new\r\n")
    assert path.read_bytes() == b"new\r\n"
    assert mode_of(path) == 0o444


@pytest.mark.parametrize("umask, expected", [(0o022, 0o600), (0o027, 0o600), (0o002, 0o600), (0o277, 0o400)])
def test_new_file_is_private_0600_minus_the_umask(tmp_path: Path, umask: int, expected: int) -> None:
    previous = os.umask(umask)
    try:
        atomic_write(tmp_path / "new.md", b"x")
    finally:
        os.umask(previous)
    assert mode_of(tmp_path / "new.md") == expected


def test_atomic_write_leaves_no_temp_file(tmp_path: Path) -> None:
    atomic_write(tmp_path / "a.md", b"x")
    assert leftovers(tmp_path) == []


def test_create_only_refuses_existing_file_and_leaves_it_byte_identical(tmp_path: Path) -> None:
    path = write_file(tmp_path / "a.md", b"keep\r\n", 0o600)
    before = state_of(tmp_path)
    with pytest.raises(FileExistsError, match="refusing to overwrite") as caught:
        commit([FileWrite(path, b"clobber", create_only=True)])
    assert caught.value.errno == errno.EEXIST
    assert state_of(tmp_path) == before
    assert leftovers(tmp_path) == []


def test_create_only_refusal_changes_no_other_file_in_the_commit(tmp_path: Path) -> None:
    other = write_file(tmp_path / "other.md", b"other", 0o644)
    taken = write_file(tmp_path / "taken.md", b"taken", 0o644)
    before = state_of(tmp_path)
    with pytest.raises(FileExistsError):
        commit([FileWrite(other, b"changed"), FileWrite(taken, b"new", create_only=True)])
    assert state_of(tmp_path) == before


def test_create_only_creates_a_missing_file(tmp_path: Path) -> None:
    commit([FileWrite(tmp_path / "fresh.md", b"fresh", create_only=True)])
    assert (tmp_path / "fresh.md").read_bytes() == b"fresh"
    assert leftovers(tmp_path) == []


def test_read_bytes_if_exists_distinguishes_missing_from_empty(tmp_path: Path) -> None:
    (tmp_path / "empty.md").write_bytes(b"")
    assert read_bytes_if_exists(tmp_path / "empty.md") == b""
    assert read_bytes_if_exists(tmp_path / "missing.md") is None


# --------------------------------------------------------------------------
# Multi-file commit and rollback
# --------------------------------------------------------------------------


@pytest.fixture
def populated(tmp_path: Path) -> Path:
    """A root with two existing entries (one private, one read-only CRLF) and a doomed file."""
    write_file(tmp_path / "a.md", b"---\nname: a\n---\nA body\n", 0o600)
    write_file(tmp_path / "b.md", b"---\r\nname: b\r\n---\r\nB body\r\n", 0o444)
    write_file(tmp_path / "d.md", b"delete me\n", 0o640)
    return tmp_path


def changes_for(root: Path) -> list[FileWrite | FileDelete]:
    """Two rewrites, one new file, one delete: every kind of step a commit has."""
    return [
        FileWrite(root / "a.md", b"---\nname: a\n---\nA changed\n"),
        FileWrite(root / "b.md", b"---\r\nname: b\r\n---\r\nB changed\r\n"),
        FileWrite(root / "c.md", b"---\nname: c\n---\nnew\n"),
        FileDelete(root / "d.md"),
    ]


def test_commit_applies_every_change_and_keeps_modes(populated: Path) -> None:
    commit(changes_for(populated), root=populated)
    assert (populated / "a.md").read_bytes().endswith(b"A changed\n")
    assert (populated / "b.md").read_bytes().endswith(b"B changed\r\n")
    assert (populated / "c.md").exists()
    assert not (populated / "d.md").exists()
    assert mode_of(populated / "a.md") == 0o600
    assert mode_of(populated / "b.md") == 0o444
    assert leftovers(populated) == []


# How many times one commit of ``changes_for`` calls each os function. The
# fault-injection test fails each call in turn; the next test proves the
# counts are exact, so no step goes untested if the implementation changes.
FAULT_STEPS = {"write": 3, "fchmod": 3, "fsync": 4, "replace": 3, "rename": 1, "unlink": 1}


def counting(monkeypatch: pytest.MonkeyPatch, name: str, fail_at: int | None, error: BaseException):
    """Wrap ``os.<name>``; raise ``error`` on call number ``fail_at`` (0-based) only."""
    real = getattr(os, name)
    calls: list[int] = []

    def wrapper(*args, **kwargs):
        calls.append(1)
        if len(calls) - 1 == fail_at:
            raise error
        return real(*args, **kwargs)

    monkeypatch.setattr(os, name, wrapper)
    return calls


def test_fault_steps_cover_every_call_of_a_commit(populated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counters = {name: counting(monkeypatch, name, None, OSError()) for name in FAULT_STEPS}
    commit(changes_for(populated), root=populated)
    assert {name: len(calls) for name, calls in counters.items()} == FAULT_STEPS


@pytest.mark.parametrize(
    "function, step",
    [(name, step) for name, count in FAULT_STEPS.items() for step in range(count)],
)
def test_failure_at_any_step_restores_every_file_byte_for_byte(
    populated: Path, monkeypatch: pytest.MonkeyPatch, function: str, step: int
) -> None:
    before = state_of(populated)
    calls = counting(monkeypatch, function, step, OSError(errno.EIO, "Input/output error"))
    with pytest.raises(OSError) as caught:
        commit(changes_for(populated), root=populated)
    monkeypatch.undo()
    assert len(calls) > step, "the injected failure never fired"
    assert caught.value.errno == errno.EIO
    assert "rollback incomplete" not in str(caught.value)
    assert state_of(populated) == before
    assert leftovers(populated) == []


def test_non_oserror_mid_commit_also_rolls_back_and_propagates(
    populated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = state_of(populated)
    counting(monkeypatch, "replace", 2, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        commit(changes_for(populated), root=populated)
    monkeypatch.undo()
    assert state_of(populated) == before
    assert leftovers(populated) == []


def test_disk_full_surfaces_as_one_line_oserror_with_enospc(
    populated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = state_of(populated)
    counting(monkeypatch, "write", 1, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)))
    with pytest.raises(OSError) as caught:
        commit(changes_for(populated), root=populated)
    monkeypatch.undo()
    message = str(caught.value)
    assert caught.value.errno == errno.ENOSPC
    assert "\n" not in message and "b.md" in message and "No space left" in message
    assert not message.startswith("[Errno")
    assert state_of(populated) == before
    assert leftovers(populated) == []


def test_failed_restore_reports_rollback_incomplete(populated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_replace = os.replace
    calls: list[int] = []

    def replace_that_breaks_for_good(*args, **kwargs):
        calls.append(1)
        if len(calls) >= 2:  # the second write and every restore after it
            raise OSError(errno.EIO, "Input/output error")
        return real_replace(*args, **kwargs)

    monkeypatch.setattr(os, "replace", replace_that_breaks_for_good)
    with pytest.raises(OSError, match=r"^write failed and rollback incomplete \(.+\)$"):
        commit(changes_for(populated), root=populated)


def test_write_through_a_symlinked_destination_is_refused_and_target_untouched(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    target = write_file(outside / "secret.md", b"secret", 0o600)
    root = tmp_path / "root"
    root.mkdir()
    (root / "link.md").symlink_to(target)
    with pytest.raises(OSError, match="symlink") as caught:
        commit([FileWrite(root / "link.md", b"pwned")], root=root)
    assert caught.value.errno == errno.ELOOP
    assert target.read_bytes() == b"secret"
    assert (root / "link.md").is_symlink()
    assert leftovers(root) == [] and leftovers(outside) == []


def test_delete_through_a_symlink_is_refused(tmp_path: Path) -> None:
    target = write_file(tmp_path / "target.md", b"t", 0o644)
    (tmp_path / "link.md").symlink_to(target)
    with pytest.raises(OSError, match="symlink"):
        commit([FileDelete(tmp_path / "link.md")])
    assert (tmp_path / "link.md").is_symlink() and target.read_bytes() == b"t"


def test_destination_whose_parent_resolves_outside_root_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "root"
    root.mkdir()
    (root / "escape").symlink_to(outside, target_is_directory=True)
    with pytest.raises(ValueError, match="not directly inside the memory root"):
        commit([FileWrite(root / "ok.md", b"ok"), FileWrite(root / "escape" / "x.md", b"x")], root=root)
    assert list(outside.iterdir()) == []
    assert sorted(p.name for p in root.iterdir()) == ["escape"]


def test_two_changes_for_one_path_are_refused_before_anything_is_written(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="more than one change"):
        commit([FileWrite(tmp_path / "a.md", b"1"), FileDelete(tmp_path / "." / "a.md")])
    assert list(tmp_path.iterdir()) == []


def test_missing_parent_directory_is_refused_and_not_created(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="does not exist"):
        commit([FileWrite(tmp_path / "a.md", b"a"), FileWrite(tmp_path / "nope" / "b.md", b"b")])
    assert list(tmp_path.iterdir()) == []


def test_deleting_a_missing_file_is_refused(tmp_path: Path) -> None:
    write_file(tmp_path / "a.md", b"a", 0o644)
    with pytest.raises(FileNotFoundError, match="cannot delete"):
        commit([FileWrite(tmp_path / "a.md", b"changed"), FileDelete(tmp_path / "gone.md")])
    assert (tmp_path / "a.md").read_bytes() == b"a"


# --------------------------------------------------------------------------
# The root lock
# --------------------------------------------------------------------------


def test_two_threads_with_their_own_root_lock_exclude_each_other(tmp_path: Path) -> None:
    held = threading.Event()
    release = threading.Event()
    results: list[str] = []

    def holder() -> None:
        with root_lock(tmp_path):
            held.set()
            release.wait(30)

    def contender() -> None:
        try:
            with root_lock(tmp_path, timeout=0):
                results.append("entered")
        except LockTimeoutError:
            results.append("excluded")

    first = threading.Thread(target=holder)
    first.start()
    assert held.wait(30)
    second = threading.Thread(target=contender)
    second.start()
    second.join(30)
    release.set()
    first.join(30)
    assert results == ["excluded"]
    with root_lock(tmp_path, timeout=0):
        pass


def test_waiting_writer_enters_only_after_the_holder_releases(tmp_path: Path) -> None:
    held = threading.Event()
    trying = threading.Event()
    order: list[str] = []

    def holder() -> None:
        with root_lock(tmp_path):
            held.set()
            trying.wait(30)
            # Generous pause: a waiter that is not excluded enters now, out of order.
            threading.Event().wait(0.3)
            order.append("holder releases")

    def waiter() -> None:
        trying.set()
        with root_lock(tmp_path, timeout=30):
            order.append("waiter enters")

    first = threading.Thread(target=holder)
    first.start()
    assert held.wait(30)
    second = threading.Thread(target=waiter)
    second.start()
    first.join(30)
    second.join(30)
    assert order == ["holder releases", "waiter enters"]


def test_nested_lock_in_one_thread_is_not_reentrant(tmp_path: Path) -> None:
    with root_lock(tmp_path):
        with pytest.raises(LockTimeoutError):
            with root_lock(tmp_path, timeout=0):
                pass


HOLD_IN_SUBPROCESS = """
import sys
from pathlib import Path
from memls.store.files import root_lock
with root_lock(Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.read()
"""


def test_lock_held_by_another_process_times_out_with_a_clear_message(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD_IN_SUBPROCESS, str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    try:
        assert proc.stdout.readline().strip() == "held"
        with pytest.raises(LockTimeoutError) as caught:
            with root_lock(tmp_path, timeout=0.5):
                pass
        message = str(caught.value)
        assert str(tmp_path / LOCK_FILENAME) in message and "\n" not in message
    finally:
        proc.stdin.close()
        proc.wait(30)
    with root_lock(tmp_path, timeout=0.5):
        pass


def test_lock_timeout_comes_from_the_environment_at_call_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with root_lock(tmp_path):
        monkeypatch.setenv("MEMLS_LOCK_TIMEOUT", "0")
        with pytest.raises(LockTimeoutError, match="after 0s"):
            with root_lock(tmp_path):
                pass


@pytest.mark.parametrize("value", ["soon", "-1", "inf", "nan"])
def test_invalid_lock_timeout_setting_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("MEMLS_LOCK_TIMEOUT", value)
    with pytest.raises(ValueError, match="MEMLS_LOCK_TIMEOUT"):
        with root_lock(tmp_path):
            pass


def test_lock_file_remains_after_release(tmp_path: Path) -> None:
    with root_lock(tmp_path):
        assert (tmp_path / LOCK_FILENAME).is_file()
    assert (tmp_path / LOCK_FILENAME).is_file()


def test_root_lock_on_a_missing_root_raises_and_creates_nothing(tmp_path: Path) -> None:
    root = tmp_path / "missing"
    with pytest.raises(FileNotFoundError, match="does not exist"):
        with root_lock(root):
            pass
    assert not root.exists()


def test_root_lock_creates_the_root_when_asked(tmp_path: Path) -> None:
    root = tmp_path / "new" / "root"
    with root_lock(root, create_root=True):
        assert root.is_dir()


def test_root_lock_raises_one_line_error_when_lock_file_cannot_be_opened(tmp_path: Path) -> None:
    (tmp_path / LOCK_FILENAME).mkdir()
    with pytest.raises(OSError, match="cannot take the lock") as caught:
        with root_lock(tmp_path, timeout=0.5):
            pass
    assert "\n" not in str(caught.value)


def test_read_lock_takes_the_lock_when_it_can(tmp_path: Path) -> None:
    with read_lock(tmp_path) as locked:
        assert locked is True
        with pytest.raises(LockTimeoutError):
            with root_lock(tmp_path, timeout=0):
                pass


def test_read_lock_on_a_missing_root_proceeds_unlocked_and_creates_nothing(tmp_path: Path) -> None:
    root = tmp_path / "missing"
    with read_lock(root) as locked:
        assert locked is False
    assert not root.exists()


def test_read_lock_proceeds_unlocked_when_lock_file_cannot_be_created(tmp_path: Path) -> None:
    # Tests run as root, where chmod 0555 does not stop file creation; a
    # directory squatting on the lock file's name fails the same open.
    (tmp_path / LOCK_FILENAME).mkdir()
    before = sorted(p.name for p in tmp_path.rglob("*"))
    with read_lock(tmp_path) as locked:
        assert locked is False
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


def test_read_lock_does_not_swallow_errors_from_its_body(tmp_path: Path) -> None:
    with pytest.raises(PermissionError):
        with read_lock(tmp_path):
            raise PermissionError("from the body")
    with root_lock(tmp_path, timeout=0):
        pass


# -- a write guarded against programs that take no lock (an editor saving) -------------------------


def test_a_guarded_write_over_a_file_another_program_changed_after_the_read_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    path.write_bytes(b"- [a](a.md)\n")
    read = path.read_bytes()
    path.write_bytes(b"- [a](a.md)\n- my own line\n")  # the editor saves after memls read
    with pytest.raises(ChangedMeanwhile):
        commit([FileWrite(path, read + b"- [b](b.md)\n", expected=read)])
    assert path.read_bytes() == b"- [a](a.md)\n- my own line\n"


def test_a_guarded_write_refuses_a_file_changed_while_its_temp_was_staged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Staging fsyncs the temp: an editor's save can land then, after the bytes were compared."""
    import memls.store.files as files

    path, other = tmp_path / "MEMORY.md", tmp_path / "a.md"
    path.write_bytes(b"- [a](a.md)\n")
    other.write_bytes(b"entry\n")
    read = path.read_bytes()
    stage = files._stage

    def stage_while_the_editor_saves(target: Path, data: bytes, *args: object) -> None:
        stage(target, data, *args)
        if Path(target) == path:
            path.write_bytes(b"- [a](a.md)\n- my own line\n")

    monkeypatch.setattr(files, "_stage", stage_while_the_editor_saves)
    with pytest.raises(ChangedMeanwhile):
        commit([FileWrite(other, b"entry, saved\n"), FileWrite(path, read + b"- [b](b.md)\n", expected=read)])
    assert path.read_bytes() == b"- [a](a.md)\n- my own line\n"
    assert other.read_bytes() == b"entry\n"  # all or nothing
    assert sorted(p.name for p in tmp_path.iterdir()) == ["MEMORY.md", "a.md"]  # no temp left


def test_an_unguarded_write_and_a_guarded_one_over_unchanged_bytes_are_written(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    path.write_bytes(b"old\n")
    commit([FileWrite(path, b"new\n", expected=b"old\n")])
    assert path.read_bytes() == b"new\n"
    commit([FileWrite(path, b"newer\n")])
    assert path.read_bytes() == b"newer\n"
