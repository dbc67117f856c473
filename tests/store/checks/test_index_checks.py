"""The index checks: MEMORY.md against what the engine would write, and what Claude Code loads."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memls.store.apply import apply_fixes
from memls.store.checks import check_workspace, fixes_for
from memls.store.checks.index import MISSING_ENTRIES_APART
from memls.store.diagnostics import CreateFile, Fix
from memls.store.edits import apply_edits
from memls.store.fix_all import fix_all
from memls.store.index import render_index, upsert_index_line
from memls.store.parse import parse_document
from memls.store.reader import MAX_DOCUMENT_BYTES, MAX_INDEX_BYTES
from memls.store.spans import Span
from memls.store.store import MemoryStore

from .conftest import Checked, entry_text

HEADER = "# Persistent Memory"
INDEX_CODES = {
    "index-drift", "index-missing", "index-broken-link", "index-lists-non-living",
    "index-missing-entry", "invalid-index-policy", "index-over-budget",
    "index-beyond-claude-code-limit",
}


def store_of(checked: Checked) -> MemoryStore:
    return MemoryStore([checked.workspace.roots[0].root])


def root_of(checked: Checked) -> Path:
    return checked.workspace.roots[0].path


def recheck(checked: Checked) -> Checked:
    return Checked([s.root for s in checked.workspace.roots], checked.ctx.settings, checked.ctx.today)


def apply(checked: Checked, fix: Fix) -> Checked:
    """Write one fix to disk as ``memls check --fix`` would, and check the root again."""
    texts = {}
    for path in fix.paths:
        doc = checked.workspace.document(path)
        if doc is not None:
            texts[path] = doc.text
    apply_fixes([fix], texts, root=root_of(checked))
    return recheck(checked)


def only_fix(checked: Checked, problem, title_start: str) -> Fix:
    found = [f for f in fixes_for(checked.ctx, problem) if f.title.startswith(title_start)]
    assert len(found) == 1, fixes_for(checked.ctx, problem)
    return found[0]


def assert_fixed(before: Checked, after: Checked, code: str) -> None:
    """The code is gone, nothing new appeared, and gptme's audit is clean."""
    assert after.problems(code) == []
    old = {(p.code, p.path, p.message) for p in before.problems()}
    new = {(p.code, p.path, p.message) for p in after.problems()}
    assert new <= old, new - old
    assert store_of(after).audit() == []


def living(name: str, description: str = "d", type_: str = "project") -> str:
    return entry_text(name, description, type_=type_)


def historical(name: str) -> str:
    return entry_text(name, "old", extra="status: historical\n")


def rendered(*files: tuple[str, str]) -> str:
    """What the engine renders for these (filename, text) entries."""
    entries = [parse_document(text, path=Path("/r") / name).entry for name, text in files]
    return render_index(entries)


# -- index-drift ----------------------------------------------------------------------


def test_a_legacy_index_that_is_not_the_rendering_is_curated_so_no_drift(check_root):
    # Link text and hooks of the user's own, no prose paragraph: curated all the same.
    text = f"{HEADER}\n\n## Project\n- [Alpha notes](alpha.md) \u2014 read when touching alpha\n"
    checked = check_root({"alpha.md": living("alpha", "A"), "MEMORY.md": text})
    assert not (INDEX_CODES & checked.codes())
    assert not store_of(checked).check_index()  # index --check compares bytes, as gptme's does


def test_an_index_generated_before_a_new_entry_gets_the_rendering_back_from_the_line_repair(check_root):
    a, b = living("alpha", "A"), living("beta", "B", type_="user")
    checked = check_root({"alpha.md": a, "beta.md": b, "MEMORY.md": rendered(("alpha.md", a))})
    assert checked.problems("index-drift") == []
    [problem] = checked.problems("index-missing-entry")
    fixes = {f.title: f for f in fixes_for(checked.ctx, problem)}
    assert fixes["Add the line for 'beta' in MEMORY.md"].safe
    assert not fixes["Regenerate MEMORY.md (replaces its hand-written lines)"].safe
    after = apply(checked, fixes["Add the line for 'beta' in MEMORY.md"])
    assert_fixed(checked, after, "index-missing-entry")
    assert not (INDEX_CODES & after.codes())
    # beta's line lands in its own section, before Project: the index is generated again.
    assert store_of(after).check_index()


def test_one_line_repair_covers_every_line_problem_and_writes_what_write_index_writes(check_root):
    files = {
        "alpha.md": living("alpha", "A"),
        "beta.md": living("beta", "B", type_="feedback"),
        "gone.md": historical("gone"),
        "MEMORY.md": f"{HEADER}\n\n- [gone](gone.md) \u2014 old\n",
    }
    checked = check_root(files)
    safe = {f for p in checked.problems() for f in fixes_for(checked.ctx, p) if f.safe}
    [repair] = safe
    assert repair.title == "Add the lines for 'alpha', 'beta' and remove the line for 'gone.md' in MEMORY.md"
    after = apply(checked, repair)
    index = root_of(after) / "MEMORY.md"
    ours = index.read_bytes()
    store_of(after).write_index()
    assert index.read_bytes() == ours


def test_drift_not_reported_for_index_the_engine_wrote(check_root):
    checked = check_root({"alpha.md": living("alpha"), "old.md": historical("old")})
    store_of(checked).write_index()
    after = recheck(checked)
    assert not (INDEX_CODES & after.codes())


def test_drift_not_reported_for_curated_index_with_prose(check_root):
    text = f"{HEADER}\n\nNotes for the team.\n\n- [alpha](alpha.md) \u2014 A\n"
    checked = check_root({"alpha.md": living("alpha", "A"), "MEMORY.md": text})
    assert checked.problems("index-drift") == []
    assert not (INDEX_CODES & checked.codes())


