"""Hypothesis strategies for entry files as people write them by hand.

Comment lines and trailing comments, unknown keys, flow and block lists,
plain / single- / double-quoted values, explicit defaults (``status:
living``), keys in any order, blank lines, and bodies with LF or CRLF line
endings, with or without the blank line after ``---``. Every generated file
passes gptme's strict parse, so every writer and the formatter must accept it.

A :class:`MessyEntry` keeps what was generated (the comments written, the
body's bytes), so a test can say what must survive without re-deriving it
from the parser under test.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

WORDS = st.sampled_from(["alpha", "beta", "gamma", "delta", "note", "keep", "x1", "owner", "why"])
_PLAIN_TEXT = st.lists(WORDS, min_size=1, max_size=3).map(" ".join)
_ANY_TEXT = st.text(
    st.sampled_from("abc XYZ09-_.:,'\"\\#[]{}&*!?é😀"), min_size=1, max_size=16
).filter(lambda s: s.strip() == s)


@dataclass
class MessyEntry:
    text: str  # the file's text (line breaks as generated)
    name: str
    comments: list[str]  # every comment written, without its leading spaces
    body: str  # everything after the closing ``---`` line's break
    keys: list[str]  # top-level keys in file order
    newline: str  # the body's line break


def _quoted(value: str, style: str) -> str:
    if style == "single":
        return "'" + value.replace("'", "''") + "'"
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


@st.composite
def scalar_text(draw, *, link_text: bool = False) -> tuple[str, str]:
    """(value, its YAML spelling) for a string value; ``link_text``: none of the brackets no index line holds.

    A title is its entry's link text, and every write refuses one with a
    bracket (it would break the entry's ``MEMORY.md`` line).
    """
    if draw(st.booleans()):
        value = draw(_PLAIN_TEXT)
        style = draw(st.sampled_from(["plain", "single", "double"]))
    else:
        value = draw(_ANY_TEXT.filter(lambda s: not link_text or not ({"[", "]"} & set(s))))
        style = draw(st.sampled_from(["single", "double"]))
    return value, value if style == "plain" else _quoted(value, style)


@st.composite
def comment(draw) -> str:
    return "# " + draw(_PLAIN_TEXT)


@st.composite
def key_lines(draw, key: str, value_kind: str, comments: list[str]) -> list[str]:
    """The lines of one key; comments it carries are appended to ``comments``."""

    def trailing() -> str:
        if draw(st.booleans()):
            return ""
        c = draw(comment())
        comments.append(c)
        return "  " + c

    if value_kind in ("scalar", "link-text"):
        _, spelled = draw(scalar_text(link_text=value_kind == "link-text"))
        return [f"{key}: {spelled}{trailing()}"]
    if value_kind == "status":
        return [f"{key}: living{trailing()}"]
    if value_kind == "list":
        items = draw(st.lists(st.sampled_from(["x1", "x2", "x3", "x4"]), min_size=1, max_size=3, unique=True))
        if draw(st.booleans()):
            return [f"{key}: [{', '.join(items)}]{trailing()}"]
        indent = draw(st.sampled_from(["", "  "]))
        lines = [f"{key}:{trailing()}"]
        for item in items:
            if draw(st.integers(0, 3)) == 0:
                c = draw(comment())
                comments.append(c)
                lines.append(indent + c)
            lines.append(f"{indent}- {item}{trailing()}")
        return lines
    if value_kind == "metadata":
        type_ = draw(st.sampled_from(["project", "user", "general"]))
        lines = [f"metadata:{trailing()}"]
        extra = draw(st.lists(st.sampled_from(["origin", "source"]), unique=True, max_size=2))
        for k in draw(st.permutations(["type", *extra])):
            lines.append(f"  {k}: {type_ if k == 'type' else draw(_PLAIN_TEXT)}{trailing()}")
        return lines
    raise AssertionError(value_kind)


@st.composite
def messy_entries(draw, name: str, *, status: bool = True) -> MessyEntry:
    comments: list[str] = []
    keys = {"name": "plain-name", "description": "scalar"}
    if status and draw(st.booleans()):
        keys["status"] = "status"
    for key, kind in (("title", "link-text"), ("metadata", "metadata"), ("supersedes", "list"),
                      ("keywords", "list"), ("zz_owner", "scalar"), ("custom_list", "list")):
        if draw(st.booleans()):
            keys[key] = kind
    order = draw(st.permutations(list(keys)))
    lines: list[str] = []
    if draw(st.booleans()):
        c = draw(comment())
        comments.append(c)
        lines.append(c)
    for key in order:
        if draw(st.integers(0, 3)) == 0:
            c = draw(comment())
            comments.append(c)
            lines.append(c)
        if draw(st.integers(0, 4)) == 0:
            lines.append("")
        if keys[key] == "plain-name":
            lines.append(f"name: {name}")
        else:
            lines.extend(draw(key_lines(key, keys[key], comments)))
    if draw(st.booleans()):
        c = draw(comment())
        comments.append(c)
        lines.append(c)
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    front_newline = newline if draw(st.booleans()) else "\n"
    body_lines = draw(st.lists(_PLAIN_TEXT, max_size=3))
    blank = newline if body_lines and draw(st.booleans()) else ""
    body = blank + "".join(line + newline for line in body_lines)
    text = front_newline.join(["---", *lines, "---"]) + newline + body
    return MessyEntry(text, name, comments, body, order, newline)


def split_body(text: str) -> tuple[str, str]:
    """(frontmatter through the closing ``---`` line's break, the rest) of a generated file."""
    head, sep, rest = text.partition("\n---")
    assert sep, text
    closing_end = rest.index("\n") + 1
    cut = len(head) + len(sep) + closing_end
    return text[:cut], text[cut:]
