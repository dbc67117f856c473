"""memls: a memory store and a language server for agent memory files.

The installed distribution has one import package, ``memls``. Its parts live
in folders of their own in the repository and are mapped in by setuptools:

* :mod:`memls.store` -- the engine (formats, roots, model, checks, writes, recall);
* :mod:`memls.lsp` -- the language server (protocol <-> engine);
* :mod:`memls.cli` -- the ``memls`` command line, a client of the engine.

The public API of the store (gptme.memory's names, same signatures, plus
memls's additions) is re-exported here, so ``from memls import MemoryStore``
works as ``from gptme.memory import MemoryStore`` does.
"""

from memls.store import *  # noqa: F403 - the public API, listed in memls.store.__all__
from memls.store import __all__ as _store_api

__version__ = "0.1.0"

__all__ = ["__version__", *_store_api]