def test_drift_reported_on_managed_index_and_regenerate_writes_the_policy_view(check_root):
    policy = json.dumps({"version": 1, "budget": 1000, "selected": ["alpha.md"]})
    files = {
        "alpha.md": living("alpha", "A"),
        "beta.md": living("beta", "B"),
        ".memory-index.json": policy,
        # beta is living but not selected: the view must not list it.
        "MEMORY.md": rendered(("alpha.md", living("alpha", "A")), ("beta.md", living("beta", "B"))),
    }
    checked = check_root(files)
    [problem] = checked.problems("index-drift")
    assert problem.span == Span(4, 0, 4, len("- [beta](beta.md) \u2014 B"))
    assert checked.problems("index-missing-entry") == []  # unselected entries are meant to be absent
    fix = only_fix(checked, problem, "Regenerate")
    assert fix.safe
    after = apply(checked, fix)
    assert_fixed(checked, after, "index-drift")
    assert store_of(after).check_index()
    ours = (root_of(after) / "MEMORY.md").read_bytes()
    store_of(after).write_index()
    assert (root_of(after) / "MEMORY.md").read_bytes() == ours


def test_managed_index_with_invalid_policy_reports_no_drift(check_root):
    checked = check_root({
        "alpha.md": living("alpha"),
        ".memory-index.json": "{",
        "MEMORY.md": "stale\n",
    })
    assert checked.problems("index-drift") == []
    assert len(checked.problems("invalid-index-policy")) == 1


# -- index-missing ----------------------------------------------------------------------


def test_missing_index_reported_when_root_has_living_entries(check_root):
    checked = check_root({"alpha.md": living("alpha")})
    [problem] = checked.problems("index-missing")
    assert problem.severity == "warning"
    assert problem.path == root_of(checked) / "MEMORY.md"
    assert problem.span == Span(0, 0, 0, 0)
    assert "has living entries but no MEMORY.md" in problem.message


def test_missing_index_not_reported_without_living_entries(check_root):
    checked = check_root({"old.md": historical("old")})
    assert checked.problems("index-missing") == []


def test_create_index_fix_creates_the_engine_rendering(check_root):
    checked = check_root({"alpha.md": living("alpha"), "beta.md": living("beta", type_="user")})
    [problem] = checked.problems("index-missing")
    fix = only_fix(checked, problem, "Create")
    assert fix.safe and isinstance(fix.operations[0], CreateFile)
    after = apply(checked, fix)
    assert_fixed(checked, after, "index-missing")
    assert not (INDEX_CODES & after.codes())
    assert store_of(after).check_index()


# -- index-broken-link ---------------------------------------------------------------------


CURATED_BROKEN = f"{HEADER}\n\nOur notes.\n- [alpha](alpha.md) \u2014 A\n- [ghost](ghost.md) \u2014 gone\n"


def test_broken_link_span_is_the_link_target(check_root):
    checked = check_root({"alpha.md": living("alpha", "A"), "MEMORY.md": CURATED_BROKEN})
    [problem] = checked.problems("index-broken-link")
    assert problem.severity == "error"
    assert problem.span == Span(4, 10, 4, 18)
    assert "'ghost.md' is not a memory entry of this root" in problem.message


@pytest.mark.parametrize("target", ["<caf\u00e9.md>", "caf%C3%A9.md", "./caf\u00e9.md"])
def test_a_link_only_markdown_resolves_is_broken_and_says_to_write_the_bare_filename(check_root, target):
    # gptme finds a line by its bare filename: its save would append another line.
    text = f"{HEADER}\n\n- [caf\u00e9]({target}) \u2014 c\n"
    checked = check_root({"caf\u00e9.md": living("caf\u00e9", "c"), "MEMORY.md": text})
    [problem] = checked.problems("index-broken-link")
    assert f"'{target}' opens caf\u00e9.md in a Markdown viewer" in problem.message
    assert "write it as 'caf\u00e9.md'" in problem.message


@pytest.mark.parametrize("entries", [1, 30])
def test_the_safe_fix_of_a_link_only_markdown_resolves_writes_the_bare_filename_and_keeps_the_line(
        check_root, entries):
    """Its line is the user's (link text, hook): rewriting the target is the obvious repair, not removing it,
    also beside an index trimmed on purpose, where nothing would add the entry's line back."""
    text = f"{HEADER}\n\n- [Caf\u00e9, read first](./caf\u00e9.md) \u2014 my hook\nNotes.\n"
    checked = check_root({**_unlisted(entries - 1), "caf\u00e9.md": living("caf\u00e9", "c"), "MEMORY.md": text})
    [problem] = checked.problems("index-broken-link")
    [safe] = [f for f in fixes_for(checked.ctx, problem) if f.safe]
    assert safe.title == "Write './caf\u00e9.md' as 'caf\u00e9.md' in MEMORY.md"
    after = apply(checked, safe)
    assert (root_of(after) / "MEMORY.md").read_text() == text.replace("(./caf", "(caf")
    assert after.problems("index-broken-link") == []


MOVED_INDEX = (f"{HEADER}\n\n- [Deploy, read first](deploy.md) \u2014 ask Sam before touching prod\n"
               "- [other](other.md) \u2014 o\n\n<!-- kept by hand -->\n")


def _moved_by_hand(check_root, extra: dict[str, str] | None = None) -> Checked:
    """A curated index whose ``deploy`` entry a person moved to ``deploy-notes.md`` (``mv``)."""
    return check_root({**(extra or {}), "deploy-notes.md": living("deploy", "How we deploy"),
                       "other.md": living("other", "o"), "MEMORY.md": MOVED_INDEX})


