"""Apply every safe fix: what ``memls check --fix`` and the editor's fix-all do.

A safe fix has one sensible outcome (add a missing back-link, set a status
the links already imply, regenerate an index). Fixes are applied in passes:
each pass takes, per root, the safe fixes that do not collide with a fix
already chosen, commits them under the root lock, and re-reads the changed
files; the next pass sees the result. Passes stop when nothing safe is left,
so a second run changes nothing.

Each pass applies the fixes that do not collide (:mod:`memls.store.fix_merge`):
plain text edits with disjoint spans go together, so a hand-curated
``MEMORY.md`` with twenty missing lines is fixed in one pass, not twenty,
which would run past :data:`MAX_PASSES` and leave work for a second run.
"""

from __future__ import annotations

from dataclasses import field

from .apply import apply_fixes
from .checks import CheckContext, check_workspace
from .diagnostics import Fix, Problem
from .fix_merge import choose_combinable, safe_fixes, text_of
from .model import Workspace
from .structs import struct
from .text import one_line

MAX_PASSES = 10


@struct(frozen=False)
class FixReport:
    """What :func:`fix_all` applied, and the problems whose fixes failed (with the reason)."""

    applied: list[tuple[Problem, Fix]] = field(default_factory=list)
    failed: list[tuple[Problem, str]] = field(default_factory=list)


def fix_all(ctx: CheckContext) -> FixReport:
    """Apply safe fixes until none is left (or :data:`MAX_PASSES`)."""
    report = FixReport()
    # A fix identical to one already applied to the same texts did not help;
    # never loop on it. (The same edit against changed text is a new fix: after
    # one line is removed, removing "line 5" again removes the next line.)
    attempted: set[tuple[Fix, tuple[str | None, ...]]] = set()
    for _ in range(MAX_PASSES):
        results = check_workspace(ctx)
        problems = [p for path in sorted(results) for p in results[path]]
        candidates = [
            (p, f) for p, f in safe_fixes(ctx, problems) if _attempt(ctx, f) not in attempted
        ]
        if not candidates:
            break
        progressed = False
        for state in ctx.workspace.roots:
            chosen = choose_combinable(
                ((p, f) for p, f in candidates
                 if ctx.workspace.root_of(p.path) is state
                 and all(ctx.workspace.root_of(path) is state for path in f.paths)),
                text_of(ctx),
            )
            if not chosen:
                continue
            touched = {path for _, f in chosen for path in f.paths}
            texts = {p: d.text for p in touched if (d := ctx.workspace.document(p)) is not None}
            attempted.update(_attempt(ctx, f) for _, f in chosen)
            try:
                apply_fixes([f for _, f in chosen], texts, root=state.path)
            except (OSError, ValueError, RuntimeError) as exc:
                report.failed.extend((p, one_line(str(exc))) for p, _ in chosen)
                continue
            report.applied.extend(chosen)
            progressed = True
            for path in touched:
                ctx.workspace.update_from_disk(path)
        if not progressed:
            break
    return report


def _attempt(ctx: CheckContext, fix: Fix) -> tuple[Fix, tuple[str | None, ...]]:
    """A fix together with the texts it would apply to."""
    texts = []
    for path in sorted(fix.paths):
        doc = ctx.workspace.document(path)
        texts.append(doc.text if doc is not None else None)
    return fix, tuple(texts)


def reload(ctx: CheckContext) -> CheckContext:
    """A fresh context over the same roots, read again from disk."""
    ws = Workspace.load_stacks(ctx.workspace.stacks())
    return CheckContext(ws, ctx.settings, ctx.today)
