"""The supersession graph and its Mermaid / DOT output (issue 15, part 4: ``memls graph``)."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memls.store.graph import GraphEdge, GraphNode, RootGraph, root_graph
from memls.store.graph_format import render_dot, render_mermaid
from memls.store.reader import read_root
from tests.store.store_test_helpers import entry_file

ODD_NAME = 'say "hi" <b>#1</b> \u00e9t\u00e9 `x` & \\ \u2192 ok'


@pytest.fixture
def chains(tmp_path):
    """old -> mid -> new (both sides state each link); a historical entry; odd names; a dangling link."""
    root = tmp_path / "memory"
    entry_file(root, "old.md", extra="status: superseded\nsuperseded_by: mid\n")
    entry_file(root, "mid.md", extra="status: superseded\nsuperseded_by: new\nsupersedes: [old]\n")
    entry_file(root, "new.md", extra="supersedes: [mid]\n")
    entry_file(root, "archived.md", extra="status: historical\nsuperseded_by: gone\n")
    entry_file(root, "odd.md", name=json.dumps(ODD_NAME), extra="supersedes: [new]\n")
    entry_file(root, "lone.md")
    return root


def graph_of(root, **kwargs) -> RootGraph:
    return root_graph("project", "project: memory", read_root(root, "project").entries, **kwargs)


def test_the_graph_holds_the_chains_their_statuses_and_dangling_names(chains):
    graph = graph_of(chains)
    assert graph.nodes == (
        GraphNode("archived", "historical"),
        GraphNode("mid", "superseded"),
        GraphNode("new", "living"),
        GraphNode("old", "superseded"),
        GraphNode(ODD_NAME, "living"),
        GraphNode("gone", None),
    )
    assert graph.edges == (
        GraphEdge("archived", "gone", mutual=False),
        GraphEdge("mid", "new", mutual=True),
        GraphEdge("new", ODD_NAME, mutual=False),
        GraphEdge("old", "mid", mutual=True),
    )


def test_entries_no_link_touches_are_drawn_only_when_asked(chains):
    assert "lone" not in {n.name for n in graph_of(chains).nodes}
    assert GraphNode("lone", "living") in graph_of(chains, include_unlinked=True).nodes


def test_a_link_to_a_name_shadowed_in_the_root_resolves_to_the_visible_entry(tmp_path):
    root = tmp_path / "memory"
    entry_file(root, "a.md", name="same", extra="status: superseded\nsuperseded_by: b\n")
    entry_file(root, "z.md", name="same")  # hidden by a.md
    entry_file(root, "b.md", extra="supersedes: [same]\n")
    assert graph_of(root).nodes == (GraphNode("b", "living"), GraphNode("same", "superseded"))


# -- Mermaid ---------------------------------------------------------------------

MERMAID_NODE = re.compile(r'    (r\d+n\d+)\["([^"]*)"\]:::(living|superseded|historical|dangling)')
MERMAID_EDGE = re.compile(r"  (r\d+n\d+) (-->|-\.->) (r\d+n\d+)")


def check_mermaid(text: str) -> tuple[dict[str, tuple[str, str]], list[tuple[str, str, str]]]:
    """A structural check of the flowchart: every line one known statement; edges join defined nodes."""
    lines = text.splitlines()
    assert lines[0] == "flowchart LR"
    nodes: dict[str, tuple[str, str]] = {}
    edges: list[tuple[str, str, str]] = []
    depth = 0
    for line in lines[1:]:
        if line.startswith("  %% "):
            continue
        if re.fullmatch(r'  subgraph r\d+\["[^"]*"\]', line):
            depth += 1
        elif line == "  end":
            depth -= 1
        elif node := MERMAID_NODE.fullmatch(line):
            assert depth == 1 and node[1] not in nodes
            nodes[node[1]] = (node[2], node[3])
        elif edge := MERMAID_EDGE.fullmatch(line):
            edges.append((edge[1], edge[2], edge[3]))
        else:
            assert re.fullmatch(r"  classDef \w+ [\w:#,\- ]+", line), line
        assert depth in (0, 1)
    assert depth == 0
    assert all(a in nodes and b in nodes for a, _, b in edges)
    return nodes, edges


def unescape_mermaid(label: str) -> str:
    return re.sub(r"#(\d+);", lambda m: chr(int(m[1])), label)


def test_mermaid_styles_each_status_apart_and_marks_dangling_and_one_sided_links(chains):
    nodes, edges = check_mermaid(render_mermaid([graph_of(chains)]))
    by_label = {unescape_mermaid(label): (node_id, style) for node_id, (label, style) in nodes.items()}
    assert {label: style for label, (_, style) in by_label.items()} == {
        "archived": "historical", "mid": "superseded", "new": "living", "old": "superseded",
        ODD_NAME: "living", "gone (no such entry)": "dangling",
    }
    arrows = {(by_id(by_label, a), arrow, by_id(by_label, b)) for a, arrow, b in edges}
    assert arrows == {
        ("old", "-->", "mid"), ("mid", "-->", "new"),
        ("new", "-.->", ODD_NAME), ("archived", "-.->", "gone (no such entry)"),
    }


def by_id(by_label: dict[str, tuple[str, str]], node_id: str) -> str:
    return next(label for label, (i, _) in by_label.items() if i == node_id)


def test_mermaid_labels_hold_no_character_that_ends_or_marks_up_a_label(chains):
    text = render_mermaid([graph_of(chains)])
    label = next(lab for lab, _ in check_mermaid(text)[0].values() if unescape_mermaid(lab) == ODD_NAME)
    assert not set(label) & set('"<>`&') and "\n" not in label


names = st.text(
    st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12
).filter(lambda s: s.strip() == s and s)


@settings(max_examples=200, deadline=None)
@given(st.lists(names, min_size=1, max_size=5, unique=True), st.data())
def test_any_names_give_well_formed_mermaid_and_dot_with_their_labels_intact(names_, data):
    statuses = [data.draw(st.sampled_from(("living", "superseded", "historical", None))) for _ in names_]
    nodes = tuple(GraphNode(n, s) for n, s in zip(names_, statuses))
    edges = tuple(GraphEdge(a, b, mutual=True) for a, b in zip(names_, names_[1:]))
    graph = RootGraph("project", names_[0], nodes, edges)
    mermaid_nodes, mermaid_edges = check_mermaid(render_mermaid([graph]))
    printable = ["".join(c if c.isprintable() else " " for c in n) for n in names_]
    assert sorted(unescape_mermaid(lab).removesuffix(" (no such entry)") for lab, _ in mermaid_nodes.values()) \
        == sorted(printable)
    assert len(mermaid_edges) == len(edges)
    assert check_dot(render_dot([graph])) == len(nodes)


# -- DOT -------------------------------------------------------------------------------

DOT_TOKEN = re.compile(r'\s*(?:(?P<str>"(?:[^"\\]|\\.)*")|(?P<id>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>->|[{}\[\];,=])|//[^\n]*)')


def check_dot(text: str) -> int:
    """A tiny check of the DOT we write: it tokenizes, braces and brackets balance; the node count."""
    pos, depth, brackets, tokens = 0, 0, 0, []
    while pos < len(text.rstrip()):
        match = DOT_TOKEN.match(text, pos)
        assert match and match.end() > pos, text[pos : pos + 40]
        pos = match.end()
        token = match["str"] or match["id"] or match["op"]
        if token is None:
            continue
        tokens.append(token)
        depth += {"{": 1, "}": -1}.get(token, 0)
        brackets += {"[": 1, "]": -1}.get(token, 0)
        assert depth >= 0 and brackets in (0, 1)
    assert tokens[:3] == ["digraph", "memories", "{"] and tokens[-1] == "}" and depth == 0
    # Node statements: an id at the start of a statement, followed by its attributes.
    return sum(
        1 for i, t in enumerate(tokens[1:-1], 1)
        if re.fullmatch(r"r\d+n\d+", t) and tokens[i - 1] in (";", "{") and tokens[i + 1] == "["
    )


def test_dot_output_is_well_formed_and_styles_each_kind(chains):
    text = render_dot([graph_of(chains)])
    assert check_dot(text) == 6
    assert 'label="gone (no such entry)", class="dangling", style="rounded,filled,dashed"' in text
    assert re.search(r'label="old", class="superseded"', text)
    assert re.search(r'label="archived", class="historical"', text)
    assert '\\"hi\\"' in text and "\\\\" in text  # the odd name's quote and backslash, escaped


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` is not installed")
def test_graphviz_reads_the_dot_output_and_draws_the_labels_as_written(chains):
    done = subprocess.run(
        ["dot", "-Tsvg"], input=render_dot([graph_of(chains)]), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    drawn = {html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", done.stdout)}
    assert {ODD_NAME, "gone (no such entry)", "old", "mid", "new", "archived"} <= drawn


def test_the_output_does_not_depend_on_the_order_the_entries_come_in(chains):
    entries = read_root(chains, "project").entries
    forward = root_graph("project", "p", entries)
    backward = root_graph("project", "p", list(reversed(entries)))
    assert render_mermaid([forward]) == render_mermaid([backward])
    assert render_dot([forward]) == render_dot([backward])
