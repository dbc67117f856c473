"""memls's memory store: gptme's public API, plus spans, the model and checks.

Everything ``gptme.memory`` exports is exported here under the same name with
the same signature, so code written against gptme works with
``from memls import ...`` (or ``from memls.store import ...``). memls's additions sit beside them.
"""

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
