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

from .checks import CheckContext, audit_code_of, check_workspace
from .diagnostics import Problem
from .model import Workspace
from .roots import MemoryRoot
from .settings import Settings

if TYPE_CHECKING:
    from .store import AuditIssue

# Pass 1 of gptme's audit looks at each file; pass 2 at each entry's links.
FILE_CODES = ("invalid-yaml", "invalid-entry", "duplicate-name")


def audit_root(root: MemoryRoot) -> list[AuditIssue]:
    """Audit issues of one root (default severities: audit has no settings)."""
    from .store import AuditIssue

    workspace = Workspace.load([root])
    results = check_workspace(CheckContext(workspace, Settings()))
    rows: list[tuple[tuple, AuditIssue]] = []
    for path, problems in results.items():
        doc = workspace.document(path)
        if doc is None or doc.kind != "entry":
            continue  # gptme's audit skips index files, reserved ones included
        for problem in problems:
            code = audit_code_of(problem)
            rolled = problem.data.get("audit")
            if code is None or rolled is None:
                continue
            entry, detail = rolled
            rows.append((_order(workspace, problem, code), AuditIssue(code, entry, detail)))
    rows.sort(key=lambda row: row[0])
    return [issue for _, issue in rows]


def _order(workspace: Workspace, problem: Problem, code: str) -> tuple:
    file_pass = 0 if code in FILE_CODES else 1
    field_rank = 2
    doc = workspace.document(problem.path)
    if doc is not None and doc.parsed is not None and doc.parsed.frontmatter is not None:
        keys = doc.parsed.frontmatter.keys
        for rank, key in enumerate(("superseded_by", "supersedes")):
            spans = keys.get(key)
            if spans is not None and _within(problem.span, spans.value):
                field_rank = rank
                break
    span = problem.span
    return (file_pass, str(problem.path), field_rank, span.start_line, span.start_col)


def _within(inner, outer) -> bool:
    return (outer.start_line, outer.start_col) <= (inner.start_line, inner.start_col) and (
        inner.end_line, inner.end_col) <= (outer.end_line, outer.end_col)
