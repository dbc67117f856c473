"""``supersede``, ``rename``, ``delete``, ``historical``: changing an entry's life."""

from __future__ import annotations

import json

from .cli_helpers import assert_one_line_error, save_entry


def shown(run, name: str) -> dict:
    result = run("show", name, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_supersede_prints_link_and_audit_quiet_then_prints_nothing(run):
    save_entry(run, "old", "Old way.")
    save_entry(run, "new", "New way.")
    result = run("supersede", "old", "new")
    assert result.exit_code == 0
    assert result.stdout == "Superseded old -> new\n"
    audit = run("audit", "--quiet")
    assert (audit.exit_code, audit.stdout) == (0, "")


def test_supersede_links_both_entries_and_drops_old_from_index(run):
    save_entry(run, "old", "Old way.")
    save_entry(run, "new", "New way.")
    run("supersede", "old", "new")
    old, new = shown(run, "old"), shown(run, "new")
    assert (old["status"], old["superseded_by"]) == ("superseded", "new")
    assert new["supersedes"] == ["old"]
    index = run("index").stdout
    assert "[new](new.md)" in index and "[old](old.md)" not in index


def test_supersede_missing_entry_fails_with_unquoted_message(run):
    save_entry(run, "new", "New way.")
    message = assert_one_line_error(run("supersede", "ghost", "new"))
    assert "ghost" in message


def test_supersede_self_fails_cleanly(run):
    save_entry(run, "one", "Only one.")
    assert_one_line_error(run("supersede", "one", "one"), contains="itself")


def test_rename_moves_entry_and_reports_it(run, memory_dir):
    save_entry(run, "draft", "A draft.", "Body.")
    result = run("rename", "draft", "final")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "Renamed draft -> final (final.md)\n"
    assert not (memory_dir / "draft.md").exists()
    assert shown(run, "final")["body"] == "Body."
    assert "[final](final.md)" in (memory_dir / "MEMORY.md").read_text()


def test_rename_updates_supersession_links(run):
    save_entry(run, "old", "Old way.")
    save_entry(run, "new", "New way.")
    run("supersede", "old", "new")
    assert run("rename", "new", "newest").exit_code == 0
    assert shown(run, "old")["superseded_by"] == "newest"
    assert run("audit").stdout == "Memory audit passed\n"


def test_rename_to_reserved_name_fails_and_changes_nothing(run, memory_dir):
    save_entry(run, "draft", "A draft.")
    before = {p.name: p.read_bytes() for p in memory_dir.iterdir()}
    assert_one_line_error(run("rename", "draft", "MEMORY"), contains="reserved")
    assert {p.name: p.read_bytes() for p in memory_dir.iterdir()} == before


def test_rename_missing_entry_fails_with_unquoted_message(run):
    save_entry(run, "other", "Other.")
    assert "ghost" in assert_one_line_error(run("rename", "ghost", "real"))


def test_delete_removes_file_and_index_line(run, memory_dir):
    save_entry(run, "gone", "Soon gone.")
    save_entry(run, "stays", "Stays.")
    result = run("delete", "gone")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "Deleted gone (gone.md)\n"
    assert not (memory_dir / "gone.md").exists()
    assert "gone" not in (memory_dir / "MEMORY.md").read_text()
    assert run("show", "gone").exit_code == 1


def test_delete_missing_entry_fails_with_unquoted_message(run):
    save_entry(run, "other", "Other.")
    assert "ghost" in assert_one_line_error(run("delete", "ghost"))


def test_historical_marks_entry_and_removes_it_from_index_and_recall(run):
    save_entry(run, "legacy", "Legacy deploy process notes.", "Deploy process legacy body.")
    result = run("historical", "legacy")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "Marked legacy historical (legacy.md)\n"
    assert shown(run, "legacy")["status"] == "historical"
    assert "legacy" not in run("index").stdout
    recalled = run("recall", "legacy deploy process", "--backend", "overlap", "--format", "json")
    assert json.loads(recalled.stdout)["hits"] == []


def test_historical_missing_entry_fails_with_unquoted_message(run):
    save_entry(run, "other", "Other.")
    assert "ghost" in assert_one_line_error(run("historical", "ghost"))


# -- every rewrite is an edit (issue 11 defect 6, issue 16 item 6) ----------------------------------

COMMENTED = (
    "---\n# owner: alice\nname: old\ndescription: x  # short\n"
    "supersedes: [a, b]  # b was wrong\nstatus: living\nzz_custom: keep\n---\r\nBody\r\n"
)


def write_file(memory_dir, filename: str, text: str):
    memory_dir.mkdir(parents=True, exist_ok=True)
    (memory_dir / filename).write_bytes(text.encode("utf-8"))
    return memory_dir / filename


def test_supersede_keeps_comments_unknown_keys_and_crlf_body(run, memory_dir):
    old = write_file(memory_dir, "old.md", COMMENTED)
    save_entry(run, "new", "New way.")
    assert run("supersede", "old", "new").exit_code == 0
    assert old.read_bytes().decode() == COMMENTED.replace(
        "status: living\n", "status: superseded\nsuperseded_by: new\n")


def test_supersede_adds_no_blank_line_to_an_entry_with_an_empty_body(run, memory_dir):
    old = write_file(memory_dir, "old.md", '---\nname: old\ndescription: "d"\n---\n')
    new = write_file(memory_dir, "new.md", '---\nname: new\ndescription: "d"\n---\n')
    assert run("supersede", "old", "new").exit_code == 0
    assert old.read_text() == '---\nname: old\ndescription: "d"\nstatus: superseded\nsuperseded_by: new\n---\n'
    assert new.read_text() == '---\nname: new\ndescription: "d"\nsupersedes:\n- old\n---\n'


def test_historical_and_rename_keep_frontmatter_comments(run, memory_dir):
    write_file(memory_dir, "old.md", COMMENTED)
    assert run("historical", "old").exit_code == 0
    assert run("rename", "old", "older").exit_code == 0
    assert (memory_dir / "older.md").read_bytes().decode() == COMMENTED.replace(
        "name: old\n", "name: older\n").replace("status: living\n", "status: historical\n")


def test_supersede_into_a_list_another_key_shares_fails_in_one_line_and_changes_nothing(run, memory_dir):
    # 'keywords: *lst' shares the list: growing it changes keywords, and the
    # whole serialization would drop 'status: living' and write 'yes' as 'true'.
    text = ("---\nname: new\ndescription: n\nsupersedes: &lst [a]\nkeywords: *lst\n"
            "status: living\ncustom: yes\n---\nbody\n")
    save_entry(run, "old", "Old way.")
    new = write_file(memory_dir, "new.md", text)
    assert_one_line_error(run("supersede", "old", "new"), contains="make this change by hand")
    assert new.read_text() == text
