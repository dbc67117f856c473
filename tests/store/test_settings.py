"""Settings: ``.memls.toml`` / ``pyproject.toml [tool.memls]``; every bad value is a warning, never fatal."""

from __future__ import annotations

from pathlib import Path

import pytest

from memls.store.catalogue import spec
from memls.store.settings import Settings, load_settings, settings_from_mapping


def test_severity_overrides_a_default_and_off_silences():
    settings = settings_from_mapping({"severity": {"invalid-yaml": "hint", "recheck-due": "off"}})
    assert settings.severity_of("invalid-yaml") == "hint"
    assert settings.severity_of("recheck-due") == "off"
    assert settings.severity_of("duplicate-name") == spec("duplicate-name").severity
    assert settings.warnings == ()


@pytest.mark.parametrize(
    ("data", "warning"),
    [
        ({"severity": "error"}, "severity must be a table of check code = severity"),
        ({"severity": {"no-such-code": "error"}}, "severity: unknown check code 'no-such-code'"),
        ({"severity": {"invalid-yaml": "fatal"}},
         "severity.invalid-yaml: 'fatal' is not one of off, hint, information, warning, error"),
        ({"severity": {"invalid-yaml": 3}},
         "severity.invalid-yaml: '3' is not one of off, hint, information, warning, error"),
        ({"roots": [1, 2]}, "roots must be a list of directory paths"),
        ({"roots": {"a": "b"}}, "roots must be a list of directory paths"),
        ({"roots": ["bad\0nul"]}, "roots: 'bad\\x00nul' holds a NUL character; ignored"),
        ({"index": {"on_save": "always"}}, "index.on_save: 'always' is not one of auto, regenerate, off"),
        ({"index": "auto"}, "index must be a table"),
        ({"colour": True}, "unknown setting 'colour'"),
    ],
)
def test_each_bad_value_is_one_warning_and_is_ignored(data, warning):
    settings = settings_from_mapping(data)
    assert settings.warnings == (warning,)
    assert settings.severity == {} and settings.roots == () and settings.index_on_save == "auto"


def test_good_values_survive_next_to_bad_ones():
    settings = settings_from_mapping({"severity": {"invalid-yaml": "hint", "bogus": "error"}, "x": 1})
    assert settings.severity == {"invalid-yaml": "hint"}
    assert len(settings.warnings) == 2


def test_roots_accept_one_string_and_resolve_relative_to_the_settings_file(tmp_path):
    assert settings_from_mapping({"roots": "mem"}, base_dir=tmp_path).roots == (tmp_path / "mem",)
    absolute = settings_from_mapping({"roots": ["/abs/mem", "rel"]}, base_dir=tmp_path).roots
    assert absolute == (Path("/abs/mem"), tmp_path / "rel")


@pytest.mark.parametrize("key", ["on_save", "onSave"])
def test_index_on_save_takes_both_spellings(key):
    assert settings_from_mapping({"index": {key: "off"}}).index_on_save == "off"


def test_merged_layers_overrides_on_top():
    base = settings_from_mapping({"severity": {"invalid-yaml": "hint"}, "index": {"on_save": "off"}})
    merged = base.merged({"severity": {"recheck-due": "error"}, "bogus": 1})
    assert merged.severity == {"invalid-yaml": "hint", "recheck-due": "error"}
    assert merged.index_on_save == "off"
    assert merged.warnings == ("unknown setting 'bogus'",)
    assert base.merged({"index": {"on_save": "regenerate"}}).index_on_save == "regenerate"


def test_no_config_file_gives_defaults(tmp_path):
    assert load_settings(tmp_path) == Settings()


def test_memls_toml_is_the_whole_table(tmp_path):
    (tmp_path / ".memls.toml").write_text('[severity]\ninvalid-yaml = "hint"\n')
    assert load_settings(tmp_path).severity == {"invalid-yaml": "hint"}


def test_pyproject_tool_memls_is_read(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n[tool.memls.severity]\ninvalid-yaml = "hint"\n')
    assert load_settings(tmp_path).severity == {"invalid-yaml": "hint"}


def test_pyproject_without_tool_memls_gives_defaults(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n[tool.ruff]\nline-length = 100\n')
    assert load_settings(tmp_path) == Settings()


def test_memls_toml_wins_over_pyproject(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.memls.severity]\ninvalid-yaml = "off"\n')
    (tmp_path / ".memls.toml").write_text('[severity]\ninvalid-yaml = "hint"\n')
    assert load_settings(tmp_path).severity_of("invalid-yaml") == "hint"


def test_warnings_name_the_file(tmp_path):
    (tmp_path / ".memls.toml").write_text("bogus = 1\n")
    assert load_settings(tmp_path).warnings == (f"{tmp_path / '.memls.toml'}: unknown setting 'bogus'",)


@pytest.mark.parametrize(
    ("filename", "content", "detail"),
    [
        (".memls.toml", "[severity\n", "Expected ']'"),
        (".memls.toml", b"\xff\xfe = 1\n", "codec can't decode"),
        ("pyproject.toml", "[tool]\nmemls = 5\n", "[tool.memls] must be a table"),
        ("pyproject.toml", 'tool = "x"\n', "[tool] must be a table"),
    ],
)
def test_unreadable_or_misshapen_file_is_one_warning_line_with_defaults(tmp_path, filename, content, detail):
    path = tmp_path / filename
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    settings = load_settings(tmp_path)
    assert len(settings.warnings) == 1
    assert settings.warnings[0].startswith(f"{path}: ") and detail in settings.warnings[0]
    assert "\n" not in settings.warnings[0]
    assert settings.severity == {}
