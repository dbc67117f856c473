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

from memls.store.bounded_loader import FLOW_WORK_BUDGET
from memls.store.frontmatter import ALIAS_NODE_BUDGET, load_yaml
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


def nested_lines(count: int, depth: int) -> str:
    return "name: x\n" + "".join(f"k{i}: " + "[" * depth + "]" * depth + "\n" for i in range(count))


def test_flow_nesting_past_the_work_budget_is_the_other_place_memls_reads_less_than_safe_load():
    """PyYAML's cost is quadratic in the brackets open on one line; past the budget memls stops reading."""
    for within in (nested_lines(20, 100), nested_lines(600, 30)):
        assert memls_reads(within) == gptme_reads(within) != ("error", None)
    past = nested_lines(20, 300)
    assert gptme_reads(past)[0] == "ok"
    problem = load_yaml(past, first_line=1).problem
    assert problem is not None and f"past {FLOW_WORK_BUDGET:,} steps" in problem.message
    assert 2 <= problem.line <= 21  # on one of the nested lines, where the budget ran out


def test_a_line_nesting_past_pyyaml_s_recursion_limit_is_refused_by_both():
    text = "metadata: " + "[" * 2500 + "]" * 2500
    assert memls_reads(text) == gptme_reads(text) == ("error", None)


def test_closed_brackets_do_not_count_towards_the_budget():
    text = "keywords: [" + ", ".join(["[a]"] * 2000) + "]\nmetadata: {" + "a: {}, " * 2000 + "}"
    assert memls_reads(text) == gptme_reads(text) != ("error", None)


def test_brackets_in_scalars_are_text_and_cost_nothing():
    """A block or quoted scalar holding brackets opens no collection: read as gptme reads it."""
    block = "name: beta\ndescription: |\n" + "".join(f"  [WARN {'[' * 600}\n" for _ in range(50))
    quoted = 'name: beta\ndescription: "' + "[" * 3000 + '"\nkeywords: [a]'
    for text in (block, quoted):
        assert memls_reads(text) == gptme_reads(text) != ("error", None)