@pytest.mark.parametrize("code", ["index-broken-link", "index-missing-entry"])
def test_the_line_of_an_entry_moved_by_hand_is_pointed_at_its_file_with_its_words_kept(check_root, code):
    """Either problem's safe fix is the one repair of both: the line's target rewritten in place.
    Removing the line and appending a generated one lost the words a person wrote on it."""
    checked = _moved_by_hand(check_root)
    [problem] = checked.problems(code)
    [safe] = [f for f in fixes_for(checked.ctx, problem) if f.safe]
    assert safe.title == "Point 'deploy.md' at 'deploy-notes.md' in MEMORY.md"
    after = apply(checked, safe)
    assert (root_of(after) / "MEMORY.md").read_text() == MOVED_INDEX.replace("(deploy.md)", "(deploy-notes.md)")
    assert after.problems("index-broken-link") == after.problems("index-missing-entry") == []


def test_fix_all_points_a_moved_entrys_line_at_its_file(check_root):
    checked = _moved_by_hand(check_root)
    fix_all(checked.ctx)
    assert (root_of(checked) / "MEMORY.md").read_text() == MOVED_INDEX.replace("(deploy.md)", "(deploy-notes.md)")


def test_a_moved_entrys_line_is_pointed_at_its_file_beside_an_index_trimmed_on_purpose(check_root):
    """The missing entries are one problem there and their lines are never added unasked: the moved
    entry's line is still pointed at its file, not removed with nothing to list it again."""
    checked = _moved_by_hand(check_root, _unlisted(MISSING_ENTRIES_APART + 5))
    fix_all(checked.ctx)
    text = (root_of(checked) / "MEMORY.md").read_text()
    assert text == MOVED_INDEX.replace("(deploy.md)", "(deploy-notes.md)")


def test_a_broken_line_two_moved_entries_could_mean_is_not_pointed_at_either(check_root):
    # 'Deploy' and 'DEPLOY' would both be saved to deploy.md: which one the line meant is the person's call.
    checked = check_root({"a.md": living("Deploy"), "b.md": living("DEPLOY"), "other.md": living("other", "o"),
                          "MEMORY.md": MOVED_INDEX})
    [problem] = checked.problems("index-broken-link")
    titles = [f.title for f in fixes_for(checked.ctx, problem)]
    assert not any(t.startswith("Point") for t in titles), titles


def test_the_entry_named_exactly_as_the_old_file_is_the_one_its_line_is_pointed_at(check_root):
    # Stranger s24b: a copy named 'Deploy' (the same slug) beside the moved 'deploy' made the line go.
    checked = _moved_by_hand(check_root, {"deploy-old.md": living("Deploy", "older notes")})
    fix_all(checked.ctx)
    text = (root_of(checked) / "MEMORY.md").read_text()
    assert text.startswith(MOVED_INDEX.replace("(deploy.md)", "(deploy-notes.md)").split("\n\n<!--")[0])
    assert "ask Sam before touching prod" in text


@pytest.mark.parametrize("spelled", ["./deploy.md", "deplo%79.md", "deploy.md#steps", 'deploy.md "Deploy steps"',
                                     " deploy.md ", "sub/../deploy.md"])
def test_a_moved_entrys_line_spelled_as_a_markdown_viewer_opens_it_is_pointed_at_its_file(check_root, spelled):
    # Stranger s24b: with the old target spelled so, the moved entry's line was removed with its words.
    index = MOVED_INDEX.replace("(deploy.md)", f"({spelled})")
    checked = check_root({"deploy-notes.md": living("deploy", "How we deploy"), "other.md": living("other", "o"),
                          "MEMORY.md": index})
    fix_all(checked.ctx)
    assert (root_of(checked) / "MEMORY.md").read_text() == index.replace(f"({spelled})", "(deploy-notes.md)")


def test_two_lines_of_one_moved_entry_are_both_pointed_at_its_file(check_root):
    # Stranger s24b: both people's lines went, and one generated line came.
    index = MOVED_INDEX + "- [deploy](deploy.md) \u2014 CAROL: second line\n"
    checked = check_root({"deploy-notes.md": living("deploy", "How we deploy"), "other.md": living("other", "o"),
                          "MEMORY.md": index})
    fix_all(checked.ctx)
    assert (root_of(checked) / "MEMORY.md").read_text() == index.replace("(deploy.md)", "(deploy-notes.md)")


def test_a_generated_index_with_an_entry_moved_by_hand_is_regenerated(check_root, tmp_path):
    """Generated before the move, it is memls's to write again: the entry's line in memls's order."""
    root = tmp_path / "memory"
    files = {"deploy-notes.md": living("deploy", "How we deploy"), "other.md": living("other", "o")}
    generated = render_index([parse_document(files["deploy-notes.md"], root / "deploy.md").entry,
                              parse_document(files["other.md"], root / "other.md").entry])
    checked = check_root({**files, "MEMORY.md": generated})
    fix_all(checked.ctx)
    expected = render_index([parse_document(t, root / n).entry for n, t in files.items()])
    assert (root / "MEMORY.md").read_text() == expected


@pytest.mark.parametrize("spelled", ["deploy.md#steps", 'deploy.md "Deploy steps"', " deploy.md ",
                                     "../memory/deploy.md", "{root}/deploy.md"])
def test_a_line_whose_link_a_markdown_viewer_opens_keeps_its_words(check_root, tmp_path, spelled):
    """Stranger s24b: ``--fix`` removed these lines (and their words) as broken and appended a generated one."""
    spelled = spelled.format(root=tmp_path / "memory")
    index = f"{HEADER}\n\n- [Deploy](deploy.md) \u2014 ALICE: read before any release\n".replace(
        "(deploy.md)", f"({spelled})")
    checked = check_root({"deploy.md": living("deploy", "How we deploy"), "MEMORY.md": index})
    fix_all(checked.ctx)
    assert (root_of(checked) / "MEMORY.md").read_text() == index.replace(f"({spelled})", "(deploy.md)")


