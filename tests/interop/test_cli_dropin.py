"""``memls`` is a drop-in for ``gptme-util memory``.

The same command lines run against two identical roots, one through gptme's
real CLI and one through memls, must print the same stdout (once each side's
root path is replaced by a placeholder), exit with the same status, and leave
byte-identical entry files and ``MEMORY.md`` behind.

Both CLIs run in-process through click's test runner (the store is resolved
from the environment on every call, so this is what a shell would see) to keep
the comparison fast.

Two intended differences are normalised:

* the Codex snippet tells the agent to run the tool that wrote it
  (``memls ...`` instead of ``gptme-util memory ...``);
* an ``invalid-yaml`` audit detail is memls's one-line summary of the YAML
  error where gptme prints PyYAML's multi-line report; the code, the file and
  the ``invalid YAML`` prefix are compared, the parser's wording is not.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path

import pytest

pytest.importorskip(
    "gptme.memory", reason="the real gptme (pip install '.[interop]') is needed to compare CLIs"
)
from click.testing import CliRunner  # noqa: E402
from gptme.cli.cmd_memory import memory as gptme_memory  # noqa: E402

from memls.cli import cli as memls_cli  # noqa: E402

PLACEHOLDER = "<BASE>"
AUDIT_ISSUE_LINE = re.compile(r"^(?P<code>[a-z]+(?:-[a-z]+)+): (?P<entry>[^:]+): ")
SNIPPET_COMMAND = ("memls ", "gptme-util memory ")


class Side:
    """One tool and its own copy of the memory tree."""

    def __init__(self, tool: str, base: Path):
        self.tool = tool
        self.base = base
        self.root = base / "memory"

    def env(self, dirs: Sequence[Path] | None) -> dict[str, str | None]:
        joined = os.pathsep.join(str(d) for d in (dirs or [self.root]))
        if self.tool == "gptme":
            return {"GPTME_MEMORY_DIRS": joined, "MEMLS_MEMORY_DIRS": None}
        return {"MEMLS_MEMORY_DIRS": joined, "GPTME_MEMORY_DIRS": None}

    def run(self, args: Sequence[str], *, input: str | None, extra_dirs: Sequence[str] = ()):
        group = gptme_memory if self.tool == "gptme" else memls_cli
        dirs = [self.root, *(self.base / d for d in extra_dirs)] if extra_dirs else None
        result = CliRunner().invoke(group, list(args), input=input, env=self.env(dirs))
        stdout = result.stdout.replace(str(self.base), PLACEHOLDER)
        if self.tool == "memls" and args and args[0] == "export":
            stdout = stdout.replace(*SNIPPET_COMMAND)
        if args and args[0] == "audit":
            stdout = summarize_yaml_errors(stdout)
        return result.exit_code, stdout

    def files(self) -> dict[str, bytes]:
        return {
            p.name: p.read_bytes() for p in sorted(self.root.glob("*.md")) if p.is_file()
        }


def summarize_yaml_errors(audit_output: str) -> str:
    """Audit output with each ``invalid-yaml`` detail cut to ``invalid YAML``.

    gptme's detail runs over several lines (PyYAML's report); every line that
    does not start a new issue belongs to the issue before it.
    """
    issues: list[str] = []
    for line in audit_output.splitlines():
        if AUDIT_ISSUE_LINE.match(line) or not issues:
            issues.append(line)
        else:
            issues[-1] += "\n" + line
    summarized = [
        issue.split(": invalid YAML", 1)[0] + ": invalid YAML"
        if issue.startswith("invalid-yaml: ")
        else issue
        for issue in issues
    ]
    return "".join(issue + "\n" for issue in summarized)


@pytest.fixture
def sides(tmp_path: Path) -> tuple[Side, Side]:
    return Side("gptme", tmp_path / "gptme"), Side("memls", tmp_path / "memls")


def run_both(
    sides: tuple[Side, Side],
    *args: str,
    input: str | None = None,
    extra_dirs: Sequence[str] = (),
) -> tuple[int, str]:
    gptme, memls = sides
    expected = gptme.run(args, input=input, extra_dirs=extra_dirs)
    actual = memls.run(args, input=input, extra_dirs=extra_dirs)
    assert actual == expected, f"memory {' '.join(args)}"
    return expected


def plant(sides: tuple[Side, Side], filename: str, text: str) -> None:
    for side in sides:
        side.root.mkdir(parents=True, exist_ok=True)
        (side.root / filename).write_text(text, encoding="utf-8")


def assert_same_files(sides: tuple[Side, Side]) -> None:
    gptme, memls = sides
    assert memls.files() == gptme.files()


@pytest.fixture
def populated(sides):
    run_both(sides, "save", "My Fact", "A fact.", "--type", "project", input="Body text.\n")
    run_both(
        sides, "save", "release-rule", "How to cut releases.", "--type", "feedback",
        "--title", "Release Rule", "--metadata", '{"source": "chat"}',
        "--keyword", "stable release", "--keyword", "tag*", input="Tag from main only.\n",
    )
    run_both(sides, "save", "old-deploy", "The old way to deploy.", input="Deploy by hand.\n")
    run_both(
        sides, "save", "new-deploy", "The new way to deploy.", "--type", "reference",
        input="Deploy with the pipeline script.\n",
    )
    return sides


def test_roots_json_with_explicit_dirs_is_identical(sides):
    code, out = run_both(sides, "roots", "--json", extra_dirs=["missing"])
    assert code == 0
    assert json.loads(out)[1] == {
        "scope": "explicit", "path": f"{PLACEHOLDER}/missing", "exists": False,
    }
    run_both(sides, "roots", extra_dirs=["missing"])


def test_save_writes_identical_files_and_receipts(sides):
    code, out = run_both(sides, "save", "My Fact", "A fact.", "--type", "project", input="Body.\n")
    assert (code, out) == (0, f"Saved memory to {PLACEHOLDER}/memory/my-fact.md\n")
    code, out = run_both(
        sides, "save", "other", "Other thing.", "--json", "--title", "Other",
        "--metadata", '{"source": "chat", "n": 2}', "--keyword", "k1", input="Other body.",
    )
    assert json.loads(out)["metadata"] == {"source": "chat", "n": 2}
    run_both(sides, "save", "my fact", "Updated fact.", input="New body.\n")
    assert_same_files(sides)


def test_read_commands_print_identically(populated):
    for args in [
        ("list",),
        ("list", "--json"),
        ("list", "--type", "project"),
        ("list", "--status", "living", "--json"),
        ("show", "my-fact"),
        ("show", "my-fact", "--json"),
        ("show", "release-rule", "--json"),
        ("show", "nope"),
        ("search", "deploy"),
        ("search", "DEPLOY", "--json"),
    ]:
        run_both(populated, *args)


def test_index_commands_print_and_write_identically(populated):
    run_both(populated, "index")
    run_both(populated, "index", "--check")
    run_both(populated, "index", "--budget", "120")
    code, _ = run_both(populated, "index", "--write")
    assert code == 0
    assert run_both(populated, "index", "--check")[0] == 0
    assert_same_files(populated)


def test_supersede_then_views_are_identical(populated):
    gptme, memls = populated
    index_before = memls.files()["MEMORY.md"].decode("utf-8")
    code, out = run_both(populated, "supersede", "old-deploy", "new-deploy")
    assert (code, out) == (0, "Superseded old-deploy -> new-deploy\n")
    for args in [
        ("list", "--json"),
        ("list", "--status", "superseded"),
        ("index",),
        ("audit",),
        ("audit", "--quiet"),
    ]:
        run_both(populated, *args)
    ours, theirs = memls.files(), gptme.files()
    assert {k: v for k, v in ours.items() if k != "MEMORY.md"} == {
        k: v for k, v in theirs.items() if k != "MEMORY.md"}
    # The intended difference (README): gptme regenerates MEMORY.md on every
    # supersede; memls renders only an index that is its own rendering. One
    # built by saves (lines appended under the header) is curated, so only
    # the retired entry's line goes and every other byte stays.
    kept = "".join(line for line in index_before.splitlines(keepends=True) if "(old-deploy.md)" not in line)
    assert ours["MEMORY.md"].decode("utf-8") == kept


def test_supersede_on_a_generated_index_leaves_identical_files(populated):
    run_both(populated, "index", "--write")
    run_both(populated, "supersede", "old-deploy", "new-deploy")
    assert run_both(populated, "index", "--check")[0] == 0
    assert_same_files(populated)


def test_recall_overlap_outputs_are_identical(populated):
    for fmt in ("json", "hook-json", "text"):
        run_both(populated, "recall", "deploy pipeline script way", "--backend", "overlap",
                 "--format", fmt)
        run_both(populated, "recall", "nothing matches this query", "--backend", "overlap",
                 "--format", fmt)
    payload = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "deploy by hand way"})
    run_both(populated, "recall", "--prompt", "-", "--backend", "overlap", "--format",
             "hook-json", input=payload)
    run_both(populated, "recall", "deploy pipeline way", "--backend", "overlap",
             "--body-chars", "10")


def test_match_outputs_are_identical(populated):
    for fmt in ("json", "hook-json"):
        run_both(populated, "match", "Cut the STABLE RELEASE", "--format", fmt)
        run_both(populated, "match", "nothing here", "--format", fmt)
    pre_tool = json.dumps({
        "hook_event_name": "PreToolUse", "cwd": "/tmp/stable release",
        "tool_input": {"command": "git tagging now"},
    })
    run_both(populated, "match", "--prompt", "-", "--format", "hook-json", input=pre_tool)
    run_both(populated, "match", "--prompt", "-", "--format", "hook-json",
             input=json.dumps({"hook_event_name": "Stop"}))


def test_export_views_are_identical(populated):
    run_both(populated, "export", "--view", "cc")
    run_both(populated, "export", "--view", "codex")
    run_both(populated, "export", "--view", "codex", "--budget", "700")
    run_both(populated, "export", "--view", "codex", "--budget", "50")


def test_audit_clean_and_with_planted_problems_is_identical(populated):
    assert run_both(populated, "audit") == (0, "Memory audit passed\n")
    plant(populated, "invalid.md", "---\nname: bad\ndescription: [unclosed\n---\nbody\n")
    plant(populated, "zdup.md", "---\nname: my-fact\ndescription: dup\n---\n")
    plant(
        populated,
        "dangling.md",
        "---\nname: dangling\ndescription: d\nsuperseded_by: ghost\nsupersedes:\n- missing\n"
        "- my-fact\n---\n",
    )
    plant(
        populated,
        "asym.md",
        "---\nname: asym\ndescription: a\nstatus: superseded\nsuperseded_by: new-deploy\n---\n",
    )
    code, out = run_both(populated, "audit")
    assert code == 1
    assert "invalid-yaml: invalid.md: " in out and "duplicate-name: zdup.md: " in out
    for args in [("list",), ("list", "--json"), ("index",), ("audit", "--quiet")]:
        run_both(populated, *args)


# -- files no reader can open, and files too large to read ---------------------------------


def plant_unreadable(sides: tuple[Side, Side], kind: str) -> None:
    for side in sides:
        path = side.root / "odd.md"
        if kind == "dangling symlink":
            path.symlink_to(side.root / "nowhere.md")
        elif kind == "symlink loop":
            path.symlink_to(path)
        else:
            path.mkdir()


@pytest.mark.parametrize("kind", ["dangling symlink", "symlink loop", "directory named x.md"])
def test_an_entry_no_reader_can_open_is_invalid_entry_in_both_audits(populated, kind):
    run_both(populated, "index", "--write")
    plant_unreadable(populated, kind)
    code, out = run_both(populated, "audit")
    assert code == 1 and out.startswith("invalid-entry: odd.md: [Errno ")
    for args in [("list",), ("index",), ("index", "--check"), ("audit", "--quiet")]:
        run_both(populated, *args)
    run_both(populated, "supersede", "old-deploy", "new-deploy")
    assert_same_files(populated)
    assert run_both(populated, "index", "--check")[0] == 0


BIG_ENTRY = '---\nname: big\ndescription: "Too big for memls"\nmetadata:\n  type: project\n---\n\n'


def test_a_file_too_large_to_read_keeps_its_index_line_and_index_check_agrees(populated):
    for side in populated:
        (side.root / "big.md").write_text(BIG_ENTRY + "x" * (1 << 21) + "\n", encoding="utf-8")
    run_both(populated, "index", "--write")
    assert "- [big](big.md) — Too big for memls" in (populated[1].root / "MEMORY.md").read_text()
    assert run_both(populated, "index", "--check")[0] == 0
    run_both(populated, "supersede", "old-deploy", "new-deploy")
    assert run_both(populated, "index", "--check")[0] == 0
    assert_same_files(populated)
    gptme, memls = populated
    # memls keeps a generated index generated on save (gptme appends the line at the
    # end, an intended difference); the too-large file's line survives either way.
    assert memls.run(["save", "another", "An unrelated save."], input=None)[0] == 0
    assert "- [big](big.md)" in (memls.root / "MEMORY.md").read_text()
    assert memls.run(["index", "--check"], input=None)[0] == 0
    # The one difference, on purpose (README): memls does not read past 1 MiB, so
    # its audit reports the file gptme reads whole, and list/recall skip it.
    assert gptme.run(["audit"], input=None) == (0, "Memory audit passed\n")
    assert memls.run(["audit"], input=None) == (1, "invalid-entry: big.md: larger than 1048576 bytes; not read\n")
