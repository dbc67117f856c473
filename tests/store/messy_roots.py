"""Messy memory roots as a person leaves them, and the user text in them that must survive.

Shared by the contract tests (tests/store/test_fix_contract.py,
tests/store/test_stateful_model.py) and the differential runs against gptme
(tests/interop/test_differential.py). A root here is what real users hand
memls: names that are not their file's stem, two names with one slug,
comments and unknown keys in the frontmatter, an explicit ``status:
living``, multi-line ``|`` descriptions, CRLF bodies, entries without a
type, one-sided supersession links next to an explicit status, and a
``MEMORY.md`` that is absent, generated, appended gptme-style, or curated
by hand (custom link text and hooks, with or without a prose paragraph).

Every builder records the *protected* text: lines a person wrote that no
safe fix, format or rewrite may drop. Tests assert on those, not on a
golden copy, so the same generator serves every operation.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path

from hypothesis import strategies as st

from memls.store.names import slugify

STRESS = os.environ.get("MEMLS_STRESS", "").strip() not in ("", "0")
INDEX = "MEMORY.md"
HEADER = "# Persistent Memory"
BASE_NAMES = ("alpha", "beta", "gamma", "delta", "api-keys", "cafe-notes")
TYPES = (None, "user", "feedback", "project", "reference", "general")


def scaled(normal: int, stress: int) -> int:
    """``stress`` under ``MEMLS_STRESS=1`` (``make stress``), else ``normal``."""
    return stress if STRESS else normal


def twin(name: str) -> str:
    """Another spelling of ``name`` with the same slug (``api-keys`` -> ``Api Keys``)."""
    spelled = name.replace("-", " ").title()
    assert slugify(spelled) == slugify(name) and spelled != name, name
    return spelled


@dataclass
class EntrySpec:
    """One entry file as a person wrote it."""

    filename: str
    name: str
    description: str
    type: str | None = "project"
    status: str | None = None  # None: no status key (living by default)
    supersedes: tuple[str, ...] = ()
    superseded_by: str | None = None
    comments: bool = False  # a comment line, trailing comments, an unknown key
    multiline: bool = False  # description: | over two lines
    crlf_body: bool = False
    body: str = "Body line one.\nBody line two.\n"

    @property
    def stem(self) -> str:
        return self.filename[: -len(".md")]

    @property
    def living(self) -> bool:
        return self.status in (None, "living")

    def text(self) -> str:
        lines = ["---", f"name: {self.name}"]
        if self.comments:
            lines.append(f"# owner: team {self.stem}")
        if self.multiline:
            lines += ["description: |", f"  {self.description}", "  second line of it"]
        else:
            lines.append(f'description: "{self.description}"')
        if self.type is not None:
            lines += ["metadata:", f"  type: {self.type}" + ("  # chosen by hand" if self.comments else "")]
        if self.status is not None:
            lines.append(f"status: {self.status}")
        if self.supersedes:
            items = ", ".join(self.supersedes)
            lines.append(f"supersedes: [{items}]" + ("  # checked by hand" if self.comments else ""))
        if self.superseded_by:
            lines.append(f"superseded_by: {self.superseded_by}")
        if self.comments:
            lines.append("x-reviewer: keep-me  # unknown key, kept")
        lines += ["---", ""]
        body = self.body.replace("\n", "\r\n") if self.crlf_body else self.body
        return "\n".join(lines) + "\n" + body

    def protected(self) -> list[str]:
        """Text of this file a safe fix or a format must keep verbatim."""
        out = []
        if self.comments:
            out += [f"# owner: team {self.stem}", "x-reviewer: keep-me"]
            if self.type is not None:
                out.append("# chosen by hand")
            if self.supersedes:
                out.append("# checked by hand")
        if self.status is not None:
            out.append(f"status: {self.status}")
        if self.multiline:
            out.append("second line of it")
        if self.crlf_body:
            out.append(self.body.replace("\n", "\r\n"))
        return out


def stock_line(e: EntrySpec) -> str:
    """The pointer line gptme and memls write for an entry."""
    desc = " ".join(e.description.split()) if not e.multiline else f"{e.description} second line of it"
    return f"- [{e.name}]({e.filename}) — {desc}"


def custom_line(e: EntrySpec) -> str:
    """A hand-curated pointer line: own link text and a hook (Claude Code style)."""
    return f"- [Notes on {e.stem}]({e.filename}) — read when touching {e.stem}"


PROSE = "Read the feedback entries before answering; the rest on demand."


@dataclass
class RootSpec:
    entries: list[EntrySpec]
    index: str = "none"  # none | generated | appended | curated | curated-prose
    curated: frozenset[str] = frozenset()  # filenames whose line is custom
    policy: bool = False
    private: frozenset[str] = frozenset()  # filenames written 0600 (others 0644)
    index_lines: list[str] = field(default_factory=list)

    def protected_index_lines(self) -> list[str]:
        """Lines of a curated MEMORY.md that no operation on another entry may change."""
        if self.index not in ("curated", "curated-prose"):
            return []
        lines = [custom_line(e) for e in self.entries if e.filename in self.curated and e.living]
        if self.index == "curated-prose":
            lines.append(PROSE)
        return lines


def write_root(root: Path, spec: RootSpec) -> None:
    """Write ``spec`` into ``root``; a generated index is rendered by memls itself."""
    root.mkdir(parents=True, exist_ok=True)
    for e in spec.entries:
        path = root / e.filename
        path.write_bytes(e.text().encode("utf-8"))
        os.chmod(path, 0o600 if e.filename in spec.private else 0o644)
    living = [e for e in spec.entries if e.living]
    if spec.index == "generated":
        from memls.store import MemoryRoot, MemoryStore

        text = MemoryStore([MemoryRoot("explicit", root)]).render_root_index()
        (root / INDEX).write_text(text, encoding="utf-8")
    elif spec.index == "appended":
        lines = [HEADER, "", *(stock_line(e) for e in living)]
        (root / INDEX).write_text("\n".join(lines) + "\n", encoding="utf-8")
    elif spec.index in ("curated", "curated-prose"):
        lines = [HEADER, ""]
        if spec.index == "curated-prose":
            lines += [PROSE, ""]
        lines += [custom_line(e) if e.filename in spec.curated else stock_line(e) for e in living]
        (root / INDEX).write_text("\n".join(lines) + "\n", encoding="utf-8")


@st.composite
def messy_roots(draw, *, max_entries: int = 5, gptme_readable: bool = False) -> RootSpec:
    """A root with the kinds of mess real users leave.

    ``gptme_readable``: only what gptme 0.35.1 also reads as entries (no
    CRLF bodies, no type-less entries), for the differential runs.
    """
    n = draw(st.integers(2, max_entries))
    names = draw(st.permutations(BASE_NAMES))[:n]
    entries = []
    for i, name in enumerate(names):
        entries.append(EntrySpec(
            filename=f"{name}.md",
            name=name,
            description=f"Fact number {i} about {name}",
            type=draw(st.sampled_from(TYPES[1:] if gptme_readable else TYPES)),
            comments=draw(st.booleans()),
            multiline=draw(st.booleans()),
            crlf_body=False if gptme_readable else draw(st.booleans()),
        ))
    # Links among the first entries; renamed/crossed entries come after them.
    link = draw(st.sampled_from(["none", "pair", "one-sided-historical", "explicit-living"]))
    if link == "pair" and n >= 2:
        old, new = entries[0], entries[1]
        entries[0] = replace(old, status="superseded", superseded_by=new.name)
        entries[1] = replace(new, supersedes=(old.name,))
    elif link == "one-sided-historical" and n >= 2:
        old, new = entries[0], entries[1]
        entries[0] = replace(old, status="historical")
        entries[1] = replace(new, supersedes=(old.name,))
    elif link == "explicit-living":
        entries[0] = replace(entries[0], status="living")
    linked = 2 if link in ("pair", "one-sided-historical") else 0
    free = list(range(linked, n))
    mess = draw(st.sampled_from(["none", "cross", "twin"]))
    if mess == "cross" and len(free) >= 2:
        a, b = free[0], free[1]
        entries[a], entries[b] = replace(entries[a], name=entries[b].name), replace(entries[b], name=entries[a].name)
    elif mess == "twin" and len(free) >= 2:
        a, b = free[0], free[1]
        entries[a] = replace(entries[a], name=twin(entries[b].name))
    index = draw(st.sampled_from(["none", "generated", "appended", "curated", "curated-prose"]))
    curated = frozenset()
    if index.startswith("curated"):
        chosen = draw(st.sets(st.sampled_from([e.filename for e in entries]), min_size=1))
        curated = frozenset(chosen)
    private = frozenset(draw(st.sets(st.sampled_from([e.filename for e in entries]))))
    return RootSpec(entries, index=index, curated=curated, private=private)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of a root but the lock (name -> bytes)."""
    return {p.name: p.read_bytes() for p in sorted(root.iterdir()) if p.is_file() and p.name != ".memory.lock"}


def modes(root: Path) -> dict[str, int]:
    return {p.name: stat.S_IMODE(p.stat().st_mode) for p in sorted(root.iterdir())
            if p.is_file() and p.name != ".memory.lock"}


def changed(before: dict[str, bytes], after: dict[str, bytes]) -> set[str]:
    """Files created, removed or rewritten between two snapshots."""
    return {n for n in before.keys() | after.keys() if before.get(n) != after.get(n)}
