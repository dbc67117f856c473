"""A plain scalar's implicit type: the same as PyYAML's safe loader gives it, for any text.

The oracle is the safe loader's own resolver (``yaml.SafeLoader.resolve``),
asked about a plain scalar exactly as its composer asks. The generated texts
are biased to where the types' edges are: digits, ``_``, ``:``, ``.``,
signs, exponents, base prefixes, date and time separators, the words in
their case variants.
"""

from __future__ import annotations

import subprocess
import sys

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from memls.store.implicit_types import implicit_type

_RESOLVER = yaml.SafeLoader("")


def safe_loader_type(text: str) -> str:
    return _RESOLVER.resolve(yaml.ScalarNode, text, (True, False)).rsplit(":", 1)[1]


WORDS = ["yes", "no", "true", "false", "on", "off", "null", "y", "n", "inf", "nan", "~", "<<", "=",
         "!", "&", "*", ".inf", ".nan", "Z", "T", "t"]
# Pieces of numbers and timestamps; single characters most of all, so their mixes are many.
PIECES = list("0123456789") * 3 + list("01_:.-+eE") * 4 + [
    "0b", "0x", "0o", "a", "F", "f", "x", "b", " ", "\t", "T", "t", "Z", "z", ":00", ":59", ":60", ".5",
    "2026", "-01", "-1", "12", "e+3", "E-1",
]


@st.composite
def case_variant(draw: st.DrawFn, word: str) -> str:
    style = draw(st.sampled_from(["lower", "capitalized", "upper", "mixed"]))
    if style == "capitalized":
        return word.capitalize()
    if style == "upper":
        return word.upper()
    if style == "mixed":
        flips = draw(st.lists(st.booleans(), min_size=len(word), max_size=len(word)))
        return "".join(c.upper() if flip else c for c, flip in zip(word, flips))
    return word


@st.composite
def edge_scalar(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.one_of(st.sampled_from(PIECES), st.sampled_from(WORDS).flatmap(case_variant)),
                          max_size=10))
    return "".join(parts)


TIMESTAMP_LIKE = st.from_regex(
    r"[0-9]{3,5}-[0-9]{1,3}-[0-9]{1,3}([Tt]| {0,2}|\t)([0-9]{1,3}:[0-9]{1,3}:[0-9]{1,3}(\.[0-9]{0,3})?"
    r"([ \t]{0,2}(Z|[-+][0-9]{1,3}(:[0-9]{1,3})?))?)?", fullmatch=True)
NUMBER_LIKE = st.from_regex(
    r"[-+]{0,2}(0[bxo]?)?[0-9a-fA-F_]{0,6}(:[0-9]{1,3}){0,3}(\.[0-9_]{0,4})?([eE][-+]?[0-9]{0,3})?", fullmatch=True)
ANY_LINE = st.text(st.characters(blacklist_characters="\n\r\x85\u2028\u2029", blacklist_categories=("Cs",)),
                   max_size=12)


@settings(max_examples=3000, deadline=None)
@given(st.one_of(edge_scalar(), edge_scalar(), TIMESTAMP_LIKE, NUMBER_LIKE, ANY_LINE))
def test_implicit_type_is_the_safe_loaders_for_any_one_line_text(text: str) -> None:
    assert implicit_type(text) == safe_loader_type(text)


def test_implicit_type_of_each_form_the_safe_loader_knows() -> None:
    expected = {
        "bool": ["yes", "No", "TRUE", "off", "On"],
        "null": ["", "~", "null", "Null", "NULL"],
        "int": ["0", "-0", "+12", "1_000", "0b1010", "0b_", "017", "0_", "0x1F", "-0xff_ff", "190:20:30", "1:5"],
        "float": ["1.5", "1.", "-1_0.5e+3", ".5", ".5E-1", "1:30.5", "0:30.5", ".inf", "-.Inf", "+.INF",
                  ".nan", ".NaN"],
        "timestamp": ["2026-01-01", "2026-1-1T1:00:00", "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.",
                      "2001-12-14\t21:59:43 Z", "2001-12-14 21:59:43+5"],
        "merge": ["<<"],
        "value": ["="],
        "yaml": ["!", "&", "*"],
        "str": ["yEs", "y", "n", "nULL", "1e3", "-.5", "+.nan", "0:30", "08", "0b", "0x", "0o17", "1:60",
                "2026-1-1", "2026-01-01T", "12:30:00.5x", "1.5e3", "a", "<<<", "== "],
    }
    for kind, texts in expected.items():
        for text in texts:
            assert (text, implicit_type(text)) == (text, safe_loader_type(text)) == (text, kind)


def test_reading_flat_frontmatter_does_not_import_the_yaml_library() -> None:
    """Reading the frontmatter agents write (every plain scalar type the fast path builds) loads no PyYAML.

    Its import is most of what reading one file costs a fresh process (the
    language server checks a document opened during its start alone, before
    anything else is parsed).
    """
    probe = (
        "import sys\n"
        "from memls.store.frontmatter import load_yaml\n"
        "text = 'name: a\\ndescription: yes it is\\nconfidence: 0.5\\ncount: -12\\nflag: On\\nnothing: ~\\n"
        "keywords: [x, 1, no]\\nmetadata:\\n  type: note\\nsupersedes:\\n- b\\n'\n"
        "data, problem, keys, _ = load_yaml(text, 1)\n"
        "assert problem is None and data['flag'] is True and data['keywords'] == ['x', 1, False], data\n"
        "print('yaml' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
