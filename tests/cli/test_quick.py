"""The console script answers plain reads without click, printing exactly what click's commands print."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

QUICK = "from memls.quick import main; main()"
CLICK = "from memls.cli import main; main()"
# Reports on stderr whether click was loaded by the time the process ended.
CLICK_PROBE = (
    "import atexit, sys; atexit.register(lambda: sys.stderr.write("
    "'[click loaded]' if 'click' in sys.modules else '')); "
)


def write(root: Path, filename: str, name: str, description: str, extra: str = "") -> None:
    (root / filename).write_text(
        f"---\nname: {name}\ndescription: {description}\n{extra}---\nbody of {name}\n", encoding="utf-8"
    )


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    root = tmp_path / "memory"
    root.mkdir()
    write(root, "alpha.md", "alpha", "first", "metadata:\n  type: feedback\n")
    write(root, "beta.md", "beta", "second \x1b[31mred\x1b[0m")
    write(root, "old.md", "old", "retired", "status: superseded\nsuperseded_by: gone\n")
    (root / "junk.md").write_bytes(b"\xff")
    out = {k: v for k, v in os.environ.items() if k not in ("GPTME_MEMORY_DIRS",)}
    out.update(MEMLS_MEMORY_DIRS=str(root), MEMLS_CACHE_DIR=str(tmp_path / "cache"))
    return out


def run(code: str, args: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=env, timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.parametrize("args", [["index"], ["list"], ["audit"], ["show", "alpha"], ["show", "beta"],
                                  ["show", "nothing"]])
def test_plain_reads_print_what_the_click_commands_print(env: dict[str, str], args: list[str]) -> None:
    quick = run(QUICK, args, env)
    assert quick == run(CLICK, args, env)
    assert "Traceback" not in quick[2]


@pytest.mark.parametrize("args", [["index"], ["list"], ["audit"], ["show", "alpha"]])
def test_plain_reads_do_not_load_click(env: dict[str, str], args: list[str]) -> None:
    _, stdout, stderr = run(CLICK_PROBE + QUICK, args, env)
    assert stdout and "[click loaded]" not in stderr


@pytest.mark.parametrize("args", [["list", "--json"], ["index", "--budget", "60"], ["--help"], [],
                                  ["show"], ["index", "extra"], ["show", "--", "alpha"]])
def test_every_other_command_line_goes_to_click(env: dict[str, str], args: list[str]) -> None:
    quick = run(CLICK_PROBE + QUICK, args, env)
    click = run(CLICK_PROBE + CLICK, args, env)
    assert quick == click
    assert "[click loaded]" in quick[2]


def test_a_failure_is_one_error_line_and_exit_1(env: dict[str, str], tmp_path: Path) -> None:
    (tmp_path / "memory" / ".memory-index.json").write_text("{not json", encoding="utf-8")
    status, stdout, stderr = run(QUICK, ["index"], env)
    assert (status, stdout) == (1, "")
    assert stderr.startswith("Error: ") and stderr.count("\n") == 1
    assert run(CLICK, ["index"], env) == (status, stdout, stderr)
