"""A real editor: headless Neovim (Debian's 0.7.2) drives ``memls serve``.

One Neovim session (tests/e2e/nvim/memls_session.lua) runs the set-up block
from docs/editors.md verbatim, so the documented configuration is the one
proven here. The session opens a memory with a dangling ``superseded_by``,
jumps to a definition, and writes a new memory with ``:w``; it records what
the editor saw in a JSON file and each test below asserts one behaviour.

``make test`` installs Neovim with apt when it is missing; only where
neither ``nvim`` nor ``apt-get`` exists are these tests skipped.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from memls.store.parse import parse_document

from .editor_helpers import documented_block, nvim_or_skip

SESSION_SCRIPT = Path(__file__).resolve().parent / "nvim" / "memls_session.lua"
SESSION_TIMEOUT_SECONDS = 60
WAIT_MS = 10000  # per wait; a healthy session takes about a second in all


def entry(name: str, extra: str = "", description: str = "d") -> str:
    return (
        f'---\nname: {name}\ndescription: "{description}"\nmetadata:\n  type: project\n'
        + textwrap.dedent(extra) + "---\n\nBody.\n"
    )


FILES = {
    "stale.md": entry("stale", "status: superseded\nsuperseded_by: gone\n"),
    "old.md": entry("old", "status: superseded\nsuperseded_by: new\n"),
    "new.md": entry("new", "supersedes:\n- old\n", description="The current rule"),
}
NEW_ENTRY = entry("fresh", description="Written from Neovim")


@dataclass
class NeovimRun:
    result: dict  # what the Lua session recorded; failed steps in result["errors"]
    memory: Path
    returncode: int
    stderr: str


def memls_bin_dir(tmp: Path) -> Path:
    """A directory whose ``memls`` is this checkout's, for the block's ``cmd``."""
    beside_python = Path(sys.executable).parent
    if (beside_python / "memls").is_file():
        return beside_python
    shim_dir = tmp / "bin"
    shim_dir.mkdir()
    shim = shim_dir / "memls"
    shim.write_text(
        f'#!/bin/sh\nexec "{sys.executable}" -c "from memls.cli import main; main()" "$@"\n')
    shim.chmod(0o755)
    return shim_dir


@pytest.fixture(scope="module")
def neovim_run(tmp_path_factory) -> NeovimRun:
    nvim = nvim_or_skip()
    tmp = tmp_path_factory.mktemp("neovim")
    workspace = tmp / "workspace"
    memory = workspace / "memory"
    memory.mkdir(parents=True)
    (workspace / ".git").mkdir()  # the root marker the set-up block finds
    for name, text in FILES.items():
        (memory / name).write_text(text, encoding="utf-8")
    setup = tmp / "memls_setup.lua"
    setup.write_text(documented_block("neovim-start-client", "lua"), encoding="utf-8")
    result_path = tmp / "result.json"
    home = tmp / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME",
                        "GPTME_WORKSPACE", "GPTME_AGENT_WORKSPACE", "NVIM", "NVIM_LISTEN_ADDRESS")}
    env.update({
        # Only the workspace's memory/ is a root: no explicit list, an empty home.
        "HOME": str(home),
        "MEMLS_MEMORY_DIRS": "",
        "GPTME_MEMORY_DIRS": "",
        "PATH": f"{memls_bin_dir(tmp)}{os.pathsep}{env.get('PATH', '')}",
        "MEMLS_E2E_SETUP": str(setup),
        "MEMLS_E2E_MEMORY": str(memory),
        "MEMLS_E2E_RESULT": str(result_path),
        "MEMLS_E2E_WAIT_MS": str(WAIT_MS),
        "MEMLS_E2E_NEW_ENTRY": NEW_ENTRY.rstrip("\n"),
    })
    proc = subprocess.run(
        [nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {SESSION_SCRIPT}"],
        cwd=workspace, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=SESSION_TIMEOUT_SECONDS,
    )
    assert result_path.is_file(), (
        f"Neovim wrote no result (exit {proc.returncode}): {proc.stderr.strip()[-2000:]}")
    result = json.loads(result_path.read_text(encoding="utf-8"))
    return NeovimRun(result, memory, proc.returncode, proc.stderr)


def step(run: NeovimRun, name: str) -> dict:
    """The session's record, once ``name`` (and the set-up) are known to have succeeded."""
    errors = run.result["errors"]
    for failed in ("setup", name):
        assert failed not in errors, (
            f"Neovim step '{failed}' failed: {errors[failed]}\n{run.stderr.strip()[-2000:]}")
    return run.result


def line_of(text: str, prefix: str) -> int:
    return next(i for i, line in enumerate(text.splitlines()) if line.startswith(prefix))


def test_dangling_superseded_by_diagnostic_arrives_on_its_value(neovim_run):
    diagnostic = step(neovim_run, "diagnostic")["diagnostic"]
    line = line_of(FILES["stale.md"], "superseded_by: ")
    assert diagnostic["code"] == "dangling-superseded-by"
    assert (diagnostic["line"], diagnostic["col"]) == (line, len("superseded_by: "))
    assert "gone" in diagnostic["message"]


def test_definition_of_superseded_by_is_the_successors_name_line(neovim_run):
    definition = step(neovim_run, "definition")["definition"]
    assert Path(definition["path"]) == neovim_run.memory / "new.md"
    assert definition["line"] == line_of(FILES["new.md"], "name: ")


def test_go_to_definition_jumps_to_the_successor(neovim_run):
    jump = step(neovim_run, "jump")["jump"]
    assert Path(jump["path"]) == neovim_run.memory / "new.md"
    assert jump["line"] == line_of(FILES["new.md"], "name: ")


def test_writing_a_new_memory_regenerates_the_index_on_disk(neovim_run):
    memory = neovim_run.memory
    recorded = step(neovim_run, "save")
    assert (memory / "fresh.md").read_text(encoding="utf-8") == NEW_ENTRY
    index = (memory / "MEMORY.md").read_text(encoding="utf-8")
    assert recorded["index"] == index
    living = [parse_document(NEW_ENTRY, path=memory / "fresh.md").entry,
              parse_document(FILES["new.md"], path=memory / "new.md").entry]
    for entry_ in living:
        assert entry_ is not None and entry_.index_line() in index.splitlines()
    assert "(stale.md)" not in index and "(old.md)" not in index  # superseded: not listed
