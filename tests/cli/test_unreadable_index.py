"""A ``MEMORY.md`` memls cannot read (a FIFO, a symlink to ``/dev/zero``, bytes that are not UTF-8).

Real processes with a timeout and a memory ceiling: a FIFO opened for
reading blocks until a writer comes, and ``/dev/zero`` read whole never ends,
so a regression must fail the test, not hang or exhaust the machine.
"""

from __future__ import annotations

import os
import resource
import stat
import subprocess
import sys
from pathlib import Path

import pytest

MEMLS = Path(sys.executable).parent / "memls"

pytestmark = pytest.mark.skipif(
    not MEMLS.exists(), reason=f"console script not installed at {MEMLS} (run make install)"
)

NON_UTF8 = b"# M\n- [x](e01.md) \xff\xfe hook\n- [g](gone.md) - broken\n"


def _ceiling() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (3 * 1024**3, 3 * 1024**3))


def memls(memory_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("GPTME_MEMORY_DIRS", "MEMLS_MEMORY_DIRS")}
    env["MEMLS_MEMORY_DIRS"] = str(memory_dir)
    return subprocess.run([str(MEMLS), *args], capture_output=True, text=True, env=env, timeout=30,
                          cwd=memory_dir.parent, preexec_fn=_ceiling)


@pytest.fixture(params=["fifo", "zero", "non-utf8"])
def root(request, tmp_path: Path) -> tuple[Path, str]:
    """25 entries beside a ``MEMORY.md`` of the kind asked for."""
    memory_dir = tmp_path / "memory"
    memory_dir.mkdir()
    for i in range(1, 26):
        (memory_dir / f"e{i:02d}.md").write_text(
            f"---\nname: e{i:02d}\ndescription: desc {i:02d}\nmetadata:\n  type: project\n---\n\nbody\n")
    index = memory_dir / "MEMORY.md"
    if request.param == "fifo":
        os.mkfifo(index)
    elif request.param == "zero":
        index.symlink_to("/dev/zero")
    else:
        index.write_bytes(NON_UTF8)
    return memory_dir, request.param


def assert_kept(memory_dir: Path, kind: str) -> None:
    index = memory_dir / "MEMORY.md"
    if kind == "fifo":
        assert stat.S_ISFIFO(os.lstat(index).st_mode)
    elif kind == "zero":
        assert os.readlink(index) == "/dev/zero"
    else:
        assert index.read_bytes() == NON_UTF8


def test_check_reports_the_index_as_unreadable_not_missing_and_fails(root) -> None:
    memory_dir, kind = root
    for args in (("check",), ("check", "--fix")):
        result = memls(memory_dir, *args)
        assert result.returncode == 1, result.stdout + result.stderr
        assert "invalid-entry MEMORY.md cannot be read (" in result.stdout
        assert "not UTF-8 text" in result.stdout if kind == "non-utf8" else "not a regular file" in result.stdout
        assert "index-missing" not in result.stdout and "No problems" not in result.stdout
        assert "Traceback" not in result.stderr
    assert_kept(memory_dir, kind)


def test_index_refresh_refuses_in_one_line_and_leaves_the_file(root) -> None:
    memory_dir, kind = root
    result = memls(memory_dir, "index", "--refresh")
    assert result.returncode == 1
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1
    assert "refusing to change" in result.stderr and str(memory_dir / "MEMORY.md") in result.stderr
    assert ("not UTF-8 text (byte 18)" if kind == "non-utf8" else "not a regular file") in result.stderr
    assert "codec" not in result.stderr and "MemoryError" not in result.stderr
    assert_kept(memory_dir, kind)


def test_save_refuses_and_writes_nothing(root) -> None:
    memory_dir, kind = root
    result = memls(memory_dir, "save", "another", "A new entry")
    assert result.returncode == 1
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1
    assert "refusing to change" in result.stderr and str(memory_dir / "MEMORY.md") in result.stderr
    assert not (memory_dir / "another.md").exists()
    assert_kept(memory_dir, kind)
