"""One catalogue: `memls audit` is the catalogue's problems that roll up to gptme's codes."""

from __future__ import annotations

import shutil
from pathlib import Path

from memls.store import MemoryRoot, MemoryStore
from memls.store.checks import CheckContext, audit_code_of, check_workspace
from memls.store.model import Workspace
from memls.store.settings import Settings

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "memory"


def _example_root(tmp_path: Path) -> MemoryRoot:
    root = tmp_path / "memory"
    shutil.copytree(EXAMPLES, root)
    return MemoryRoot("explicit", root)


def test_every_audit_issue_is_a_catalogue_problem_of_the_same_file(tmp_path):
    root = _example_root(tmp_path)
    issues = MemoryStore([root]).audit()
    assert issues, "the example root has planted problems"
    results = check_workspace(CheckContext(Workspace.load([root]), Settings()))
    rolled = {
        (audit_code_of(p), *p.data["audit"])
        for problems in results.values() for p in problems if "audit" in p.data
    }
    assert {(i.code, i.entry, i.detail) for i in issues} == rolled


def test_audit_ignores_severity_settings_so_it_stays_gptmes_audit(tmp_path):
    root = _example_root(tmp_path)
    (tmp_path / ".memls.toml").write_text('[severity]\ndangling-superseded-by = "off"\n')
    codes = {i.code for i in MemoryStore([root]).audit()}
    assert "dangling-superseded-by" in codes


def test_audit_reports_what_check_reports_for_the_planted_link_problems(tmp_path):
    root = _example_root(tmp_path)
    codes = {i.code for i in MemoryStore([root]).audit()}
    assert {"invalid-yaml", "dangling-superseded-by", "asymmetric-supersession"} <= codes
