"""Shared by the reliability tests: scale, subprocess runners, root snapshots.

``MEMLS_STRESS=1`` (set by ``make stress``) multiplies iteration counts and
hypothesis examples; ``make test`` runs the bounded variants.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
MEMLS = str(BIN / "memls")
GPTME_UTIL = str(BIN / "gptme-util")
STRESS = os.environ.get("MEMLS_STRESS", "").strip() not in ("", "0")


def scaled(normal: int, stress: int) -> int:
    """``stress`` under ``make stress``, else ``normal``."""
    return stress if STRESS else normal


def root_env(root: Path, **extra: str) -> dict[str, str]:
    """An environment whose only memory root is ``root`` (for memls and gptme)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMLS_", "GPTME_"))}
    env.update(MEMLS_MEMORY_DIRS=str(root), GPTME_MEMORY_DIRS=str(root),
               MEMLS_LOCK_TIMEOUT="60", HOME=str(root.parent), PYTHONPATH=str(REPO))
    env.update(extra)
    return env


def memls(root: Path, *args: str, timeout: float = 60, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([MEMLS, *args], env=root_env(root, **env), capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``root`` (hidden ones included): bytes and permission bits."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            out[str(path.relative_to(root))] = (path.read_bytes(), stat.S_IMODE(path.stat().st_mode))
    return out


def entry_text(name: str, description: str = "d", type_: str = "project", extra: str = "", body: str = "") -> str:
    return (f'---\nname: {name}\ndescription: "{description}"\nmetadata:\n  type: {type_}\n'
            f"{extra}---\n\n{body}")


def write_policy(root: Path, selected: list[str], budget: int = 21000) -> None:
    (root / ".memory-index.json").write_text(
        json.dumps({"version": 1, "budget": budget, "selected": selected}), encoding="utf-8")


def check_problems(root: Path) -> set[tuple[str, int, str]]:
    """``memls check --format json`` on ``root`` as a set of (path, line, code)."""
    result = memls(root, "check", "--format", "json", str(root))
    assert result.returncode in (0, 1), result.stderr
    return {(str(Path(p["path"]).resolve()), p["line"], p["code"]) for p in json.loads(result.stdout)}
