"""The check catalogue: every code memls reports, its default severity and its fixes.

Codes are stable and kebab-case; the README's table is generated from (and
tested against) this list, so the documentation cannot drift from the
checks. ``audit_code`` names the gptme audit code a problem rolls up to in
``memls audit`` (gptme's six codes keep their names and output format);
checks gptme does not have show in ``memls check`` and the editor only.
"""

from __future__ import annotations

from pathlib import Path

from .diagnostics import Problem, Severity
from .structs import struct

# Where a diagnostic's code links to: one Markdown page per code, generated
# from this catalogue and shipped as package data beside this module (in a
# wheel, an editable install and the VS Code extension's bundled copy alike),
# so the link opens a file that exists wherever memls runs. No web address:
# nothing is published under one.
PAGES_DIR = Path(__file__).resolve().parent / "codes"


@struct
class CheckSpec:
    """One check of the catalogue: its stable code, family, default severity, what sets it off and the fixes it offers."""

    code: str
    family: str
    severity: Severity
    trigger: str
    fixes: str = ""
    audit_code: str | None = None

    @property
    def docs_path(self) -> Path:
        """This code's page (``memls explain CODE`` prints the same text)."""
        return PAGES_DIR / f"{self.code}.md"

    @property
    def docs_url(self) -> str:
        return self.docs_path.as_uri()


