"""The VS Code package: what `make vscode` builds is what the issue promises.

The `.vsix` is a zip. These tests open it as a user's VS Code would get it:
the manifest must declare the palette commands and every server setting,
the shipped JSON Schema must be the engine's, and the bundled Python
libraries must import and serve `initialize` on a bare interpreter
(`python -S`: no site-packages, so nothing from this venv can leak in).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from memls.store.catalogue import codes, spec
from memls.store.settings import INDEX_ON_SAVE

from .stdio_client import receive_response, send, server_process

REPO = Path(__file__).resolve().parents[2]
EXTENSION = REPO / "vscode-extension"
PALETTE_COMMANDS = {
    "memls.palette.regenerateIndex",
    "memls.palette.supersede",
    "memls.palette.newMemory",
    "memls.palette.recall",
    "memls.restartServer",
    "memls.showOutput",
    "memls.memories.refresh",
}
SETTINGS = {
    "memls.index.onSave",
    "memls.severity",
    "memls.roots",
    "memls.server.path",
    "memls.server.interpreter",
    "memls.trace.server",
}


@pytest.fixture(scope="module")
def vsix() -> Path:
    """The package, (re)built by `make vscode` when its sources changed."""
    missing = [tool for tool in ("make", "npm", "node") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"cannot build the VS Code package without {', '.join(missing)}")
    subprocess.run(["make", "--no-print-directory", "-C", str(REPO), "vscode"], check=True,
                   stdout=subprocess.DEVNULL)
    version = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))["version"]
    path = EXTENSION / f"memls-{version}.vsix"
    assert path.is_file(), f"make vscode did not produce {path.name}"
    return path


@pytest.fixture(scope="module")
def manifest(vsix: Path) -> dict:
    with zipfile.ZipFile(vsix) as z:
        return json.loads(z.read("extension/package.json"))


@pytest.fixture(scope="module")
def unpacked(vsix: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("vsix")
    with zipfile.ZipFile(vsix) as z:
        z.extractall(target)
    return target / "extension"


def test_manifest_declares_the_palette_commands(manifest: dict) -> None:
    declared = {c["command"] for c in manifest["contributes"]["commands"]}
    assert declared == PALETTE_COMMANDS


def test_palette_commands_do_not_clash_with_server_command_ids(manifest: dict) -> None:
    # vscode-languageclient registers the server's executeCommand ids itself.
    server_ids = {"memls.regenerateIndex", "memls.supersede", "memls.newMemory", "memls.recall", "memls.debugInfo",
                  "memls.showLocations"}
    declared = {c["command"] for c in manifest["contributes"]["commands"]}
    assert not declared & server_ids


def test_manifest_declares_every_setting_with_a_description(manifest: dict) -> None:
    properties = manifest["contributes"]["configuration"]["properties"]
    assert set(properties) == SETTINGS
    for key, prop in properties.items():
        assert prop.get("markdownDescription") or prop.get("description"), key
        assert "default" in prop, key


def test_index_on_save_offers_the_server_values_with_its_default(manifest: dict) -> None:
    prop = manifest["contributes"]["configuration"]["properties"]["memls.index.onSave"]
    assert tuple(prop["enum"]) == INDEX_ON_SAVE
    assert prop["default"] == "auto"


def test_severity_setting_lists_exactly_the_catalogue_codes(manifest: dict) -> None:
    prop = manifest["contributes"]["configuration"]["properties"]["memls.severity"]
    assert set(prop["properties"]) == set(codes())
    for code, entry in prop["properties"].items():
        assert entry["enum"] == ["off", "hint", "information", "warning", "error"], code


def test_activation_does_not_claim_every_markdown_workspace(manifest: dict) -> None:
    events = manifest["activationEvents"]
    assert "workspaceContains:**/*.md" not in events
    assert "*" not in events
    assert "workspaceContains:**/memory/*.md" in events


def test_engine_matches_the_language_client_requirement(manifest: dict) -> None:
    client = json.loads((EXTENSION / "node_modules" / "vscode-languageclient" / "package.json").read_text())
    assert manifest["engines"]["vscode"] == client["engines"]["vscode"]


def test_shipped_schema_is_the_engine_schema(unpacked: Path) -> None:
    shipped = (unpacked / "schema" / "memory-frontmatter.schema.json").read_bytes()
    assert shipped == (REPO / "store" / "schema" / "memory-frontmatter.schema.json").read_bytes()


def test_bundled_libraries_hold_no_compiled_code(unpacked: Path) -> None:
    compiled = [p.name for p in (unpacked / "bundled" / "libs").rglob("*") if p.suffix in {".so", ".pyd", ".pyc"}]
    assert compiled == []


def test_bundled_libraries_import_on_a_bare_python(unpacked: Path) -> None:
    libs = unpacked / "bundled" / "libs"
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); "
        "import memls, memls.lsp.server, memls.store, yaml, pygls; "
        "assert memls.lsp.server.__file__.startswith(sys.argv[1]), memls.lsp.server.__file__; "
        "assert memls.store.__file__.startswith(sys.argv[1]), memls.store.__file__; "
        "print(memls.lsp.__version__)"
    )
    result = subprocess.run([sys.executable, "-S", "-c", code, str(libs)], capture_output=True, text=True,
                            timeout=60, env=_bare_env())
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() != "0+unknown"


def test_bundled_memls_is_one_package_as_the_wheel_installs_it(unpacked: Path) -> None:
    libs = unpacked / "bundled" / "libs"
    assert (libs / "memls" / "store" / "__init__.py").is_file()
    assert (libs / "memls" / "lsp" / "server.py").is_file()
    assert not (libs / "store").exists() and not (libs / "lsp").exists()
    [dist_info] = libs.glob("memls-*.dist-info")
    assert (dist_info / "top_level.txt").read_text().split() == ["memls"]


def test_bundled_memls_ships_the_page_every_code_links_to(unpacked: Path) -> None:
    pages = unpacked / "bundled" / "libs" / "memls" / "store" / "codes"
    assert {p.name for p in pages.glob("*.md")} == {f"{code}.md" for code in codes()}
    for code in codes():
        assert (pages / f"{code}.md").read_bytes() == spec(code).docs_path.read_bytes(), code


def test_bundled_server_answers_initialize_on_a_bare_python(unpacked: Path, tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    with server_process([sys.executable, "-S", str(unpacked / "bundled" / "tool" / "server.py")],
                        cwd=tmp_path, env=_bare_env()) as proc:
        send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {},
            "initializationOptions": {"settings": {"severity": {}, "roots": [], "index": {"onSave": "auto"}}},
        }})
        reply = receive_response(proc, 1)
        assert "capabilities" in reply.get("result", {}), reply
        assert reply["result"]["serverInfo"]["name"] == "memls"
        send(proc, {"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
        receive_response(proc, 2)
        send(proc, {"jsonrpc": "2.0", "method": "exit"})
        assert proc.wait(timeout=30) == 0


def _bare_env() -> dict[str, str]:
    """The environment without anything that would point Python at this venv."""
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTHON") and k != "VIRTUAL_ENV"}

