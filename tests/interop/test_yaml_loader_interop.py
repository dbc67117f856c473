"""memls calls a frontmatter broken exactly when gptme's ``yaml.safe_load`` does.

libyaml reads ``description: column one<TAB>column two``; gptme's pure-Python
SafeLoader refuses it, so gptme's audit flags the file and its strict readers
skip it. memls must flag the same file, and read the one gptme reads.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

pytest.importorskip("gptme.memory", reason="gptme is not installed (pip install -e '.[interop]')")

from gptme.memory import MemoryRoot as GptmeRoot  # noqa: E402
from gptme.memory import MemoryStore as GptmeStore  # noqa: E402

from memls.store.checks import CheckContext, audit_code_of, check_workspace  # noqa: E402
from memls.store.model import Workspace  # noqa: E402
from memls.store.roots import MemoryRoot  # noqa: E402

FILES = {
    "alpha.md": "---\nname: alpha\ndescription: column one\tcolumn two\n---\nbody\n",
    "beta.md": "---\nname: beta\ndescription: plain\n---\nbody\n",
    "gamma.md": "---\nname: gamma\ndescription: \"quoted\ttab\"  # a tab inside quotes is fine\n---\nbody\n",
}


def test_gptme_audit_and_memls_audit_flag_the_same_files_for_a_tab_in_a_plain_value(tmp_path: Path):
    root = tmp_path / "memory"
    root.mkdir()
    for name, text in FILES.items():
        (root / name).write_text(text, encoding="utf-8")
    gptme = {(issue.code, issue.entry) for issue in GptmeStore([GptmeRoot("explicit", root)]).audit()}
    workspace = Workspace.load([MemoryRoot("explicit", root)])
    problems = check_workspace(CheckContext(workspace, today=date(2026, 11, 30)))
    memls = {(audit_code_of(p), p.data["audit"][0]) for ps in problems.values() for p in ps if "audit" in p.data}
    assert gptme == {("invalid-yaml", "alpha.md")}
    assert memls == gptme
