"""SIGKILL at random moments: every file parses, holds one of the contents its
writer could have written, MEMORY.md is whole, and a restarted server shows
the diagnostics `memls check` shows.

A kill between two renames of one commit can leave the entry and the index
out of step (store/files.py documents this: it is not a journal); that shows
as a diagnostic such as index-missing-entry, never as a broken file. Stale
``.*.tmp`` files may stay behind; no reader takes them for entries.
"""

from __future__ import annotations

import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memls.store.index import parse_index_lines
from memls.store.parse import parse_document

from .reliability_helpers import MEMLS, check_problems, root_env, scaled
from .server_session import published, serve, until

DESCRIPTION = re.compile(r"v\d+|seed")


def assert_root_whole(root: Path) -> None:
    for path in root.glob("*.md"):
        text = path.read_text(encoding="utf-8")
        if path.name == "MEMORY.md":
            assert text.endswith("\n")
            pointers = {link.line for link in parse_index_lines(text)}
            for number, line in enumerate(text.split("\n")):
                assert number in pointers or line == "" or line.startswith("#"), (number, line)
            continue
        doc = parse_document(text, path=path, scope="explicit")
        assert doc.strict_error is None, (path.name, doc.strict_error, text[:200])
        entry = doc.entry
        assert entry.name == path.stem and DESCRIPTION.fullmatch(entry.description), text[:200]
        counter = entry.description[1:]
        lines = set(entry.body.strip("\n").split("\n")) if entry.body.strip() else set()
        assert lines <= {f"body {counter}"}, path.name  # the body of the same save, whole


def seed_root(root: Path) -> None:
    root.mkdir(parents=True)
    for k in range(6):
        assert subprocess.run([MEMLS, "save", f"crash-{k}", "seed"], env=root_env(root),
                              stdin=subprocess.DEVNULL, capture_output=True).returncode == 0


def kill_at_random(args: list[str], root: Path, rng: random.Random, longest: float) -> None:
    proc = subprocess.Popen(args, env=root_env(root), stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(rng.uniform(0.0, longest))
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)


@pytest.mark.timeout(scaled(600, 3600))
async def test_sigkilled_writers_leave_whole_files_and_a_server_that_agrees_with_memls_check(tmp_path):
    folder = tmp_path / "workspace"
    root = folder / "memory"
    seed_root(root)
    rng = random.Random()
    store_kills, cli_kills = scaled(5, 60), scaled(12, 150)
    for _i in range(store_kills):
        kill_at_random([sys.executable, str(Path(__file__).with_name("crash_writer.py")), str(root),
                        str(rng.randrange(1, 1000))], root, rng, 1.5)
        assert_root_whole(root)
    for _i in range(cli_kills):
        k, other = rng.randrange(6), rng.randrange(6)
        if rng.random() < 0.7:
            args = [MEMLS, "save", f"crash-{k}", f"v{rng.randrange(10**6)}"]
        else:
            args = [MEMLS, "supersede", f"crash-{k}", f"crash-{other}"]
        kill_at_random(args, root, rng, 0.6)
        assert_root_whole(root)
    stale = [p.name for p in root.iterdir() if p.name.endswith(".tmp")]
    print(f"\ncrashes: {store_kills} MemoryStore writers and {cli_kills} memls processes SIGKILLed; "
          f"0 files lost or partial; {len(stale)} stale temp files")
    # A restarted server, opening nothing, publishes what memls check reports.
    expected = check_problems(root)
    async with serve(folder) as client:
        assert await until(lambda: published(client) == expected, timeout=30), (
            f"server {sorted(published(client))} != memls check {sorted(expected)}")
