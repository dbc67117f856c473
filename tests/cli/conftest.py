"""Shared fixtures for the ``memls`` CLI tests.

Every test runs the click group in-process against a memory directory of its
own, named through ``MEMLS_MEMORY_DIRS`` and not created in advance, so a
test can tell whether a command created anything.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from memls.cli import cli

Run = Callable[..., Result]


@pytest.fixture
def memory_dir(tmp_path: Path) -> Path:
    """The explicit memory root; it does not exist until something writes it."""
    return tmp_path / "memory"


@pytest.fixture
def run(memory_dir: Path) -> Run:
    """Run ``memls ARGS`` with the explicit root(s); returns click's Result.

    ``dirs`` replaces the root list (nearest first; empty = resolve from the
    workspace, see ``env``); ``input`` is stdin.
    """

    def invoke(
        *args: str,
        input: str | bytes | None = None,
        dirs: Sequence[Path] | None = None,
        env: dict[str, str | None] | None = None,
    ) -> Result:
        roots = [memory_dir] if dirs is None else list(dirs)
        full_env: dict[str, str | None] = {
            "MEMLS_MEMORY_DIRS": os.pathsep.join(str(d) for d in roots) or None,
            "GPTME_MEMORY_DIRS": None,
        }
        full_env.update(env or {})
        return CliRunner().invoke(cli, list(args), input=input, env=full_env)

    return invoke
