"""``memls check --format json`` on roots with many fixable problems: the fixes it lists.

The JSON lists every problem's fixes (title and safety), which takes planning
each fix: renames that re-render ``MEMORY.md``, free names, line repairs.
Planning is shared per root (``memls.store.rename_plan``); the golden file
pins that the shared plans list exactly what planning each fix alone did,
over generated, curated, budgeted and policy-managed indexes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from click.testing import CliRunner

from memls.cli import cli
from memls.store.roots import MemoryRoot
from memls.store.store import MemoryStore

GOLDEN = Path(__file__).parent / "golden" / "check-many-fixes.json"
TYPES = ("project", "user", "feedback", "reference", "general")


def _entry(name: str | None, description: str, kind: str, extra: str) -> str:
    named = f"name: {name}\n" if name is not None else ""
    return f'---\n{named}description: "{description}"\nmetadata:\n  type: {kind}\n{extra}---\n\nBody.\n'


def _root_with_problems(root: Path, prefix: str, n: int = 48) -> None:
    """``n`` entries, most of them with a problem whose fix renames, relinks or edits the index."""
    root.mkdir(parents=True)
    for i in range(n):
        name: str | None = f"{prefix}{i:03d}"
        stem, extra = name, ""
        if i % 7 == 0:
            stem = f"x{prefix}{i:03d}"  # name-filename-mismatch (move the file, or set the name)
        if i % 11 == 0:
            stem = f"Y{prefix}{i:03d}"  # a mismatch whose stem is no slug (only the move)
        if i % 13 == 0:
            name = None  # missing-name
        if i % 17 == 0:
            extra = f"supersedes: [gone{i}]\n"  # dangling-supersedes
        if i % 19 == 0:
            extra = f"superseded_by: {prefix}{i + 1:03d}\nstatus: living\n"  # asymmetric, living-with-successor
        if i % 23 == 0:
            extra = "status: superseded\n"  # superseded-without-successor
        if i % 29 == 0:
            name = f"memory-{prefix}{i}"  # reserved-name
        if i % 37 == 0:
            name = f"{prefix}001"  # duplicate-name
        if i % 41 == 0:
            name = f"{prefix.upper()}{i:03d}"
        description = f"entry {i}" if i % 43 else "line\\nbreak"  # unsafe-index-text
        (root / f"{stem}.md").write_text(_entry(name, description, TYPES[i % 5], extra))
    # A rename that moves its line across the index.
    (root / "zz-late.md").write_text(_entry(f"aa-{prefix}", "moves", "project", ""))


def _living_plain(root: Path) -> list[str]:
    return sorted(
        p.name for p in root.glob("*.md")
        if p.name != "MEMORY.md" and not any(
            mark in p.read_text() for mark in ("status:", "memory-", "line\\nbreak", "001\n")
        )
    )[:20]


def _roots(base: Path) -> list[Path]:
    roots = []
    for prefix, kind in (("g", "generated"), ("c", "curated"), ("b", "budgeted"), ("m", "managed")):
        root = base / kind
        _root_with_problems(root, prefix)
        if kind == "managed":
            policy = {"version": 1, "budget": 20000, "selected": _living_plain(root)}
            (root / ".memory-index.json").write_text(json.dumps(policy))
        MemoryStore([MemoryRoot("explicit", root)]).write_index(budget=900 if kind == "budgeted" else None)
        if kind == "curated":
            index = root / "MEMORY.md"
            lines = index.read_text().split("\n")
            lines.insert(3, "Some prose a person wrote.")
            lines = [line.replace("](xc007.md)", "](xc007.md) a hand-written hook") for line in lines]
            lines.append("- [Gone](gone.md) \u2014 nothing")
            index.write_text("\n".join(lines))
        roots.append(root)
    return roots


def test_json_lists_the_fixes_each_problem_had_when_planned_alone(tmp_path, monkeypatch):
    roots = _roots(tmp_path)
    monkeypatch.chdir(tmp_path)
    env = {"MEMLS_MEMORY_DIRS": os.pathsep.join(str(r) for r in roots),
           "GPTME_MEMORY_DIRS": None, "GPTME_WORKSPACE": None}
    first = CliRunner().invoke(cli, ["check", "--format", "json"], env=env)
    replayed = CliRunner().invoke(cli, ["check", "--format", "json"], env=env)
    if os.environ.get("MEMLS_UPDATE_GOLDEN"):
        GOLDEN.write_text(first.output)
    assert first.output == GOLDEN.read_text()
    assert replayed.output == first.output
    codes = {row["code"] for row in json.loads(first.output) if row["fixes"]}
    assert {"name-filename-mismatch", "reserved-name", "duplicate-name", "missing-name",
            "dangling-supersedes", "index-broken-link"} <= codes
