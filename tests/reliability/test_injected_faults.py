"""Every multi-file write survives a failure at any step with every file untouched.

For each write (save with index, supersede, rename, delete, set_status,
fix-all, index regeneration) on a legacy and a policy-managed root, a clean
run first counts the calls ``store/files.py`` makes to ``open``, ``write``,
``fsync``, ``fchmod``, ``replace``, ``rename``, ``link`` and ``unlink``
(directory fsyncs included); then, on a fresh copy of the root, call k of
each function fails, for every k. The write must raise one clear line and
leave every file byte-identical, with its mode, and no temp or backup file.
"""

from __future__ import annotations

import errno
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import memls.store.apply as store_apply
import memls.store.files as store_files
from memls.store import MemoryRoot, MemoryStore
from memls.store.checks import CheckContext
from memls.store.fix_all import fix_all
from memls.store.model import Workspace

from .fault_injection import FAULTABLE, FaultyOS
from .reliability_helpers import REPO, entry_text, root_env, snapshot, write_policy

Operation = Callable[[MemoryStore, Path], object]

OPERATIONS: dict[str, Operation] = {
    "save-new": lambda s, r: s.save("e-new", "a new entry", "body\n"),
    "save-existing": lambda s, r: s.save("a", "changed description", "changed body\n"),
    "supersede": lambda s, r: s.supersede("a", "c"),
    "rename": lambda s, r: s.rename("b", "b-renamed"),
    "delete": lambda s, r: s.delete("c"),
    "set-status": lambda s, r: s.set_status("c", "historical"),
    "write-index": lambda s, r: s.write_index(),
}


def build_root(root: Path, managed: bool) -> None:
    """Four entries (one private), a stale private index, and a fixable supersession."""
    root.mkdir(parents=True)
    (root / "a.md").write_text(entry_text("a", "first"), encoding="utf-8")
    (root / "a.md").chmod(0o600)
    (root / "b.md").write_text(entry_text("b", "second"), encoding="utf-8")
    (root / "c.md").write_text(entry_text("c", "third"), encoding="utf-8")
    (root / "d.md").write_text(
        entry_text("d", "old", extra="status: superseded\nsuperseded_by: b\n"), encoding="utf-8")
    if managed:
        write_policy(root, ["a.md", "b.md"])
        (root / ".memory-index.json").chmod(0o600)
    store = MemoryStore([MemoryRoot("explicit", root)])
    store.write_index()
    if managed:
        # A stale view (e.md below is not selected, so it changes nothing there).
        with (root / "MEMORY.md").open("a", encoding="utf-8") as index:
            index.write("- [gone](gone.md) — removed by hand\n")
    (root / "MEMORY.md").chmod(0o600)
    # An entry the index does not know yet, so regeneration has work to do.
    (root / "e.md").write_text(entry_text("e", "late"), encoding="utf-8")


def run_fix_all(root: Path) -> object:
    return fix_all(CheckContext(Workspace.load([MemoryRoot("explicit", root)])))


@pytest.fixture(scope="module")
def templates(tmp_path_factory) -> dict[bool, Path]:
    base = tmp_path_factory.mktemp("templates")
    out = {}
    for managed in (False, True):
        build_root(base / ("managed" if managed else "legacy"), managed)
        out[managed] = base / ("managed" if managed else "legacy")
    return out


def fresh(template: Path, tmp_path: Path, n: int) -> Path:
    root = tmp_path / f"run{n}"
    shutil.copytree(template, root)  # copy2: bytes and modes
    return root


def counted(op: Callable[[], object], monkeypatch) -> FaultyOS:
    faulty = FaultyOS()
    monkeypatch.setattr(store_files, "os", faulty)
    op()
    monkeypatch.setattr(store_files, "os", __import__("os"))
    return faulty


