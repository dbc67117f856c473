"""Editor features, one module each; the server core only wires them.

Each module has ``register(server)`` adding its handlers to the server.
Add a feature by adding its module name to ``FEATURES``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..server import MemlsServer

FEATURES = (
    "save",
    "actions",
    "rename",
    "formatting",
    "file_ops",
    "folders",
    "navigation",
    "completion",
    "commands",
    "lenses",
    "memories",
)


def register_all(server: MemlsServer) -> None:
    for name in FEATURES:
        importlib.import_module(f"{__name__}.{name}").register(server)
