"""The type YAML 1.1 gives a plain (unquoted) scalar by its text alone, as PyYAML's safe loader reads it.

``yes`` is a boolean, ``1_000`` an integer, ``2026-01-01`` a date: in YAML 1.1
a plain scalar's type is decided by its text (its *implicit* type), and a
reader that took such a value for a string would not read what gptme reads.
The flat-frontmatter reader (:mod:`memls.store.fastyaml`) asks here, so that
reading the frontmatter agents write needs no YAML library at all (importing
it is most of the cost of reading one file in a fresh process).

The rules, as the safe loader applies them (anything else is a string):

* **bool**: ``yes``, ``no``, ``true``, ``false``, ``on``, ``off``, each in
  lower case, capitalized or upper case (``yEs``, ``y`` and ``n`` are strings);
* **null**: the empty scalar, ``~``, and ``null`` in the same three spellings;
* **merge** ``<<``, **value** ``=``, and ``!``, ``&`` or ``*`` alone (a type
  the 1.1 type repository reserves);
* **int**: an optional sign, then ``0b`` and binary digits, ``0x`` and hex
  digits (either case), ``0`` and octal digits, ``0`` alone, or a decimal
  number not starting with ``0``; ``_`` may stand anywhere among the digits
  after the first (``0b_``, ``0_`` and ``1__`` are ints); base 60 is a
  decimal number not starting with ``0`` followed by ``:``-groups of one or
  two digits below 60 (``1:30``, ``190:20:30``);
* **float**: an optional sign, digits (``_`` allowed after the first) and a
  ``.`` with digits or ``_`` after it, then maybe an exponent whose sign is
  required (``1.5e+3``; ``1e3`` is a string); or, unsigned only, ``.`` and
  a digit first (``.5``); base 60 with a fraction (``1:30.5``, and here the
  first digit may be ``0``); ``.inf`` in the three spellings, signed or not;
  ``.nan`` in the three spellings, unsigned;
* **timestamp**: ``YYYY-MM-DD``; or a year of four digits, a month and a day
  of one or two, ``T``/``t`` or blanks (spaces, tabs), ``H:MM:SS`` (the hour
  one or two digits), a fraction (``.`` and any digits, maybe none), then
  maybe blanks and ``Z`` or a signed offset of one or two hour digits and
  ``:MM`` or not.

These forms never overlap, so the order they are tried in does not matter.
"""

from __future__ import annotations

import re

STR = "str"
NULL = "null"
BOOL = "bool"
INT = "int"
FLOAT = "float"
TIMESTAMP = "timestamp"
MERGE = "merge"
VALUE = "value"
RESERVED = "yaml"  # ``!``, ``&`` or ``*`` alone


def _spellings(*words: str) -> frozenset[str]:
    return frozenset(form for word in words for form in (word, word.capitalize(), word.upper()))


TRUE_WORDS = _spellings("yes", "true", "on")
FALSE_WORDS = _spellings("no", "false", "off")
_NULL_WORDS = _spellings("null") | {"", "~"}
_INFINITIES = frozenset(sign + word for sign in ("", "-", "+") for word in (".inf", ".Inf", ".INF"))
_NANS = frozenset((".nan", ".NaN", ".NAN"))
_WORDS = TRUE_WORDS | FALSE_WORDS | _NULL_WORDS | _INFINITIES | _NANS | {"<<", "=", "!", "&", "*"}
# What a number or a timestamp may start with.
_NUMERIC_START = frozenset("-+.0123456789")

_SIGN = "[-+]?"
_BASE_60_GROUPS = "(?::[0-5]?[0-9])+"
_EXPONENT = "(?:[eE][-+][0-9]+)?"
_INT = re.compile(
    _SIGN + "(?:0b[01_]+|0x[0-9a-fA-F_]+|0[0-7_]+|0|[1-9][0-9_]*(?:" + _BASE_60_GROUPS + ")?)"
)
_FLOAT = re.compile(
    "(?:" + _SIGN + "[0-9][0-9_]*(?:\\.[0-9_]*" + _EXPONENT + "|" + _BASE_60_GROUPS + "\\.[0-9_]*)"
    "|\\.[0-9][0-9_]*" + _EXPONENT + ")"
)
_BLANKS = "[ \t]"
_TIMESTAMP = re.compile(
    "[0-9]{4}-[0-9]{2}-[0-9]{2}"
    "|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|" + _BLANKS + "+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\\.[0-9]*)?"
    "(?:" + _BLANKS + "*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?"
)


def implicit_type(text: str) -> str:
    """The type of the plain scalar ``text`` (one line): one of the names above, ``STR`` for a string."""
    if text in _WORDS:
        if text in TRUE_WORDS or text in FALSE_WORDS:
            return BOOL
        if text in _NULL_WORDS:
            return NULL
        if text in _INFINITIES or text in _NANS:
            return FLOAT
        return MERGE if text == "<<" else VALUE if text == "=" else RESERVED
    if text[0] not in _NUMERIC_START:
        return STR
    if _INT.fullmatch(text):
        return INT
    if _FLOAT.fullmatch(text):
        return FLOAT
    if _TIMESTAMP.fullmatch(text):
        return TIMESTAMP
    return STR
