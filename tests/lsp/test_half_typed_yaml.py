"""Typing through states whose YAML does not load: the YAML error, and no made-up link problems.

The keystrokes of issue 12 (items 3 and 7), sent with didChange to the real
server: Enter inside a ``superseded_by`` value, a stray line after a flow
list and after a block list. Every publish, for the edited file and for its
neighbours on the chain, must be free of link codes; the edited file gets
its ``invalid-yaml``.
"""

from __future__ import annotations

from memls.store.checks import supersession

from .conftest import barrier, entry, record_publishes

LINK_CODES = frozenset(supersession.CODES) - {"duplicate-name"}

V1 = entry("deploy-freeze-v1", extra="status: superseded\nsuperseded_by: deploy-freeze-v2\n")
V2 = entry("deploy-freeze-v2",
           extra="supersedes: [deploy-freeze-v1]\nstatus: superseded\nsuperseded_by: deploy-freeze-v3\n")
V3 = entry("deploy-freeze-v3", extra="supersedes:\n  - deploy-freeze-v2\n")

HALF_TYPED = [
    V2.replace("superseded_by: depl", "superseded_by: depl\n"),  # Enter inside the value
    V2.replace("supersedes: [deploy-freeze-v1]\n", "supersedes: [deploy-freeze-v1]\nx\n"),
    V2.replace("supersedes: [deploy-freeze-v1]\n", "supersedes:\n  - deploy-freeze-v1\nx\n"),
    V2.replace("status: superseded\n", "status: superseded\ns\n"),
]


async def test_half_typed_yaml_publishes_the_yaml_error_and_no_link_problem_anywhere(start):
    session = await start({"deploy-freeze-v1.md": V1, "deploy-freeze-v2.md": V2, "deploy-freeze-v3.md": V3})
    publishes = record_publishes(session.client)
    session.open("deploy-freeze-v2.md")
    # The first scan has published the chain: v1 is a step behind (a hint, and the only link problem).
    await session.diagnostics("deploy-freeze-v1.md", lambda d: "superseded-reference" in session.codes(d))
    await session.diagnostics("deploy-freeze-v2.md", lambda d: not session.codes(d) & LINK_CODES)
    await barrier(session)
    good = link_problems(publishes.items())
    assert {code for _, code, _ in good} == {"superseded-reference"}, good
    settled = len(publishes.history)
    version = 1
    for text in HALF_TYPED:
        version += 1
        session.change("deploy-freeze-v2.md", text, version)
        diags = await session.diagnostics("deploy-freeze-v2.md",
                                          lambda d: "invalid-yaml" in session.codes(d))
        assert session.codes(diags) == {"invalid-yaml"}, diags
        version += 1
        session.change("deploy-freeze-v2.md", V2, version)
        await session.diagnostics("deploy-freeze-v2.md", lambda d: "invalid-yaml" not in session.codes(d))
    await barrier(session, "zz-probe-2.md")
    assert link_problems(publishes.history[settled:]) <= good


def link_problems(history) -> set[tuple[str, str, str]]:
    """Every link problem published for the chain's files (the probes' own are left out)."""
    return {
        (uri.rsplit("/", 1)[-1], str(d.code), d.message)
        for uri, diags in history if "zz-probe" not in uri
        for d in diags if d.code in LINK_CODES
    }
