"""memls's root lock and gptme's ``_locked_root`` exclude each other, both ways.

Both tools must serialise on ``<root>/.memory.lock`` or a gptme supersede and a
memls save could interleave their read-validate-commit windows. These tests
run the real gptme in a separate process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from memls.store.errors import LockTimeoutError
from memls.store.files import LOCK_FILENAME, root_lock

pytest.importorskip(
    "gptme.memory.store",
    reason="the real gptme is not installed (pip install -e '.[interop]')",
)

REPO = Path(__file__).resolve().parents[2]

# Announces it is about to take gptme's lock, then logs once inside it.
GPTME_WAITS_FOR_LOCK = """
import sys
from pathlib import Path
from gptme.memory.store import _locked_root
root, log = Path(sys.argv[1]), Path(sys.argv[2])
print("waiting", flush=True)
with _locked_root(root):
    with log.open("a") as f:
        f.write("gptme entered\\n")
"""

# Holds gptme's lock until its stdin closes.
GPTME_HOLDS_LOCK = """
import sys
from pathlib import Path
from gptme.memory.store import _locked_root
with _locked_root(Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.read()
"""


def start(script: str, *args: str, stdin: int | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        stdin=stdin,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


def test_gptme_writer_waits_while_memls_holds_the_root_lock(tmp_path: Path) -> None:
    log = tmp_path / "order.log"
    with root_lock(tmp_path):
        proc = start(GPTME_WAITS_FOR_LOCK, str(tmp_path), str(log))
        try:
            assert proc.stdout.readline().strip() == "waiting"
            # Generous pause: a gptme that is not excluded logs during it, out of order.
            threading.Event().wait(1.0)
            with log.open("a") as f:
                f.write("memls releases\n")
        except BaseException:
            proc.kill()
            raise
    assert proc.wait(30) == 0
    assert log.read_text().splitlines() == ["memls releases", "gptme entered"]


def test_memls_times_out_while_gptme_holds_the_lock_and_enters_after(tmp_path: Path) -> None:
    proc = start(GPTME_HOLDS_LOCK, str(tmp_path), stdin=subprocess.PIPE)
    try:
        assert proc.stdout.readline().strip() == "held"
        with pytest.raises(LockTimeoutError, match=LOCK_FILENAME):
            with root_lock(tmp_path, timeout=0.5):
                pass
    finally:
        proc.stdin.close()
        assert proc.wait(30) == 0
    with root_lock(tmp_path, timeout=0.5):
        pass
    assert (tmp_path / LOCK_FILENAME).is_file()