CATALOGUE: tuple[CheckSpec, ...] = (
    # -- frontmatter ----------------------------------------------------------
    CheckSpec("invalid-entry", "frontmatter", "error",
              "a `.md` file in a memory root has no frontmatter, an empty one, no usable name, is not UTF-8 text, or cannot be opened (a broken or looping symlink, a directory named `x.md`); "
              "also a `MEMORY.md` that is not UTF-8 text or not a regular file (a FIFO, a device, a directory): it is not checked, never opened unless regular, and no write replaces it",
              audit_code="invalid-entry"),
    CheckSpec("invalid-yaml", "frontmatter", "error",
              "the frontmatter is not valid YAML (at the exact position), or uses a tag safe loading refuses (`!!python/object`)",
              audit_code="invalid-yaml"),
    CheckSpec("frontmatter-not-mapping", "frontmatter", "error",
              "the frontmatter is YAML but not a mapping of keys to values",
              audit_code="invalid-yaml"),
    CheckSpec("invalid-field", "frontmatter", "error",
              "a known field has the wrong type (`name`, `description`, `title`, `metadata`, `type`, `supersedes`, `superseded_by`, `provenance`, `confidence` 0..1, `keywords`, `recheck`)",
              audit_code="invalid-yaml"),
    CheckSpec("unknown-status", "frontmatter", "error",
              "`status` is not one of `living`, `superseded`, `historical`",
              "set the status to one of the three", audit_code="invalid-yaml"),
    CheckSpec("missing-name", "frontmatter", "warning",
              "no `name` key: the entry is named after its file, which breaks if the file is renamed",
              "add `name:` with the file's stem (with its slug, never applied unasked, when no `MEMORY.md` line can hold the stem)"),
    CheckSpec("missing-description", "frontmatter", "warning",
              "`description` is missing, empty, or the placeholder created entries used to start with (Claude Code shows it in `MEMORY.md` to decide when to read the entry)"),
    CheckSpec("unknown-key", "frontmatter", "hint",
              "a top-level key memls does not know (it is kept on every rewrite)"),
    CheckSpec("name-filename-mismatch", "frontmatter", "warning",
              "`name` is not the file's stem: gptme's `save` of that name writes a different file",
              "rename the entry (file, name and links) to match"),
    CheckSpec("unsafe-index-text", "frontmatter", "warning",
              "a name, description or title would break its `MEMORY.md` line (a line break or NUL, `[` / `]` in the link text, "
              "or a lone surrogate such as `\"\\ud835\"`), or a type its section heading. The line shows a description made safe (line breaks folded, "
              "NUL removed, a lone surrogate as U+FFFD) and link text with its line breaks folded; an entry whose link text "
              "(the title, else the name) still holds a NUL, a bracket or a lone surrogate, or whose type holds a line break, "
              "NUL or lone surrogate, gets no new line in `MEMORY.md` (one the index holds is kept), "
              "and the rest of the index is written",
              "fold the line breaks into spaces"),
    CheckSpec("file-too-large", "frontmatter", "error",
              "the file is larger than memls reads (1 MiB): list, show and recall skip it; only its frontmatter is read, for its `MEMORY.md` line", audit_code="invalid-entry"),
    CheckSpec("alias-expansion-too-large", "frontmatter", "error",
              "a frontmatter value whose YAML aliases expand past 10,000 values (an alias bomb, or a value containing itself): memls leaves it out of what it reads and refuses to rewrite the file"),
    # -- reserved names ---------------------------------------------------------
    CheckSpec("reserved-name", "names", "error",
              "a `memory*.md` file holds an entry (every reader skips it, so it is invisible), or a `name` whose slug starts with `memory`",
              "rename to a suggested free name (file, name, links and index line)"),
    CheckSpec("slug-collision", "names", "error",
              "two names in one root have the same slug, so gptme's `save` of one overwrites the other's file",
              "rename to a suggested free name"),
    # -- supersession -------------------------------------------------------------
    CheckSpec("duplicate-name", "supersession", "error",
              "two files in one root use the same `name`; readers see only the first",
              "rename to a suggested free name", audit_code="duplicate-name"),
    CheckSpec("dangling-supersedes", "supersession", "error",
              "a `supersedes` item names no entry in this root",
              "remove the item; retarget it to the closest name; create the missing entry",
              audit_code="dangling-supersedes"),
    CheckSpec("dangling-superseded-by", "supersession", "error",
              "`superseded_by` names no entry in this root",
              "remove the link; retarget it to the closest name; create the missing entry",
              audit_code="dangling-superseded-by"),
    CheckSpec("asymmetric-supersession", "supersession", "error",
              "one side of a supersession link is missing in the other file",
              "add the missing back-link in the other file", audit_code="asymmetric-supersession"),
    CheckSpec("self-supersession", "supersession", "error",
              "an entry supersedes itself or is superseded by itself",
              "remove the link"),
    CheckSpec("supersession-cycle", "supersession", "error",
              "following `superseded_by` leads back to the start"),
    CheckSpec("forked-succession", "supersession", "warning",
              "two living entries both claim to supersede the same entry"),
    CheckSpec("living-with-successor", "supersession", "warning",
              "`superseded_by` is set but `status` is `living`",
              "set `status: superseded`"),
    CheckSpec("superseded-without-successor", "supersession", "warning",
              "`status` is `superseded` but no `superseded_by` names the successor",
              "set `status: historical`; set `status: living`; set `superseded_by` to an entry that lists it in `supersedes`"),
    CheckSpec("cross-root-link", "supersession", "warning",
              "a link names an entry that exists only in another memory root (supersession never crosses roots)",
              "remove the link"),
    CheckSpec("superseded-reference", "supersession", "hint",
              "`superseded_by` names an entry that is itself superseded: the current entry is further down the chain (shown struck through)"),
    # -- index ----------------------------------------------------------------------
    CheckSpec("index-drift", "index", "warning",
              "a policy-managed root's `MEMORY.md` differs from its selected view (a legacy index that is not memls's rendering is curated: only its lines are checked)",
              "regenerate `MEMORY.md`"),
    CheckSpec("index-missing", "index", "warning",
              "the root has living entries but no `MEMORY.md`",
              "generate `MEMORY.md`"),
    CheckSpec("index-broken-link", "index", "error",
              "a `MEMORY.md` line links to a file that is not an entry of this root",
              "point the line at the file its entry was moved to by hand (`mv deploy.md deploy-notes.md`), "
              "keeping its words; remove the line (never applied unasked while the file is still there and "
              "memls cannot read it: a broken symlink, a directory, a file without frontmatter, a file below or "
              "outside the root, or a line whose link text is not its deleted entry's name: its words are "
              "yours); regenerate `MEMORY.md`"),
    CheckSpec("index-lists-non-living", "index", "warning",
              "a `MEMORY.md` line lists a superseded or historical entry",
              "remove the line; regenerate `MEMORY.md`"),
    CheckSpec("index-missing-entry", "index", "warning",
              "a living entry has no line in a legacy root's `MEMORY.md` (more than 20 such entries: one warning on the index that counts them, as an index trimmed on purpose lacks most entries)",
              "add its line, or point its old line at its file when it was moved by hand; "
              "add the lines of all of them (never applied by `--fix` beyond 20); regenerate `MEMORY.md`"),
    CheckSpec("invalid-index-policy", "index", "error",
              "`.memory-index.json` is malformed, or selects a missing or non-living entry"),
    CheckSpec("index-over-budget", "index", "error",
              "the policy's selected view needs more bytes than its budget"),
    CheckSpec("index-beyond-claude-code-limit", "index", "warning",
              "`MEMORY.md` is longer than Claude Code loads at the start of a conversation (200 lines or 25 KiB): the entries beyond are invisible to the agent",
              "regenerate with a budget"),
    CheckSpec("index-line-kept", "index", "information",
              "a save of an entry whose frontmatter does not load, or an editor's automatic save (after a pause, on focus change) of an entry with errors or without a description, left its `MEMORY.md` line as it was, as does an automatic save that changed the entry's name, title, type or status (editor only)",
              "finish the entry, or save it explicitly"),
    # -- freshness and layering ----------------------------------------------------
    CheckSpec("recheck-due", "freshness", "information",
              "the `recheck` date has passed: the entry should be verified again"),
    CheckSpec("shadowed-entry", "layering", "information",
              "the entry hides a same-named entry in a farther root"),
)