@pytest.mark.parametrize("managed", [False, True], ids=["legacy", "managed"])
@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_failure_at_every_step_leaves_every_file_identical(operation, managed, templates, tmp_path, monkeypatch):
    template = templates[managed]
    op = OPERATIONS[operation]
    clean = fresh(template, tmp_path, 0)
    before = snapshot(clean)
    calls = counted(lambda: op(MemoryStore([MemoryRoot("explicit", clean)]), clean), monkeypatch).calls
    assert snapshot(clean) != before, f"{operation} changed nothing; the scenario is wrong"
    injected = 0
    for function in FAULTABLE:
        for k in range(1, calls[function] + 1):
            root = fresh(template, tmp_path, injected + 1)
            faulty = FaultyOS(function, k)
            monkeypatch.setattr(store_files, "os", faulty)
            try:
                with pytest.raises(OSError) as raised:
                    op(MemoryStore([MemoryRoot("explicit", root)]), root)
            finally:
                monkeypatch.setattr(store_files, "os", __import__("os"))
            assert faulty.fired
            assert "\n" not in str(raised.value) and str(raised.value)
            assert snapshot(root) == before, f"{operation}: {function} call {k} failed: files changed"
            injected += 1
            shutil.rmtree(root)
    assert injected >= 4
    print(f"{operation} ({'managed' if managed else 'legacy'}): {injected} faults injected")


@pytest.mark.parametrize("managed", [False, True], ids=["legacy", "managed"])
def test_fix_all_failure_at_every_step_rolls_back_each_commit(managed, templates, tmp_path, monkeypatch):
    """fix-all commits once per pass and reports a failed fix; each failed commit changes nothing."""
    template = templates[managed]
    clean = fresh(template, tmp_path, 0)
    before = snapshot(clean)
    report = None

    def clean_run():
        nonlocal report
        report = run_fix_all(clean)

    calls = counted(clean_run, monkeypatch).calls
    assert report.applied and not report.failed and snapshot(clean) != before
    real_commit = store_apply.commit
    failed_commits = []

    def checked_commit(changes, **kwargs):
        root = Path(changes[0].path).parent
        start = snapshot(root)
        try:
            real_commit(changes, **kwargs)
        except OSError:
            assert snapshot(root) == start, "a failed fix-all commit changed files"
            failed_commits.append(root)
            raise

    monkeypatch.setattr(store_apply, "commit", checked_commit)
    injected = 0
    for function in FAULTABLE:
        for k in range(1, calls[function] + 1):
            root = fresh(template, tmp_path, injected + 1)
            faulty = FaultyOS(function, k)
            monkeypatch.setattr(store_files, "os", faulty)
            try:
                result = run_fix_all(root)
            finally:
                monkeypatch.setattr(store_files, "os", __import__("os"))
            assert faulty.fired and result.failed, (function, k, result)
            assert all("\n" not in why for _, why in result.failed)
            leftovers = [p.name for p in root.iterdir() if p.name.endswith((".tmp", ".bak"))]
            assert leftovers == []
            injected += 1
            shutil.rmtree(root)
    assert len(failed_commits) == injected
    print(f"fix-all ({'managed' if managed else 'legacy'}): {injected} faults injected")


@pytest.mark.parametrize("fault", ["write:ENOSPC", "fsync:ENOSPC", "open:EROFS", "open:EACCES"])
@pytest.mark.parametrize("command", [
    ["save", "new-entry", "a description"],
    ["save", "a", "changed"],
    ["supersede", "a", "c"],
    ["rename", "b", "b2"],
    ["index", "--write"],
])
def test_disk_full_and_read_only_root_give_one_error_line_through_the_cli(command, fault, templates, tmp_path):
    root = fresh(templates[False], tmp_path, 0)
    before = snapshot(root)
    result = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("fault_cli.py")), *command],
        env=root_env(root, MEMLS_FAULT=fault), capture_output=True, text=True, timeout=60,
        stdin=subprocess.DEVNULL, cwd=REPO)
    assert result.returncode == 1, result
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert "Traceback" not in result.stderr
    code = getattr(errno, fault.split(":")[1])
    assert __import__("os").strerror(code) in lines[0]
    assert snapshot(root) == before
