"""``save``: refuse bad input before anything touches disk; report what was written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .cli_helpers import assert_one_line_error, save_entry

RESERVED_NAMES = ["memory", "MEMORY", "memory archive", "Memory notes", "memory-foo", "!!!"]


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` with its bytes (empty when ``root`` is missing)."""
    if not root.exists():
        return {}
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_save_reads_body_from_stdin_and_reports_path(run, memory_dir):
    result = run("save", "My Fact", "A fact.", "--type", "project", input="Body text.\n")
    assert result.exit_code == 0
    path = memory_dir / "my-fact.md"
    assert result.stdout == f"Saved memory to {path}\n"
    text = path.read_text()
    assert 'description: "A fact."' in text and "  type: project" in text
    assert text.endswith("---\n\nBody text.\n")
    index = (memory_dir / "MEMORY.md").read_text()
    assert index.startswith("# Persistent Memory\n\n")
    assert "- [my-fact](my-fact.md) — A fact." in index


def test_save_reads_body_from_body_file(run, memory_dir, tmp_path):
    body = tmp_path / "body.md"
    body.write_text("From the file.\n")
    assert run("save", "fact", "A fact.", "--body-file", str(body)).exit_code == 0
    assert (memory_dir / "fact.md").read_text().endswith("\nFrom the file.\n")


def test_save_body_file_must_exist(run, memory_dir, tmp_path):
    result = run("save", "fact", "A fact.", "--body-file", str(tmp_path / "absent.md"))
    assert result.exit_code == 2
    assert not memory_dir.exists()


def test_save_body_file_that_is_not_utf8_fails_cleanly(run, memory_dir, tmp_path):
    body = tmp_path / "body.md"
    body.write_bytes(b"\xff\xfe binary")
    assert_one_line_error(run("save", "fact", "A fact.", "--body-file", str(body)))
    assert not memory_dir.exists()


@pytest.mark.parametrize("name", RESERVED_NAMES)
def test_save_refuses_reserved_name_and_creates_nothing(run, memory_dir, name):
    result = run("save", name, "Reserved basename", input="body")
    assert_one_line_error(result, contains="reserved for memory indexes")
    assert result.stdout == ""
    assert not memory_dir.exists()  # no root directory, so no MEMORY.md, no .memory.lock


@pytest.mark.parametrize("name", RESERVED_NAMES)
def test_save_refuses_reserved_name_in_existing_root_without_touching_it(
    run, memory_dir, name
):
    memory_dir.mkdir()
    result = run("save", name, "Reserved basename", input="body")
    assert_one_line_error(result, contains="reserved for memory indexes")
    assert tree(memory_dir) == {}


def test_save_json_prints_the_written_entry(run, memory_dir):
    result = run("save", "fact", "A fact.", "--json", "--keyword", "ship it", input="Body.")
    assert result.exit_code == 0
    receipt = json.loads(result.stdout)
    assert receipt["name"] == "fact"
    assert receipt["path"] == str(memory_dir / "fact.md")
    assert receipt["keywords"] == ["ship it"]
    assert "body" not in receipt


def test_save_json_reports_entry_in_target_scope_not_nearer_shadow(run, tmp_path):
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    env = {
        "GPTME_WORKSPACE": str(workspace),
        "HOME": str(tmp_path / "home"),
        "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
    }
    run("save", "fact", "Project version.", "--title", "Kept", dirs=[], env=env)
    project_before = tree(workspace / "memory")
    result = run(
        "save", "fact", "User version.", "--scope", "user",
        "--metadata", '{"source": "cli"}', "--json", dirs=[], env=env,
    )
    assert result.exit_code == 0, result.stderr
    receipt = json.loads(result.stdout)
    user_file = tmp_path / "cfg" / "gptme" / "memory" / "fact.md"
    assert receipt["path"] == str(user_file)
    assert (receipt["scope"], receipt["description"]) == ("user", "User version.")
    assert receipt["metadata"] == {"source": "cli"}
    [listed] = json.loads(run("list", "--scope", "user", "--json", dirs=[], env=env).stdout)
    assert receipt == listed
    assert tree(workspace / "memory") == project_before


