"""Apply every safe fix: what ``memls check --fix`` and the editor's fix-all do.

A safe fix has one sensible outcome (add a missing back-link, set a status
the links already imply, regenerate an index). Fixes are applied in passes:
each pass takes, per root, the safe fixes whose edits do not touch a file
another chosen fix already touches, commits them under the root lock, and
re-reads the changed files; the next pass sees the result. Passes stop when
nothing safe is left, so a second run changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .apply import apply_fixes
from .checks import CheckContext, check_workspace, fixes_for
from .diagnostics import Fix, Problem
from .model import Workspace

MAX_PASSES = 10


@dataclass
class FixReport:
    applied: list[tuple[Problem, Fix]] = field(default_factory=list)
    failed: list[tuple[Problem, str]] = field(default_factory=list)


def safe_fixes(ctx: CheckContext, problems: Iterable[Problem]) -> list[tuple[Problem, Fix]]:
    """The first safe fix of each problem, in problem order."""
    out = []
    for problem in problems:
        for fix in fixes_for(ctx, problem):
            if fix.safe:
                out.append((problem, fix))
                break
    return out


def fix_all(ctx: CheckContext) -> FixReport:
    """Apply safe fixes until none is left (or :data:`MAX_PASSES`)."""
    report = FixReport()
    # A fix identical to one already applied did not help; never loop on it.
    attempted: set[Fix] = set()
    for _ in range(MAX_PASSES):
        results = check_workspace(ctx)
        problems = [p for path in sorted(results) for p in results[path]]
        candidates = [
            (p, f) for p, f in safe_fixes(ctx, problems) if f not in attempted
        ]
        if not candidates:
            break
        progressed = False
        for state in ctx.workspace.roots:
            chosen: list[tuple[Problem, Fix]] = []
            touched: set[Path] = set()
            for problem, fix in candidates:
                if ctx.workspace.root_of(problem.path) is not state:
                    continue
                if fix.paths & touched or any(ctx.workspace.root_of(p) is not state for p in fix.paths):
                    continue
                chosen.append((problem, fix))
                touched |= fix.paths
            if not chosen:
                continue
            texts = {p: d.text for p in touched if (d := ctx.workspace.document(p)) is not None}
            attempted.update(f for _, f in chosen)
            try:
                apply_fixes([f for _, f in chosen], texts, root=state.path)
            except (OSError, ValueError, RuntimeError) as exc:
                report.failed.extend((p, " ".join(str(exc).split())) for p, _ in chosen)
                continue
            report.applied.extend(chosen)
            progressed = True
            for path in touched:
                ctx.workspace.update_from_disk(path)
        if not progressed:
            break
    return report


def reload(ctx: CheckContext) -> CheckContext:
    """A fresh context over the same roots, read again from disk."""
    ws = Workspace.load([s.root for s in ctx.workspace.roots])
    return CheckContext(ws, ctx.settings, ctx.today)
