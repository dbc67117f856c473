"""A real ``memls serve`` process driven by pytest-lsp's client, used as a library.

The reliability tests need a server outside the per-profile fixture of
tests/lsp (several servers in one test, a server running next to other
writers), so this starts one with the Neovim 0.11 capability profile (push
diagnostics) and answers the client requests an editor would.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from memls.lsp.convert import path_to_uri, uri_to_path

from .reliability_helpers import REPO

PROFILE = "neovim"


@asynccontextmanager
async def serve(folder: Path, *, env: dict[str, str] | None = None) -> AsyncIterator[LanguageClient]:
    """A server initialised on workspace ``folder`` (its root is ``folder/memory``)."""
    server_env = {**os.environ, "MEMLS_MEMORY_DIRS": "", "GPTME_MEMORY_DIRS": "", "PYTHONPATH": str(REPO),
                  **(env or {})}
    client = await ClientServerConfig(server_command=[sys.executable, "-m", "memls.lsp"],
                                      server_env=server_env).start()
    client.applied_edits = []  # type: ignore[attr-defined]

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: types.RegistrationParams) -> None:
        return None

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        client.applied_edits.append(params)  # type: ignore[attr-defined]
        return types.ApplyWorkspaceEditResult(applied=True)

    try:
        result = await client.initialize_session(types.InitializeParams(
            capabilities=client_capabilities(PROFILE),
            workspace_folders=[types.WorkspaceFolder(uri=path_to_uri(folder), name="workspace")],
            root_uri=path_to_uri(folder), initialization_options={"settings": {}}, process_id=os.getpid()))
        client.encoding = str(result.capabilities.position_encoding or "utf-16")  # type: ignore[attr-defined]
        yield client
    finally:
        await client.shutdown_session()
        await client.stop()


def published(client: LanguageClient) -> set[tuple[str, int, str]]:
    """Every pushed diagnostic as (resolved path, 1-based line, code), as `memls check --format json`."""
    out = set()
    for uri, diagnostics in client.diagnostics.items():
        path = uri_to_path(uri)
        for d in diagnostics:
            out.add((str(Path(path).resolve()), d.range.start.line + 1, str(d.code)))
    return out


async def until(condition: Callable[[], bool], timeout: float = 20.0) -> bool:
    """Wait for ``condition``; False when it never held (the caller asserts with details)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


def units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def position(text: str, offset: int, encoding: str) -> types.Position:
    """The client position of code-point ``offset`` in ``text`` (lines split on \\n only)."""
    before = text[:offset]
    line = before.count("\n")
    start = before.rfind("\n") + 1
    return types.Position(line=line, character=units(before[start:], encoding))
