"""The wheel: one top-level package, `memls`, that works in a fresh environment.

PyPI has distributions named `store` and `lsp`; a wheel that installed
top-level packages of those names would overwrite their files. These tests
build the wheel the way `pip install memls` would get it, install it into a
new virtual environment (its dependencies from the package index, nothing
from this venv), and run the console script and the server from there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from .stdio_client import notify, request, server_process

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--disable-pip-version-check",
                    "-w", str(out), str(REPO)], check=True, capture_output=True)
    [built] = out.glob("memls-*.whl")
    return built


@pytest.fixture(scope="module")
def fresh_env(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("fresh-venv")
    venv.create(target, with_pip=True)
    result = subprocess.run([str(target / "bin" / "python"), "-m", "pip", "install", "--quiet",
                             "--disable-pip-version-check", str(wheel)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return target


def top_level_names(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as z:
        return {name.split("/")[0] for name in z.namelist() if ".dist-info/" not in name}


def test_wheel_installs_only_the_memls_package(wheel: Path) -> None:
    assert top_level_names(wheel) == {"memls"}
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        [top_level] = [n for n in names if n.endswith(".dist-info/top_level.txt")] or [None]
        if top_level is not None:
            assert z.read(top_level).decode().split() == ["memls"]
    assert "memls/store/schema/memory-frontmatter.schema.json" in names
    assert "memls/lsp/features/__init__.py" in names


def test_wheel_carries_every_source_module_of_the_repository(wheel: Path) -> None:
    """A subpackage or data folder missing from pyproject would be silently left out."""
    expected = {f"memls/{folder}/{p.relative_to(REPO / folder).as_posix()}"
                for folder in ("store", "lsp") for p in (REPO / folder).rglob("*.py")}
    expected |= {f"memls/{p.name}" for p in (REPO / "memls").glob("*.py")}
    # The code pages that diagnostics link to (codeDescription) and `memls explain` prints.
    expected |= {f"memls/store/codes/{p.name}" for p in (REPO / "store" / "codes").glob("*.md")}
    assert any(name.startswith("memls/store/codes/") for name in expected)
    with zipfile.ZipFile(wheel) as z:
        assert expected - set(z.namelist()) == set()


def _clean_env(cwd: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON") and k != "VIRTUAL_ENV"}
    env.update(HOME=str(cwd), MEMLS_CACHE_DIR=str(cwd / "cache"), MEMLS_MEMORY_DIRS=str(cwd / "memory"))
    return env


def test_installed_cli_saves_lists_and_checks(fresh_env: Path, tmp_path: Path) -> None:
    memls = str(fresh_env / "bin" / "memls")
    env = _clean_env(tmp_path)
    (tmp_path / "memory").mkdir()
    run = lambda *args: subprocess.run([memls, *args], cwd=tmp_path, env=env,  # noqa: E731
                                       capture_output=True, text=True, input="")
    assert run("save", "deploy-freeze", "No deploys on Fridays").returncode == 0
    listed = run("list", "--json")
    assert [e["name"] for e in json.loads(listed.stdout)] == ["deploy-freeze"]
    check = run("check")
    assert check.returncode == 0, check.stdout + check.stderr
    version = run("--version")
    assert version.stdout.split()[-1] == subprocess.run(
        [str(fresh_env / "bin" / "python"), "-c", "import memls; print(memls.__version__)"],
        capture_output=True, text=True, env=env, cwd=tmp_path).stdout.strip()


def test_installed_server_answers_initialize(fresh_env: Path, tmp_path: Path) -> None:
    with server_process([str(fresh_env / "bin" / "memls"), "serve"], cwd=tmp_path,
                        env=_clean_env(tmp_path)) as proc:
        reply = request(proc, 1, "initialize", {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}})
        assert reply["result"]["serverInfo"]["name"] == "memls", reply
        notify(proc, "initialized", {})
        assert request(proc, 2, "shutdown", None).get("result", "missing") is None
        notify(proc, "exit", None)
        assert proc.wait(timeout=30) == 0

