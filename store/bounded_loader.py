"""PyYAML's ``SafeLoader``, stopped once its scan of flow collections costs too much.

PyYAML keeps a possible key for every ``[`` / ``{`` collection opened on the
current line and still open, and walks them all at each token: a line of N
opening brackets costs N squared (2,500 took over a second; a 1 MB file of
lines nesting 200 deep took 36 s). Counting brackets in the text cannot tell
a flow collection from the same characters in a quoted or block scalar, which
cost nothing, so the loader counts the walks themselves and gives up past
:data:`FLOW_WORK_BUDGET`. Below it the loader is ``SafeLoader`` unchanged, so
memls reads exactly what gptme's ``yaml.safe_load`` reads.

Imported by :func:`memls.store.frontmatter.load_yaml` on the first
frontmatter it hands to PyYAML, never before (PyYAML's import is not free).
"""

from __future__ import annotations

import yaml

FLOW_WORK_BUDGET = 2_000_000
"""How many possible keys PyYAML may walk over while reading one frontmatter.

About half a second of its scan: six hundred lines nesting 30 levels each
(which gptme loads) walk about 1,000,000, twenty lines nesting 100 levels
400,000. No memory a person or an agent writes comes near: a frontmatter of
ordinary flow lists walks a few keys per token. A single line nests past
PyYAML's recursion limit (about 450 levels, where gptme fails too) before it
reaches the budget."""


class FlowTooCostly(Exception):
    """The scan passed :data:`FLOW_WORK_BUDGET`; ``index`` is where in the text it stood."""

    def __init__(self, index: int) -> None:
        super().__init__(index)
        self.index = index


class BoundedSafeLoader(yaml.SafeLoader):
    """``SafeLoader`` counting the possible keys its scanner walks, stopped past the budget."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.keys_walked = 0

    def stale_possible_simple_keys(self) -> None:
        # Called before each token with every possible key still held; the
        # walk that follows (next_possible_simple_key) is of the same keys.
        self.keys_walked += len(self.possible_simple_keys)
        if self.keys_walked > FLOW_WORK_BUDGET:
            raise FlowTooCostly(self.index)
        super().stale_possible_simple_keys()
