"""The supersession graph as Mermaid (GitHub renders it in Markdown) or Graphviz DOT.

Both formats get node ids made here (``r0n3``: root 0, node 3), never from
entry names: a name may hold spaces, quotes, brackets or any Unicode, and an
id made from it could break the syntax or collide. Names appear only in
labels, escaped for the format. Output is a function of the graph alone
(roots in order, nodes and edges sorted), so the same store draws the same
text and a diff of it in a pull request shows only what changed.

Styles: living entries green, superseded grey, historical amber, dangling
names (a link to no entry of the root) red with a dashed border; an edge
only one of its two entries states is dashed.
"""

from __future__ import annotations

from collections.abc import Sequence

from .graph import RootGraph

FORMATS = ("mermaid", "dot")
STYLE_NAMES = ("living", "superseded", "historical", "dangling")
DANGLING_SUFFIX = " (no such entry)"
_COMMENT = "arrows point from an entry to the entry that superseded it; dashed: stated by one side only"

# (fill, border, text) per style.
_COLOURS = {
    "living": ("#e6f4ea", "#1e8e3e", "#202124"),
    "superseded": ("#f1f3f4", "#9aa0a6", "#5f6368"),
    "historical": ("#fef7e0", "#f9ab00", "#202124"),
    "dangling": ("#fce8e6", "#d93025", "#d93025"),
}


def render_graph(graphs: Sequence[RootGraph], fmt: str) -> str:
    if fmt == "mermaid":
        return render_mermaid(graphs)
    if fmt == "dot":
        return render_dot(graphs)
    raise ValueError(f"unknown graph format {fmt!r} (use one of {', '.join(FORMATS)})")


def _style(status: str | None) -> str:
    return "dangling" if status is None else status if status in _COLOURS else "living"


def _label(name: str, status: str | None) -> str:
    return name + DANGLING_SUFFIX if status is None else name


def _ids(graph_number: int, graph: RootGraph) -> dict[str, str]:
    return {node.name: f"r{graph_number}n{i}" for i, node in enumerate(graph.nodes)}


# -- Mermaid ----------------------------------------------------------------------


def render_mermaid(graphs: Sequence[RootGraph]) -> str:
    out = ["flowchart LR", f"  %% {_COMMENT}"]
    edges: list[str] = []
    for number, graph in enumerate(graphs):
        if not graph.nodes:
            continue
        ids = _ids(number, graph)
        out.append(f'  subgraph r{number}["{mermaid_text(graph.label)}"]')
        for node in graph.nodes:
            label = mermaid_text(_label(node.name, node.status))
            out.append(f'    {ids[node.name]}["{label}"]:::{_style(node.status)}')
        out.append("  end")
        for edge in graph.edges:
            arrow = "-->" if edge.mutual else "-.->"
            edges.append(f"  {ids[edge.older]} {arrow} {ids[edge.newer]}")
    out += edges
    for style in STYLE_NAMES:
        fill, border, text = _COLOURS[style]
        dash = ",stroke-dasharray:4 3" if style == "dangling" else ""
        out.append(f"  classDef {style} fill:{fill},stroke:{border},color:{text}{dash}")
    return "\n".join(out) + "\n"


def mermaid_text(text: str) -> str:
    """Text for a quoted Mermaid label: quotes, ``#``, markup and line breaks as entity codes.

    Mermaid reads ``#...;`` as an entity and ``<...>`` as HTML, and a
    backtick opens Markdown text, so those characters go as ``#<code>;``.
    """
    out = []
    for char in text:
        if char in '"#<>&`':
            out.append(f"#{ord(char)};")
        elif char.isprintable():
            out.append(char)
        else:  # line breaks and control characters cannot stand in a label
            out.append(" ")
    return "".join(out)


# -- DOT ----------------------------------------------------------------------------


def render_dot(graphs: Sequence[RootGraph]) -> str:
    out = [
        "digraph memories {",
        f"  // {_COMMENT}",
        "  rankdir=LR;",
        '  node [shape=box, style="rounded,filled", fontname="Helvetica"];',
    ]
    edges: list[str] = []
    for number, graph in enumerate(graphs):
        if not graph.nodes:
            continue
        ids = _ids(number, graph)
        out.append(f"  subgraph cluster_r{number} {{")
        out.append(f"    label={dot_string(graph.label)};")
        for node in graph.nodes:
            style = _style(node.status)
            fill, border, text = _COLOURS[style]
            shape = '"rounded,filled,dashed"' if style == "dangling" else '"rounded,filled"'
            out.append(
                f"    {ids[node.name]} [label={dot_string(_label(node.name, node.status))}, "
                f'class="{style}", style={shape}, fillcolor="{fill}", color="{border}", '
                f'fontcolor="{text}"];'
            )
        out.append("  }")
        for edge in graph.edges:
            dashed = "" if edge.mutual else " [style=dashed]"
            edges.append(f"  {ids[edge.older]} -> {ids[edge.newer]}{dashed};")
    out += edges
    out.append("}")
    return "\n".join(out) + "\n"


def dot_string(text: str) -> str:
    """A DOT double-quoted string: backslash and quote escaped, line breaks and controls as spaces."""
    body = "".join(
        "\\\\" if c == "\\" else '\\"' if c == '"' else c if c.isprintable() else " " for c in text
    )
    return f'"{body}"'
