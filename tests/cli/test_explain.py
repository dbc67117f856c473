"""``memls explain CODE``: the catalogue's page for a code, the same file a diagnostic links to."""

from __future__ import annotations

from click.testing import CliRunner

from memls.cli import cli
from memls.store.catalogue import CATALOGUE, codes, spec


def explain(*args: str):
    return CliRunner().invoke(cli, ["explain", *args])


def test_explain_prints_the_page_the_diagnostic_links_to():
    result = explain("dangling-supersedes")
    assert result.exit_code == 0
    assert result.output == spec("dangling-supersedes").docs_path.read_text(encoding="utf-8")


def test_explain_says_when_a_code_is_reported_its_severity_and_its_fixes():
    out = explain("living-with-successor").output
    assert out.startswith("# `living-with-successor`\n")
    assert "- default severity: warning" in out
    assert "`superseded_by` is set but `status` is `living`" in out
    assert "- Set `status: superseded`." in out


def test_explain_without_a_code_lists_every_code_with_its_severity():
    lines = explain().output.splitlines()
    assert [line.split()[0] for line in lines] == list(codes())
    assert [line.split()[1] for line in lines] == [item.severity for item in CATALOGUE]


def test_explain_of_an_unknown_code_is_one_line_naming_the_closest_codes():
    result = explain("danglng-supersedes")
    assert result.exit_code == 1
    assert result.output.count("\n") == 1
    assert "no check code 'danglng-supersedes'" in result.output
    assert "dangling-supersedes" in result.output


def test_explain_path_prints_the_page_file():
    result = explain("--path", "index-drift")
    assert result.output.strip() == str(spec("index-drift").docs_path)
