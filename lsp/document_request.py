"""The common shape of a request about one memory document.

Most requests name a document: look up its path, answer nothing for a
document that is not a memory (a README in the same folder, an untitled
buffer), and otherwise compute the answer on the engine thread, where the
model lives. :func:`document_request` writes that once, so a feature module
holds only what its request computes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from .server import MemlsServer

Answer = TypeVar("Answer")


def document_request(server: MemlsServer, method: str, options: Any = None):
    """Register ``fn(ls, path, params)`` to answer ``method`` on the engine thread.

    ``fn`` runs only for memory documents; any other document gets ``None``.
    """

    def decorator(fn: Callable[[MemlsServer, Path, Any], Answer]) -> Callable[[MemlsServer, Path, Any], Answer]:
        async def handler(ls: MemlsServer, params: Any) -> Answer | None:
            path = ls.memory_path(params.text_document.uri)
            if path is None:
                return None
            return await ls.engine.run(fn, ls, path, params)

        server.feature(method, options)(handler)
        return fn

    return decorator
