"""Safe fixes are safe (issue 11, defects 3, 5 and 7), over hand-written and generated roots.

A fix ``memls check --fix`` applies without asking touches only the files its
title names, never changes a status the user wrote, keeps every curated
index line it does not name byte for byte, and ``--fix`` reaches a fixpoint
where ``check`` and ``index --check`` agree.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memls.store.apply import planned_files
from memls.store.checks import CheckContext, check_workspace, fixes_for
from memls.store.fix_all import fix_all, reload
from memls.store.index import parse_index_lines, render_index
from memls.store.model import Workspace
from memls.store.parse import parse_document
from memls.store.roots import MemoryRoot
from memls.store.store import MemoryStore

NAMES = ["alpha", "beta", "gamma", "delta"]
INDEX_CODES = {"index-drift", "index-missing", "index-broken-link", "index-lists-non-living",
               "index-missing-entry"}


def entry_text(name: str, *, type_: str, status: str | None, successor: str | None,
               supersedes: list[str], two_lines: bool) -> str:
    lines = ["---", f"name: {name}"]
    lines += (["description: |", f"  {name} first", f"  {name} second"] if two_lines
              else [f"description: {name} thing"])
    lines += ["metadata:", f"  type: {type_}"]
    if status is not None:
        lines.append(f"status: {status}")
    if successor is not None:
        lines.append(f"superseded_by: {successor}")
    if supersedes:
        lines.append("supersedes:")
        lines += [f"- {s}" for s in supersedes]
    return "\n".join([*lines, "---", "", f"About {name}.", ""])


def context(root: Path) -> CheckContext:
    return CheckContext(Workspace.load([MemoryRoot("explicit", root)]))


def explicit_status(text: str) -> str | None:
    match = re.search(r"^status: (\S+)$", text.split("\n---", 1)[0], re.MULTILINE)
    return match[1] if match else None


def named_in(title: str, filename: str, names: dict[str, str]) -> bool:
    """Whether a fix title names a file: by its filename or its entry's quoted name."""
    return filename in title or (filename in names and f"'{names[filename]}'" in title)


entries_strategy = st.dictionaries(
    st.sampled_from(NAMES),
    st.fixed_dictionaries({
        "type_": st.sampled_from(["user", "project", "feedback", "general"]),
        "status": st.sampled_from([None, None, "living", "historical", "superseded"]),
        "successor": st.sampled_from([None, None, *NAMES, "ghost"]),
        "supersedes": st.lists(st.sampled_from([*NAMES, "ghost"]), max_size=2, unique=True),
        "two_lines": st.booleans(),
    }),
    min_size=1,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entries=entries_strategy, mode=st.sampled_from(["absent", "generated", "curated"]),
       dropped=st.sampled_from(NAMES))
