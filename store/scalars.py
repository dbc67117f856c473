"""How a string is written as a YAML scalar so that it reads back as the same string.

Every writer of a frontmatter value goes through here: a value written as
the dumper likes it may read back as another string (a NEL folded to a
space), as another type (``yes``, ``null``), or not at all (``a: b`` as a
name), and a write that does not read back is a lost or misnamed memory.
"""

from __future__ import annotations

import re


def yaml_scalar(value: str) -> str:
    """``value`` as a YAML scalar that reads back as the same string.

    The dumper's choice is kept when it reads back; otherwise (PyYAML writes
    a NEL or a line separator raw inside single quotes, where a reader folds
    it to a space, so a written link would never name its entry and every
    fix pass would add it again) the value is double-quoted, where every
    character has an escape.
    """
    import yaml  # here, not at the top: a start that edits nothing does not load YAML

    dumped = yaml.safe_dump(value, allow_unicode=True, width=10_000)
    if dumped.endswith("\n...\n"):
        dumped = dumped[: -len("\n...\n")]
    dumped = dumped.rstrip("\n")
    return dumped if _reads_back(dumped, value) else _double_quoted(value)


def _reads_back(scalar: str, value: str) -> bool:
    import yaml  # here, not at the top: a start that edits nothing does not load YAML

    try:
        return yaml.safe_load(scalar) == value
    except yaml.YAMLError:
        return False


def _double_quoted(value: str) -> str:
    import yaml  # here, not at the top: a start that edits nothing does not load YAML

    return yaml.safe_dump(value, default_style='"', allow_unicode=True, width=10_000).rstrip("\n")


def flow_scalar(value: str) -> str:
    """``value`` as a scalar inside a flow list (``[a, b]``) that reads back as the same string.

    In a flow collection ``,``, ``[``, ``]``, ``{`` and ``}`` end a plain
    scalar and a leading ``:`` starts a key, though a block value may hold
    them: written plain, ``a, b`` would read back as two links and ``c]d``
    would break the YAML. So the block form is kept only when it reads back
    alone inside brackets; otherwise the value is double-quoted.
    """
    import yaml  # here, not at the top: a start that edits nothing does not load YAML

    scalar = yaml_scalar(value)
    try:
        if yaml.safe_load(f"[{scalar}]") == [value]:
            return scalar
    except yaml.YAMLError:
        pass
    return _double_quoted(value)


# Names every reader takes as the same string written raw: what gptme's
# slugs look like. Anything else is checked by reading it back.
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_RESOLVED_WORDS = frozenset({"true", "false", "yes", "no", "on", "off", "null"})


def written_name(name: str) -> str:
    """``name`` as written after ``name:``: raw, as gptme writes every name, when raw reads back.

    gptme writes the name unquoted; a hand-written name that needs quotes
    (``a: b``, ``*x``, ``yes``) written so makes the file unreadable, or
    names another entry. Such a name is quoted (:func:`yaml_scalar`); every
    name gptme can write keeps gptme's bytes. Read back as the lenient
    readers take it: the value as a string.
    """
    if _PLAIN_NAME.fullmatch(name) and name.lower() not in _RESOLVED_WORDS:
        return name
    import yaml  # here, not at the top: most reads never write a name

    try:
        value = yaml.safe_load(f"name: {name}\n")
    except yaml.YAMLError:
        value = None
    if isinstance(value, dict) and list(value) == ["name"] and value["name"] is not None and str(value["name"]) == name:
        return name
    return yaml_scalar(name)