@pytest.mark.parametrize("generated", [False, True], ids=["curated", "generated but for the gone file"])
def test_fix_removes_a_gone_entrys_line_but_not_a_note_a_person_wrote_at_its_file(check_root, generated):
    """Stranger s31b: removing the line of a deleted entry removed every line at its file, a person's
    note among them, and an index otherwise generated was rendered again, dropping the note too."""
    a = living("alpha", "A")
    head = rendered(("alpha.md", a)) if generated else f"{HEADER}\n\n- [alpha](alpha.md) \u2014 A\n"
    note = "- [Beta's caveats, do not lose](beta.md) \u2014 my own note: beta breaks on Tuesdays\n"
    checked = check_root({"alpha.md": a, "MEMORY.md": f"{head}- [beta](beta.md) \u2014 B\n{note}"})
    assert len(checked.problems("index-broken-link")) == 2
    fix_all(checked.ctx)
    assert (root_of(checked) / "MEMORY.md").read_text() == f"{head}{note}"


def test_broken_link_to_unparsable_file_is_reported(check_root):
    text = f"{HEADER}\n\n- [notes](notes.md) \u2014 n\n"
    checked = check_root({"notes.md": "no frontmatter here\n", "MEMORY.md": text})
    [problem] = checked.problems("index-broken-link")
    assert problem.span == Span(2, 10, 2, 18)


def test_links_out_of_the_root_are_not_broken(check_root):
    text = f"{HEADER}\n\nSee also:\n- [docs](https://example.com/docs) \u2014 the manual\n- [alpha](alpha.md) \u2014 A\n"
    checked = check_root({"alpha.md": living("alpha", "A"), "MEMORY.md": text})
    assert checked.problems("index-broken-link") == []


def test_remove_line_is_the_safe_fix_in_a_curated_index_and_keeps_prose(check_root):
    checked = check_root({"alpha.md": living("alpha", "A"), "MEMORY.md": CURATED_BROKEN})
    [problem] = checked.problems("index-broken-link")
    fixes = {f.title: f for f in fixes_for(checked.ctx, problem)}
    remove = fixes["Remove the line for 'ghost.md' in MEMORY.md"]
    assert remove.safe
    assert not fixes["Regenerate MEMORY.md (replaces its hand-written lines)"].safe  # it would drop "Our notes."
    after = apply(checked, remove)
    assert_fixed(checked, after, "index-broken-link")
    assert (root_of(after) / "MEMORY.md").read_text() == f"{HEADER}\n\nOur notes.\n- [alpha](alpha.md) \u2014 A\n"


def test_a_broken_line_added_to_a_generated_index_is_removed_back_to_the_rendering(check_root):
    a = living("alpha", "A")
    text = rendered(("alpha.md", a)) + "- [ghost](ghost.md) \u2014 gone\n"
    checked = check_root({"alpha.md": a, "MEMORY.md": text})
    [problem] = checked.problems("index-broken-link")
    [safe] = [f for f in fixes_for(checked.ctx, problem) if f.safe]
    after = apply(checked, safe)
    assert_fixed(checked, after, "index-broken-link")
    assert not (INDEX_CODES & after.codes())
    assert store_of(after).check_index()


def test_every_line_problem_of_one_index_offers_the_same_safe_repair(check_root):
    a = living("alpha", "A")
    text = f"{HEADER}\n\nKeep this.\n- [old](old.md) \u2014 retired\n"
    checked = check_root({"alpha.md": a, "old.md": historical("old"), "MEMORY.md": text})
    problems = checked.problems(path=root_of(checked) / "MEMORY.md")
    assert {p.code for p in problems} == {"index-lists-non-living", "index-missing-entry"}
    safe = {f for p in problems for f in fixes_for(checked.ctx, p) if f.safe}
    assert len(safe) == 1
    after = apply(checked, safe.pop())
    assert (root_of(after) / "MEMORY.md").read_text() == (
        f"{HEADER}\n\nKeep this.\n- [alpha](alpha.md) \u2014 A\n"
    )


def test_a_broken_curated_line_stays_while_the_safe_fix_adds_a_missing_entrys_line(check_root):
    """The two may be one memory moved where no rule pairs them: the line's words would be lost (stranger s27)."""
    a = living("alpha", "A")
    text = f"{HEADER}\n\nKeep this.\n- [Ghost notes](ghost.md) \u2014 my words\n"
    checked = check_root({"alpha.md": a, "MEMORY.md": text})
    problems = checked.problems(path=root_of(checked) / "MEMORY.md")
    assert {p.code for p in problems} == {"index-broken-link", "index-missing-entry"}
    fixes = [f for p in problems for f in fixes_for(checked.ctx, p)]
    # The safe fix adds alpha's line and keeps the broken one with its words.
    [safe] = {f for f in fixes if f.safe}
    assert safe.title == "Add the line for 'alpha' in MEMORY.md"
    assert (root_of(apply(checked, safe)) / "MEMORY.md").read_text() == f"{text}- [alpha](alpha.md) \u2014 A\n"
    # Repairing both, the broken line removed, stays offered.
    assert any(f.title == "Add the line for 'alpha' and remove the line for 'ghost.md' in MEMORY.md" and not f.safe
               for f in fixes)


# -- index-lists-non-living -------------------------------------------------------------------


def test_non_living_line_span_is_the_link_with_related_status(check_root):
    old = historical("old")
    text = f"{HEADER}\n\nPinned:\n- [old](old.md) \u2014 old\n"
    checked = check_root({"old.md": old, "MEMORY.md": text})
    [problem] = checked.problems("index-lists-non-living")
    assert problem.severity == "warning"
    assert problem.span == Span(3, 2, 3, 15)
    assert "'old' is historical but still listed" in problem.message
    [related] = problem.related
    assert related.location.path.name == "old.md"
    status_line = old.split("\n").index("status: historical")
    assert related.location.span == Span(status_line, 8, status_line, 18)