def test_safe_fixes_keep_the_contract_and_fix_reaches_a_fixpoint_where_checks_agree(entries, mode, dropped):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "memory"
        root.mkdir()
        texts = {}
        for name, fields in entries.items():
            if mode == "generated":
                fields = {**fields, "two_lines": False}
            texts[f"{name}.md"] = entry_text(name, **fields)
            (root / f"{name}.md").write_text(texts[f"{name}.md"], encoding="utf-8")
        parsed = [parse_document(t, path=root / f).entry for f, t in sorted(texts.items())]
        names = {e.filename: e.name for e in parsed}
        if mode == "generated":
            # memls's rendering from before a hand edit that added one entry
            index = render_index([e for e in parsed if e.name != dropped])
        elif mode == "curated":
            index = "# My memory\n\nRead these first:\n" + "".join(
                f"- [My {e.name}]({e.filename}) \u2014 hook for {e.name}\n" for e in parsed[::2]
            ) + "- [gone](ghost.md) \u2014 was deleted\n\nThe end.\n"
        if mode != "absent":
            (root / "MEMORY.md").write_text(index, encoding="utf-8")

        ctx = context(root)
        problems = [p for ps in check_workspace(ctx).values() for p in ps]
        for problem in problems:
            for fix in fixes_for(ctx, problem):
                # Every title names every file the fix changes (defect 7).
                for path in fix.paths - {problem.path}:
                    assert named_in(fix.title, path.name, names), (fix.title, path.name)
                if not fix.safe:
                    continue
                docs = {p: d.text for p in fix.paths if (d := ctx.workspace.document(p)) is not None}
                after = planned_files([fix], docs)
                for path, new in after.items():
                    old = docs.get(path)
                    if path.name == "MEMORY.md" and old is not None and mode == "curated":
                        # Every line it does not name is kept, in order.
                        kept = [line for line in old.split("\n") if not any(
                            link.target and named_in(fix.title, link.target, names)
                            for link in parse_index_lines(line))]
                        rest = iter(new.split("\n"))
                        assert all(line in rest for line in kept), (fix.title, old, new)
                    elif old is not None and new is not None and path.name != "MEMORY.md":
                        # A written status is the user's choice (defect 5).
                        if explicit_status(old) is not None:
                            assert explicit_status(new) == explicit_status(old), fix.title

        before = {p.name: p.read_bytes() for p in root.iterdir()}
        fix_all(ctx)
        after_first = {p.name: p.read_bytes() for p in root.iterdir()}
        for filename, text in texts.items():
            if explicit_status(text) is not None:
                assert explicit_status(after_first[filename].decode()) == explicit_status(text)
        # A fixpoint: a second run changes nothing.
        second = fix_all(reload(ctx))
        assert second.applied == []
        assert {p.name: p.read_bytes() for p in root.iterdir()} == after_first
        # check and index --check agree.
        left = {p.code for ps in check_workspace(reload(ctx)).values() for p in ps}
        generated = MemoryStore([MemoryRoot("explicit", root)]).check_index()
        if generated:
            assert not left & INDEX_CODES
        if mode in ("absent", "generated") and "MEMORY.md" in after_first:
            assert generated, after_first["MEMORY.md"].decode()
        if mode == "curated":
            assert b"Read these first:" in after_first["MEMORY.md"]
        assert set(before) <= set(after_first)


def test_fix_folds_a_two_line_description_before_it_creates_the_index(tmp_path):
    # Defect 3: MEMORY.md was rendered from the two-line description, then
    # the description was folded, leaving a stray line that check accepted.
    root = tmp_path / "memory"
    root.mkdir()
    (root / "a.md").write_text(entry_text("a", type_="project", status=None, successor=None,
                                          supersedes=[], two_lines=True), encoding="utf-8")
    ctx = context(root)
    fix_all(ctx)
    assert (root / "MEMORY.md").read_text(encoding="utf-8") == (
        "# Persistent Memory\n\n## Project\n- [a](a.md) \u2014 a first a second\n")
    assert MemoryStore([MemoryRoot("explicit", root)]).check_index()
    assert fix_all(reload(ctx)).applied == []


def test_renaming_a_hidden_entry_touches_no_other_line_of_a_curated_index(tmp_path):
    # Defect 7: the reserved-name fix re-rendered the index, adding and removing other lines.
    root = tmp_path / "memory"
    root.mkdir()
    for name in ("zeta", "alpha"):
        (root / f"{name}.md").write_text(entry_text(name, type_="user", status=None, successor=None,
                                                    supersedes=[], two_lines=False), encoding="utf-8")
    (root / "memory-tips.md").write_text(entry_text("tips", type_="user", status=None, successor=None,
                                                    supersedes=[], two_lines=False), encoding="utf-8")
    curated = "# Persistent Memory\n\n## User\n- [zeta](zeta.md) \u2014 zeta thing\n"  # alpha left out
    (root / "MEMORY.md").write_text(curated, encoding="utf-8")
    ctx = context(root)
    [problem] = [p for ps in check_workspace(ctx).values() for p in ps if p.code == "reserved-name"]
    [fix] = fixes_for(ctx, problem)
    assert fix.title == "Rename the file to tips.md"
    assert {p.name for p in fix.paths} == {"memory-tips.md", "tips.md"}
