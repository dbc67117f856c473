"""Roots whose names and file stems cross and whose names share slugs, and what a NAME means there.

Shared by the store and CLI tests of the name contract (A NAME means the
entry whose ``name`` equals it).
"""

from __future__ import annotations

from hypothesis import strategies as st

from memls.store.names import slugify

STEMS = ["foo", "bar", "api-keys", "api-keys-2", "cafe-notes", "caf-notes", "notes"]
NAMES = ["foo", "bar", "API Keys", "api-keys", "café-notes", "cafe-notes", "Notes", "notes", "Foo"]
SUCCESSOR = "successor"  # supersede's other side: no name or stem above can mean it


@st.composite
def crossed_roots(draw) -> dict[str, str]:
    """filename -> name: distinct files, distinct names, drawn so they cross."""
    stems = draw(st.lists(st.sampled_from(STEMS), min_size=1, max_size=5, unique=True))
    names = draw(st.lists(st.sampled_from(NAMES), min_size=len(stems), max_size=len(stems), unique=True))
    return {f"{stem}.md": name for stem, name in zip(stems, names)}


def meant(root: dict[str, str], name: str) -> str | list[str] | None:
    """The file NAME means in this root, the files it is ambiguous between, or None.

    Written from the contract, not from the resolver: the exact name first,
    then a unique match of the slug to a name or of NAME or its slug to a stem.
    """
    exact = [f for f, n in root.items() if n == name]
    if exact:
        return exact[0]
    slug = slugify(name)
    loose = [f for f, n in root.items() if n == slug or f[:-3] in (name, slug)]
    if len(loose) > 1:
        return loose
    return loose[0] if loose else None
