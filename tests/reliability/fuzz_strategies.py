"""Hypothesis strategies for hostile memory documents: frontmatter-shaped text
built from YAML fragments, truncated entries, deep nesting, huge scalars,
NUL and control characters, multi-byte text and arbitrary bytes."""

from __future__ import annotations

from hypothesis import strategies as st

VALID = ('---\nname: alpha\ndescription: "The first entry, with ünïcode ✓"\nmetadata:\n'
         '  type: project\n  keywords: [one, two]\nstatus: superseded\nsuperseded_by: beta\n'
         'supersedes:\n  - gamma\n---\n\nBody text with [a link](beta.md) and `code`.\n')

FRAGMENTS = [
    "---\n", "---", "\n", "name: ", "description: ", "metadata:\n", "  type: ", "status: ",
    "superseded_by: ", "supersedes:\n", "  - ", "- ", "keywords: ", "title: ", "created: ",
    "confidence: ", "&a ", "*a", "&b [*a, *a, *a]\n", "!!python/object/apply:os.system ['x']",
    "!!binary ", "!!str ", "!custom ", "{", "}", "[", "]", ",", ":", "? ", "|\n", ">-\n", '"', "'",
    "\\", "#", "%YAML 1.2\n", "...\n", "\t", "\r", "\r\n", "\x00", "\x01", "\x1b", "\x7f", "\ufeff",
    "\u2028", "\u0085", "é", "ü", "✓", "😀", "\U0010ffff", "\ud800", "yes", "no", "null", "~",
    "2026-01-01", "1e999", "-.inf", ".nan", "0x1F", "memory", "MEMORY.md", "[x](y.md)",
]

huge_scalar = st.integers(min_value=1000, max_value=200_000).map(lambda n: "description: " + "x" * n + "\n")
deep_nesting = st.tuples(st.integers(min_value=50, max_value=5000), st.sampled_from(["[", "{a: ", "- "])).map(
    lambda t: "---\nname: deep\nmetadata: " + t[1] * t[0] + "\n---\n")
truncated = st.integers(min_value=0, max_value=len(VALID)).map(lambda n: VALID[:n])
fragment_soup = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=8)), max_size=40).map("".join)
mutated_valid = st.tuples(st.integers(0, len(VALID)), st.integers(0, 20), fragment_soup).map(
    lambda t: VALID[:t[0]] + t[2] + VALID[t[0] + t[1]:])

documents = st.one_of(
    st.text(max_size=300), truncated, fragment_soup, mutated_valid, huge_scalar.map(lambda s: "---\n" + s + "---\n"),
    deep_nesting, st.just(VALID),
)


def to_bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


raw_bytes = st.one_of(
    st.binary(max_size=400),
    documents.map(to_bytes),
    st.tuples(documents, st.binary(max_size=12), st.integers(0, 400)).map(
        lambda t: to_bytes(t[0])[:t[2]] + t[1] + to_bytes(t[0])[t[2]:]),
    st.just(b"\xff\xfe" + "---\nname: utf16\n---\n".encode("utf-16-le")),
    st.just(b"---\nname: bad\ndescription: \xc3\x28\xa0\xa1\n---\n"),
)