def test_save_keywords_replace_when_given_and_persist_when_omitted(run, memory_dir):
    run("save", "release", "Release rule.", "--keyword", "stable release", "--keyword", "tag*")
    index_before = (memory_dir / "MEMORY.md").read_bytes()
    run("save", "release", "Release rule.", input="New body.")
    shown = json.loads(run("show", "release", "--json").stdout)
    assert shown["keywords"] == ["stable release", "tag*"]
    assert shown["body"] == "New body."
    assert (memory_dir / "MEMORY.md").read_bytes() == index_before


def test_save_metadata_merges_into_existing_metadata(run):
    run("save", "fact", "A fact.", "--metadata", '{"source": "chat", "keep": 1}')
    run("save", "fact", "A fact.", "--metadata", '{"source": "review"}')
    shown = json.loads(run("show", "fact", "--json").stdout)
    assert shown["metadata"] == {"source": "review", "keep": 1}


@pytest.mark.parametrize("bad", ["[]", "null", '"text"', "123", "{broken"])
def test_save_rejects_metadata_that_is_not_a_json_object_before_writing(
    run, memory_dir, bad
):
    result = run("save", "fact", "A fact.", "--metadata", bad)
    assert result.exit_code == 2
    assert "--metadata" in result.stderr and "JSON object" in result.stderr
    assert "Traceback" not in result.stderr
    assert not memory_dir.exists()


def test_save_rejects_metadata_type_key_and_leaves_entry_unchanged(run, memory_dir):
    save_entry(run, "fact", "A fact.", "Body.")
    before = tree(memory_dir)
    result = run("save", "fact", "Changed.", "--metadata", '{"type": "project"}')
    assert result.exit_code == 2
    assert "--metadata" in result.stderr and "use --type" in result.stderr
    assert tree(memory_dir) == before


def test_save_over_malformed_entry_fails_without_traceback_or_change(run, memory_dir):
    memory_dir.mkdir()
    bad = memory_dir / "fact.md"
    bad.write_text("---\nname: fact\ndescription: [unclosed\n---\nbody\n")
    before = tree(memory_dir)
    assert_one_line_error(run("save", "fact", "A fact."), contains="invalid YAML")
    # The root lock file may now exist (it is never deleted); no entry or index changed.
    after = {k: v for k, v in tree(memory_dir).items() if k != ".memory.lock"}
    assert after == before


def test_save_unknown_scope_fails_with_unquoted_message(run, memory_dir):
    message = assert_one_line_error(run("save", "fact", "A fact.", "--scope", "nowhere"))
    assert "nowhere" in message
    assert not memory_dir.exists()


@pytest.mark.parametrize("kind", ["user", "feedback", "project", "reference"])
def test_save_accepts_every_claude_code_type(run, kind):
    save_entry(run, f"{kind}-note", "A note.", "", "--type", kind)
    assert run("list", "--type", kind).stdout.split()[1] == f"{kind}-note"


def test_save_heredoc_writes_name_description_and_body(run, memory_dir):
    heredoc = "# Heading\n\nTwo lines\nof body.\n"
    run("save", "codex-note", "Saved from Codex.", "--type", "reference", input=heredoc)
    entry = json.loads(run("show", "codex-note", "--json").stdout)
    assert (entry["name"], entry["description"], entry["type"]) == (
        "codex-note",
        "Saved from Codex.",
        "reference",
    )
    assert entry["body"] == "# Heading\n\nTwo lines\nof body."


def test_save_in_one_root_order_is_found_in_the_other(run, tmp_path):
    codex, cc = tmp_path / "codex", tmp_path / "cc"
    assert run("save", "shared", "Both harnesses.", dirs=[codex, cc]).exit_code == 0
    result = run("show", "shared", "--json", dirs=[cc, codex])
    assert json.loads(result.stdout)["path"] == str(codex / "shared.md")


def test_save_unicode_name_is_found_by_list_show_recall_and_index(run, memory_dir):
    result = run("save", "日本語", "日本語のメモ 設定", input="日本語 本文 設定")
    assert result.exit_code == 0, result.stderr
    assert (memory_dir / "日本語.md").exists()
    assert "日本語" in run("list").stdout.split()
    assert json.loads(run("show", "日本語", "--json").stdout)["body"] == "日本語 本文 設定"
    recalled = json.loads(run("recall", "日本語 設定", "--format", "json").stdout)
    assert [hit["name"] for hit in recalled["hits"]] == ["日本語"]
    assert "- [日本語](日本語.md) — 日本語のメモ 設定" in run("index").stdout
