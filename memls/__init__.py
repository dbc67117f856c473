"""memls: a memory store and a language server for agent memory files.

The installed distribution has one import package, ``memls``. Its parts live
in folders of their own in the repository and are mapped in by setuptools:

* :mod:`memls.store` -- the engine (formats, roots, model, checks, writes, recall);
* :mod:`memls.lsp` -- the language server (protocol <-> engine);
* :mod:`memls.cli` -- the ``memls`` command line, a client of the engine.

The public API of the store (gptme.memory's names, same signatures, plus
memls's additions) is re-exported here, so ``from memls import MemoryStore``
works as ``from gptme.memory import MemoryStore`` does. Like
:mod:`memls.store`, the names load on first use, so a command pays only for
the modules it runs.
"""

from __future__ import annotations

from typing import Any

from memls import store as _store

__version__ = "0.1.0"

__all__ = ["__version__", *_store.__all__]


def __getattr__(name: str) -> Any:
    if name in _store.__all__:
        return getattr(_store, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
