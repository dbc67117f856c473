"""Shared by the editor tests: finding Neovim, and the blocks docs/editors.md marks as tested.

A block is tested when the line before its fence is
``<!-- memls:tested-block NAME -->``; tests read the block from the document
itself, so what a reader copies is what ran.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
EDITORS_DOC = REPO / "docs" / "editors.md"


def documented_block(name: str, language: str) -> str:
    """The ``language`` fence right after the ``memls:tested-block name`` marker."""
    text = EDITORS_DOC.read_text(encoding="utf-8")
    marker = f"<!-- memls:tested-block {name} -->"
    match = re.search(re.escape(marker) + r"\s*```" + re.escape(language) + r"\n(.*?)```", text, re.DOTALL)
    assert match, f"{EDITORS_DOC} has no ```{language} block after {marker}"
    return match.group(1)


def fenced_blocks(language: str) -> list[str]:
    """Every ``language`` fence in docs/editors.md, in order."""
    text = EDITORS_DOC.read_text(encoding="utf-8")
    return re.findall(r"^```" + re.escape(language) + r"\n(.*?)^```", text, re.DOTALL | re.MULTILINE)


def nvim_or_skip() -> str:
    """The ``nvim`` executable; skip only where it is missing and apt cannot install it."""
    nvim = shutil.which("nvim")
    if nvim is not None:
        return nvim
    if shutil.which("apt-get") is None:
        reason = "nvim is not installed and apt-get is unavailable to install it"
        print(f"SKIP: {reason}")
        pytest.skip(reason)
    pytest.fail("nvim is not installed; `make nvim` installs it (apt-get install neovim)")
