"""``memls graph``: the supersession chains of the workspace's roots, drawn (issue 15, part 4)."""

from __future__ import annotations

from tests.cli.cli_helpers import save_entry


def test_graph_draws_a_supersession_as_mermaid_by_default(run, memory_dir):
    save_entry(run, "old-rule", "The old rule.")
    save_entry(run, "new-rule", "The new rule.")
    save_entry(run, "unrelated", "Nobody replaced it.")
    assert run("supersede", "old-rule", "new-rule").exit_code == 0
    result = run("graph")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[:7] == [
        "flowchart LR",
        "  %% arrows point from an entry to the entry that superseded it; dashed: stated by one side only",
        f'  subgraph r0["explicit: {memory_dir}"]',
        '    r0n0["new-rule"]:::living',
        '    r0n1["old-rule"]:::superseded',
        "  end",
        "  r0n1 --> r0n0",
    ]


def test_graph_all_draws_unlinked_entries_and_dot_is_a_digraph(run):
    save_entry(run, "unrelated", "Nobody replaced it.")
    result = run("graph", "--all", "--format", "dot")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("digraph memories {\n")
    assert 'r0n0 [label="unrelated", class="living"' in result.stdout


def test_graph_of_a_store_without_links_says_so_on_stderr(run):
    save_entry(run, "unrelated", "Nobody replaced it.")
    result = run("graph")
    assert result.exit_code == 0
    assert "subgraph" not in result.stdout
    assert result.stderr == "(no supersession links to draw; --all draws every entry)\n"


def test_graph_with_a_scope_no_root_has_is_a_usage_error(run):
    save_entry(run, "unrelated", "Nobody replaced it.")
    result = run("graph", "--scope", "nowhere")
    assert result.exit_code == 2
    assert "'nowhere' is not one of 'explicit'" in result.stderr
