"""``memls check``: output formats, exit codes, file filters, ``--fix`` and settings.

Each test works on a copy of ``examples/memory`` (the planted problems) or a
small root of its own, with the working directory set to the copy's parent
so printed paths are relative (``memory/x.md``) and golden files hold no
temporary path. Settings are read from the working directory (no git there).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from memls.cli import cli
from memls.store.index import render_index
from memls.store.parse import entry_from_text

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "memory"
GOLDEN = Path(__file__).parent / "golden"
MEMLS = Path(sys.executable).parent / "memls"


def memls_check(*args: str, dirs: list[Path] | None = None) -> Result:
    env: dict[str, str | None] = {
        "MEMLS_MEMORY_DIRS": os.pathsep.join(str(d) for d in dirs) if dirs else None,
        "GPTME_MEMORY_DIRS": None,
        "GPTME_WORKSPACE": None,
    }
    return CliRunner().invoke(cli, ["check", *args], env=env)


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(root.iterdir()) if p.name != ".memory.lock"}


@pytest.fixture
def examples(tmp_path, monkeypatch) -> Path:
    """A copy of examples/memory at ``<cwd>/memory``."""
    copy = tmp_path / "memory"
    shutil.copytree(EXAMPLES, copy)
    monkeypatch.chdir(tmp_path)
    return copy


def entry(name: str, description: str = "A fact.", extra: str = "") -> str:
    return f'---\nname: {name}\ndescription: "{description}"\nmetadata:\n  type: project\n{extra}---\n\nBody.\n'


@pytest.fixture
def clean_root(tmp_path, monkeypatch) -> Path:
    """A root with two entries, a supersession pair done right, and its generated index."""
    root = tmp_path / "memory"
    root.mkdir()
    texts = {
        "old-rule.md": entry("old-rule", extra="status: superseded\nsuperseded_by: new-rule\n"),
        "new-rule.md": entry("new-rule", extra="supersedes:\n- old-rule\n"),
    }
    for filename, text in texts.items():
        (root / filename).write_text(text, encoding="utf-8")
    entries = [entry_from_text(text, path=root / name) for name, text in texts.items()]
    (root / "MEMORY.md").write_text(render_index(entries), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return root


# -- output formats (golden files) ------------------------------------------------


@pytest.mark.parametrize("output_format", ["text", "json", "github"])
def test_output_on_the_examples_matches_the_golden_file(examples, output_format):
    result = memls_check("memory", "--format", output_format)
    golden = GOLDEN / f"check-examples.{output_format}"
    assert result.exit_code == 1, result.output
    assert result.stdout == golden.read_text(encoding="utf-8")
    assert result.stderr == ""


def test_text_output_shows_every_planted_problem_of_the_examples(examples):
    codes = {line.split()[2] for line in memls_check("memory").stdout.splitlines()[:-1]}
    assert codes >= {
        "invalid-yaml", "missing-description", "unknown-status", "reserved-name",
        "dangling-superseded-by", "asymmetric-supersession",
        "index-lists-non-living", "index-missing-entry", "superseded-reference",
    }


# -- exit codes -----------------------------------------------------------------------


def test_clean_root_exits_0_with_a_no_problems_summary(clean_root):
    result = memls_check("memory")
    assert result.exit_code == 0, result.output
    assert result.stdout == "No problems in 3 memory files.\n"  # two entries and MEMORY.md


def test_without_paths_it_checks_the_resolved_roots(examples):
    result = memls_check(dirs=[examples])
    assert result.exit_code == 1
    assert result.stdout == (GOLDEN / "check-examples.text").read_text(encoding="utf-8")


def test_an_error_severity_problem_exits_1(clean_root):
    (clean_root / "new-rule.md").write_text(entry("new-rule", extra="status: done\nsupersedes:\n- old-rule\n"))
    result = memls_check("memory")
    assert result.exit_code == 1
    assert "memory/new-rule.md:6:9: error unknown-status" in result.stdout


def test_warnings_alone_exit_0(clean_root):
    (clean_root / "new-rule.md").write_text(
        '---\nname: new-rule\nmetadata:\n  type: project\nsupersedes:\n- old-rule\n---\n'
    )
    result = memls_check("memory")
    assert result.exit_code == 0, result.output
    assert "warning missing-description" in result.stdout


def test_unknown_format_is_a_usage_error(examples):
    result = memls_check("memory", "--format", "xml")
    assert result.exit_code == 2
    assert "xml" in result.stderr


def test_missing_path_is_a_usage_error(examples):
    result = memls_check("memory/nope.md")
    assert result.exit_code == 2
    assert "memory/nope.md does not exist" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_dangling_symlink_argument_in_a_root_is_reported_like_the_root_check_reports_it(clean_root):
    (clean_root / "linked.md").symlink_to(clean_root / "gone.md")
    result = memls_check("memory/linked.md")
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("memory/linked.md:1:1: error invalid-entry ")
    assert lines[0] in memls_check("memory").stdout.splitlines()


def test_summary_counts_the_missing_index_among_the_files_checked(tmp_path, monkeypatch):
    # One entry with a problem and no MEMORY.md: two files have problems, and
    # both were checked (the summary once read "in 2 of 1 memory file").
    root = tmp_path / "memory"
    root.mkdir()
    (root / "alone.md").write_text(entry("alone", extra="bogus: 1\n").replace(
        'description: "A fact."\n', ""), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = memls_check("memory")
    problem_files = {line.split(":")[0] for line in result.stdout.splitlines()[:-1]}
    assert problem_files == {"memory/alone.md", "memory/MEMORY.md"}
    assert result.stdout.splitlines()[-1].endswith(" in 2 of 2 memory files.")


def test_summary_counts_every_checked_file_once(examples):
    result = memls_check("memory")
    problem_files = {line.split(":")[0] for line in result.stdout.splitlines()[:-1]}
    checked = [p for p in (examples).iterdir() if p.name != ".memory.lock"]
    assert result.stdout.splitlines()[-1].endswith(
        f" in {len(problem_files)} of {len(checked)} memory files.")


# -- file arguments -------------------------------------------------------------------


def test_file_arguments_limit_output_to_those_files(examples):
    result = memls_check("memory/flaky-tests.md", "memory/staging-access.md")
    lines = result.stdout.splitlines()
    assert result.exit_code == 1
    assert {line.split(":")[0] for line in lines[:-1]} == {"memory/flaky-tests.md", "memory/staging-access.md"}
    assert len(lines) == 4
    assert lines[-1] == "3 problems (2 errors, 1 warning) in 2 of 2 memory files."


def test_file_argument_links_still_resolve_within_its_root(examples):
    # retry-budget's link to incident-2026-08-payments is judged against that file.
    result = memls_check("memory/retry-budget.md")
    assert [line.split()[2] for line in result.stdout.splitlines()[:-1]] == ["asymmetric-supersession"]


def test_a_clean_file_argument_exits_0_even_when_its_root_has_errors(examples):
    result = memls_check("memory/user-role.md")
    assert result.exit_code == 0, result.output
    assert result.stdout == "No problems in 1 memory file.\n"


# -- --fix ----------------------------------------------------------------------------


def test_fix_applies_the_safe_fixes_and_says_what_it_changed(examples):
    result = memls_check("memory", "--fix")
    fixed = [line for line in result.stdout.splitlines() if line.startswith("Fixed ")]
    assert fixed == [
        "Fixed memory/MEMORY.md: index-missing-entry: Add the lines for 'deploy-checklist', "
        "'flaky-tests', 'retry-budget' and remove the line for 'release-freeze-v1.md' in MEMORY.md",
    ]
    index = (examples / "MEMORY.md").read_text(encoding="utf-8")
    assert "release-freeze-v1.md" not in index
    assert "- [retry-budget](retry-budget.md)" in index
    codes = {line.split()[2] for line in result.stdout.splitlines() if line.startswith("memory/")}
    assert not codes & {"index-drift", "index-missing-entry", "index-lists-non-living"}
    # Problems that need a choice stay, so the run still fails.
    assert result.exit_code == 1
    assert {"unknown-status", "dangling-superseded-by", "reserved-name",
            "asymmetric-supersession"} <= codes


def test_fix_never_overrides_an_explicit_status(examples):
    # Defect 5 of issue 11: the asymmetric-supersession fix turned the
    # incident's written `status: historical` into `superseded`.
    before = (examples / "incident-2026-08-payments.md").read_text(encoding="utf-8")
    assert "status: historical" in before
    memls_check("memory", "--fix")
    assert (examples / "incident-2026-08-payments.md").read_text(encoding="utf-8") == before


def test_fix_leaves_the_examples_index_generated_so_index_check_agrees(examples):
    # The examples' index was memls's rendering before the hand edits that
    # retired one entry and added three; the line repair restores the rendering.
    memls_check("memory", "--fix")
    result = CliRunner().invoke(cli, ["index", "--check"], env={
        "MEMLS_MEMORY_DIRS": str(examples), "GPTME_MEMORY_DIRS": None, "GPTME_WORKSPACE": None})
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("spelled", ["lost.md", "../memory/lost.md"])
@pytest.mark.parametrize("unreadable", ["broken symlink", "directory", "no frontmatter"])
def test_fix_keeps_the_index_line_of_an_entry_memls_cannot_read(tmp_path, monkeypatch, unreadable, spelled):
    # Stranger s23a F3: the README promises that no write removes the line of an
    # entry memls cannot read; --fix (and the editor's fix-all) removed it as broken.
    root = tmp_path / "memory"
    root.mkdir()
    (root / "kept.md").write_text(entry("kept"), encoding="utf-8")
    target = root / "lost.md"
    if unreadable == "broken symlink":
        target.symlink_to(tmp_path / "nowhere.md")
    elif unreadable == "directory":
        target.mkdir()
    else:
        target.write_text("Body only: the frontmatter was cut.\n", encoding="utf-8")
    index = f"# Memory\n\n- [kept](kept.md) \u2014 A fact.\n- [lost]({spelled}) \u2014 the one about the outage\n"
    (root / "MEMORY.md").write_text(index, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    memls_check("memory", "--fix")
    assert (root / "MEMORY.md").read_text(encoding="utf-8") == index
    if unreadable == "directory":
        target.rmdir()
    else:
        target.unlink()
    memls_check("memory", "--fix")  # gone for good: the line goes
    assert (root / "MEMORY.md").read_text(encoding="utf-8") == "# Memory\n\n- [kept](kept.md) \u2014 A fact.\n"


def test_fix_points_the_line_of_an_entry_moved_by_hand_at_its_file_keeping_its_words(tmp_path, monkeypatch):
    # Found in session 19: after `mv deploy.md deploy-notes.md`, --fix removed the curated line
    # and appended a generated one at the end: "ask Sam before touching prod" was gone.
    root = tmp_path / "memory"
    root.mkdir()
    (root / "deploy-notes.md").write_text(entry("deploy", "How we deploy"), encoding="utf-8")
    (root / "other.md").write_text(entry("other"), encoding="utf-8")
    index = ("# Memory\n\n- [deploy](deploy.md) \u2014 ask Sam before touching prod\n"
             "- [other](other.md) \u2014 A fact.\n\n<!-- curated by hand -->\n")
    (root / "MEMORY.md").write_text(index, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = memls_check("memory", "--fix")
    assert "Point 'deploy.md' at 'deploy-notes.md' in MEMORY.md" in result.output
    assert (root / "MEMORY.md").read_text(encoding="utf-8") == index.replace("(deploy.md)", "(deploy-notes.md)")
    assert "index-" not in memls_check("memory").output


def test_fix_follows_a_second_hand_move_by_the_lines_link_text(tmp_path, monkeypatch):
    # Stranger s26 F3: after `mv deploy.md d2.md` and a fix, the line points at d2.md, which the name
    # `deploy` does not give; `mv d2.md d3.md` then made --fix remove the line with its words.
    root = tmp_path / "memory"
    root.mkdir()
    (root / "d3.md").write_text(entry("deploy", "How we deploy"), encoding="utf-8")
    (root / "other.md").write_text(entry("other"), encoding="utf-8")
    index = "# Memory\n\n- [deploy](d2.md) \u2014 ask Sam before touching prod\n- [other](other.md) \u2014 A fact.\n"
    (root / "MEMORY.md").write_text(index, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = memls_check("memory", "--fix")
    assert "Point 'd2.md' at 'd3.md' in MEMORY.md" in result.output
    assert (root / "MEMORY.md").read_text(encoding="utf-8") == index.replace("(d2.md)", "(d3.md)")


def test_fix_follows_a_second_hand_move_by_the_title_memls_wrote_as_link_text(tmp_path, monkeypatch):
    # Stranger s27 F1: the line's link text was the entry's title, not its name.
    root = tmp_path / "memory"
    root.mkdir()
    (root / "d3.md").write_text(entry("deploy", "How we deploy", "title: Deploy Guide\n"), encoding="utf-8")
    index = "# Memory\n\n- [Deploy Guide](d2.md) \u2014 ask Sam before touching prod\n"
    (root / "MEMORY.md").write_text(index, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert "Point 'd2.md' at 'd3.md' in MEMORY.md" in memls_check("memory", "--fix").output
    assert (root / "MEMORY.md").read_text(encoding="utf-8") == index.replace("(d2.md)", "(d3.md)")


UNPAIRED = {
    # Stranger s27 F1: link text rewritten by hand, then a second move.
    "link text of its own": ("- [Deploying](d2.md) \u2014 ask Sam\n", {"d3.md": entry("deploy")}),
    # s27 F3: build.md moved away, deploy.md moved onto build.md.
    "moved onto another's file": ("- [deploy](deploy.md) \u2014 ask Sam\n- [build](build.md) \u2014 mine\n",
                                  {"build.md": entry("deploy"), "build-old.md": entry("build")}),
    # s27 F4: two entries whose names slug to the gone file.
    "two entries may be meant": ("- [Deploying](deploy.md) \u2014 ask Sam\n",
                                 {"a.md": entry("Deploy"), "b.md": entry("DEPLOY")}),
    # s27 F4: two lines whose link text is the entry's name.
    "two lines name it": ("- [deploy](d1.md) \u2014 ask Sam\n- [deploy](d2.md) \u2014 ask Kim\n",
                          {"d3.md": entry("deploy")}),
}


@pytest.mark.parametrize("index, files", UNPAIRED.values(), ids=UNPAIRED.keys())
def test_fix_never_removes_a_broken_line_no_rule_pairs_and_still_adds_the_missing_ones(
        tmp_path, monkeypatch, index, files):
    root = tmp_path / "memory"
    root.mkdir()
    for filename, text in files.items():
        (root / filename).write_text(text, encoding="utf-8")
    (root / "MEMORY.md").write_text(f"# Memory\n\n{index}", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    memls_check("memory", "--fix")
    after = (root / "MEMORY.md").read_text(encoding="utf-8")
    # Every line stays, words and all; each entry without a line gets one, appended.
    assert after.startswith(f"# Memory\n\n{index}")
    rows = json.loads(memls_check("memory", "--format", "json").stdout)
    assert {row["code"] for row in rows if row["path"].endswith("MEMORY.md")} == {"index-broken-link"}
    # Removing the broken line stays offered, for the person to choose.
    assert any(fix["title"].startswith("Remove the line") for row in rows for fix in row["fixes"])


def test_fix_keeps_a_broken_line_with_its_words_after_the_entry_got_a_new_line(tmp_path, monkeypatch):
    """Stranger s27b F4: a save gave the moved entry a new line; the next --fix removed the old one's words."""
    root = tmp_path / "memory"
    root.mkdir()
    (root / "d3.md").write_text(entry("deploy"), encoding="utf-8")
    index = "# Memory\n\n- [Deploying to prod](deploy-notes.md) \u2014 my own words\n- [deploy](d3.md) \u2014 A fact.\n"
    (root / "MEMORY.md").write_text(index, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert memls_check("memory", "--fix").exit_code == 1
    assert (root / "MEMORY.md").read_text(encoding="utf-8") == index


def _generated_root(root: Path) -> str:
    """``deploy`` and ``api`` with memls's rendering of them as ``MEMORY.md``; returns that text."""
    root.mkdir()
    texts = {"deploy.md": entry("deploy", "How we deploy"), "api.md": entry("api", "The API")}
    for filename, text in texts.items():
        (root / filename).write_text(text, encoding="utf-8")
    rendering = render_index([entry_from_text(text, path=root / name) for name, text in texts.items()])
    (root / "MEMORY.md").write_text(rendering, encoding="utf-8")
    return rendering


def test_fix_points_an_edited_line_of_a_generated_index_at_its_moved_entry_keeping_its_words(tmp_path, monkeypatch):
    # Stranger s27c F1: the index, memls's rendering apart from that line, was rendered again: words lost.
    root = tmp_path / "memory"
    edited = _generated_root(root).replace("- [deploy](deploy.md) \u2014 How we deploy",
                                           "- [Deploy it](deploy.md) \u2014 careful: prod only")
    (root / "MEMORY.md").write_text(edited, encoding="utf-8")
    (root / "deploy.md").rename(root / "deploy-notes.md")
    monkeypatch.chdir(tmp_path)
    memls_check("memory", "--fix")
    assert (root / "MEMORY.md").read_text(encoding="utf-8") == edited.replace("(deploy.md)", "(deploy-notes.md)")


def test_fix_keeps_a_line_of_its_own_wording_added_to_a_generated_index(tmp_path, monkeypatch):
    # Stranger s27c F2: the rendering replaced the index, and the line with it.
    root = tmp_path / "memory"
    text = _generated_root(root) + "- [Team runbook, see wiki](runbook.md) \u2014 my note about the rota\n"
    (root / "MEMORY.md").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    memls_check("memory", "--fix")
    assert (root / "MEMORY.md").read_text(encoding="utf-8") == text


def test_fix_removes_the_line_of_an_entry_deleted_by_hand_from_an_index_memls_saves_wrote(tmp_path, monkeypatch):
    # Stranger s27c F3: every word of the line was memls's, yet --fix left it and CI red.
    root = tmp_path / "memory"
    root.mkdir()
    for name in ("deploy", "api", "web"):
        (root / f"{name}.md").write_text(entry(name), encoding="utf-8")
    lines = "".join(f"- [{name}]({name}.md) \u2014 A fact.\n" for name in ("deploy", "api", "web"))
    (root / "MEMORY.md").write_text(f"# Persistent Memory\n\n{lines}", encoding="utf-8")
    (root / "api.md").unlink()
    monkeypatch.chdir(tmp_path)
    assert memls_check("memory", "--fix").exit_code == 0
    kept = lines.replace("- [api](api.md) \u2014 A fact.\n", "")
    assert (root / "MEMORY.md").read_text(encoding="utf-8") == f"# Persistent Memory\n\n{kept}"


def test_fix_keeps_lines_pointing_at_files_outside_the_root_or_below_it(tmp_path, monkeypatch):
    # Stranger s27 F5: the files are there; memls cannot read them as entries of this root.
    root = tmp_path / "memory"
    (root / "archive").mkdir(parents=True)
    (root / "archive" / "old.md").write_text(entry("old"), encoding="utf-8")
    (tmp_path / "README.md").write_text("hi\n", encoding="utf-8")
    (root / "kept.md").write_text(entry("kept"), encoding="utf-8")
    index = ("# Memory\n\n- [kept](kept.md) \u2014 A fact.\n- [old](archive/old.md) \u2014 kept on purpose\n"
             "- [readme](../README.md) \u2014 see it\n")
    (root / "MEMORY.md").write_text(index, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    memls_check("memory", "--fix")
    assert (root / "MEMORY.md").read_text(encoding="utf-8") == index


@pytest.mark.parametrize("besides", [
    "- [deploy](d1.md) \u2014 a second line naming deploy\n",  # which one is deploy's: the person says
    "- [d2](d4.md) \u2014 an entry named d2 may be the one meant\n",
], ids=["two lines name it", "the file is another entry's name"])
def test_fix_leaves_a_line_its_link_text_cannot_pair_alone(tmp_path, monkeypatch, besides):
    root = tmp_path / "memory"
    root.mkdir()
    (root / "d3.md").write_text(entry("deploy", "How we deploy"), encoding="utf-8")
    if "[d2]" in besides:
        (root / "d4.md").write_text(entry("d2"), encoding="utf-8")
    index = f"# Memory\n\n- [deploy](d2.md) \u2014 ask Sam before touching prod\n{besides}"
    (root / "MEMORY.md").write_text(index, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert "Point 'd2.md'" not in memls_check("memory", "--fix").output


def test_fix_leaves_unsafe_problems_files_untouched(examples):
    before = snapshot(examples)
    memls_check("memory", "--fix")
    after = snapshot(examples)
    changed = {name for name in before if before[name] != after.get(name)}
    assert changed == {"MEMORY.md"}
    assert set(after) == set(before)


def test_second_fix_run_changes_nothing_and_prints_no_fixed_line(examples):
    first = memls_check("memory", "--fix")
    after_first = snapshot(examples)
    second = memls_check("memory", "--fix")
    assert snapshot(examples) == after_first
    assert not [line for line in second.stdout.splitlines() if line.startswith("Fixed")]
    assert second.stdout == "\n".join(
        line for line in first.stdout.splitlines() if not line.startswith("Fixed")
    ) + "\n"


def test_fix_with_json_output_reports_fixes_on_stderr_so_stdout_stays_json(examples):
    result = memls_check("memory", "--fix", "--format", "json")
    rows = json.loads(result.stdout)
    assert rows and all(set(row) >= {"path", "line", "column", "code", "fixes"} for row in rows)
    assert "Fixed memory/MEMORY.md" in result.stderr


CURATED_INDEX = """\
# What I know about this project

Read the billing notes before touching invoices. This paragraph is mine.

- [old-rule](old-rule.md) — the old way
- [gone](gone.md) — a file that was deleted
- [new-rule](new-rule.md) — the new way

Some closing prose, also mine.
"""


def test_fix_edits_only_lines_of_a_hand_curated_index_and_keeps_its_prose(clean_root):
    (clean_root / "MEMORY.md").write_text(CURATED_INDEX, encoding="utf-8")
    (clean_root / "extra.md").write_text(entry("extra", "An extra fact."), encoding="utf-8")
    result = memls_check("memory", "--fix")
    assert result.exit_code == 0, result.output
    text = (clean_root / "MEMORY.md").read_text(encoding="utf-8")
    assert text == (
        CURATED_INDEX.replace("- [old-rule](old-rule.md) — the old way\n", "")
        .replace("- [gone](gone.md) — a file that was deleted\n", "")
        + "- [extra](extra.md) — An extra fact.\n"
    )
    assert memls_check("memory").stdout == "No problems in 4 memory files.\n"


def test_fix_on_a_hand_curated_index_with_many_missing_lines_is_idempotent(clean_root):
    (clean_root / "MEMORY.md").write_text(CURATED_INDEX.replace("- [gone](gone.md) — a file that was deleted\n", ""),
                                          encoding="utf-8")
    for i in range(15):
        (clean_root / f"fact-{i:02d}.md").write_text(entry(f"fact-{i:02d}"), encoding="utf-8")
    memls_check("memory", "--fix")
    after_first = snapshot(clean_root)
    second = memls_check("memory", "--fix")
    assert snapshot(clean_root) == after_first
    assert "Fixed" not in second.stdout
    assert second.exit_code == 0
    assert second.stdout == "No problems in 18 memory files.\n"
    assert "Read the billing notes before touching invoices." in after_first["MEMORY.md"].decode()


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
def test_fix_of_an_index_with_a_stray_cr_keeps_every_other_byte_and_writes_the_files_line_break(
        tmp_path, monkeypatch, eol):
    # The stray CR splits a prose line, and another ends the line the fix starts on:
    # the prose stays byte for byte, and the lines the fix writes end as the file's do.
    root = tmp_path / "memory"
    root.mkdir()
    for name in ("e01", "e02"):
        (root / f"{name}.md").write_text(entry(name), encoding="utf-8")
    (root / "gone.md").write_text(entry("Gone", extra="status: historical\n"), encoding="utf-8")
    head = f"# Memory{eol}Pasted from a Mac tool:\rkeep this prose line intact{eol}"
    (root / "MEMORY.md").write_bytes(
        f"{head}- [Gone](gone.md) \u2014 x\r- [First](e01.md) \u2014 mine{eol}".encode())
    monkeypatch.chdir(tmp_path)
    result = memls_check("memory", "--fix")
    assert result.exit_code == 0, result.output
    assert (root / "MEMORY.md").read_bytes() == (
        f"{head}- [First](e01.md) \u2014 mine{eol}- [e02](e02.md) \u2014 A fact.{eol}".encode())


# -- settings -------------------------------------------------------------------------


def _dangling_line(result: Result) -> list[str]:
    return [line for line in result.stdout.splitlines() if "dangling-superseded-by" in line]


def test_memls_toml_in_the_cwd_changes_severities(examples):
    (examples.parent / ".memls.toml").write_text(
        '[severity]\ndangling-superseded-by = "off"\nmissing-description = "error"\n', encoding="utf-8"
    )
    result = memls_check("memory")
    assert _dangling_line(result) == []
    assert "memory/flaky-tests.md:2:7: error missing-description" in result.stdout
    assert result.stderr == ""


def test_check_without_paths_checks_the_roots_the_settings_add_as_the_editor_does(tmp_path, monkeypatch):
    """``roots = [...]`` in ``.memls.toml``: CI must report what the editor shows for them."""
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "a.md").write_text(entry("a"), encoding="utf-8")
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "x.md").write_text(entry("x", extra="status: bogus\n"), encoding="utf-8")
    (tmp_path / ".memls.toml").write_text(f'roots = ["{extra}"]\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = memls_check()
    assert "extra/x.md:6:9: error unknown-status" in result.stdout, result.stdout
    assert result.exit_code == 1


def test_pyproject_tool_memls_changes_severities(examples):
    (examples.parent / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.memls.severity]\ndangling-superseded-by = "off"\n', encoding="utf-8"
    )
    result = memls_check("memory")
    assert _dangling_line(result) == []
    assert result.stderr == ""


def test_memls_toml_wins_over_pyproject(examples):
    (examples.parent / "pyproject.toml").write_text(
        '[tool.memls.severity]\ndangling-superseded-by = "off"\n', encoding="utf-8"
    )
    (examples.parent / ".memls.toml").write_text('[severity]\ndangling-superseded-by = "hint"\n')
    assert [line.split()[1] for line in _dangling_line(memls_check("memory"))] == ["hint"]


def test_turning_the_only_errors_off_makes_the_run_pass(clean_root):
    (clean_root / "new-rule.md").write_text(entry("new-rule", extra="status: done\nsupersedes:\n- old-rule\n"))
    (clean_root.parent / ".memls.toml").write_text('[severity]\nunknown-status = "warning"\n')
    result = memls_check("memory")
    assert result.exit_code == 0, result.output


def test_unreadable_settings_file_gives_one_warning_line_and_still_checks(examples):
    (examples.parent / ".memls.toml").write_text("[severity\nbroken = ", encoding="utf-8")
    result = memls_check("memory")
    warnings = result.stderr.splitlines()
    assert len(warnings) == 1 and warnings[0].startswith("Warning: "), result.stderr
    assert ".memls.toml" in warnings[0]
    assert result.stdout == (GOLDEN / "check-examples.text").read_text(encoding="utf-8")


def test_bad_settings_value_warns_and_the_rest_applies(examples):
    (examples.parent / ".memls.toml").write_text(
        '[severity]\ndangling-superseded-by = "loud"\nunknown-status = "off"\n', encoding="utf-8"
    )
    result = memls_check("memory")
    assert result.stderr.splitlines() == [
        f"Warning: {examples.parent.resolve() / '.memls.toml'}: severity.dangling-superseded-by: "
        "'loud' is not one of off, hint, information, warning, error"
    ]
    assert "unknown-status" not in result.stdout
    assert len(_dangling_line(result)) == 1


# -- the console script ---------------------------------------------------------------


@pytest.mark.skipif(not MEMLS.exists(), reason=f"console script not installed at {MEMLS} (run make install)")
def test_console_script_prints_the_golden_text_and_exits_1(examples):
    env = {k: v for k, v in os.environ.items()
           if k not in ("MEMLS_MEMORY_DIRS", "GPTME_MEMORY_DIRS", "GPTME_WORKSPACE")}
    done = subprocess.run([str(MEMLS), "check", "memory"], cwd=examples.parent, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr
    assert done.stdout == (GOLDEN / "check-examples.text").read_text(encoding="utf-8")
    assert done.stderr == ""


def test_file_arguments_outside_memory_roots_are_ignored_as_a_hook_runner_passes_them(examples):
    # pre-commit passes every file of a commit: a README without frontmatter,
    # a source file, a Markdown file in a folder that is no memory root.
    (examples.parent / "README.md").write_text("# Project\n", encoding="utf-8")
    (examples.parent / "docs").mkdir()
    (examples.parent / "docs" / "guide.md").write_text("no frontmatter\n", encoding="utf-8")
    (examples.parent / "setup.py").write_text("print()\n", encoding="utf-8")
    alone = memls_check("README.md", "docs/guide.md", "setup.py")
    assert alone.exit_code == 0, alone.output
    assert alone.stdout == "No problems in 0 memory files.\n"
    mixed = memls_check("README.md", "memory/retry-budget.md", "setup.py")
    assert [line.split()[2] for line in mixed.stdout.splitlines()[:-1]] == ["asymmetric-supersession"]
    assert mixed.stdout.splitlines()[-1].endswith("in 1 of 1 memory file.")


def test_a_file_in_a_folder_with_a_memory_index_is_a_memory_file_anywhere(tmp_path, monkeypatch):
    notes = tmp_path / "elsewhere" / "notes"
    notes.mkdir(parents=True)
    (notes / "MEMORY.md").write_text("# Persistent Memory\n", encoding="utf-8")
    (notes / "lonely.md").write_text(entry("lonely", extra="superseded_by: ghost\n"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = memls_check("elsewhere/notes/lonely.md")
    assert result.exit_code == 1
    assert "dangling-superseded-by" in result.stdout


@pytest.mark.parametrize("name", ["a, b", "c]d", "p{q}", ":0"])
def test_fix_adds_a_name_with_flow_indicators_to_a_flow_list_as_one_quoted_item(tmp_path, name):
    # The back-link fix wrote `[z, a, b]` (two dangling links, doubled by every
    # --fix pass) or `[z, c]d]` (y.md no longer loaded).
    root = tmp_path / "memory"
    root.mkdir()
    quoted = name.replace('"', '\\"')
    (root / "x.md").write_text(f'---\nname: "{quoted}"\ndescription: d\ntype: project\n'
                               "status: superseded\nsuperseded_by: y\n---\nb\n", encoding="utf-8")
    (root / "z.md").write_text("---\nname: z\ndescription: d\ntype: project\n"
                               "status: superseded\nsuperseded_by: y\n---\nb\n", encoding="utf-8")
    (root / "y.md").write_text("---\nname: y\ndescription: d\ntype: project\nsupersedes: [z]\n---\nb\n",
                               encoding="utf-8")
    memls_check(str(root), "--fix")
    assert entry_from_text((root / "y.md").read_text(encoding="utf-8")).supersedes == ["z", name]
    codes = {line.split()[2] for line in memls_check(str(root)).stdout.splitlines() if line.startswith(str(root))}
    assert not codes & {"invalid-yaml", "dangling-supersedes", "asymmetric-supersession"}


@pytest.mark.skipif(not MEMLS.exists(), reason=f"console script not installed at {MEMLS} (run make install)")
@pytest.mark.parametrize("command", [["check"], ["check", "--format", "json"], ["list"], ["audit"], ["index"]])
def test_a_name_holding_a_lone_surrogate_is_printed_escaped_and_reported(tmp_path, command):
    # YAML's "\ud835" escape reads as a lone surrogate, which no UTF-8 stream can carry.
    root = tmp_path / "memory"
    root.mkdir()
    (root / "y.md").write_text(entry("y").replace("name: y", 'name: "\\ud835y"'), encoding="utf-8")
    env = {k: v for k, v in os.environ.items()
           if k not in ("MEMLS_MEMORY_DIRS", "GPTME_MEMORY_DIRS", "GPTME_WORKSPACE")}
    done = subprocess.run([str(MEMLS), *command], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert "codec" not in done.stderr and "Error" not in done.stderr, done.stderr
    if command[0] == "check":
        assert "unsafe-index-text" in done.stdout and "lone surrogate" in done.stdout
    elif command[0] == "list":  # the audit finds nothing wrong; list names it
        assert "\\ud835y" in done.stdout
    elif command[0] == "index":  # no MEMORY.md line can hold it: the index leaves it out
        assert "ud835" not in done.stdout and done.returncode == 0