def test_remove_non_living_line_clears_the_problem(check_root):
    text = f"{HEADER}\n\nPinned:\n- [old](old.md) \u2014 old\n"
    checked = check_root({"old.md": historical("old"), "MEMORY.md": text})
    [problem] = checked.problems("index-lists-non-living")
    fix = only_fix(checked, problem, "Remove the line for 'old.md' in MEMORY.md")
    assert fix.safe
    after = apply(checked, fix)
    assert_fixed(checked, after, "index-lists-non-living")
    assert (root_of(after) / "MEMORY.md").read_text() == f"{HEADER}\n\nPinned:\n"


def test_living_lines_are_not_reported(check_root):
    checked = check_root({"alpha.md": living("alpha", "A"), "MEMORY.md": "Mine\n- [alpha](alpha.md) \u2014 A\n"})
    assert checked.problems("index-lists-non-living") == []
    assert checked.problems("index-missing-entry") == []


# -- index-missing-entry ----------------------------------------------------------------------


def test_missing_entry_in_a_curated_index_sits_on_its_last_line_with_related_name(check_root):
    text = f"{HEADER}\n\nHand-written intro.\n\n"
    beta = living("beta", "B")
    checked = check_root({"beta.md": beta, "MEMORY.md": text})
    [problem] = checked.problems("index-missing-entry")
    assert problem.severity == "warning"
    # "Add the line" appends after the last written line: the problem is shown there.
    assert problem.span == Span(2, 0, 2, len("Hand-written intro."))
    assert "living entry 'beta' (beta.md) has no line in MEMORY.md" in problem.message
    [related] = problem.related
    assert related.location.path.name == "beta.md"
    assert related.location.span == Span(1, 6, 1, 10)


def test_missing_entries_of_a_generated_index_sit_on_the_line_each_belongs_after(check_root):
    files = {
        "a.md": living("a"), "b.md": living("b"), "c.md": living("c"),
        "u.md": living("u", type_="user"), "v.md": living("v", type_="user"),
    }
    full = rendered(*files.items())
    lines = full.split("\n")
    # Drop b (between a and c) and u (first under its heading).
    text = "\n".join(line for line in lines if "(b.md)" not in line and "(u.md)" not in line)
    checked = check_root({**files, "MEMORY.md": text})
    spans = {p.data["filename"]: p.span for p in checked.problems("index-missing-entry")}
    at = text.split("\n")
    a_line = next(i for i, line in enumerate(at) if "(a.md)" in line)
    user_heading = at.index("## User")
    assert spans == {"b.md": Span(a_line, 0, a_line, len(at[a_line])),
                     "u.md": Span(user_heading, 0, user_heading, len("## User"))}


def test_missing_entry_one_problem_per_entry_and_not_for_shadowed_duplicates(check_root):
    files = {
        "a.md": living("same", "first"),
        "b.md": living("same", "second"),  # hidden by a.md: readers never show it
        "c.md": living("other"),
        "MEMORY.md": "Prose only.\n",
    }
    checked = check_root(files)
    assert sorted(p.data["filename"] for p in checked.problems("index-missing-entry")) == ["a.md", "c.md"]


def _unlisted(count: int) -> dict[str, str]:
    return {f"e{i:03d}.md": living(f"e{i:03d}", f"entry {i}") for i in range(count)}


def test_up_to_twenty_missing_entries_are_one_warning_each(check_root):
    checked = check_root({**_unlisted(MISSING_ENTRIES_APART), "MEMORY.md": "# Mine\n\nMy notes.\n"})
    problems = checked.problems("index-missing-entry")
    assert sorted(p.data["filename"] for p in problems) == sorted(_unlisted(MISSING_ENTRIES_APART))


def test_an_index_trimmed_on_purpose_gets_one_warning_counting_what_it_lacks(check_root):
    text = "# Mine\n\n- [e000](e000.md) \u2014 entry 0\nMy notes.\n\n"
    checked = check_root({**_unlisted(40), "MEMORY.md": text})
    [problem] = checked.problems("index-missing-entry")
    assert problem.severity == "warning"
    assert problem.message.startswith("39 living entries have no line in MEMORY.md ('e001', 'e002', 'e003' and 36 more)")
    assert 'index-missing-entry = "off"' in problem.message
    assert problem.span == Span(3, 0, 3, len("My notes."))  # where their lines would be appended
    assert [r.location.path.name for r in problem.related] == [f"e{i:03d}.md" for i in range(1, 11)]
    assert problem.data["missing"] == 39


def test_adding_the_lines_a_trimmed_index_lacks_is_offered_but_never_safe(check_root):
    text = "# Mine\n\nMy notes.\n"
    checked = check_root({**_unlisted(30), "MEMORY.md": text})
    [problem] = checked.problems("index-missing-entry")
    fixes = {f.title: f for f in fixes_for(checked.ctx, problem)}
    add = fixes["Add the lines of 30 entries in MEMORY.md"]
    assert not add.safe
    assert not any(f.safe for f in fixes.values())
    after = apply(checked, add)
    assert after.problems("index-missing-entry") == []
    assert (root_of(after) / "MEMORY.md").read_text().startswith(text)


def test_the_safe_repair_of_a_trimmed_index_removes_its_broken_line_and_adds_nothing(check_root):
    text = "# Mine\n\n- [gone](gone.md) \u2014 a file that is gone\nMy notes.\n"
    checked = check_root({**_unlisted(30), "MEMORY.md": text})
    [broken] = checked.problems("index-broken-link")
    [safe] = [f for f in fixes_for(checked.ctx, broken) if f.safe]
    after = apply(checked, safe)
    assert (root_of(after) / "MEMORY.md").read_text() == "# Mine\n\nMy notes.\n"
    assert after.problems("index-missing-entry")[0].data["missing"] == 30


def test_a_line_linking_elsewhere_after_its_entry_is_that_entry_s_line_not_a_broken_one(check_root):
    text = "# Mine\n\n- [Deploy notes, read first](e001.md): see also [runbook](runbook.md)\n"
    checked = check_root({**_unlisted(30), "MEMORY.md": text})
    assert checked.problems("index-broken-link") == []
    [missing] = checked.problems("index-missing-entry")
    assert missing.data["missing"] == 29


