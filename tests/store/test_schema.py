"""The frontmatter JSON Schema and field docs: committed copy current, and agreeing with the engine.

The drift guard validates frontmatter samples with a small validator for the
subset of JSON Schema the schema uses, and compares the verdict with the
engine's: strict parsing reports no problem, and the catalogue's
missing-name / missing-description rules (the lenient entry has no ``name``
key or an empty description) do not fire.
"""

from __future__ import annotations

import datetime
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from memls.store.entry import KNOWN_KEYS, STATUSES
from memls.store.parse import parse_document
from memls.store.schema import FIELD_DOCS, SCHEMA_PATH, frontmatter_json_schema, main

# -- a validator for the subset of JSON Schema the schema uses -------------------------

_ANNOTATIONS = {
    "$schema", "$id", "$defs", "title", "description", "markdownDescription",
    "enumDescriptions", "examples", "default",
}
_ASSERTIONS = {
    "$ref", "type", "enum", "minLength", "pattern", "minimum", "maximum", "required",
    "properties", "additionalProperties", "items", "anyOf", "if", "then", "else",
}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_TYPE_CHECKS = {
    "string": lambda v: isinstance(v, str),
    "number": _is_number,
    "integer": lambda v: _is_number(v) and float(v).is_integer(),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def _json_equal(a: Any, b: Any) -> bool:
    """JSON equality: booleans are not numbers, 1 == 1.0, containers compare deeply."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if _is_number(a) and _is_number(b):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def validate(schema: dict[str, Any] | bool, value: Any, root: dict[str, Any]) -> bool:
    if isinstance(schema, bool):
        return schema
    unknown = set(schema) - _ANNOTATIONS - _ASSERTIONS
    assert not unknown, f"the test validator does not implement {unknown}"
    if "$ref" in schema:
        ref = schema["$ref"]
        assert ref.startswith("#/$defs/")
        if not validate(root["$defs"][ref.removeprefix("#/$defs/")], value, root):
            return False
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_TYPE_CHECKS[t](value) for t in types):
            return False
    if "enum" in schema and not any(_json_equal(value, e) for e in schema["enum"]):
        return False
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            return False
        if "pattern" in schema and not re.search(schema["pattern"], value):
            return False
    if _is_number(value):
        # Written as "not >=" so NaN fails, as it fails the engine's range check.
        if "minimum" in schema and not value >= schema["minimum"]:
            return False
        if "maximum" in schema and not value <= schema["maximum"]:
            return False
    if isinstance(value, dict):
        if any(key not in value for key in schema.get("required", ())):
            return False
        for key, sub in schema.get("properties", {}).items():
            if key in value and not validate(sub, value[key], root):
                return False
        assert schema.get("additionalProperties", True) is True
    if isinstance(value, list) and "items" in schema:
        if not all(validate(schema["items"], item, root) for item in value):
            return False
    if "anyOf" in schema and not any(validate(s, value, root) for s in schema["anyOf"]):
        return False
    if "if" in schema:
        branch = "then" if validate(schema["if"], value, root) else "else"
        if branch in schema and not validate(schema[branch], value, root):
            return False
    return True


def test_validator_rejects_booleans_as_numbers_and_nan_as_in_range():
    schema = {"type": "number", "minimum": 0, "maximum": 1}
    assert validate(schema, 0.5, schema)
    assert not validate(schema, True, schema)
    assert not validate(schema, math.nan, schema)
    assert not validate({"enum": [0]}, False, schema)


# -- the engine's verdict ----------------------------------------------------------------


def engine_accepts(text: str) -> bool:
    """No strict problem, and neither missing-name nor missing-description would fire."""
    parsed = parse_document(text, path=Path("sample.md"))
    if parsed.strict_problems or parsed.strict_not_entry is not None:
        return False
    data = parsed.frontmatter.data
    return "name" in data and parsed.entry is not None and parsed.entry.description != ""


def schema_accepts(text: str) -> bool:
    schema = frontmatter_json_schema()
    parsed = parse_document(text, path=Path("sample.md"))
    frontmatter = parsed.frontmatter
    assert frontmatter is not None and frontmatter.error is None, "samples must be valid YAML"
    data = {} if frontmatter.data is None else frontmatter.data
    return validate(schema, data, schema)


def doc(yaml_text: str) -> str:
    return f"---\n{yaml_text}---\n\nbody\n"


VALID = {
    "minimal": "name: a\ndescription: d\n",
    "every field": (
        'name: a\ntitle: "T"\ndescription: "d"\nmetadata:\n  type: project\n  originSessionId: s\n'
        "status: superseded\nsupersedes:\n  - b\nsuperseded_by: c\nprovenance:\n  source: x\n"
        'confidence: 0.5\nkeywords: [k]\nrecheck: "2026-01-01"\nowner: me\n'
    ),
    "supersedes as one string": "name: a\ndescription: d\nsupersedes: b\n",
    "confidence bounds": "name: a\ndescription: d\nconfidence: 1\n",
    "confidence zero": "name: a\ndescription: d\nconfidence: 0\n",
    "null optionals": (
        "name: a\ndescription: d\nmetadata:\ntitle:\nprovenance:\nsuperseded_by:\nrecheck:\nkeywords:\n"
    ),
    "top-level type": "name: a\ndescription: d\ntype: user\n",
    "top-level type shadowed by metadata.type": (
        "name: a\ndescription: d\ntype: [x]\nmetadata:\n  type: user\n"
    ),
    "false metadata.type falls back": "name: a\ndescription: d\ntype: user\nmetadata:\n  type: 0\n",
    "empty superseded_by": 'name: a\ndescription: d\nsuperseded_by: ""\n',
    "unknown key": "name: a\ndescription: d\nextra: [1, 2]\n",
}

INVALID = {
    "missing name": "description: d\n",
    "missing description": "name: a\n",
    "null description": "name: a\ndescription:\n",
    "empty description": 'name: a\ndescription: ""\n',
    "blank description": 'name: a\ndescription: "   "\n',
    "number description": "name: a\ndescription: 5\n",
    "number name": "name: 42\ndescription: d\n",
    "empty name": 'name: ""\ndescription: d\n',
    "blank name": 'name: " "\ndescription: d\n',
    "list title": "name: a\ndescription: d\ntitle: [t]\n",
    "unknown status": "name: a\ndescription: d\nstatus: active\n",
    "null status": "name: a\ndescription: d\nstatus:\n",
    "boolean status": "name: a\ndescription: d\nstatus: false\n",
    "confidence above 1": "name: a\ndescription: d\nconfidence: 1.5\n",
    "confidence below 0": "name: a\ndescription: d\nconfidence: -0.1\n",
    "boolean confidence": "name: a\ndescription: d\nconfidence: true\n",
    "string confidence": "name: a\ndescription: d\nconfidence: high\n",
    "supersedes with a number": "name: a\ndescription: d\nsupersedes: [b, 1]\n",
    "supersedes mapping": "name: a\ndescription: d\nsupersedes: {b: 1}\n",
    "keywords number": "name: a\ndescription: d\nkeywords: 5\n",
    "superseded_by list": "name: a\ndescription: d\nsuperseded_by: [b]\n",
    "unquoted date recheck": "name: a\ndescription: d\nrecheck: 2026-01-01\n",
    "metadata string": "name: a\ndescription: d\nmetadata: x\n",
    "metadata.type number": "name: a\ndescription: d\nmetadata:\n  type: 5\n",
    "top-level type list": "name: a\ndescription: d\ntype: [x]\n",
    "provenance string": "name: a\ndescription: d\nprovenance: x\n",
    "not a mapping": "- a\n- b\n",
    "empty mapping": "{}\n",
}


@pytest.mark.parametrize("yaml_text", VALID.values(), ids=VALID.keys())
def test_schema_and_engine_both_accept(yaml_text):
    assert engine_accepts(doc(yaml_text))
    assert schema_accepts(doc(yaml_text))


@pytest.mark.parametrize("yaml_text", INVALID.values(), ids=INVALID.keys())
def test_schema_and_engine_both_reject(yaml_text):
    assert not engine_accepts(doc(yaml_text))
    assert not schema_accepts(doc(yaml_text))


_VALUES = st.sampled_from([
    None, True, False, 0, 1, 0.5, 1.5, -1, "", " ", "x", "living", "superseded",
    "historical", "project", [], ["a"], ["a", 2], [None], {}, {"type": "project"},
    {"type": 3}, {"type": ""}, {"type": 0}, {"type": None}, {"originSessionId": 1},
    datetime.date(2026, 1, 1),
])


_METADATA = st.dictionaries(st.sampled_from(["type", "originSessionId"]), _VALUES, max_size=2)


@st.composite
def frontmatters(draw) -> dict[str, Any]:
    """Mostly-valid frontmatter with a few arbitrary fields, so each rule gets exercised alone."""
    data: dict[str, Any] = {}
    for key, good in (("name", "a"), ("description", "d")):
        roll = draw(st.integers(0, 9))
        if roll < 7:
            data[key] = good
        elif roll < 9:
            data[key] = draw(_VALUES)
    for key in draw(st.lists(st.sampled_from([*KNOWN_KEYS, "owner"]), max_size=2, unique=True)):
        data[key] = draw(st.one_of(_VALUES, _METADATA) if key == "metadata" else _VALUES)
    return data


@settings(max_examples=200, deadline=None)
@given(frontmatters())
def test_schema_agrees_with_the_engine_on_generated_frontmatter(data):
    text = doc(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    assert schema_accepts(text) == engine_accepts(text)


# -- the committed file and the docs -----------------------------------------------------


def test_committed_schema_file_is_the_generated_schema():
    on_disk = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    assert on_disk == frontmatter_json_schema()
    assert SCHEMA_PATH.read_text(encoding="utf-8") == json.dumps(frontmatter_json_schema(), indent=2) + "\n"


def test_module_main_prints_the_committed_file(capsys):
    main()
    assert capsys.readouterr().out == SCHEMA_PATH.read_text(encoding="utf-8")


def test_schema_documents_every_known_key_with_its_field_doc():
    properties = frontmatter_json_schema()["properties"]
    assert list(properties) == list(KNOWN_KEYS)
    for key in KNOWN_KEYS:
        assert properties[key]["description"] == FIELD_DOCS[key].summary
        assert properties[key]["markdownDescription"] == FIELD_DOCS[key].markdown


def test_field_docs_cover_known_keys_and_metadata_keys():
    assert set(FIELD_DOCS) == {*KNOWN_KEYS, "metadata.type", "metadata.originSessionId"}
    for key, field in FIELD_DOCS.items():
        assert field.key == key and "\n" not in field.summary and field.markdown


def test_status_enum_and_docs_list_the_three_statuses():
    status = frontmatter_json_schema()["properties"]["status"]
    assert status["enum"] == list(STATUSES) == list(FIELD_DOCS["status"].values)
    assert len(status["enumDescriptions"]) == len(STATUSES)
