"""The set-up blocks of docs/editors.md say what the server needs.

The plain Neovim block is run for real by test_neovim.py (Neovim 0.7), the
0.11 ``vim.lsp.config`` block by test_neovim_011.py (Neovim 0.11). The others
are checked as far as this machine allows: every Lua block compiles in
Neovim's LuaJIT; the ``lsp/memls.lua`` file must hand over what the 0.11
block does, and the nvim-lspconfig block is evaluated in Neovim 0.7 with a
stand-in for lspconfig;
the Helix block is parsed as TOML; every documented setting is one the
server accepts without a warning.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import tomllib

from memls.store.settings import settings_from_mapping

from .editor_helpers import REPO, documented_block, fenced_blocks, nvim_or_skip

HARNESS = Path(__file__).resolve().parent / "nvim" / "doc_blocks.lua"
CONFIG_FILE = REPO / "editors" / "neovim" / "memls.lua"
COMMAND = ["memls", "serve"]
ROOT_MARKERS = ["MEMORY.md", ".memory-index.json", ".git"]
# Neovim 0.11 tries root markers in order: the git top level first, one server per repository.
ROOT_MARKERS_011 = [".git", "MEMORY.md", ".memory-index.json"]


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory) -> dict:
    """What Neovim found when it ran the harness over the document's Lua."""
    nvim = nvim_or_skip()
    tmp = tmp_path_factory.mktemp("doc-blocks")
    source = tmp / "input.json"
    source.write_text(json.dumps({
        "compile": fenced_blocks("lua"),
        "config_file": str(CONFIG_FILE),
        "lsp_config": documented_block("neovim-lsp-config", "lua"),
        "lspconfig": documented_block("neovim-lspconfig", "lua"),
    }), encoding="utf-8")
    result_path = tmp / "result.json"
    proc = subprocess.run(
        [nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {HARNESS}"],
        cwd=tmp, env={"HOME": str(tmp), "PATH": "/usr/bin:/bin",
                      "MEMLS_DOC_INPUT": str(source), "MEMLS_DOC_RESULT": str(result_path)},
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30,
    )
    assert result_path.is_file(), f"Neovim wrote no result (exit {proc.returncode}): {proc.stderr[-2000:]}"
    result = json.loads(result_path.read_text(encoding="utf-8"))
    assert "error" not in result, result["error"]
    return result


def assert_accepted(settings: dict) -> None:
    parsed = settings_from_mapping(settings)
    assert parsed.warnings == (), parsed.warnings


def test_every_lua_block_compiles_in_neovim(evaluated):
    errors = evaluated["compile_errors"]
    assert len(errors) == len(fenced_blocks("lua")) >= 4
    assert [e for e in errors if e is not None] == []


def test_lsp_config_file_starts_memls_serve_for_markdown(evaluated):
    config = evaluated["config_file"]
    assert config["cmd"] == COMMAND
    assert config["filetypes"] == ["markdown"]
    assert config["root_markers"] == ROOT_MARKERS_011


def test_vim_lsp_config_block_configures_and_enables_what_the_file_holds(evaluated):
    calls = evaluated["lsp_config"]
    assert calls["enabled"] == ["memls"]
    config = calls["configs"]["memls"]
    file_config = evaluated["config_file"]
    for key in ("cmd", "filetypes", "root_markers"):
        assert config[key] == file_config[key], key


def test_lspconfig_block_registers_and_sets_up_memls(evaluated):
    lspconfig = evaluated["lspconfig"]
    default = lspconfig["configs"]["memls"]["default_config"]
    assert default["cmd"] == COMMAND
    assert default["filetypes"] == ["markdown"]
    assert lspconfig["root_markers"] == ROOT_MARKERS
    assert "memls" in lspconfig["setups"]


def test_helix_block_adds_memls_to_markdown():
    config = tomllib.loads(documented_block("helix", "toml"))
    server = config["language-server"]["memls"]
    assert [server["command"], *server["args"]] == COMMAND
    markdown = next(lang for lang in config["language"] if lang["name"] == "markdown")
    assert "memls" in markdown["language-servers"]
    assert_accepted(server["config"]["settings"])


def test_documented_settings_are_accepted_without_warnings():
    options = json.loads(documented_block("settings", "json"))
    assert_accepted(options["settings"])
    parsed = settings_from_mapping(options["settings"])
    assert parsed.index_on_save == options["settings"]["index"]["onSave"]
    assert dict(parsed.severity) == options["settings"]["severity"]
