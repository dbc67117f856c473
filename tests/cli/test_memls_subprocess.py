"""The installed ``memls`` console script, end to end in real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

MEMLS = Path(sys.executable).parent / "memls"

pytestmark = pytest.mark.skipif(
    not MEMLS.exists(), reason=f"console script not installed at {MEMLS} (run make install)"
)


def memls(memory_dir: Path, *args: str, input: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "GPTME_MEMORY_DIRS"}
    env["MEMLS_MEMORY_DIRS"] = str(memory_dir)
    return subprocess.run(
        [str(MEMLS), *args], input=input, capture_output=True, text=True, env=env, timeout=60
    )


def test_console_script_saves_from_piped_stdin_and_recalls(tmp_path):
    memory_dir = tmp_path / "memory"
    saved = memls(memory_dir, "save", "ship-rule", "Ship from main.", input="Tag releases on main.\n")
    assert saved.returncode == 0, saved.stderr
    assert saved.stdout == f"Saved memory to {memory_dir / 'ship-rule.md'}\n"
    recalled = memls(memory_dir, "recall", "ship releases main", "--format", "json")
    assert [hit["name"] for hit in json.loads(recalled.stdout)["hits"]] == ["ship-rule"]


def test_console_script_reserved_name_is_one_error_line_and_creates_nothing(tmp_path):
    memory_dir = tmp_path / "memory"
    result = memls(memory_dir, "save", "MEMORY", "Reserved basename")
    assert result.returncode == 1
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1
    assert "reserved for memory indexes" in result.stderr
    assert not memory_dir.exists()


def test_console_script_unknown_scope_error_has_no_traceback_or_quotes(tmp_path):
    result = memls(tmp_path / "memory", "supersede", "a", "b", "--scope", "nowhere")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("Error: no memory root")


def test_console_script_saves_with_stdin_closed_as_hook_runners_and_ci_start_it(tmp_path):
    memory_dir = tmp_path / "memory"
    env = {k: v for k, v in os.environ.items() if k != "GPTME_MEMORY_DIRS"}
    env["MEMLS_MEMORY_DIRS"] = str(memory_dir)
    result = subprocess.run(
        [str(MEMLS), "save", "no-stdin", "Saved with fd 0 closed."],
        stdin=subprocess.DEVNULL, preexec_fn=lambda: os.close(0),
        capture_output=True, text=True, env=env, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert (memory_dir / "no-stdin.md").read_text(encoding="utf-8").endswith('description: "Saved with fd 0 closed."\nmetadata:\n  type: general\n---\n\n')
