"""Suite-wide isolation: the parse cache lives in a per-test directory.

Tests must never write into the real ``~/.cache`` and must not see each
other's caches; subprocesses (CLI, server, concurrent writers) inherit the
variable, so they are isolated too.
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _private_parse_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLS_CACHE_DIR", str(tmp_path_factory.mktemp("memls-cache")))
    monkeypatch.delenv("MEMLS_NO_CACHE", raising=False)
