"""``audit``, ``index`` and ``export``: consistency checks and generated views."""

from __future__ import annotations

from pathlib import Path

from .cli_helpers import assert_one_line_error, save_entry


def write_file(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_audit_passes_on_clean_root(run):
    save_entry(run, "fact", "A fact.")
    result = run("audit")
    assert (result.exit_code, result.stdout) == (0, "Memory audit passed\n")


def test_audit_reports_invalid_yaml_and_exits_1(run, memory_dir):
    write_file(memory_dir / "invalid.md", "---\nname: bad\ndescription: [unclosed\n---\n")
    result = run("audit")
    assert result.exit_code == 1
    assert result.stdout.startswith("invalid-yaml: invalid.md: ")


def test_audit_reports_duplicate_and_dangling_links(run, memory_dir):
    write_file(memory_dir / "a.md", "---\nname: same\ndescription: a\n---\n")
    write_file(memory_dir / "z.md", "---\nname: same\ndescription: z\n---\n")
    write_file(
        memory_dir / "old.md",
        "---\nname: old\ndescription: o\nsuperseded_by: ghost\n---\n",
    )
    lines = run("audit").stdout.splitlines()
    assert any(line.startswith("duplicate-name: z.md: ") for line in lines)
    assert any(line.startswith("dangling-superseded-by: old: ") for line in lines)


def test_audit_unknown_scope_fails_with_unquoted_message(run):
    assert "nowhere" in assert_one_line_error(run("audit", "--scope", "nowhere"))


def test_index_prints_rendered_index_without_extra_newline(run):
    save_entry(run, "fact", "A fact.", "", "--type", "project")
    result = run("index")
    assert result.stdout == "# Persistent Memory\n\n## Project\n- [fact](fact.md) — A fact.\n"


def test_index_check_reports_drift_then_write_then_up_to_date(run, memory_dir):
    save_entry(run, "fact", "A fact.")
    index = memory_dir / "MEMORY.md"
    index.write_text("# Persistent Memory\n\nhand edited\n")
    drift = run("index", "--check")
    assert (drift.exit_code, drift.stdout) == (1, f"{index}: DRIFT\n")
    written = run("index", "--write")
    assert (written.exit_code, written.stdout) == (0, f"Wrote {index}\n")
    ok = run("index", "--check")
    assert (ok.exit_code, ok.stdout) == (0, f"{index}: up to date\n")


def test_index_check_takes_precedence_over_write(run, memory_dir):
    save_entry(run, "fact", "A fact.")
    index = memory_dir / "MEMORY.md"
    index.write_text("hand edited\n")
    result = run("index", "--write", "--check")
    assert result.exit_code == 1
    assert index.read_text() == "hand edited\n"


def test_index_budget_zero_is_a_usage_error(run):
    save_entry(run, "fact", "A fact.")
    assert run("index", "--budget", "0").exit_code == 2


def test_index_budget_too_small_for_any_index_fails_cleanly(run):
    save_entry(run, "fact", "A fact.")
    assert_one_line_error(run("index", "--budget", "1"))


def test_index_strips_escape_sequences_from_descriptions(run, memory_dir):
    write_file(memory_dir / "evil.md", '---\nname: evil\ndescription: "x\\e]0;pwned\\a y"\n---\n')
    result = run("index")
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "- [evil](evil.md) — x]0;pwned y" in result.stdout


def test_export_cc_equals_index_output(run):
    save_entry(run, "fact", "A fact.", "", "--type", "feedback")
    save_entry(run, "other", "Other.")
    assert run("export").stdout == run("index").stdout
    assert run("export", "--view", "cc", "--budget", "60").stdout == run(
        "index", "--budget", "60"
    ).stdout


def test_export_codex_lists_living_entries_by_name(run):
    save_entry(run, "zeta", "Last.", "", "--type", "project")
    save_entry(run, "alpha", "First.")
    save_entry(run, "old", "Retired.")
    run("supersede", "old", "alpha")
    out = run("export", "--view", "codex").stdout
    assert out.startswith("## Memory\n")
    assert "- **alpha** — [general] First.\n- **zeta** — [project] Last.\n" in out
    assert "old" not in out


def test_export_codex_with_no_living_entries_notes_it_and_exits_0(run, memory_dir):
    memory_dir.mkdir()
    result = run("export", "--view", "codex")
    assert (result.exit_code, result.stdout) == (0, "")
    assert "nothing to export" in result.stderr


def test_export_codex_budget_below_header_fails_cleanly(run):
    save_entry(run, "fact", "A fact.")
    result = run("export", "--view", "codex", "--budget", "10")
    assert_one_line_error(result)
    assert result.stderr == "Error: budget 10 is too small for the codex export header\n"
