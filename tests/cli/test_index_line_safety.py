"""The CLI's index writers leave out only the entry whose line cannot be written, and say why."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from memls.cli import cli

ENTRY = '---\nname: {name}\n{field}\nmetadata:\n  type: project\n---\n\nBody.\n'


def memls(*args: str, input: str | None = None) -> Result:
    env = {"MEMLS_MEMORY_DIRS": None, "GPTME_MEMORY_DIRS": None, "GPTME_WORKSPACE": None,
           "MEMLS_NO_CACHE": "1"}
    return CliRunner().invoke(cli, list(args), env=env, input=input)


@pytest.fixture
def memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "memory"
    root.mkdir()
    (root / "t.md").write_text(ENTRY.format(name="t", field="description: t"), encoding="utf-8")
    return root


UNSAFE_TITLES = ['title: "s\\ud835x"', 'title: "nul\\0x"', 'title: "see [x]"']


@pytest.mark.parametrize("field", UNSAFE_TITLES)
@pytest.mark.parametrize("command", [["index", "--write"], ["check", "--fix", "memory"]])
def test_a_first_index_is_written_without_the_entry_whose_link_text_breaks_it(memory, field, command):
    (memory / "s.md").write_text(ENTRY.format(name="s", field=f"description: d\n{field}"), encoding="utf-8")
    result = memls(*command)
    assert "codec" not in result.output + result.stderr, result.output
    assert (memory / "MEMORY.md").read_bytes() == "# Persistent Memory\n\n## Project\n- [t](t.md) — t\n".encode()
    checked = memls("check", "memory").stdout
    assert "index-missing-entry" not in checked and "index-missing " not in checked
    [told] = [line for line in checked.splitlines() if "unsafe-index-text" in line]
    assert "s.md" in told and "writes it no line (one MEMORY.md already holds is kept)" in told


@pytest.mark.parametrize(("field", "shown"), [
    ('description: "d\\ud835x"', "d\ufffdx"), ('description: "nul\\0x"', "nulx"), ('description: "a\\fb"', "a b"),
])
@pytest.mark.parametrize("command", [["index", "--write"], ["check", "--fix", "memory"]])
def test_a_description_no_line_can_hold_is_made_safe_on_its_line(memory, field, shown, command):
    (memory / "s.md").write_text(ENTRY.format(name="s", field=field), encoding="utf-8")
    memls(*command)
    text = (memory / "MEMORY.md").read_bytes().decode("utf-8")
    assert text.splitlines() == text[:-1].split("\n")
    assert f"- [s](s.md) — {shown}\n- [t](t.md) — t\n" in text
    assert memls("index", "--check").exit_code == 0