def test_adding_lines_that_would_push_the_index_past_what_claude_code_loads_is_never_safe(check_root):
    text = "# Mine\n" + "".join(f"Note {n}.\n" for n in range(198))  # 199 lines: Claude Code loads them all
    checked = check_root({**_unlisted(2), "MEMORY.md": text})
    problems = checked.problems("index-missing-entry")
    assert len(problems) == 2 and checked.problems("index-beyond-claude-code-limit") == []
    for problem in problems:
        fixes = fixes_for(checked.ctx, problem)
        assert [f.title for f in fixes if f.title.startswith("Add")] == [
            f"Add the line for '{problem.data['entry']}' in MEMORY.md", "Add the lines for 'e000', 'e001' in MEMORY.md"]
        assert not any(f.safe for f in fixes)


@pytest.mark.parametrize("stem", ["a(b)", "notes (old)", "a:b"])
def test_a_line_for_an_entry_whose_file_name_holds_parentheses_or_a_colon_is_its_line(check_root, stem):
    text = f"# Mine\n\n- [odd]({stem}.md) my own hook\n"
    checked = check_root({f"{stem}.md": living("odd"), "MEMORY.md": text})
    assert checked.problems("index-broken-link") == [] and checked.problems("index-missing-entry") == []


def test_add_line_is_the_safe_fix_in_a_curated_index_and_matches_the_engine_upsert(check_root):
    text = f"{HEADER}\n\nHand-written intro.\n"
    beta = living("beta", "B")
    checked = check_root({"beta.md": beta, "MEMORY.md": text})
    [problem] = checked.problems("index-missing-entry")
    fixes = {f.title: f for f in fixes_for(checked.ctx, problem)}
    assert fixes["Add the line for 'beta' in MEMORY.md"].safe
    assert not fixes["Regenerate MEMORY.md (replaces its hand-written lines)"].safe
    after = apply(checked, fixes["Add the line for 'beta' in MEMORY.md"])
    assert_fixed(checked, after, "index-missing-entry")
    entry = parse_document(beta, path=root_of(after) / "beta.md").entry
    assert (root_of(after) / "MEMORY.md").read_text() == upsert_index_line(text, entry)


def test_budgeted_index_does_not_report_entries_its_budget_left_out(check_root):
    files = {f"e{i}.md": living(f"e{i}", "x" * 40) for i in range(6)}
    checked = check_root(files)
    store_of(checked).write_index(budget=150)
    after = recheck(checked)
    text = (root_of(after) / "MEMORY.md").read_text()
    assert "more entries omitted (budget 150 bytes)" in text
    assert not (INDEX_CODES & after.codes())


# -- invalid-index-policy ------------------------------------------------------------------------


def _policy_problem(check_root, policy_text: str, files=None):
    checked = check_root({"alpha.md": living("alpha"), **(files or {}), ".memory-index.json": policy_text})
    [problem] = checked.problems("invalid-index-policy")
    assert problem.severity == "error"
    assert problem.path.name == ".memory-index.json"
    return problem


def test_invalid_policy_json_points_at_the_syntax_error(check_root):
    problem = _policy_problem(check_root, '{"version": 1,\n "budget": 100,\n "selected": [}\n')
    assert problem.message.startswith("invalid .memory-index.json: Expecting value")
    assert problem.span == Span(2, 14, 2, 15)


def test_invalid_policy_budget_points_at_the_budget_value(check_root):
    problem = _policy_problem(check_root, '{"version": 1, "budget": 5, "selected": []}')
    assert problem.message.startswith("index policy budget must be at least 20 bytes")
    assert problem.span == Span(0, 25, 0, 26)


def test_invalid_policy_version_points_at_the_version_value(check_root):
    problem = _policy_problem(check_root, '{\n  "version": 2,\n  "budget": 500,\n  "selected": []\n}\n')
    assert problem.message == "unsupported .memory-index.json version"
    assert problem.span == Span(1, 13, 1, 14)


def test_invalid_policy_missing_key_points_at_the_first_line(check_root):
    problem = _policy_problem(check_root, '{"version": 1, "budget": 500}\n')
    assert problem.message == ".memory-index.json requires version, budget, selected"
    assert problem.span == Span(0, 0, 0, 29)


def test_invalid_policy_duplicate_points_at_the_second_occurrence(check_root):
    problem = _policy_problem(
        check_root, '{"version": 1, "budget": 500, "selected": ["alpha.md", "alpha.md"]}'
    )
    assert problem.message == "index policy selected contains duplicate filenames"
    assert problem.span == Span(0, 55, 0, 65)


def test_invalid_policy_non_local_filename_points_at_the_item(check_root):
    problem = _policy_problem(
        check_root, '{"version": 1, "budget": 500, "selected": ["alpha.md", "../x.md"]}'
    )
    assert problem.message == "index policy selected must contain local entry filenames"
    assert problem.span == Span(0, 55, 0, 64)


def test_policy_selecting_a_non_living_entry_points_at_the_item(check_root):
    text = '{\n  "version": 1,\n  "budget": 500,\n  "selected": [\n    "alpha.md",\n    "old.md"\n  ]\n}\n'
    problem = _policy_problem(check_root, text, {"old.md": historical("old")})
    assert problem.message.startswith("selected memory 'old.md' is missing or not living")
    assert problem.span == Span(5, 4, 5, 12)
    assert problem.related[0].location.path.name == "old.md"


def test_policy_selecting_a_missing_file_is_reported(check_root):
    problem = _policy_problem(check_root, '{"version": 1, "budget": 500, "selected": ["nope.md"]}')
    assert problem.message.startswith("selected memory 'nope.md' is missing or not living")
    assert problem.span == Span(0, 43, 0, 52)


