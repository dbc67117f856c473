"""memls loads frontmatter exactly as gptme does: ``yaml.safe_load``, the pure-Python SafeLoader.

gptme's readers skip an entry whose frontmatter ``yaml.safe_load`` refuses,
so memls must call the same texts broken and read the same data from the
rest. libyaml disagrees with the pure loader on tabs, byte-order marks and
NEL / LS / PS inside the text, bare ``!`` tags and ``|#``, in both
directions; the texts below are drawn from exactly those pieces, alone and
inside realistic frontmatter lines, and :func:`load_yaml` (fast path
included) must agree with ``yaml.safe_load`` on success and on the data,
types and key order included.
"""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from memls.store.frontmatter import ALIAS_NODE_BUDGET, FLOW_WORK_BUDGET, MAX_FLOW_DEPTH, load_yaml
from tests.store.messy_roots import scaled

# The pieces on which libyaml and the pure loader were seen to disagree, and the
# YAML indicators around them (a differential fuzz of the two loaders).
PIECES = [
    "a", "b", " ", "\t", ":", "-", "#", "'", '"', "\n", "[", "]", "{", "}", ",", "?", "&", "*",
    "!", "|", ">", "%", "@", "`", "\\", "é", "\x85", "\u2028", "\u2029", "\ufeff", "1", ".",
    "key: ", "- ", "\r", "\x07", "yes", "~",
]
KEYS = ["name", "description", "keywords", "metadata", "type", "x"]

fragments = st.lists(st.sampled_from(PIECES), max_size=10).map("".join)
lines = st.one_of(
    st.builds("{}: {}".format, st.sampled_from(KEYS), fragments),
    st.builds("{}: {}  # {}".format, st.sampled_from(KEYS), fragments, fragments),
    st.builds("  {}: {}".format, st.sampled_from(KEYS), fragments),
    st.builds("  - {}".format, fragments),
    st.builds("- {}".format, fragments),
    st.builds("{}:".format, st.sampled_from(KEYS)),
    st.builds("# {}".format, fragments),
    fragments,
)
frontmatter_texts = st.lists(lines, max_size=6).map("\n".join)


def typed(value: Any) -> Any:
    """A comparable form that keeps types and key order (``1``, ``1.0``, ``True`` differ)."""
    if isinstance(value, dict):
        return ("dict", [(typed(k), typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [typed(v) for v in value])
    if isinstance(value, float):
        return ("float", repr(value))
    return (type(value).__name__, value)


def gptme_reads(text: str) -> tuple[str, Any]:
    try:
        return "ok", typed(yaml.safe_load(text))
    except Exception:  # noqa: BLE001 - every failure is "gptme skips the file"
        return "error", None


def memls_reads(text: str) -> tuple[str, Any]:
    loaded = load_yaml(text, first_line=1)
    # Values past the alias budget are left out on purpose (README): not compared.
    if loaded.oversized or (loaded.problem is not None and "aliases expand" in loaded.problem.message):
        return "over the alias budget", None
    if loaded.problem is not None:
        lines = text.split("\n")
        line, column = loaded.problem.line - 1, loaded.problem.column
        assert 0 <= line < len(lines) and 0 <= column <= len(lines[line]), loaded.problem
        return "error", None
    return "ok", typed(loaded.data)


AGREEMENT = settings(max_examples=scaled(400, 5000), deadline=None)


@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=14).map("".join))
@example("description: column one\tcolumn two")  # libyaml reads it, safe_load refuses
@example("|#")  # libyaml reads it, safe_load refuses
@example("\ufeff\ufeff{")  # libyaml refuses it, safe_load reads it
@example("!")  # both read it, to different values
@example("name: a\x07b")  # a control character: both refuse it
@AGREEMENT
def test_load_yaml_succeeds_and_reads_exactly_what_safe_load_does_on_loose_text(text):
    memls = memls_reads(text)
    assume(memls[0] != "over the alias budget")
    assert memls == gptme_reads(text)


@given(frontmatter_texts)
@example("name: alpha\ndescription: column one\tcolumn two\nkeywords:\n  - a\n  - b")
@example("name: alpha  # c\nmetadata:\n  type: \ufeffx\n- \u2028")
@AGREEMENT
def test_load_yaml_succeeds_and_reads_exactly_what_safe_load_does_on_frontmatter_lines(text):
    memls = memls_reads(text)
    assume(memls[0] != "over the alias budget")
    assert memls == gptme_reads(text)


def test_alias_budget_is_one_place_memls_reads_less_than_safe_load():
    """The agreement tests skip over-budget aliases; this pins that it is the budget that differs."""
    count = ALIAS_NODE_BUDGET // 4 + 1
    text = "a: &x [1]\n" + "".join(f"b{i}: [*x, *x, *x, *x]\n" for i in range(count))
    last = f"b{count - 1}"
    assert last in yaml.safe_load(text)
    assert last not in load_yaml(text).data


def test_flow_nesting_past_the_limit_is_the_other_place_memls_reads_less_than_safe_load():
    """PyYAML's cost is quadratic in the brackets open on one line; past the limit memls refuses the text unread."""
    def nested(depth: int) -> str:
        return "metadata: " + "[" * depth + "]" * depth

    assert memls_reads(nested(MAX_FLOW_DEPTH)) == gptme_reads(nested(MAX_FLOW_DEPTH)) != ("error", None)
    past = nested(MAX_FLOW_DEPTH + 1)
    assert gptme_reads(past)[0] == "ok"
    problem = load_yaml(past, first_line=1).problem
    assert problem is not None and f"deeper than {MAX_FLOW_DEPTH} levels" in problem.message
    assert (problem.line, problem.column) == (1, len("metadata: ") + MAX_FLOW_DEPTH)


def test_closed_brackets_do_not_count_towards_the_nesting_limit():
    text = "keywords: [" + ", ".join(["[a]"] * (2 * MAX_FLOW_DEPTH)) + "]\nmetadata: {" + "a: {}, " * MAX_FLOW_DEPTH + "}"
    assert memls_reads(text) == gptme_reads(text) != ("error", None)


def test_brackets_opened_on_earlier_lines_do_not_count_towards_the_nesting_limit():
    """A block scalar of log lines that each open a bracket is plain text to PyYAML, and read as it reads it."""
    text = "name: beta\ndescription: |\n" + "".join(f"  [WARN retry {i}\n" for i in range(3 * MAX_FLOW_DEPTH))
    assert memls_reads(text) == gptme_reads(text) != ("error", None)


def test_many_lines_each_within_the_nesting_limit_are_refused_past_the_work_budget():
    """Each line's cost is quadratic in its open brackets; past the budget the text is refused unread."""
    depth = MAX_FLOW_DEPTH // 2
    per_line = depth * (depth + 1) // 2
    lines = FLOW_WORK_BUDGET // per_line + 1

    def nested(count: int) -> str:
        return "name: x\n" + "".join(f"k{i}: " + "[" * depth + "]" * depth + "\n" for i in range(count))

    assert memls_reads(nested(lines - 1)) == gptme_reads(nested(lines - 1)) != ("error", None)
    assert gptme_reads(nested(lines))[0] == "ok"
    problem = load_yaml(nested(lines), first_line=1).problem
    assert problem is not None and f"past {FLOW_WORK_BUDGET:,}" in problem.message
    assert problem.line == lines + 1  # the line whose brackets pass the budget
