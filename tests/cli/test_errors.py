"""Failures are one ``Error:`` line and exit 1: never a traceback, never a quoted KeyError."""

from __future__ import annotations

import pytest

import memls.cli as cli_module
from memls.cli import error_message
from memls.store.errors import LockTimeoutError, MemoryFrontmatterError

from .cli_helpers import assert_one_line_error


def test_error_message_unwraps_key_error_quotes():
    assert error_message(KeyError("no memory root for scope 'x'")) == (
        "no memory root for scope 'x'"
    )


def test_error_message_flattens_multiline_details_to_one_line():
    exc = MemoryFrontmatterError("invalid YAML: while parsing\n  in line 2\n    ^")
    assert error_message(exc) == "invalid YAML: while parsing in line 2 ^"


def test_error_message_names_unexpected_exception_type():
    assert error_message(RuntimeError("boom")) == "RuntimeError: boom"


def test_error_message_of_expected_error_is_its_message_alone():
    assert error_message(LockTimeoutError("root lock held")) == "root lock held"


@pytest.mark.parametrize(
    "exc",
    [
        KeyError("unknown scope"),
        OSError(28, "No space left on device"),
        LockTimeoutError("timed out waiting for the root lock"),
        UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
        RuntimeError("unexpected"),
    ],
    ids=lambda exc: type(exc).__name__,
)
def test_store_failure_becomes_one_error_line(run, monkeypatch, exc):
    def failing_store():
        raise exc

    monkeypatch.setattr(cli_module, "open_store", failing_store)
    result = run("list")
    message = assert_one_line_error(result)
    assert message


def test_scope_validation_failure_is_one_error_line_too(run, monkeypatch):
    def failing_store():
        raise OSError(13, "Permission denied")

    monkeypatch.setattr(cli_module, "open_store", failing_store)
    assert_one_line_error(run("list", "--scope", "explicit"), contains="Permission denied")


def test_unknown_subcommand_is_usage_error(run):
    result = run("frobnicate")
    assert result.exit_code == 2
    assert "Traceback" not in result.stderr


def test_missing_argument_is_usage_error(run):
    assert run("save", "only-name").exit_code == 2
