"""The supersession checks agree with gptme's own audit, and their safe fixes satisfy it.

``memls audit`` is produced from the check catalogue (problems carrying
``data["audit"]``); these tests hold that rollup to the real gptme on the
same files, and prove that applying a safe fix leaves gptme's audit clean.
"""

from __future__ import annotations

import textwrap
from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("gptme.memory", reason="gptme is not installed (pip install -e '.[interop]')")

from gptme.memory import MemoryRoot as GptmeRoot  # noqa: E402
from gptme.memory import MemoryStore as GptmeStore  # noqa: E402

from memls.store.apply import apply_fixes  # noqa: E402
from memls.store.checks import CheckContext, audit_code_of, check_workspace, fixes_for, supersession  # noqa: E402
from memls.store.model import Workspace  # noqa: E402
from memls.store.roots import MemoryRoot  # noqa: E402

NAME_POOL = ["a", "b", "c", "d"]
MISSING = "zz"


def entry(name: str, extra: str = "") -> str:
    return f'---\nname: {name}\ndescription: "d"\nmetadata:\n  type: project\n' + textwrap.dedent(extra) + "---\n"


def write(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def checked(root: Path):
    workspace = Workspace.load([MemoryRoot("explicit", root)])
    ctx = CheckContext(workspace, today=date(2026, 11, 30))
    problems = [p for ps in check_workspace(ctx).values() for p in ps]
    return ctx, problems


def gptme_audit(root: Path) -> set[tuple[str, str, str]]:
    return {(i.code, i.entry, i.detail) for i in GptmeStore([GptmeRoot("explicit", root)]).audit()}


def rollup(problems) -> set[tuple[str, str, str]]:
    return {(audit_code_of(p), *p.data["audit"]) for p in problems if "audit" in p.data}


SAFE_FIX_CASES = {
    "successor-lacks-back-link": {"a.md": entry("a", "status: superseded\nsuperseded_by: b\n"), "b.md": entry("b")},
    "predecessor-lacks-back-link": {"a.md": entry("a"), "b.md": entry("b", "supersedes:\n- a\n")},
    # No written status: removing the link then changes nothing the user chose.
    "superseded-by-itself": {"a.md": entry("a", "superseded_by: a\n")},
    "supersedes-itself": {"a.md": entry("a", "supersedes: [a]\n")},
}


@pytest.mark.parametrize("case", sorted(SAFE_FIX_CASES))
def test_safe_supersession_fixes_leave_gptme_audit_clean(tmp_path, case):
    root = write(tmp_path / "memory", SAFE_FIX_CASES[case])
    assert gptme_audit(root), "the case must start with a gptme audit issue"
    ctx, problems = checked(root)
    assert rollup(problems) == gptme_audit(root)
    safe = [f for p in problems for f in fixes_for(ctx, p) if f.safe and p.code in supersession.CODES]
    assert len(safe) == 1
    texts = {path: ctx.workspace.document(path).text for path in safe[0].paths}
    apply_fixes(safe, texts, root=root)
    assert gptme_audit(root) == set()
    assert rollup(checked(root)[1]) == set()


def test_cross_root_link_rolls_up_to_the_dangling_issue_gptme_reports(tmp_path):
    project = write(tmp_path / "project", {"a.md": entry("a", "status: superseded\nsuperseded_by: b\n")})
    user = write(tmp_path / "user", {"b.md": entry("b", "supersedes: [a]\n")})
    workspace = Workspace.load([MemoryRoot("project", project), MemoryRoot("user", user)])
    ctx = CheckContext(workspace)
    problems = check_workspace(ctx)[project / "a.md"]
    assert [p.code for p in problems if p.code == "cross-root-link"] == ["cross-root-link"]
    assert rollup(problems) == gptme_audit(project)


link_names = st.sampled_from([*NAME_POOL, MISSING])
random_entry = st.fixed_dictionaries({
    "name": st.sampled_from(NAME_POOL),
    "status": st.sampled_from([None, "living", "superseded", "historical"]),
    "supersedes": st.lists(link_names, max_size=3),
    "superseded_by": st.none() | link_names,
    "block_list": st.booleans(),
})


def random_entry_text(fields: dict) -> str:
    extra = ""
    if fields["status"]:
        extra += f"status: {fields['status']}\n"
    if fields["supersedes"]:
        if fields["block_list"]:
            extra += "supersedes:\n" + "".join(f"- {n}\n" for n in fields["supersedes"])
        else:
            extra += "supersedes: [" + ", ".join(fields["supersedes"]) + "]\n"
    if fields["superseded_by"]:
        extra += f"superseded_by: {fields['superseded_by']}\n"
    return entry(fields["name"], extra)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=st.lists(random_entry, min_size=2, max_size=6))
def test_audit_rollups_equal_gptme_audit_on_random_roots(tmp_path_factory, entries):
    root = write(tmp_path_factory.mktemp("memory"),
                 {f"{i}-{e['name']}.md": random_entry_text(e) for i, e in enumerate(entries)})
    ctx, problems = checked(root)
    assert all(d.parsed.strict_error is None for d in ctx.workspace.documents() if d.parsed is not None)
    assert rollup(problems) == gptme_audit(root)
