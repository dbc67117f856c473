"""gptme's audit, produced by the check catalogue.

``memls audit`` shows the catalogue's problems that roll up to one of
gptme's six audit codes, with gptme's ``entry`` and ``detail`` texts (each
such problem carries them in ``data["audit"]``), in gptme's order: first
every file in name order (parse failures and duplicate names), then every
accepted entry's links, ``superseded_by`` before ``supersedes``. So scripts
written against ``gptme-util memory audit`` keep working, and audit can
never disagree with ``memls check`` or the editor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .structs import struct

if TYPE_CHECKING:
    from .diagnostics import Problem
    from .replay import Observation
    from .roots import MemoryRoot

AUDIT_CODES = (
    "invalid-yaml",
    "invalid-entry",
    "duplicate-name",
    "dangling-superseded-by",
    "dangling-supersedes",
    "asymmetric-supersession",
)


@struct
class AuditIssue:
    """One actionable consistency problem in a memory root."""

    code: str
    entry: str
    detail: str


# Pass 1 of gptme's audit looks at each file; pass 2 at each entry's links.
FILE_CODES = ("invalid-yaml", "invalid-entry", "duplicate-name")
# Within one file's links, gptme looks at ``superseded_by`` before ``supersedes``.
LINK_ORDER = {"superseded_by": 0, "supersedes": 1}


def audit_root(root: MemoryRoot, *, observation: Observation | None = None) -> list[AuditIssue]:
    """Audit issues of one root (default severities: audit has no settings).

    Replayed while no file of the root changed (:mod:`memls.store.replay`;
    today's date is part of the key, since ``recheck`` dates come due without
    any file changing), else computed from
    :func:`memls.store.check_cache.check_roots`, which replays the last
    check or runs the catalogue. The catalogue is imported only then:
    ``AuditIssue`` is part of the public API that every ``import memls``
    loads, the checks are not. The root is listed once, for the view's key
    and the check alike (``observation``: as the caller already listed it).
    """
    from datetime import date

    from .replay import observe, replayed

    seen = observation.of([root]) if observation is not None else None
    if seen is None:
        seen = observe([root])
    rows = replayed("audit", [root], date.today().isoformat(), lambda: _audit_rows(root, seen), observation=seen)
    return [AuditIssue(code, entry, detail) for code, entry, detail in rows]


def _audit_rows(root: MemoryRoot, seen: Observation) -> list[tuple[str, str, str]]:
    """(code, entry, detail) of every audit issue, in gptme's order."""
    from .catalogue import audit_code_of
    from .check_cache import check_roots
    from .names import document_kind
    from .settings import Settings

    rows: list[tuple[tuple, tuple[str, str, str]]] = []
    for path, problems in check_roots([root], Settings(), observation=seen).results.items():
        if document_kind(path.name) != "entry":
            continue  # gptme's audit skips index files, reserved ones included
        for problem in problems:
            code = audit_code_of(problem)
            rolled = problem.data.get("audit")
            if code is None or rolled is None:
                continue
            entry, detail = rolled
            rows.append((_order(problem, code), (code, str(entry), str(detail))))
    rows.sort(key=lambda row: row[0])
    return [issue for _, issue in rows]


def _order(problem: Problem, code: str) -> tuple:
    """gptme's order: files first, then links (``superseded_by`` before ``supersedes``)."""
    file_pass = 0 if code in FILE_CODES else 1
    field_rank = LINK_ORDER.get(problem.data.get("link", ""), len(LINK_ORDER))
    span = problem.span
    return (file_pass, str(problem.path), field_rank, span.start_line, span.start_col)
