"""``memls migrate-knowledge-jsonl`` against ``gptme-util memory migrate-knowledge-jsonl``.

One knowledge JSONL file, two empty roots: each tool migrates it into its
own root with the same flags, and the two runs must print the same stdout and
stderr, exit with the same status and leave byte-identical entry files and
``MEMORY.md``. The records are the shapes gptme's knowledge store writes,
plus the hand-edited and broken lines the command must pass over.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip(
    "gptme.memory", reason="the real gptme (pip install '.[interop]') is needed to compare CLIs"
)
from click.testing import CliRunner, Result  # noqa: E402
from gptme.cli.cmd_memory import memory as gptme_memory  # noqa: E402

from memls.cli import cli as memls_cli  # noqa: E402

LONG = (
    "The nightly backup job times out when the database has more than two hundred tables "
    "because it dumps them one by one over a single connection"
)
RECORDS: list[object] = [
    {"id": "a1b2c3d4e5f6", "problem": "Flaky test in CI: test_login times out",
     "resolution": "Raise the fixture timeout to 30s.", "tags": ["ci", "tests"],
     "keywords": ["timeout", "ci"], "created_at": "2025-11-02T10:00:00Z"},
    {"id": "b2c3d4e5f6a7", "problem": "Use PostgreSQL for the event store", "entry_type": "decision",
     "resolution": "Transactions across aggregates.", "tags": "database"},
    {"id": "c3d4e5f6a7b8", "problem": "Flaky test in CI: test_login times out",
     "resolution": "Second report of the same failure."},
    {"problem": "Flaky test in CI: test_login times out", "resolution": "A third, without an id."},
    {"id": "d4e5f6a7b8c9", "problem": LONG, "resolution": "Dump tables in parallel.",
     "entry_type": "how_to", "keywords": ["backup", 7, None, "nightly"]},
    {"id": "e5f6a7b8c9d0", "problem": "Staging uses port 8443", "entry_type": "fact",
     "resolution": "Not 443."},
    {"id": "f6a7b8c9d0e1", "problem": "Release checklist", "entry_type": "note"},
    {"id": "a7b8c9d0e1f2", "problem": "Custom typed record", "entry_type": "postmortem",
     "resolution": "Kept with default headings."},
    {"id": "b8c9d0e1f2a3", "problem": "Odd entry type", "entry_type": ["decision"],
     "resolution": "Falls back to the default."},
    {"id": "c9d0e1f2a3b4", "problem": "Café menu: ünïcödé text", "resolution": "Ça va.",
     "tags": [""]},
]
JUNK_LINES = ["", "not json at all", "[1, 2, 3]", json.dumps({"resolution": "no problem field"}),
              json.dumps({"problem": 42})]


def write_jsonl(path: Path, records: list[object], junk: list[str] = JUNK_LINES) -> Path:
    lines = [json.dumps(r, ensure_ascii=False) for r in records]
    lines[1:1] = junk
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


class Side:
    def __init__(self, tool: str, root: Path):
        self.tool, self.root = tool, root

    def run(self, *args: str, env: dict[str, str | None] | None = None) -> Result:
        group = gptme_memory if self.tool == "gptme" else memls_cli
        roots = {"GPTME_MEMORY_DIRS": str(self.root), "MEMLS_MEMORY_DIRS": None}
        if self.tool == "memls":
            roots = {"MEMLS_MEMORY_DIRS": str(self.root), "GPTME_MEMORY_DIRS": None}
        return CliRunner().invoke(group, ["migrate-knowledge-jsonl", *args], env={**roots, **(env or {})})

    def files(self) -> dict[str, bytes]:
        if not self.root.exists():
            return {}
        return {p.name: p.read_bytes() for p in sorted(self.root.glob("*.md"))}


@pytest.fixture
def sides(tmp_path: Path) -> tuple[Side, Side]:
    return Side("gptme", tmp_path / "gptme" / "memory"), Side("memls", tmp_path / "memls" / "memory")


def run_both(sides: tuple[Side, Side], *args: str, env: dict[str, str | None] | None = None) -> Result:
    gptme, memls = sides
    expected, actual = gptme.run(*args, env=env), memls.run(*args, env=env)
    assert (actual.exit_code, actual.stdout, actual.stderr) == (
        expected.exit_code, expected.stdout, expected.stderr), args
    assert memls.files() == gptme.files()
    return expected


def test_dry_run_then_migration_then_rerun_match_gptme_output_and_files(sides, tmp_path):
    source = write_jsonl(tmp_path / "entries.jsonl", RECORDS)
    dry = run_both(sides, str(source), "--dry-run")
    assert dry.stdout.endswith(f"\nwould migrate 10, skipped 0, errors 0 (source: {source})\n")
    assert sides[1].files() == {}
    done = run_both(sides, str(source))
    assert done.exit_code == 0
    assert len(sides[1].files()) == 11  # ten entries and MEMORY.md
    again = run_both(sides, str(source))
    assert again.stdout.endswith("\nmigrated 0, skipped 10, errors 0 " f"(source: {source})\n")
    run_both(sides, str(source), "--dry-run")


def test_no_skip_existing_updates_the_migrated_entries_as_gptme_does(sides, tmp_path):
    source = write_jsonl(tmp_path / "entries.jsonl", RECORDS[:3])
    run_both(sides, str(source))
    changed = [dict(RECORDS[0], resolution="Fixed for good in the fixture."), *RECORDS[1:3]]
    write_jsonl(source, changed, junk=[])
    result = run_both(sides, str(source), "--no-skip-existing")
    assert "migrated 3, skipped 0" in result.stdout


def test_an_existing_entry_of_that_name_is_skipped(sides, tmp_path):
    source = write_jsonl(tmp_path / "entries.jsonl", RECORDS[5:7])
    for side in sides:
        side.root.mkdir(parents=True)
        (side.root / "release-checklist.md").write_text(
            "---\nname: release-checklist\ndescription: Hand-written.\nmetadata:\n  type: project\n---\n\nMine.\n")
    result = run_both(sides, str(source))
    assert "  skip (exists): 'release-checklist'" in result.stderr


def test_default_source_in_the_data_directory_and_its_absence(sides, tmp_path):
    data = tmp_path / "data"
    missing = run_both(sides, env={"XDG_DATA_HOME": str(data)})
    assert missing.exit_code == 0
    assert missing.stderr == f"No knowledge store at {data / 'gptme/knowledge/entries.jsonl'} — nothing to migrate.\n"
    (data / "gptme" / "knowledge").mkdir(parents=True)
    write_jsonl(data / "gptme" / "knowledge" / "entries.jsonl", RECORDS[:2])
    found = run_both(sides, "--dry-run", env={"XDG_DATA_HOME": str(data)})
    assert "would migrate 2" in found.stdout


def test_a_file_without_records_and_a_missing_explicit_path(sides, tmp_path):
    empty = tmp_path / "junk.jsonl"
    empty.write_text("\n".join(JUNK_LINES) + "\n")
    result = run_both(sides, str(empty))
    assert result.stdout == f"No valid entries found in {empty}.\n"
    gptme, memls = sides
    expected, actual = gptme.run(str(tmp_path / "nope.jsonl")), memls.run(str(tmp_path / "nope.jsonl"))
    assert actual.exit_code == expected.exit_code == 2
    assert actual.stderr.splitlines()[-1] == expected.stderr.splitlines()[-1]


def test_a_problem_whose_slug_is_reserved_is_the_same_error_in_both(sides, tmp_path):
    source = write_jsonl(tmp_path / "entries.jsonl", [
        {"problem": "Memory leak in the worker", "resolution": "Restart nightly."}, RECORDS[0]])
    result = run_both(sides, str(source))
    assert result.exit_code == 1
    assert "  error ('memory-leak-in-the-worker'): memory name 'memory-leak-in-the-worker' is reserved" in (
        result.stderr)
    assert result.stdout.endswith(f"\nmigrated 1, skipped 0, errors 1 (source: {source})\n")


def test_a_problem_without_ascii_letters_is_migrated_under_its_own_letters_where_gptme_fails(sides, tmp_path):
    # The one intended difference (README, "Differences from gptme"): gptme's slug of
    # 日本語のメモ is its `memory` fallback, which its save refuses; memls keeps the letters.
    source = write_jsonl(tmp_path / "entries.jsonl", [{"problem": "日本語のメモ", "resolution": "x"}])
    gptme, memls = sides
    expected, actual = gptme.run(str(source)), memls.run(str(source))
    assert expected.exit_code == 1 and "error ('memory')" in expected.stderr
    assert actual.exit_code == 0, actual.output
    assert actual.stdout == f"  migrated: '日本語のメモ'\n\nmigrated 1, skipped 0, errors 0 (source: {source})\n"
    assert "## Problem\n\n日本語のメモ\n" in (memls.root / "日本語のメモ.md").read_text(encoding="utf-8")


def test_an_unknown_scope_is_an_error_per_record_as_in_gptme_without_the_keyerror_quotes(sides, tmp_path):
    source = write_jsonl(tmp_path / "entries.jsonl", RECORDS[:2], junk=[])
    gptme, memls = sides
    expected, actual = gptme.run(str(source), "--scope", "nowhere"), memls.run(str(source), "--scope", "nowhere")
    assert (actual.exit_code, actual.stdout) == (expected.exit_code, expected.stdout) == (
        1, f"\nmigrated 0, skipped 0, errors 2 (source: {source})\n")
    # gptme prints str(KeyError), which wraps the sentence in quotes; memls prints the sentence.
    assert actual.stderr == expected.stderr.replace(': "', ": ").replace('"\n', "\n")
    assert "  error ('flaky-test-in-ci-test-login-times-out'): no memory root for scope 'nowhere'" in actual.stderr
    assert memls.files() == gptme.files() == {}


def test_an_existing_file_without_frontmatter_is_the_same_error_as_gptmes(sides, tmp_path):
    source = write_jsonl(tmp_path / "entries.jsonl", [RECORDS[5]], junk=[])
    for side in sides:
        side.root.mkdir(parents=True)
        (side.root / "staging-uses-port-8443.md").write_text("garbage, no frontmatter\n")
    gptme, memls = sides
    expected = gptme.run(str(source), "--no-skip-existing")
    actual = memls.run(str(source), "--no-skip-existing")
    assert actual.exit_code == expected.exit_code == 1
    assert actual.stderr == expected.stderr.replace(str(gptme.root), str(memls.root))
    assert actual.stderr == (
        f"  error ('staging-uses-port-8443'): no frontmatter: {memls.root / 'staging-uses-port-8443.md'}\n")
    assert memls.files() == gptme.files()