def test_valid_policy_is_not_reported(check_root):
    checked = check_root({
        "alpha.md": living("alpha"),
        ".memory-index.json": '{"version": 1, "budget": 500, "selected": ["alpha.md"]}',
    })
    assert checked.problems("invalid-index-policy") == []
    assert checked.problems("index-over-budget") == []


# -- index-over-budget -------------------------------------------------------------------------------


def test_over_budget_points_at_the_budget_value(check_root):
    policy = '{"version": 1, "budget": 40, "selected": ["alpha.md"]}'
    checked = check_root({"alpha.md": living("alpha", "a long description " * 3), ".memory-index.json": policy})
    [problem] = checked.problems("index-over-budget")
    assert problem.severity == "error"
    assert problem.span == Span(0, 25, 0, 27)
    size = len(rendered(("alpha.md", living("alpha", "a long description " * 3))).encode())
    assert problem.message.startswith(f"selected memory index needs {size} bytes, exceeds budget 40")
    assert checked.problems("index-drift") == []


# -- index-beyond-claude-code-limit ----------------------------------------------------------------------


def test_beyond_claude_code_limit_spans_from_first_hidden_line_to_end(check_root):
    files = {f"e{i:03d}.md": living(f"e{i:03d}", "d") for i in range(205)}
    checked = check_root(files)
    store_of(checked).write_index()
    after = recheck(checked)
    text = (root_of(after) / "MEMORY.md").read_text()
    lines = text.split("\n")[:-1]  # header, blank, heading, 205 lines
    [problem] = after.problems("index-beyond-claude-code-limit")
    assert problem.severity == "warning"
    assert problem.span == Span(200, 0, len(lines) - 1, len(lines[-1]))
    assert "8 entries from line 201 on are invisible to the agent" in problem.message


def test_budgeted_regenerate_fits_claude_code_and_leaves_no_new_problem(check_root):
    files = {f"e{i:03d}.md": living(f"e{i:03d}", "d") for i in range(205)}
    checked = check_root(files)
    store_of(checked).write_index()
    checked = recheck(checked)
    [problem] = checked.problems("index-beyond-claude-code-limit")
    fix = only_fix(checked, problem, "Regenerate")
    assert not fix.safe  # it drops entries from the index
    after = apply(checked, fix)
    assert_fixed(checked, after, "index-beyond-claude-code-limit")
    assert not (INDEX_CODES & after.codes())


def test_short_index_is_within_claude_code_limit(check_root):
    checked = check_root({"alpha.md": living("alpha")})
    store_of(checked).write_index()
    assert recheck(checked).problems("index-beyond-claude-code-limit") == []


def test_codes_switched_off_are_not_reported(check_root):
    from memls.store.settings import Settings

    off = Settings(severity={"index-missing": "off", "index-missing-entry": "off"})
    checked = check_root({"alpha.md": living("alpha"), "MEMORY.md": "Prose.\n"}, settings=off)
    assert checked.problems("index-missing-entry") == []
    assert checked.problems("index-missing") == []


def test_check_absent_ignores_paths_that_are_not_an_index(check_root):
    from memls.store.checks.index import check_absent

    checked = check_root({"alpha.md": living("alpha")})
    assert check_absent(checked.ctx, root_of(checked) / "gone.md") == []
    assert check_absent(checked.ctx, Path("/elsewhere/MEMORY.md")) == []


# -- an index larger than an entry may be ----------------------------------------------------------


def test_an_index_over_the_entry_size_cap_is_still_read_and_checked(check_root):
    # ~4 KiB a line: 300 entries make a MEMORY.md of more than 1 MiB, the cap an entry has.
    files = {f"e{i:03d}.md": living(f"e{i:03d}", f"{i} " + "long description " * 240) for i in range(300)}
    checked = check_root(files)
    store_of(checked).write_index()
    index = root_of(checked) / "MEMORY.md"
    assert index.stat().st_size > MAX_DOCUMENT_BYTES
    after = recheck(checked)
    [problem] = after.problems("index-beyond-claude-code-limit")
    assert "entries from line" in problem.message
    assert INDEX_CODES & after.codes() == {"index-beyond-claude-code-limit"}
    # A line whose file is gone is found in it like in any index.
    (root_of(checked) / "e007.md").unlink()
    [broken] = recheck(checked).problems("index-broken-link")
    assert "e007.md" in broken.message


def test_an_index_past_its_own_cap_is_reported_not_passed_in_silence(check_root):
    checked = check_root({"alpha.md": living("alpha")})
    with open(root_of(checked) / "MEMORY.md", "wb") as f:
        f.truncate(MAX_INDEX_BYTES + 1)
    after = recheck(checked)
    [problem] = after.problems("index-beyond-claude-code-limit")
    assert "does not read or check it" in problem.message
    assert fixes_for(after.ctx, problem) == []


# -- the fixes of many line problems ------------------------------------------------------


CURATED_WITH_BROKEN_LINES = "# Mine\n\n" + "".join(f"- [x{i}](x{i}.md) \u2014 gone\n" for i in range(30))


def test_every_line_problem_of_a_curated_index_offers_its_own_repair_and_one_shared_repair_of_all(check_root):
    checked = check_root({"MEMORY.md": CURATED_WITH_BROKEN_LINES})
    problems = checked.problems("index-broken-link")
    assert len(problems) == 30
    offered = [fixes_for(checked.ctx, p) for p in problems]
    # The repair of all lines is built once for the root, not once per problem.
    shared = {id(fixes[1]) for fixes in offered}
    assert len(shared) == 1
    assert offered[0][1].title.startswith("Remove the lines for 'x0.md', 'x1.md'")
    for i, fixes in enumerate(offered):
        assert fixes[0].title == f"Remove the line for 'x{i}.md' in MEMORY.md"
        [edit] = fixes[0].operations
        repaired = apply_edits(CURATED_WITH_BROKEN_LINES, [edit])
        assert repaired == CURATED_WITH_BROKEN_LINES.replace(f"- [x{i}](x{i}.md) \u2014 gone\n", "")
    [edit] = offered[0][1].operations
    assert apply_edits(CURATED_WITH_BROKEN_LINES, [edit]) == "# Mine\n\n"


