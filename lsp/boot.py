"""The language server process's start: its protocol libraries imported, then kept out of the collector.

``lsprotocol`` builds hundreds of attrs classes at import, tens of thousands
of objects that live as long as the process. Every full pass of the cyclic
garbage collector walks all of them, and memls's own imports, made right
after, allocate enough to set off several such passes: about a third of
what memls added to a warm start (35 ms of CPU at 10k entries) went on
walking the libraries' objects. So the server imports the libraries first
and freezes what they built (``gc.freeze``: moved where no pass looks)
before importing the rest. memls's own modules and the server built from
them live as long as the process too: they are built with the collector
off (its young passes over them found nothing to free) and frozen with the
rest before the server reads its first message, when the collector is
turned back on. Only a process memls owns does this (``python -m
memls.lsp``, ``memls serve``): a library user's objects are never frozen.
"""

from __future__ import annotations

import gc


def serve() -> None:
    """Serve over stdio (:func:`memls.lsp.server.main`), with the protocol libraries frozen first."""
    import lsprotocol.types  # noqa: F401
    import pygls.lsp.server  # noqa: F401

    gc.freeze()
    gc.disable()
    from .server import main

    main(built=_freeze_what_was_built)


def _freeze_what_was_built() -> None:
    """The server is built: what it holds is frozen too, and the collector runs again from here."""
    gc.freeze()
    gc.enable()
