"""memls's memory store: gptme's public API, plus spans, the model and checks.

Everything ``gptme.memory`` exports is exported here under the same name with
the same signature, so code written against gptme works with
``from memls import ...`` (or ``from memls.store import ...``). memls's additions sit beside them.

The names are loaded on first use (PEP 562 ``__getattr__``), not on import:
every ``memls`` command imports this package, and loading the whole engine
for a ``memls index`` that replays a cached view would cost more than the
command itself.
"""

from __future__ import annotations

import sys
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .audit import AuditIssue
    from .entry import MemoryEntry
    from .errors import (
        AmbiguousNameError,
        LockTimeoutError,
        MemoryFrontmatterError,
        MemoryParseError,
        RecallBackendUnavailable,
        ReservedNameError,
        RoundTripError,
    )
    from .match import MemoryMatch, match_memories, render_matches
    from .names import slugify
    from .parse import ParsedDocument, parse_document, parse_entry
    from .recall import RecallHit, RecallResult, recall, render_recall
    from .roots import MemoryRoot, resolve_roots
    from .store import MemoryStore, update_index_line

# Public name -> the module (relative to this package) that defines it.
_EXPORTS = {
    "AuditIssue": "audit",
    "MemoryEntry": "entry",
    "AmbiguousNameError": "errors",
    "LockTimeoutError": "errors",
    "MemoryFrontmatterError": "errors",
    "MemoryParseError": "errors",
    "RecallBackendUnavailable": "errors",
    "ReservedNameError": "errors",
    "RoundTripError": "errors",
    "MemoryMatch": "match",
    "match_memories": "match",
    "render_matches": "match",
    "slugify": "names",
    "ParsedDocument": "parse",
    "parse_document": "parse",
    "parse_entry": "parse",
    "RecallHit": "recall",
    "RecallResult": "recall",
    "recall": "recall",
    "render_recall": "recall",
    "MemoryRoot": "roots",
    "resolve_roots": "roots",
    "MemoryStore": "store",
    "update_index_line": "store",
}

__all__ = [
    # gptme.memory's public API
    "AuditIssue",
    "MemoryEntry",
    "MemoryFrontmatterError",
    "MemoryParseError",
    "MemoryRoot",
    "MemoryStore",
    "RecallBackendUnavailable",
    "RecallHit",
    "RecallResult",
    "parse_entry",
    "recall",
    "render_recall",
    "resolve_roots",
    "slugify",
    "update_index_line",
    # memls additions
    "AmbiguousNameError",
    "LockTimeoutError",
    "MemoryMatch",
    "ParsedDocument",
    "ReservedNameError",
    "RoundTripError",
    "match_memories",
    "parse_document",
    "render_matches",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


class _PublicNamesFirst(ModuleType):
    """This package, keeping a public name bound to the API when a submodule shares it.

    Importing a submodule binds it as an attribute of its package, so once
    :mod:`memls.store.recall` is loaded, ``memls.store.recall`` would be that
    module instead of the ``recall`` function of gptme's API. An eager
    ``from .recall import recall`` rebinds it after the import; loaded
    lazily, the binding is refused here instead.
    """

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, ModuleType) and _EXPORTS.get(name) == name:
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _PublicNamesFirst
