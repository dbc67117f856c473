"""``roots``, ``list``, ``search`` and ``show``: what the store holds, printed."""

from __future__ import annotations

import json
from pathlib import Path

from .cli_helpers import assert_one_line_error, save_entry


def write_file(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_roots_lists_explicit_scope_and_marks_missing_dir(run, tmp_path):
    present = tmp_path / "present"
    present.mkdir()
    missing = tmp_path / "missing"
    result = run("roots", dirs=[present, missing])
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        f"explicit {present}",
        f"explicit {missing}  (missing)",
    ]


def test_roots_json_gives_scope_path_and_existence(run, tmp_path):
    present = tmp_path / "present"
    present.mkdir()
    missing = tmp_path / "missing"
    result = run("roots", "--json", dirs=[present, missing])
    assert json.loads(result.stdout) == [
        {"scope": "explicit", "path": str(present), "exists": True},
        {"scope": "explicit", "path": str(missing), "exists": False},
    ]


def test_roots_names_the_roots_the_settings_add_for_check_and_the_editor(run, memory_dir, tmp_path):
    """A ``.memls.toml`` root is checked by ``memls check`` and the editor: ``roots`` must name it, marked so."""
    memory_dir.mkdir()
    extra, gone = tmp_path / "notes", tmp_path / "gone"
    extra.mkdir()
    (tmp_path / ".memls.toml").write_text(f'roots = ["{extra}", "{gone}", "{memory_dir}"]\n', encoding="utf-8")
    env = {"GPTME_WORKSPACE": str(tmp_path)}
    result = run("roots", env=env)
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        f"explicit {memory_dir}",
        f"explicit {extra}  (settings: check and editor only)",
        f"explicit {gone}  (settings: check and editor only, missing)",
    ]
    assert json.loads(run("roots", "--json", env=env).stdout)[1:] == [
        {"scope": "explicit", "path": str(extra), "exists": True, "from": "settings"},
        {"scope": "explicit", "path": str(gone), "exists": False, "from": "settings"},
    ]


def test_roots_names_a_settings_root_spelled_several_ways_once(run, memory_dir, tmp_path):
    """stranger s26 F7: one directory spelled three ways in ``.memls.toml`` is one root to check and the editor."""
    memory_dir.mkdir()
    (tmp_path / "notes").mkdir()
    (tmp_path / ".memls.toml").write_text(f'roots = ["notes", "./notes/", "../{tmp_path.name}/notes"]\n',
                                          encoding="utf-8")
    result = run("roots", env={"GPTME_WORKSPACE": str(tmp_path)})
    assert result.stdout.splitlines()[1:] == [f"explicit {tmp_path / 'notes'}  (settings: check and editor only)"]


def test_list_filters_by_type(run):
    save_entry(run, "My Fact", "A fact.", "Body text.", "--type", "project")
    save_entry(run, "other", "Something else.", "", "--type", "feedback")
    result = run("list", "--type", "project")
    assert result.exit_code == 0
    assert result.stdout == "project    my-fact  — A fact.\n"


def test_list_shows_every_status_by_default_and_filters_by_status(run):
    save_entry(run, "old", "Old way.")
    save_entry(run, "new", "New way.")
    assert run("supersede", "old", "new").exit_code == 0
    names_all = [line.split()[1] for line in run("list").stdout.splitlines()]
    assert names_all == ["new", "old"]
    superseded = run("list", "--status", "superseded").stdout
    assert superseded == "general    old  — Old way.\n"


def test_list_json_has_entry_dicts_without_body(run, memory_dir):
    save_entry(run, "My Fact", "A fact.", "Body text.")
    [entry] = json.loads(run("list", "--json").stdout)
    assert entry["name"] == "my-fact"
    assert entry["path"] == str(memory_dir / "my-fact.md")
    assert entry["scope"] == "explicit"
    assert "body" not in entry
    assert list(entry)[:4] == ["name", "title", "description", "type"]


def test_list_notes_skipped_files_on_stderr(run, memory_dir):
    save_entry(run, "fact", "A fact.")
    write_file(memory_dir / "notes.md", "# Just a heading\n")
    result = run("list")
    assert result.exit_code == 0
    assert result.stdout == "general    fact  — A fact.\n"
    assert result.stderr == "(1 file(s) skipped: not memory entries)\n"


def test_list_rejects_scope_no_root_has_as_usage_error(run):
    result = run("list", "--scope", "nowhere")
    assert result.exit_code == 2
    assert "'nowhere' is not one of 'explicit'" in result.stderr


def test_list_strips_escape_and_carriage_return_from_text(run, memory_dir):
    write_file(
        memory_dir / "evil.md",
        '---\nname: evil\ndescription: "red \\e[31mtext\\r over"\n---\nbody\n',
    )
    result = run("list")
    assert result.stdout == "general    evil  — red [31mtext over\n"
    assert "\x1b" not in result.stdout and "\r" not in result.stdout


def test_search_matches_substring_case_insensitively_in_name_description_body(run):
    save_entry(run, "deploy-notes", "How we ship.", "Use the RELEASE script.")
    save_entry(run, "review", "Code REVIEW rules.")
    save_entry(run, "unrelated", "Nothing here.")
    assert run("search", "release").stdout == "general    deploy-notes  — How we ship.\n"
    assert run("search", "review").stdout == "general    review  — Code REVIEW rules.\n"
    assert run("search", "DEPLOY").stdout.startswith("general    deploy-notes")


def test_search_pattern_is_literal_not_a_regex(run):
    save_entry(run, "dots", "a.b literal")
    save_entry(run, "axb", "axb only")
    assert run("search", "a.b").stdout == "general    dots  — a.b literal\n"


def test_search_leaves_out_retired_entries(run):
    save_entry(run, "old", "Deploy the old way.")
    save_entry(run, "new", "Deploy the new way.")
    run("supersede", "old", "new")
    result = run("search", "deploy", "--json")
    assert [e["name"] for e in json.loads(result.stdout)] == ["new"]


def test_show_prints_canonical_serialization(run):
    save_entry(run, "My Fact", "A fact.", "Body text.", "--type", "project")
    result = run("show", "my-fact")
    assert result.exit_code == 0
    assert result.stdout == (
        "---\nname: my-fact\ndescription: \"A fact.\"\nmetadata:\n  type: project\n"
        "---\n\nBody text.\n"
    )


def test_show_json_adds_body(run):
    save_entry(run, "My Fact", "A fact.", "Body text.\n")
    result = run("show", "my-fact", "--json")
    assert '"body": "Body text."' in result.stdout
    assert json.loads(result.stdout)["description"] == "A fact."


def test_show_missing_entry_fails_with_one_error_line(run):
    result = run("show", "nope")
    assert_one_line_error(result)
    assert result.stderr == "Error: no memory entry named 'nope'\n"


def test_show_strips_escape_and_cr_but_keeps_newlines(run, memory_dir):
    write_file(
        memory_dir / "evil.md",
        '---\nname: evil\ndescription: "over\\rwritten"\n---\nline 1\nline 2 \x1b[2Jx\n',
    )
    result = run("show", "evil")
    assert 'description: "overwritten"' in result.stdout
    assert "line 1\nline 2 [2Jx\n" in result.stdout
    assert "\x1b" not in result.stdout and "\r" not in result.stdout
