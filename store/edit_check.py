"""Proof that an edit of an entry changed only what it names, read back before it is offered.

An edit is computed from spans, and spans can mislead: a list written
``&lst [a]`` starts at its anchor, not its bracket; an alias elsewhere
(``keywords: *lst``) shares the list being grown; two fixes that each add a
missing key write it twice. So an edit of an entry's frontmatter is applied
to the text and the result read again, and it stands only when:

* the frontmatter still loads (it did before), as a mapping;
* no key is written twice that was written once (js-yaml, Claude Code's
  reader, refuses a document with a duplicate key);
* every comment is still there;
* and, when the edit says which keys it changes, the body is unchanged and
  the data equals the old data with exactly those keys changed: every other
  key keeps its value.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping

from .frontmatter import Frontmatter, each_node_once, import_yaml, split_frontmatter

REMOVED = object()
"""A value in ``changed`` saying the key is gone after the edit."""

_COMMENT = re.compile(r"#[^\n]*")


def comments(yaml_text: str) -> Counter[str] | None:
    """The comments of ``yaml_text`` (trailing blanks dropped), or None when it does not scan.

    Found between the scanner's tokens, so a ``#`` inside a quoted or plain
    value (``'a #b'``, ``a#b``) is not taken for one.
    """
    import yaml  # here, not at the top: a server start that edits nothing does not load YAML

    found: Counter[str] = Counter()
    cursor = 0
    try:
        for token in yaml.scan(yaml_text, Loader=yaml.SafeLoader):  # every frontmatter's loader (YAML_LOADER)
            start = token.start_mark.index
            if start > cursor:
                found.update(c.rstrip() for c in _COMMENT.findall(yaml_text, cursor, start))
            cursor = max(cursor, token.end_mark.index)
    except yaml.YAMLError:
        return None
    found.update(c.rstrip() for c in _COMMENT.findall(yaml_text, cursor))
    return found


def lost_comment(before: str, after: str) -> str | None:
    """A comment of the YAML text ``before`` that ``after`` no longer holds; None when none is lost.

    Also None when ``before`` does not scan (there is nothing to compare).
    """
    old = comments(before)
    if old is None:
        return None
    lost = old - (comments(after) or Counter())
    return min(lost) if lost else None


def duplicate_keys(yaml_text: str) -> set[str]:
    """Scalar keys written twice in one mapping of ``yaml_text`` (empty when it does not compose)."""
    import yaml  # here, not at the top: a server start that edits nothing does not load YAML

    import_yaml()  # (for the walk's node types)
    try:
        node = yaml.compose(yaml_text, Loader=yaml.SafeLoader)  # the loader of every frontmatter (YAML_LOADER)
    except (yaml.YAMLError, RecursionError):
        return set()
    out: set[str] = set()
    for current in each_node_once(node) if node is not None else ():
        if isinstance(current, yaml.MappingNode):
            keys = [k.value for k, _ in current.value if isinstance(k, yaml.ScalarNode)]
            out |= {k for k, n in Counter(keys).items() if n > 1}
    return out


def edit_problem(before: str, after: str, changed: Mapping[str, object] | None = None) -> str | None:
    """Why ``after`` is not a safe edit of the entry text ``before``; None when it is.

    ``changed``: the top-level keys the edit means to change, with their new
    values (:data:`REMOVED` for a key it deletes); when given, every other
    key must keep its value. A ``before`` without a loadable frontmatter
    mapping is not judged (no fix edits one).
    """
    old = split_frontmatter(before)
    if old is None or old.error is not None or not isinstance(old.data, dict):
        return None
    new = split_frontmatter(after)
    broken = _broken(old, new)
    if broken is not None or new is None:
        return broken
    lost = lost_comment(old.yaml_text, new.yaml_text)
    if lost is not None:
        return f"the edit drops the comment {lost!r}"
    if changed is not None:
        if new.body != old.body:
            return "the edit changes the body"
        expected = dict(old.data)
        for key, value in changed.items():
            if value is REMOVED:
                expected.pop(key, None)
            else:
                expected[key] = value
        for key in expected.keys() | new.data.keys():
            if key not in new.data or key not in expected or not _same(expected[key], new.data[key]):
                return f"the edit changes the value of '{key}'"
    return None


def structure_problem(before: str, after: str) -> str | None:
    """Why ``after`` breaks the entry text ``before``: no longer loading, or a key written twice.

    The part of :func:`edit_problem` every write of an edited entry must pass,
    a fix the user picked included. None when ``before`` did not load either.
    """
    old = split_frontmatter(before)
    if old is None or old.error is not None or not isinstance(old.data, dict):
        return None
    return _broken(old, split_frontmatter(after))


def _broken(old: Frontmatter, new: Frontmatter | None) -> str | None:
    if new is None:
        return "the edit leaves no frontmatter"
    if new.error is not None:
        return f"the edit leaves the frontmatter unreadable ({new.error.message})"
    if not isinstance(new.data, dict):
        return "the edit leaves the frontmatter without keys"
    twice = duplicate_keys(new.yaml_text) - duplicate_keys(old.yaml_text)
    if twice:
        return f"the edit writes the key '{sorted(twice)[0]}' twice"
    return None


def _same(a: object, b: object) -> bool:
    # ``repr`` too: a NaN is not equal to itself, and is kept all the same.
    return type(a) is type(b) and (a == b or repr(a) == repr(b))
