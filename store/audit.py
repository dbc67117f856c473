"""gptme's audit: parse and supersession consistency of one root.

The codes and detail texts are gptme's, so scripts that grep
``gptme-util memory audit`` output keep working with ``memls audit``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .entry import MemoryEntry
from .reader import RootRead

if TYPE_CHECKING:
    from .store import AuditIssue


def audit_root(read: RootRead) -> list[AuditIssue]:
    """Pass 1: every file parsed strictly; pass 2: supersession links by name."""
    from .store import AuditIssue

    issues: list[AuditIssue] = []
    entries: dict[str, MemoryEntry] = {}
    errors = dict(read.errors)
    documents = {d.path: d for d in read.documents}
    for path in sorted({*errors, *documents}):
        doc = documents.get(path)
        if doc is None or doc.entry is None:
            reason = doc.not_entry if doc is not None else errors[path]
            issues.append(AuditIssue("invalid-entry", path.name, reason or "not a memory entry"))
            continue
        if doc.strict_error is not None:
            issues.append(AuditIssue("invalid-yaml", path.name, doc.strict_error))
            continue
        entry = doc.entry
        if entry.name in entries:
            issues.append(
                AuditIssue(
                    "duplicate-name",
                    path.name,
                    f"name {entry.name!r} is also used by {entries[entry.name].path}",
                )
            )
            continue
        entries[entry.name] = entry
    for entry in entries.values():
        if entry.superseded_by:
            successor = entries.get(entry.superseded_by)
            if successor is None:
                issues.append(AuditIssue(
                    "dangling-superseded-by", entry.name,
                    f"replacement {entry.superseded_by!r} does not exist",
                ))
            elif entry.name not in successor.supersedes:
                issues.append(AuditIssue(
                    "asymmetric-supersession", entry.name,
                    f"{entry.superseded_by!r} does not point back to this entry",
                ))
        for old_name in entry.supersedes:
            old = entries.get(old_name)
            if old is None:
                issues.append(AuditIssue(
                    "dangling-supersedes", entry.name,
                    f"superseded entry {old_name!r} does not exist",
                ))
            elif old.superseded_by != entry.name:
                issues.append(AuditIssue(
                    "asymmetric-supersession", entry.name,
                    f"{old_name!r} does not point back to this entry",
                ))
    return issues
