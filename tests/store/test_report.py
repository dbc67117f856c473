"""``memls check`` output: 1-based positions, escaping for GitHub annotations, the summary line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memls.store.diagnostics import Fix, Problem, TextEdit
from memls.store.report import (
    display_path,
    format_github,
    format_json,
    format_text,
    sort_problems,
    summary_line,
)
from memls.store.spans import Span

CWD = Path("/work/proj")


def problem(path: str = "memory/a.md", span: Span | None = None, severity: str = "error",
            code: str = "invalid-yaml", message: str = "bad") -> Problem:
    return Problem(path=CWD / path, span=span or Span(0, 0, 0, 4), code=code, severity=severity, message=message)


def test_text_lines_are_path_line_col_severity_code_message_with_1_based_positions():
    p = problem(span=Span(4, 8, 4, 12), severity="warning", code="unknown-status", message="status 'x'")
    assert format_text([p], cwd=CWD) == ["memory/a.md:5:9: warning unknown-status status 'x'"]


def test_text_messages_are_one_line_without_control_characters():
    p = problem(message="first\n  second\x1b[31m")
    assert format_text([p], cwd=CWD) == ["memory/a.md:1:1: error invalid-yaml first second[31m"]


def test_paths_outside_the_cwd_stay_absolute():
    assert display_path(Path("/elsewhere/a.md"), CWD) == "/elsewhere/a.md"
    assert display_path(CWD / "m" / "a.md", CWD) == "m/a.md"


def test_json_rows_have_1_based_start_and_end_and_the_fixes():
    fix = Fix("Set status: superseded", (TextEdit(CWD / "a.md", Span(0, 0, 0, 0), "x"),), safe=True)
    p = problem(span=Span(2, 3, 5, 7), message="line\nbreak ü")
    rows = json.loads(format_json([p], [[fix]], cwd=CWD))
    assert rows == [{
        "path": "memory/a.md", "line": 3, "column": 4, "end_line": 6, "end_column": 8,
        "severity": "error", "code": "invalid-yaml", "message": "line\nbreak ü",
        "fixes": [{"title": "Set status: superseded", "safe": True}],
    }]


def test_github_annotations_map_severities_and_use_1_based_positions():
    lines = format_github([
        problem(severity="error"), problem(severity="warning"),
        problem(severity="information", span=Span(1, 2, 3, 4)), problem(severity="hint"),
    ], cwd=CWD)
    assert [line.split(" ")[0] for line in lines] == ["::error", "::warning", "::notice", "::notice"]
    assert lines[2] == "::notice file=memory/a.md,line=2,col=3,endLine=4,endColumn=5,title=invalid-yaml::bad"


def test_github_escapes_message_data_and_properties():
    p = problem(path="we,ird:dir/100%.md", message="50% done\r\nnext: a, b")
    [line] = format_github([p], cwd=CWD)
    assert line == (
        "::error file=we%2Cird%3Adir/100%25.md,line=1,col=1,endLine=1,endColumn=5,"
        "title=invalid-yaml::50%25 done%0D%0Anext: a, b"
    )


def test_sort_is_by_path_then_position():
    a2 = problem("a.md", Span(2, 0, 2, 1))
    a1 = problem("a.md", Span(1, 5, 1, 6))
    b0 = problem("b.md", Span(0, 0, 0, 1))
    assert sort_problems([b0, a2, a1]) == [a1, a2, b0]


@pytest.mark.parametrize(
    ("severities", "documents", "line"),
    [
        ([], 1, "No problems in 1 memory file."),
        ([], 3, "No problems in 3 memory files."),
        (["error"], 1, "1 problem (1 error) in 1 of 1 memory file."),
        (["error", "error", "warning"], 4, "3 problems (2 errors, 1 warning) in 1 of 4 memory files."),
        (["hint", "information", "information", "warning", "warning"], 2,
         "5 problems (2 warnings, 2 info, 1 hint) in 1 of 2 memory files."),
        (["hint", "hint"], 2, "2 problems (2 hints) in 1 of 2 memory files."),
    ],
)
def test_summary_line_counts_and_pluralises(severities, documents, line):
    assert summary_line([problem(severity=s) for s in severities], documents) == line


def test_summary_counts_distinct_files():
    problems = [problem("a.md"), problem("b.md"), problem("b.md", severity="warning")]
    assert summary_line(problems, 5) == "3 problems (2 errors, 1 warning) in 2 of 5 memory files."
