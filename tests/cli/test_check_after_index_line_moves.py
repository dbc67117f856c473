"""``memls check`` and ``memls audit`` after edits that move entries' ``MEMORY.md`` lines equal a cold full check.

The per-file check records (:mod:`memls.store.check_cache`) let a run after
a change of an entry's title, description or type leave the index problems
as they were when the index is judged from its own text, and judge the
index again otherwise. Seeded random sequences of edits -- names,
descriptions, statuses, types, titles, new and deleted files, ``MEMORY.md``
regenerated, hand-edited or deleted -- run through the console script's
entry point on a root with its cache, and each answer must equal the one of
a copy of the root checked cold (no cache), paths aside. Half the steps
look at the files an hour later (every change settled, so the records are
trusted), half right away (the changed files are re-checked however they
look).
"""

from __future__ import annotations

import io
import os
import random
import re
import shutil
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from memls import quick
from memls.store.model import Workspace
from memls.store.roots import MemoryRoot

NAMES = [f"n{k:02d}" for k in range(40)]
STATUSES = ["living", "living", "living", "superseded", "historical"]
TYPES = ["project", "feedback", "user", "reference"]
LATER_NS = 3600 * 10**9


def entry_text(rng: random.Random, name: str) -> str:
    lines = ["---", f"name: {name}", f"description: {rng.choice(['first', 'second one', 'a third'])}"]
    if rng.random() < 0.3:
        lines.append(f"title: {rng.choice(['A title', 'Another'])}")
    lines += ["metadata:", f"  type: {rng.choice(TYPES)}"]
    status = rng.choice(STATUSES)
    if status != "living":
        lines.append(f"status: {status}")
    return "\n".join([*lines, "---", f"Body of {name}.", ""])


def reword(path: Path, key: str, value: str) -> None:
    text = path.read_text(encoding="utf-8")
    if key == "status":
        text = re.sub(r"(?m)^status: .*\n", "", text)
        if value != "living":
            text = text.replace("\n---\n", f"\nstatus: {value}\n---\n", 1)
    else:
        text = re.sub(rf"(?m)^({key}): .*$", rf"\g<1>: {value}", text, count=1)
    path.write_text(text, encoding="utf-8")


def edit(rng: random.Random, root: Path) -> None:
    """One random edit of the root."""
    entries = sorted(p for p in root.glob("*.md") if p.name != "MEMORY.md")
    kind = rng.choice(["description", "description", "title", "type", "status", "name",
                       "add", "delete", "index"])
    if kind == "add" or not entries:
        name = rng.choice(NAMES)
        (root / f"{name}-{rng.randrange(100)}.md").write_text(entry_text(rng, name), encoding="utf-8")
    elif kind == "delete":
        rng.choice(entries).unlink()
    elif kind == "index":
        index = root / "MEMORY.md"
        how = rng.choice(["generate", "generate", "drop-line", "hand-line", "delete"])
        if how == "delete":
            index.unlink(missing_ok=True)
            return
        text = Workspace.load([MemoryRoot("project", root)]).roots[0].index_view.rendering()
        lines = text.split("\n")
        if how == "drop-line":
            pointers = [n for n, line in enumerate(lines) if line.startswith("- [")]
            if pointers:
                del lines[rng.choice(pointers)]
        elif how == "hand-line":
            lines.insert(rng.randrange(1, len(lines)), "- [gone](gone.md) — a line written by hand")
        index.write_text("\n".join(lines), encoding="utf-8")
    else:
        path = rng.choice(entries)
        value = {
            "description": lambda: rng.choice(["first", "reworded", f"reworded {rng.randrange(1000)}"]),
            "title": lambda: rng.choice(["A title", "Retitled"]),
            "type": lambda: rng.choice(TYPES),
            "status": lambda: rng.choice(STATUSES),
            "name": lambda: rng.choice(NAMES),
        }[kind]()
        reword(path, kind, value)


def answer(args: list[str], root: Path, *, cached: bool) -> tuple[object, str, str]:
    """What ``memls ARGS`` exits with and prints for ``root``, through the console script's entry point."""
    out, err = io.StringIO(), io.StringIO()
    saved = {key: os.environ.get(key) for key in ("MEMLS_NO_CACHE", "MEMLS_MEMORY_DIRS")}
    os.environ["MEMLS_NO_CACHE"] = "0" if cached else "1"
    os.environ["MEMLS_MEMORY_DIRS"] = str(root)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            quick.main(args)
        status: object = None
    except SystemExit as exit_:
        status = exit_.code
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("seed", range(8))
def test_check_and_audit_after_random_edits_equal_a_cold_check_of_a_copy(
    seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    root = tmp_path / "memory"
    root.mkdir()
    for name in NAMES[:30]:
        (root / f"{name}.md").write_text(entry_text(rng, name), encoding="utf-8")
    (root / "MEMORY.md").write_text(
        Workspace.load([MemoryRoot("project", root)]).roots[0].index_view.rendering(), encoding="utf-8")
    monkeypatch.setenv("MEMLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("GPTME_MEMORY_DIRS", raising=False)
    monkeypatch.delenv("GPTME_WORKSPACE", raising=False)
    monkeypatch.chdir(tmp_path)
    copy = tmp_path / "copy" / "memory"
    for step in range(20):
        for _ in range(rng.choice([1, 1, 1, 2])):
            edit(rng, root)
        time.sleep(0.012)  # later changes get later ctimes than those the records hold
        offset = LATER_NS if rng.random() < 0.5 else 0
        for module in ("replay", "reader", "model", "check_cache"):
            monkeypatch.setattr(f"memls.store.{module}.now_ns", lambda offset=offset: time.time_ns() + offset)
        shutil.rmtree(copy.parent, ignore_errors=True)
        shutil.copytree(root, copy)
        for args in (["check", str(root)], ["audit"]):
            cached = answer(args, root, cached=True)
            cold_args = [str(copy) if a == str(root) else a for a in args]
            status, out, err = answer(cold_args, copy, cached=False)
            cold = (status, out.replace(str(copy), str(root)).replace("copy/memory", "memory"), err)
            assert cached == cold, (seed, step, args)
