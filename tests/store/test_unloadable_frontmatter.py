"""Frontmatter that does not load: the YAML error, and nothing made up from the line fallback.

While a line is half-typed, the readers' line fallback reads ``supersedes: [a]``
as the name ``'[a]'`` and a block list as ``{}``. None of that may reach the
link checks: the broken document gets its YAML error (and checks of a name it
states for certain), and the other documents are told nothing new about it.
On disk (``memls check``) its links are unknown; in the server's model
(``Workspace.update``) the other documents keep the facts of the last text of
that buffer that loaded, until it is saved or closed (then the file is the truth).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from memls.store.checks import CheckContext, check_paths, check_workspace, supersession
from memls.store.model import Workspace
from memls.store.parse import parse_document
from memls.store.roots import MemoryRoot

from .checks.conftest import Checked, write_root

LINK_CODES = frozenset(supersession.CODES) - {"duplicate-name"}
TODAY = date(2026, 11, 30)


def entry(name: str, extra: str = "") -> str:
    return f"---\nname: {name}\ndescription: about {name}\n{extra}---\nbody\n"


def codes_by_file(results) -> dict[str, set[str]]:
    return {path.name: {p.code for p in problems} for path, problems in results.items() if problems}


def check_disk(tmp_path: Path, files: dict[str, str]) -> dict[str, set[str]]:
    root = write_root(tmp_path / "memory", files)
    return codes_by_file(Checked([MemoryRoot("explicit", root)], today=TODAY).results)


ALPHA = entry("alpha", "status: superseded\nsuperseded_by: beta\n")
CHAIN = {
    "deploy-freeze-v1.md": entry("deploy-freeze-v1", "status: superseded\nsuperseded_by: deploy-freeze-v2\n"),
    "deploy-freeze-v2.md": entry(
        "deploy-freeze-v2",
        "supersedes: [deploy-freeze-v1]\nstatus: superseded\nsuperseded_by: deploy-freeze-v3\n",
    ),
    "deploy-freeze-v3.md": entry("deploy-freeze-v3", "supersedes:\n  - deploy-freeze-v2\n"),
}
# Enter pressed after "depl" inside v2's superseded_by value.
V2_SPLIT = CHAIN["deploy-freeze-v2.md"].replace("superseded_by: depl", "superseded_by: depl\n")


def test_half_typed_line_after_a_flow_list_gives_only_the_yaml_error(tmp_path):
    beta = entry("beta", "supersedes: [alpha]\nx\n")
    found = check_disk(tmp_path, {"alpha.md": ALPHA, "beta.md": beta})
    assert found["beta.md"] == {"invalid-yaml"}
    assert not found.get("alpha.md", set()) & LINK_CODES


def test_half_typed_line_after_a_block_list_gives_only_the_yaml_error(tmp_path):
    beta = entry("beta", "supersedes:\n  - alpha\nx\n")
    root = write_root(tmp_path / "memory", {"alpha.md": ALPHA, "beta.md": beta})
    checked = Checked([MemoryRoot("explicit", root)], today=TODAY)
    assert {p.code for p in checked.problems(path=root / "beta.md")} == {"invalid-yaml"}
    assert not any("{}" in p.message for p in checked.problems())
    assert not {p.code for p in checked.problems(path=root / "alpha.md")} & LINK_CODES


def test_enter_inside_a_link_value_on_disk_tells_the_neighbours_nothing(tmp_path):
    found = check_disk(tmp_path, {**CHAIN, "deploy-freeze-v2.md": V2_SPLIT})
    assert found["deploy-freeze-v2.md"] == {"invalid-yaml"}
    assert not found.get("deploy-freeze-v1.md", set()) & LINK_CODES
    assert not found.get("deploy-freeze-v3.md", set()) & LINK_CODES


def test_a_name_stated_before_the_yaml_error_still_names_the_entry(tmp_path):
    # v2's name is certain (line 1, well before the error), so a duplicate of it is reported...
    files = {**CHAIN, "deploy-freeze-v2.md": V2_SPLIT, "zz-copy.md": entry("deploy-freeze-v2")}
    assert "duplicate-name" in check_disk(tmp_path, files)["zz-copy.md"]


def test_a_frontmatter_given_up_on_for_its_cost_is_not_loaded_again_for_the_name_before_the_failure():
    """The lines before the point the loader gave up cost nearly as much again: they are not read twice."""
    nested = "".join(f"k{i}: " + "[" * 300 + "]" * 300 + "\n" for i in range(20))
    doc = parse_document(f"---\nname: alpha\ndescription: d\n{nested}---\nbody\n")
    assert doc.frontmatter is not None and doc.frontmatter.error is not None
    assert doc.frontmatter.error.too_costly
    assert doc.name_before_error is None


def test_a_name_in_doubt_is_neither_a_name_nor_a_dangling_target(tmp_path):
    # Enter inside v2's own name: its name is in doubt, links to its stem are not dangling.
    broken = CHAIN["deploy-freeze-v2.md"].replace("name: deploy-fr", "name: deploy-fr\n")
    assert parse_document(broken).name_before_error is None
    found = check_disk(tmp_path, {**CHAIN, "deploy-freeze-v2.md": broken})
    assert found["deploy-freeze-v2.md"] == {"invalid-yaml"}
    assert not found.get("deploy-freeze-v1.md", set()) & LINK_CODES
    assert not found.get("deploy-freeze-v3.md", set()) & LINK_CODES


# -- the server's model: the last good facts of a buffer --------------------------------------------

ROOT = MemoryRoot("explicit", Path("/nonexistent-memls-test/memory"))


def model(files: dict[str, str]) -> Workspace:
    workspace = Workspace([ROOT])
    for name, text in sorted(files.items()):
        workspace.update(ROOT.path / name, text)
    return workspace


def results(workspace: Workspace) -> dict[Path, list]:
    return check_workspace(CheckContext(workspace, today=TODAY))


def nonempty(found: dict[Path, list]) -> dict[Path, list]:
    return {p: problems for p, problems in found.items() if problems}


def others(found: dict[Path, list], path: Path) -> dict[Path, list]:
    return {p: problems for p, problems in found.items() if p != path}


def test_other_entries_keep_the_last_good_facts_of_a_buffer_until_it_loads_again():
    workspace = model(CHAIN)
    v2 = ROOT.path / "deploy-freeze-v2.md"
    before = results(workspace)
    # A chain whose links name the *old* successor: the last good facts must be kept, not
    # re-guessed. Retarget v2 first (v3 then lacks a back-link), then break it.
    retargeted = CHAIN["deploy-freeze-v2.md"].replace("superseded_by: deploy-freeze-v3", "superseded_by: other")
    workspace.update(v2, retargeted)
    good = results(workspace)
    affected = workspace.update(v2, retargeted.replace("superseded_by: oth", "superseded_by: oth\n"))
    broken = results(workspace)
    assert {p.code for p in broken[v2]} == {"invalid-yaml"}
    assert others(broken, v2) == others(good, v2)
    assert v2 in affected
    # It loads again: the neighbours see the new text.
    workspace.update(v2, CHAIN["deploy-freeze-v2.md"])
    assert results(workspace) == before


@pytest.mark.parametrize("end", ["saved", "closed"])
def test_a_saved_or_closed_buffer_that_does_not_load_tells_the_others_what_its_file_tells_memls_check(tmp_path, end):
    """The last good facts bridge keystrokes only: once the broken text is the file, the file is the truth."""
    root = write_root(tmp_path / "memory", CHAIN)
    memory_root = MemoryRoot("explicit", root)
    workspace = Workspace.load([memory_root])
    v2, v3 = root / "deploy-freeze-v2.md", root / "deploy-freeze-v3.md"
    retargeted = CHAIN[v2.name].replace("superseded_by: deploy-freeze-v3", "superseded_by: other")
    broken = retargeted.replace("superseded_by: oth", "superseded_by: oth\n")
    workspace.update(v2, retargeted)
    workspace.update(v2, broken)
    typing = results(workspace)
    assert "asymmetric-supersession" in {p.code for p in typing[v3]}  # told the retargeted link meanwhile
    v2.write_text(broken, encoding="utf-8")
    affected = workspace.saved(v2) if end == "saved" else workspace.update_from_disk(v2)
    assert v3 in affected
    rechecked = check_paths(CheckContext(workspace, today=TODAY), affected)
    on_disk = check_workspace(CheckContext(Workspace.load([memory_root]), today=TODAY))
    assert nonempty({**typing, **rechecked}) == nonempty(on_disk)
    assert "asymmetric-supersession" not in {p.code for p in on_disk.get(v3, [])}


def test_a_buffer_that_never_loaded_tells_the_others_nothing():
    workspace = model({**CHAIN, "deploy-freeze-v2.md": V2_SPLIT})
    found = results(workspace)
    v2 = ROOT.path / "deploy-freeze-v2.md"
    assert {p.code for p in found[v2]} == {"invalid-yaml"}
    assert not {p.code for problems in others(found, v2).values() for p in problems} & LINK_CODES


def test_model_and_disk_check_agree_on_the_same_text(tmp_path):
    files = {**CHAIN, "deploy-freeze-v2.md": V2_SPLIT}
    in_model = {path.name: codes for path, codes in
                ((p, {x.code for x in ps}) for p, ps in results(model(files)).items()) if codes}
    assert in_model == check_disk(tmp_path, files)


# -- property: one inserted character never lights up the neighbours --------------------------------

LINKED = {
    "a.md": entry("a", "status: superseded\nsuperseded_by: b\n"),
    "b.md": entry("b", "supersedes:\n  - a\nstatus: superseded\nsuperseded_by: c\n"),
    "c.md": entry("c", "supersedes: [b]\n"),
    "d.md": entry("d", "status: historical\nsupersedes: [ghost]\n"),
}


def link_problems_of_others(workspace: Workspace, path: Path) -> set[tuple[str, str, str]]:
    return {
        (p.path.name, p.code, p.message)
        for p_path, problems in results(workspace).items() if p_path != path
        for p in problems if p.code in LINK_CODES
    }


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    edited=st.sampled_from(sorted(LINKED)),
    at=st.integers(min_value=0),
    character=st.sampled_from(list("\n :-[]{}\"'#x|>&*!%@`,?\t")),
)
def test_an_insertion_that_breaks_the_yaml_adds_no_link_problem_elsewhere(edited, at, character):
    text = LINKED[edited]
    end = text.index("\n---\n", 4)  # inside the frontmatter, after the opening line
    at = 4 + at % (end - 4 + 1)
    broken = text[:at] + character + text[at:]
    assume(not parse_document(broken).loaded)
    path = ROOT.path / edited
    before = link_problems_of_others(model(LINKED), path)
    # The server's model: the buffer loaded before the keystroke; the others are told the same.
    workspace = model(LINKED)
    workspace.update(path, broken)
    assert link_problems_of_others(workspace, path) == before
    # No last good text (a file read broken): the others may lose link problems, never gain one.
    assert link_problems_of_others(model({**LINKED, edited: broken}), path) <= before
