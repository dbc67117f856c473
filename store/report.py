"""Problems as text for people and CI: ``path:line:col: severity code message``.

``memls check`` prints exactly what the editor shows, in the same order (by
path, then position). Lines and columns are 1-based here, as every terminal
tool and CI annotation expects; the engine's spans are 0-based.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from .diagnostics import Fix, Problem
from .text import one_line

FORMATS = ("text", "json", "github")
_GITHUB_LEVEL = {"error": "error", "warning": "warning", "information": "notice", "hint": "notice"}


def display_path(path: Path, cwd: Path | None = None) -> str:
    """A path relative to the working directory when it lies below it."""
    base = cwd or Path.cwd()
    try:
        return os.path.relpath(path, base) if path.is_relative_to(base) else str(path)
    except ValueError:
        return str(path)


def sort_problems(problems: Iterable[Problem]) -> list[Problem]:
    return sorted(problems, key=Problem.sort_key)


def format_text(problems: Sequence[Problem], *, cwd: Path | None = None) -> list[str]:
    return [
        f"{display_path(p.path, cwd)}:{p.span.start_line + 1}:{p.span.start_col + 1}: "
        f"{p.severity} {p.code} {one_line(p.message)}"
        for p in problems
    ]


def summary_line(problems: Sequence[Problem], documents: int) -> str:
    """One closing line: how many problems of which severity, in how many files."""
    if not problems:
        return f"No problems in {documents} memory file{'s' if documents != 1 else ''}."
    counts = Counter(p.severity for p in problems)
    parts = [
        f"{counts[s]} {s if s != 'information' else 'info'}{'s' if counts[s] != 1 and s != 'information' else ''}"
        for s in ("error", "warning", "information", "hint") if counts[s]
    ]
    files = len({p.path for p in problems})
    return (
        f"{len(problems)} problem{'s' if len(problems) != 1 else ''} "
        f"({', '.join(parts)}) in {files} of {documents} memory file{'s' if documents != 1 else ''}."
    )


def format_json(
    problems: Sequence[Problem], fixes: Sequence[Sequence[Fix]], *, cwd: Path | None = None
) -> str:
    rows = []
    for problem, available in zip(problems, fixes):
        rows.append({
            "path": display_path(problem.path, cwd),
            "line": problem.span.start_line + 1,
            "column": problem.span.start_col + 1,
            "end_line": problem.span.end_line + 1,
            "end_column": problem.span.end_col + 1,
            "severity": problem.severity,
            "code": problem.code,
            "message": problem.message,
            "fixes": [{"title": f.title, "safe": f.safe} for f in available],
        })
    return json.dumps(rows, indent=2, ensure_ascii=False)


def _escape_github(value: str, *, property_value: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value


def format_github(problems: Sequence[Problem], *, cwd: Path | None = None) -> list[str]:
    """GitHub Actions workflow commands: one annotation per problem."""
    lines = []
    for p in problems:
        props = ",".join([
            f"file={_escape_github(display_path(p.path, cwd), property_value=True)}",
            f"line={p.span.start_line + 1}",
            f"col={p.span.start_col + 1}",
            f"endLine={p.span.end_line + 1}",
            f"endColumn={p.span.end_col + 1}",
            f"title={_escape_github(p.code, property_value=True)}",
        ])
        lines.append(f"::{_GITHUB_LEVEL[p.severity]} {props}::{_escape_github(p.message)}")
    return lines