def test_the_shared_repair_of_all_lines_follows_an_entry_that_changed_since(check_root):
    checked = check_root({"MEMORY.md": CURATED_WITH_BROKEN_LINES})
    [before, *_] = checked.problems("index-broken-link")
    assert "add the line" not in fixes_for(checked.ctx, before)[1].title
    root = root_of(checked)
    (root / "x0.md").write_text(entry_text("x0", "back"), encoding="utf-8")
    checked.workspace.update_from_disk(root / "x0.md")
    (root / "new.md").write_text(entry_text("new", "fresh"), encoding="utf-8")
    checked.workspace.update_from_disk(root / "new.md")
    problems = [p for ps in check_workspace(checked.ctx).values() for p in ps if p.code == "index-broken-link"]
    assert len(problems) == 29
    title = fixes_for(checked.ctx, problems[0])[1].title
    assert title.startswith("Add the line for 'new' and remove the lines for 'x1.md'") and "'x0.md'" not in title


def _root_beyond_claude_codes_limit(tmp_path):
    """A root of 260 entries with its generated MEMORY.md (longer than Claude Code loads), and its model."""
    from memls.store.model import Workspace
    from memls.store.roots import MemoryRoot as Root
    from memls.store.store import MemoryStore as Store

    root = tmp_path / "m"
    root.mkdir()
    for i in range(260):
        (root / f"e{i:03d}.md").write_text(f'---\nname: e{i:03d}\ndescription: "fact {i}"\n---\n\nBody.\n')
    Store([Root("explicit", root)]).write_index()
    return root, Workspace.load([Root("explicit", root)])


def _limit_problem(ctx):
    from memls.store.checks import check_workspace

    [problem] = [p for found in check_workspace(ctx).values() for p in found
                 if p.code == "index-beyond-claude-code-limit"]
    return problem


def test_regenerating_within_claude_codes_limit_formats_each_line_once(tmp_path, count_calls):
    # The fix searches for the largest budget Claude Code loads whole; each
    # budget tried rendered the root anew, formatting every line again.
    from memls.store.checks import CheckContext, fixes_for
    from memls.store.entry import MemoryEntry

    _, workspace = _root_beyond_claude_codes_limit(tmp_path)
    ctx = CheckContext(workspace)
    problem = _limit_problem(ctx)
    formatted = count_calls(MemoryEntry, "index_line")
    [fix] = fixes_for(ctx, problem)
    assert "within" in fix.title
    assert formatted.calls <= 2 * 260


def test_the_regeneration_within_claude_codes_limit_is_kept_until_an_entry_changes(tmp_path, count_calls):
    # An editor asks for MEMORY.md's code actions at every move of the cursor,
    # and its fix-all asks for this fix each time: the search over budgets is
    # done once per state of the root, and what it offers is the engine's render.
    import re

    from memls.store.checks import CheckContext, fixes_for
    from memls.store.edits import apply_edits
    from memls.store.entry import MemoryEntry
    from memls.store.index import index_entries, parse_index_lines, render_index

    root, workspace = _root_beyond_claude_codes_limit(tmp_path)
    ctx = CheckContext(workspace)

    def offered(formatted=None):
        problem = _limit_problem(ctx)
        before = formatted.calls if formatted is not None else 0
        [fix] = fixes_for(ctx, problem)
        if formatted is not None:
            assert formatted.calls == before, "the kept search formats no line again"
        [edit] = fix.operations
        text = apply_edits((root / "MEMORY.md").read_text(encoding="utf-8"), [edit])
        budget = int(re.search(r"within (\d+) bytes", fix.title)[1])
        state = workspace.roots[0]
        assert text == render_index(index_entries(state.entries_for_index(), managed=False), budget=budget)
        left_out = 260 - len(parse_index_lines(text))
        assert f"(leaves out {left_out} entries)" in fix.title
        return fix, text

    first, _ = offered()
    again, _ = offered(count_calls(MemoryEntry, "index_line"))
    assert again == first
    (root / "e000.md").write_text('---\nname: e000\ndescription: "changed"\n---\n\nBody.\n')
    workspace.update_from_disk(root / "e000.md")
    _, text = offered()
    assert "[e000](e000.md) \u2014 changed" in text


# -- an index that cannot be read -------------------------------------------------------


NON_UTF8_INDEX = b"# M\n- [x](e01.md) \xff\xfe hook\n- [g](gone.md) - broken\n"


def special_index(root: Path, kind: str) -> None:
    """``MEMORY.md`` as a FIFO, a symlink to ``/dev/zero`` or bytes that are not UTF-8."""
    index = root / "MEMORY.md"
    if kind == "fifo":
        os.mkfifo(index)
    elif kind == "zero":
        index.symlink_to("/dev/zero")
    else:
        index.write_bytes(NON_UTF8_INDEX)


@pytest.mark.timeout(30)  # a FIFO opened for reading blocks; /dev/zero read whole never ends
@pytest.mark.parametrize("kind", ["fifo", "zero", "non-utf8"])
def test_an_index_memls_cannot_read_is_reported_as_an_entry_would_be_not_as_missing(check_root, kind):
    checked = check_root({f"e{i:02d}.md": living(f"e{i:02d}") for i in range(1, 26)})
    special_index(root_of(checked), kind)
    after = recheck(checked)
    [problem] = after.problems()
    assert problem.code == "invalid-entry" and problem.path == root_of(after) / "MEMORY.md"
    assert problem.message.startswith("MEMORY.md cannot be read (")
    expected = "not UTF-8 text (byte 18)" if kind == "non-utf8" else "not a regular file"
    assert expected in problem.message
    assert fixes_for(after.ctx, problem) == []