_BY_CODE = {spec.code: spec for spec in CATALOGUE}


def spec(code: str) -> CheckSpec:
    """The catalogue entry for ``code`` (KeyError for a code that does not exist)."""
    return _BY_CODE[code]


def codes() -> tuple[str, ...]:
    return tuple(_BY_CODE)


def catalogue_markdown() -> str:
    """The README's catalogue table (a test keeps the README equal to this)."""
    rows = [
        "| code | family | severity | triggered when | fixes | in `memls audit` as |",
        "|---|---|---|---|---|---|",
    ]
    for item in CATALOGUE:
        rows.append(
            f'| <a id="{item.code}"></a>`{item.code}` | {item.family} | {item.severity} '
            f"| {item.trigger} | {item.fixes or '—'} | {f'`{item.audit_code}`' if item.audit_code else '—'} |"
        )
    return "\n".join(rows) + "\n"


def explain_markdown(code: str) -> str:
    """One code's page: what triggers it, its severity, its fixes (``memls explain CODE``)."""
    item = spec(code)
    lines = [
        f"# `{item.code}`",
        "",
        f"- family: {item.family}",
        f"- default severity: {item.severity}",
        f"- in `memls audit` as: {f'`{item.audit_code}`' if item.audit_code else 'not reported by `memls audit`'}",
        "",
        "## Reported when",
        "",
        _sentence(item.trigger),
        "",
        "## Fixes offered",
        "",
    ]
    fixes = [f.strip() for f in item.fixes.split(";") if f.strip()]
    lines += [f"- {_sentence(f)}" for f in fixes] if fixes else ["None: the entry must be edited by hand."]
    lines += [
        "",
        "## Severity",
        "",
        f"Change it per workspace with `{item.code} = \"warning\"` (or `off`, `hint`, `information`,"
        " `error`) under `[severity]` in `.memls.toml` (`[tool.memls.severity]` in `pyproject.toml`),"
        " or in the editor's `memls.severity` setting.",
        "",
    ]
    return "\n".join(lines)


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", ")")) else ".")


def write_pages(directory: Path = PAGES_DIR) -> list[Path]:
    """Write every code's page into ``directory`` and remove pages of codes that are gone."""
    directory.mkdir(parents=True, exist_ok=True)
    wanted = {f"{code}.md" for code in codes()}
    for stale in directory.glob("*.md"):
        if stale.name not in wanted:
            stale.unlink()
    written = []
    for code in codes():
        path = directory / f"{code}.md"
        path.write_text(explain_markdown(code), encoding="utf-8")
        written.append(path)
    return written


def audit_code_of(problem: Problem) -> str | None:
    """The gptme audit code a problem rolls up to, if any."""
    return problem.data.get("audit_code") or spec(problem.code).audit_code


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--pages"]:
        for page in write_pages():
            print(page)
    else:
        print(catalogue_markdown(), end="")
