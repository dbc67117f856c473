"""Assertions shared by the CLI tests."""

from __future__ import annotations

from click.testing import Result


def assert_one_line_error(result: Result, *, contains: str = "") -> str:
    """Exit 1, stderr is exactly one ``Error: ...`` line, no traceback, no quoted KeyError."""
    assert result.exit_code == 1, (result.exit_code, result.stdout, result.stderr)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    line = lines[0]
    assert line.startswith("Error: "), line
    assert "Traceback" not in result.stderr
    # str(KeyError("msg")) == "'msg'": the whole message wrapped in quotes.
    message = line[len("Error: ") :]
    assert not (message.startswith(("'", '"')) and message.endswith(("'", '"'))), line
    assert contains in line, line
    return message


def save_entry(run, name: str, description: str, body: str = "", *args: str) -> Result:
    result = run("save", name, description, *args, input=body)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result
