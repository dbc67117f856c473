"""A NAME means the entry whose ``name`` equals it, in every ``memls`` command that takes one.

The roots cross names and file stems (``bar.md`` holds ``name: foo``,
``foo.md`` holds ``name: bar``) and give two names one slug: there a
stem-first lookup deleted, renamed, retired or overwrote the wrong entry.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ..store.name_roots import NAMES, STEMS, SUCCESSOR, crossed_roots, meant
from ..store.store_test_helpers import entry_file, snapshot
from .cli_helpers import assert_one_line_error


def crossed(root: Path) -> None:
    entry_file(root, "bar.md", name="foo", description="the entry named foo")
    entry_file(root, "foo.md", name="bar", description="the entry named bar")


def test_delete_removes_the_entry_named_bar_not_the_file_bar_md(run, memory_dir):
    crossed(memory_dir)
    result = run("delete", "bar")
    assert (result.exit_code, result.stdout) == (0, "Deleted bar (foo.md)\n")
    assert not (memory_dir / "foo.md").exists() and (memory_dir / "bar.md").exists()


def test_rename_moves_the_entry_named_bar_not_the_file_bar_md(run, memory_dir):
    crossed(memory_dir)
    before = (memory_dir / "bar.md").read_bytes()
    result = run("rename", "bar", "baz")
    assert (result.exit_code, result.stdout) == (0, "Renamed bar -> baz (baz.md)\n")
    assert "the entry named bar" in (memory_dir / "baz.md").read_text()
    assert (memory_dir / "bar.md").read_bytes() == before


def test_historical_marks_the_entry_named_bar_not_the_file_bar_md(run, memory_dir):
    crossed(memory_dir)
    before = (memory_dir / "bar.md").read_bytes()
    result = run("historical", "bar")
    assert (result.exit_code, result.stdout) == (0, "Marked bar historical (foo.md)\n")
    assert "status: historical" in (memory_dir / "foo.md").read_text()
    assert (memory_dir / "bar.md").read_bytes() == before


def test_supersede_links_the_entries_named_not_the_files_named(run, memory_dir):
    crossed(memory_dir)
    assert run("supersede", "bar", "foo").stdout == "Superseded bar -> foo\n"
    assert "superseded_by: foo" in (memory_dir / "foo.md").read_text()
    assert "supersedes:\n- bar" in (memory_dir / "bar.md").read_text()


def test_supersede_api_keys_retires_the_entry_with_that_exact_name(run, memory_dir):
    entry_file(memory_dir, "api-keys.md", name="API Keys")
    entry_file(memory_dir, "api-keys-2.md", name="api-keys")
    entry_file(memory_dir, "vault.md", name="vault")
    before = (memory_dir / "api-keys-2.md").read_bytes()
    assert run("supersede", "API Keys", "vault").exit_code == 0
    assert "superseded_by: vault" in (memory_dir / "api-keys.md").read_text()
    assert (memory_dir / "api-keys-2.md").read_bytes() == before


def test_show_and_delete_refuse_a_name_two_entries_match_by_stem_or_slug(run, memory_dir):
    entry_file(memory_dir, "api-keys.md", name="Keys")
    entry_file(memory_dir, "b.md", name="api-keys")
    before = snapshot(memory_dir)
    for command in ("show", "delete"):
        message = assert_one_line_error(run(command, "API KEYS"), contains="ambiguous")
        assert "api-keys.md" in message and "b.md" in message and "give the exact name" in message
    assert snapshot(memory_dir) == before
    assert run("delete", "Keys").stdout == "Deleted Keys (api-keys.md)\n"


def test_save_refuses_to_replace_the_body_of_another_entry(run, memory_dir):
    entry_file(memory_dir, "api-keys.md", name="API Keys", body="the real keys\n")
    before = snapshot(memory_dir)
    message = assert_one_line_error(run("save", "api-keys", "d", input="replacement\n"))
    assert "api-keys.md holds another entry, 'API Keys'" in message
    assert "save under that exact name" in message
    assert snapshot(memory_dir) == before


def test_save_updates_the_entry_named_cafe_notes_in_place(run, memory_dir):
    entry_file(memory_dir, "cafe-notes.md", name="café-notes", body="old\n")
    result = run("save", "café-notes", "new", input="new body\n")
    assert result.stdout == f"Saved memory to {memory_dir / 'cafe-notes.md'}\n"
    assert not (memory_dir / "caf-notes.md").exists()
    assert "new body" in (memory_dir / "cafe-notes.md").read_text()
    assert "slug-collision" not in run("check", str(memory_dir)).stdout


COMMANDS = {
    "show": lambda name: ["show", name],
    "delete": lambda name: ["delete", name],
    "historical": lambda name: ["historical", name],
    "rename": lambda name: ["rename", name, "renamed"],
    "supersede": lambda name: ["supersede", name, SUCCESSOR],
}


# ``run`` holds no state between calls (each example passes its own root), so
# sharing it across examples is safe.
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(root_files=crossed_roots(), name=st.sampled_from(NAMES + STEMS), command=st.sampled_from(sorted(COMMANDS)))
def test_every_command_acts_on_the_named_entry_or_refuses_naming_both_files(run, root_files, name, command):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "memory"
        for filename, entry_name in root_files.items():
            entry_file(root, filename, name=entry_name, description=f"from {filename}")
        entry_file(root, f"{SUCCESSOR}.md")
        before = snapshot(root)
        result = run(*COMMANDS[command](name), dirs=[root])
        after = snapshot(root)
        expected = meant(root_files, name)
        if not isinstance(expected, str):
            message = assert_one_line_error(result)
            assert all(f in message for f in expected or [])
            assert after == before
            return
        assert result.exit_code == 0, result.stderr
        changed = {f for f in before.keys() | after.keys() if before.get(f) != after.get(f)}
        if command == "show":
            assert f"from {expected}" in result.stdout and changed == set()
            return
        allowed = {expected, "MEMORY.md", f"{SUCCESSOR}.md" if command == "supersede" else "renamed.md"}
        assert expected in changed and changed <= allowed, (changed, allowed)


def test_delete_by_file_stem_says_which_entry_it_deleted(run, memory_dir):
    """When no entry has the name, the stem match is used: the output names the real entry."""
    entry_file(memory_dir, "foo.md", name="Foo Stuff", description="fs")
    result = run("delete", "foo")
    assert (result.exit_code, result.stdout) == (0, "Deleted Foo Stuff (foo.md)\n")


def test_rename_refuses_a_name_whose_file_another_entry_would_share(run, memory_dir):
    entry_file(memory_dir, "foo.md", name="Foo Stuff", description="fs")
    entry_file(memory_dir, "x.md", name="x", description="x")
    before = snapshot(memory_dir)
    result = run("rename", "x", "Foo Stuff")
    assert_one_line_error(result, contains="foo.md holds 'Foo Stuff'")
    assert snapshot(memory_dir) == before
