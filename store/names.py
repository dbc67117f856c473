"""Names, slugs and the reserved ``memory*`` namespace.

An entry's file is ``<slug>.md``. Every reader skips files whose name starts
with ``MEMORY`` (case-insensitive), because that prefix belongs to the index
(``MEMORY.md``) and its archives. A name whose slug falls in that prefix would
be written and then never read again, so every write path refuses it first
(see ``seeds/success-is-not-a-round-trip.txt``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Literal

from .errors import ReservedNameError

_NON_SLUG_ASCII = re.compile(r"[^a-z0-9]+")
# Unicode-preserving slugs keep letters and digits of any script.
_NON_SLUG_UNICODE = re.compile(r"[^\w]+|_+")
RESERVED_PREFIX = "MEMORY"
INDEX_FILENAME = "MEMORY.md"
POLICY_FILENAME = ".memory-index.json"
# gptme's fallback for names that leave nothing behind.
EMPTY_SLUG = "memory"


def gptme_slugify(name: str) -> str:
    """gptme's slug, kept exactly: ASCII letters and digits, runs joined by ``-``."""
    slug = _NON_SLUG_ASCII.sub("-", name.lower().strip()).strip("-")
    return slug or EMPTY_SLUG


def slugify(name: str) -> str:
    """Convert a name to a safe filename slug (``My Fact!`` → ``my-fact``).

    Identical to gptme wherever gptme's slug is usable, so both tools target
    the same file for the same name. Where gptme would collapse a name to its
    ``memory`` fallback because nothing ASCII is left (``日本語``), memls keeps
    the name's own letters instead (``日本語``): gptme cannot store such a name
    at all, so no file of gptme's is ever targeted differently.
    """
    slug = gptme_slugify(name)
    if slug != EMPTY_SLUG or _NON_SLUG_ASCII.sub("", name.lower()) == EMPTY_SLUG:
        return slug
    normalized = unicodedata.normalize("NFC", name).lower().strip()
    unicode_slug = _NON_SLUG_UNICODE.sub("-", normalized).strip("-")
    return unicode_slug or EMPTY_SLUG


def is_index_filename(filename: str) -> bool:
    """``MEMORY.md`` and its siblings (``MEMORY-archive.md``) are indexes, not entries."""
    return filename.upper().startswith(RESERVED_PREFIX)


DocumentKind = Literal["entry", "reserved", "index", "policy"]


def is_document_filename(filename: str) -> bool:
    """Whether :func:`document_kind` has a kind for ``filename`` (without classifying it).

    Asked of every name in a root on every run, so spelled out: every
    ``*.md`` that is not a dot-file (``MEMORY.md`` and reserved names
    included), and the policy file.
    """
    return (filename.endswith(".md") and not filename.startswith(".")) or filename == POLICY_FILENAME


def document_filenames(filenames: Iterable[str]) -> list[str]:
    """The names :func:`is_document_filename` accepts, in their order.

    The same test in one comprehension: a replayed command asks it of every
    name of every root, and a call per name was a twentieth of such a command.
    """
    return [f for f in filenames if (f.endswith(".md") and not f.startswith(".")) or f == POLICY_FILENAME]


def count_entry_filenames(filenames: Iterable[str]) -> int:
    """How many of ``filenames`` (names :func:`document_filenames` kept) :func:`document_kind` calls entries.

    One expression, no call per name: a replayed server start counts the
    entries of every root before it has read any (10k names, a millisecond).
    """
    return sum(1 for f in filenames if f.endswith(".md") and not f.upper().startswith(RESERVED_PREFIX))


def document_kind(filename: str) -> DocumentKind | None:
    """What a file directly inside a memory root is to memls (None: not ours)."""
    if filename == INDEX_FILENAME:
        return "index"
    if filename == POLICY_FILENAME:
        return "policy"
    if filename.startswith(".") or not filename.endswith(".md"):
        return None
    # What is left is an entry (store.reader.is_entry_filename) unless reserved.
    return "reserved" if is_index_filename(filename) else "entry"


def is_reserved_name(name: str) -> bool:
    """True when the name's file would land in the readers' skipped prefix."""
    return is_index_filename(slugify(name))


def check_name(name: str) -> str:
    """Return the slug for ``name``, or refuse a name no reader would find.

    Raises :class:`ReservedNameError` (a ``ValueError``, as in gptme) whose
    message contains ``reserved for memory indexes``. Path separators, ``..``
    and control characters need no refusal: the slug keeps only letters,
    digits and ``-``, so no name can reach outside its root (``a/../b`` is
    ``a-b.md``), exactly as gptme slugifies it.
    """
    if not isinstance(name, str) or not name.strip():
        raise ReservedNameError("memory name must be a non-empty string")
    slug = slugify(name)
    if is_index_filename(slug):
        raise ReservedNameError(
            f"memory name {name!r} is reserved for memory indexes; "
            "choose a name that does not start with 'memory'"
        )
    if not _reads_back_as_string(slug):
        # The name is written unquoted (as gptme does), so ``2026`` or ``yes``
        # would read back as a number or a boolean and the entry would break.
        raise ReservedNameError(
            f"memory name {name!r} would be read back as a YAML {_yaml_kind(slug)}, "
            "not a name; add a word to it"
        )
    return slug


def _yaml_kind(slug: str) -> str:
    import yaml  # here: only a save checks names, and reads should not load YAML

    value = yaml.safe_load(slug)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return "date" if type(value).__name__ in ("date", "datetime") else type(value).__name__


def _reads_back_as_string(slug: str) -> bool:
    import yaml

    try:
        return isinstance(yaml.safe_load(slug), str)
    except yaml.YAMLError:
        return False
