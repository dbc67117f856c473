"""Suite-wide isolation: the parse cache lives in a per-test directory.

Tests must never write into the real ``~/.cache`` and must not see each
other's caches; subprocesses (CLI, server, concurrent writers) inherit the
variable, so they are isolated too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _private_parse_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLS_CACHE_DIR", str(tmp_path_factory.mktemp("memls-cache")))
    monkeypatch.delenv("MEMLS_NO_CACHE", raising=False)


class CallCount:
    """How many times a counted function ran (it still runs): for tests pinning how often work is redone."""

    def __init__(self) -> None:
        self.calls = 0


@pytest.fixture
def count_calls(monkeypatch: pytest.MonkeyPatch) -> Callable[[Any, str], CallCount]:
    """``count_calls(owner, name)``: count the calls of ``owner.name`` (a method or a module's function)."""

    def wrap(owner: Any, name: str) -> CallCount:
        counted = CallCount()
        original = getattr(owner, name)

        def counting(*args: Any, **kwargs: Any) -> Any:
            counted.calls += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(owner, name, counting)
        return counted

    return wrap
