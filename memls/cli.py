"""``memls``: the memory store on the command line, a drop-in for ``gptme-util memory``.

Every subcommand of ``gptme-util memory`` that works on the store is here with
the same name, arguments, output and exit status, so hooks and AGENTS.md
snippets written for gptme run unchanged with ``memls`` in its place. memls
adds lifecycle commands gptme lacks: ``rename``, ``delete`` and ``historical``.

The CLI is a thin client of the engine: it parses arguments, builds a
:class:`~memls.store.store.MemoryStore` for the current workspace, calls it, and
prints. Three rules hold for every subcommand, present and future:

* The store is built afresh from the workspace on each call
  (:func:`open_store`), so ``MEMLS_MEMORY_DIRS`` / ``GPTME_MEMORY_DIRS`` and
  the workspace layout always apply.
* Memory text printed for a person goes through :mod:`memls.store.text` (no
  terminal control characters); JSON output is printed unchanged.
* A failure is one line on stderr, ``Error: <message>``, and exit status 1;
  never a traceback (:class:`MemlsGroup`). Usage errors stay click's (exit 2).

Adding a subcommand (``check``, ``serve``) is one decorated function: register
it with ``@cli.command(...)`` and the error handling comes with the group.
"""

from __future__ import annotations

import difflib
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from memls.reads import (
    audit_text,
    clean_block,
    clean_line,
    entry_line,
    index_text,
    list_text,
    no_entry_message,
    show_text,
    skipped_note,
)
from memls.store.entry import STATUSES
from memls.store.errors import ChangedMeanwhile, LockTimeoutError, MemoryParseError, RecallBackendUnavailable
from memls.store.text import one_line

if TYPE_CHECKING:
    from memls.store.entry import MemoryEntry
    from memls.store.recall import RecallBackend
    from memls.store.roots import MemoryRoot
    from memls.store.store import MemoryStore

# Each command imports the engine modules it uses in its body: a process runs
# one command, and importing every module for every command cost more than a
# cached `index` does.

# Failures that are the user's input or the disk, not a bug: printed as their
# message alone. Anything else still gets one line, with its type in front.
# (Listed by name even where a base class already covers them: MemoryParseError
# and UnicodeDecodeError are ValueErrors, LockTimeoutError is an OSError.)
EXPECTED_ERRORS: tuple[type[BaseException], ...] = (
    KeyError,
    ValueError,
    OSError,
    MemoryParseError,
    UnicodeDecodeError,
    LockTimeoutError,
    RecallBackendUnavailable,
    ChangedMeanwhile,  # another program wrote a file memls was writing; nothing was written
)
RECALL_BACKENDS = ("auto", "bm25", "overlap", "tfidf")
OUTPUT_FORMATS = ("text", "json", "hook-json")
# ``memls check --format``: memls.store.report.FORMATS, spelled out so that
# every other command starts without the report module (a test pins the two).
CHECK_FORMATS = ("text", "json", "github")
USER_PROMPT_SUBMIT = "UserPromptSubmit"
PRE_TOOL_USE = "PreToolUse"


# --------------------------------------------------------------------------
# Shared helpers: errors, store construction, output


def error_message(exc: BaseException) -> str:
    """The one-line message for ``exc`` as the user should read it.

    ``str(KeyError("x"))`` is ``"'x'"``: Python quotes the key, which turns a
    sentence into a quoted string. The sentence is the first argument.
    Unexpected exception types keep their type name, since the message alone
    may not say what went wrong.
    """
    if isinstance(exc, KeyError) and exc.args:
        text = str(exc.args[0])
    else:
        text = str(exc)
    if not isinstance(exc, EXPECTED_ERRORS):
        text = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return one_line(text) or type(exc).__name__


def fail(message: str) -> NoReturn:
    """Print ``Error: <message>`` on stderr and exit 1."""
    click.echo(f"Error: {one_line(message)}", err=True)
    sys.exit(1)


class MemlsGroup(click.Group):
    """The command group; turns every failure of a subcommand into one line.

    Wrapping ``invoke`` covers the subcommand's body and its parameter
    callbacks (``--scope`` validation reads the roots too). Click's own
    exceptions pass through: they carry usage errors (exit 2) and deliberate
    exit statuses.
    """

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except Exception as exc:  # noqa: BLE001 - last resort: never a traceback
            fail(error_message(exc))


def open_store() -> MemoryStore:
    """A store over the roots of the current workspace, resolved now."""
    from memls.store.store import MemoryStore

    return MemoryStore.from_workspace()


def echo_json(value: Any, *, indent: int | None = 2) -> None:
    """JSON as gptme prints it: indented, ASCII-escaped, odd values stringified."""
    click.echo(json.dumps(value, indent=indent, default=str))


def print_entries(store: MemoryStore, entries: list[MemoryEntry], as_json: bool) -> None:
    """``list``/``search`` output: JSON, or one line per entry; then the skipped note."""
    if as_json:
        echo_json([e.to_dict() for e in entries])
    else:
        for entry in entries:
            click.echo(entry_line(entry))
    report_skipped(len(store.errors))


def report_skipped(skipped: int) -> None:
    """How many files the read skipped, on stderr (stdout stays data)."""
    if skipped:
        click.echo(skipped_note(skipped), err=True, nl=False)


def validate_scope(
    ctx: click.Context, param: click.Parameter, value: str | None
) -> str | None:
    """Reject a ``--scope`` no resolved root has, as a usage error (exit 2)."""
    if value is None:
        return None
    scopes = list(dict.fromkeys(root.scope for root in open_store().roots))
    if value not in scopes:
        raise click.BadParameter(
            f"{value!r} is not one of {', '.join(repr(s) for s in scopes)}",
            ctx=ctx,
            param=param,
        )
    return value


def hook_json(event: str, context: str) -> str:
    """A Claude Code hook response that adds ``context`` to the turn."""
    return json.dumps(
        {"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}}
    )


def piped_stdin() -> str | None:
    """What was piped in on stdin; None for a terminal or no stdin at all.

    A process started with its stdin closed (some hook runners and CI do)
    has no ``sys.stdin``; that is "nothing piped", not an error.
    """
    stream = sys.stdin
    if stream is None or stream.closed or stream.isatty():
        return None
    return stream.read()


def read_prompt(prompt: str | None) -> str:
    """The recall query: the text given, or stdin for ``-`` or when piped.

    For ``-`` the input may be a Claude Code hook payload; its ``prompt`` is
    the query. A terminal is never read: a query-less call from a person is
    a mistake, not a request to wait for input.
    """
    from memls.store.match import recall_prompt_text

    if prompt == "-":
        return recall_prompt_text(piped_stdin() or "")
    if prompt is not None:
        return prompt
    piped = piped_stdin()
    if piped is not None:
        return piped
    raise click.UsageError("provide QUERY or --prompt - to read stdin")


def read_match_input(prompt: str | None, pre_tool: bool) -> tuple[str, str]:
    """The text to match and the hook event to answer for."""
    from memls.store.match import hook_event_text

    default_event = PRE_TOOL_USE if pre_tool else USER_PROMPT_SUBMIT
    if prompt != "-":
        return read_prompt(prompt), default_event
    return hook_event_text(piped_stdin() or "", default_event=default_event)


def parse_metadata_option(metadata: str | None) -> dict[str, Any] | None:
    """``--metadata`` as a dict, or a usage error before anything is written.

    ``type`` is refused because the entry's type lives in ``metadata.type``
    on disk: letting ``--metadata`` set it would make two flags disagree.
    """
    if metadata is None:
        return None
    try:
        parsed = json.loads(metadata)
    except ValueError as exc:
        raise click.BadParameter("must be a JSON object", param_hint="--metadata") from exc
    if not isinstance(parsed, dict):
        raise click.BadParameter("must be a JSON object", param_hint="--metadata")
    if "type" in parsed:
        raise click.BadParameter("type is reserved; use --type", param_hint="--metadata")
    return parsed


def read_body(body_file: str | None) -> str:
    """The entry body: ``--body-file``, else piped stdin, else empty."""
    if body_file:
        return Path(body_file).read_text(encoding="utf-8")
    return piped_stdin() or ""


def written_entry(path: Path, scope: str) -> MemoryEntry:
    """The entry in the file just written, read back the way every reader reads it.

    Looking the name up in the store instead could answer with a nearer root's
    entry of the same name, which is not what was saved.
    """
    from memls.store.reader import read_root

    for entry in read_root(path.parent, scope).entries:
        if entry.path == path:
            return entry
    raise OSError(f"saved {path} but could not read it back")


# --------------------------------------------------------------------------
# The group


@click.group("memls", cls=MemlsGroup)
@click.version_option(package_name="memls", prog_name="memls")
def cli() -> None:
    """Agent memory store: Markdown entries with YAML frontmatter, in layered roots.

    A drop-in for `gptme-util memory`: same commands, same files, same output.
    Roots come from MEMLS_MEMORY_DIRS or GPTME_MEMORY_DIRS (os.pathsep
    separated), else the workspace's memory/ directory, the Claude Code
    project memory, the agent workspace and the user's config directory.

    A NAME means the entry whose name equals it; a file name or slug match
    counts only when no entry has that name and only one entry matches.
    """


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point (``memls``)."""
    cli.main(args=list(argv) if argv is not None else None, prog_name="memls")


# --------------------------------------------------------------------------
# Reading


@cli.command("roots")
@click.option("--json", "as_json", is_flag=True, help="Output as JSON.")
def roots_command(as_json: bool) -> None:
    """Show the resolved memory roots, nearest layer first, then the roots the settings add.

    The settings' ``roots`` (``.memls.toml``, ``[tool.memls]``) are served by
    ``check`` and the editor only, not by the gptme commands; they are listed
    last and marked so, because a root that ``check`` reports on but
    ``roots`` never names leaves the reader guessing where a problem came from.
    """
    from memls.store.roots import resolve_workspace
    from memls.store.settings import load_settings

    roots = open_store().roots
    seen = {r.path.resolve() for r in roots}
    settings_roots = []
    for path in load_settings(resolve_workspace()).roots:  # each directory once, as check and the editor serve it
        if (resolved := path.resolve()) not in seen:
            seen.add(resolved)
            settings_roots.append(path)
    if as_json:
        echo_json(
            [{"scope": r.scope, "path": str(r.path), "exists": r.path.is_dir()} for r in roots]
            + [{"scope": "explicit", "path": str(p), "exists": p.is_dir(), "from": "settings"}
               for p in settings_roots]
        )
        return
    for r in roots:
        marker = "" if r.path.is_dir() else "  (missing)"
        click.echo(f"{r.scope:8s} {r.path}{marker}")
    for p in settings_roots:
        marker = "" if p.is_dir() else ", missing"
        click.echo(f"{'explicit':8s} {p}  (settings: check and editor only{marker})")


@cli.command("list")
@click.option("--type", "type_", help="Only entries of this type.")
@click.option(
    "--scope",
    callback=validate_scope,
    help="Only entries from this root (project, cc, agent, user, explicit).",
)
@click.option(
    "--status",
    type=click.Choice(STATUSES),
    help="Only entries with this status (living, superseded, historical).",
)
@click.option("--json", "as_json", is_flag=True, help="Output as JSON.")
def list_command(
    type_: str | None, scope: str | None, status: str | None, as_json: bool
) -> None:
    """List entries across all roots (nearest root wins on name collision)."""
    store = open_store()
    if as_json:
        print_entries(store, store.entries(type=type_, status=status, scope=scope), as_json)
        return
    text, skipped = list_text(store, type_, status, scope)
    click.echo(text, nl=False)
    report_skipped(skipped)


@cli.command("search")
@click.argument("pattern")
@click.option("--type", "type_", help="Only entries of this type.")
@click.option(
    "--scope",
    callback=validate_scope,
    help="Only entries from this root (project, cc, agent, user, explicit).",
)
@click.option("--json", "as_json", is_flag=True, help="Output as JSON.")
def search_command(
    pattern: str, type_: str | None, scope: str | None, as_json: bool
) -> None:
    """Find living entries whose name, description or body contains PATTERN.

    The match is a literal, case-insensitive substring (no wildcards, no
    regular expressions). Retired entries are left out, as in recall; use
    `list --status superseded` to see those.
    """
    store = open_store()
    needle = re.compile(re.escape(pattern), re.IGNORECASE)
    matched = [
        e
        for e in store.entries(type=type_, scope=scope)
        if e.status not in ("superseded", "historical")
        and (
            needle.search(e.name)
            or needle.search(e.description)
            or (e.body and needle.search(e.body))
        )
    ]
    print_entries(store, matched, as_json)


@cli.command("show")
@click.argument("name")
@click.option(
    "--json", "as_json", is_flag=True, help="Output as JSON (frontmatter fields + body)."
)
def show_command(name: str, as_json: bool) -> None:
    """Print one entry by name (nearest root first)."""
    if not as_json:
        text = show_text(open_store(), name)
        if text is None:
            fail(no_entry_message(name))
        click.echo(text, nl=False)
        return
    entry = open_store().get(name)
    if entry is None:
        fail(no_entry_message(name))
    echo_json({**entry.to_dict(), "body": entry.body})


# --------------------------------------------------------------------------
# Writing


@cli.command("save")
@click.argument("name")
@click.argument("description")
@click.option(
    "--type",
    "type_",
    default=None,
    help="Entry type (an existing entry keeps its type; new entries default to general).",
)
@click.option("--scope", help="Root to write to (default: explicit or project, else cc).")
@click.option("--title", help="Index link text (defaults to the name).")
@click.option("--metadata", help="JSON object merged into the entry's metadata.")
@click.option(
    "--keyword",
    "keywords",
    multiple=True,
    help="Trigger phrase for `match` (repeatable); replaces the keywords when given, "
    "otherwise keeps them.",
)
@click.option(
    "--body-file",
    type=click.Path(exists=True, dir_okay=False),
    help="Read the body from this file instead of stdin.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the saved entry as JSON.")
def save_command(
    name: str,
    description: str,
    type_: str | None,
    scope: str | None,
    title: str | None,
    metadata: str | None,
    keywords: tuple[str, ...],
    body_file: str | None,
    as_json: bool,
) -> None:
    """Save an entry. The body comes from --body-file, or from stdin when piped.

    A name that would land in the index's reserved `memory*` namespace is
    refused before anything is created.

    Example:

    \b
        memls save prefer-short-answers \\
          "User prefers short, direct answers." --type feedback < body.md
    """
    parsed_metadata = parse_metadata_option(metadata)
    body = read_body(body_file)
    store = open_store()
    path = store.save(
        name,
        description,
        body,
        type=type_,
        scope=scope,
        title=title,
        metadata=parsed_metadata,
        keywords=list(keywords) if keywords else None,
    )
    if as_json:
        echo_json(written_entry(Path(path), store.root(scope).scope).to_dict())
    else:
        click.echo(f"Saved memory to {path}")


@cli.command("supersede")
@click.argument("old_name")
@click.argument("new_name")
@click.option("--scope", help="Root containing both entries (default: write root).")
def supersede_command(old_name: str, new_name: str, scope: str | None) -> None:
    """Mark OLD_NAME superseded by NEW_NAME and link both entries."""
    old, new = open_store().supersede(old_name, new_name, scope=scope)
    click.echo(f"Superseded {clean_line(old.name)} -> {clean_line(new.name)}")


@cli.command("rename")
@click.argument("old_name")
@click.argument("new_name")
@click.option("--scope", help="Root containing the entry (default: write root).")
def rename_command(old_name: str, new_name: str, scope: str | None) -> None:
    """Rename an entry: its name, its file, the links to it and its index line."""
    renamed = open_store().rename(old_name, new_name, scope=scope)
    click.echo(
        f"Renamed {clean_line(old_name)} -> {clean_line(renamed.name)} ({clean_line(renamed.filename)})"
    )


@cli.command("delete")
@click.argument("name")
@click.option("--scope", help="Root containing the entry (default: write root).")
def delete_command(name: str, scope: str | None) -> None:
    """Delete an entry and its index line."""
    deleted = open_store().delete(name, scope=scope)
    click.echo(f"Deleted {clean_line(deleted.name)} ({clean_line(deleted.filename)})")


@cli.command("historical")
@click.argument("name")
@click.option("--scope", help="Root containing the entry (default: write root).")
def historical_command(name: str, scope: str | None) -> None:
    """Mark an entry historical: kept on disk, left out of the index and recall."""
    entry = open_store().set_status(name, "historical", scope=scope)
    click.echo(f"Marked {clean_line(entry.name)} historical ({clean_line(entry.filename)})")


@cli.command("migrate-knowledge-jsonl")
@click.argument("jsonl_path", required=False, type=click.Path(exists=True, dir_okay=False))
@click.option("--scope", help="Root to write migrated entries to (default: write root).")
@click.option("--dry-run", is_flag=True, help="Show what would be migrated without writing anything.")
@click.option(
    "--skip-existing/--no-skip-existing", default=True, show_default=True,
    help="Skip entries whose slugified name already exists in the store.",
)
def migrate_knowledge_jsonl_command(
    jsonl_path: str | None, scope: str | None, dry_run: bool, skip_existing: bool
) -> None:
    """Migrate gptme's knowledge JSONL store to memory entries (as gptme does).

    JSONL_PATH defaults to gptme's data directory's knowledge/entries.jsonl
    (~/.local/share/gptme/knowledge/entries.jsonl). Each record becomes a
    `general` entry named after its problem text; the body keeps both fields
    under headings for the record's type, tags and keywords become keywords,
    and the record's type, id and date are kept as provenance. The JSONL file
    is left as it is.
    """
    from memls.store.knowledge import default_knowledge_path, knowledge_records, migrated_entries

    source = Path(jsonl_path) if jsonl_path is not None else default_knowledge_path()
    if not source.exists():
        click.echo(f"No knowledge store at {source} — nothing to migrate.", err=True)
        return
    records = knowledge_records(source.read_text(encoding="utf-8", errors="replace"))
    if not records:
        click.echo(f"No valid entries found in {source}.")
        return
    store = open_store()
    migrated = skipped = errors = 0
    for item in migrated_entries(records):
        try:
            exists = skip_existing and store.get(item.name) is not None
            if not exists and not dry_run:
                store.save(
                    item.name, item.description, item.body, type="general", scope=scope,
                    keywords=item.keywords or None, metadata={"provenance": item.provenance},
                )
        except EXPECTED_ERRORS as exc:
            click.echo(f"  error ({item.name!r}): {error_message(exc)}", err=True)
            errors += 1
            continue
        if exists:
            click.echo(f"  {'would skip' if dry_run else 'skip'} (exists): {item.name!r}", err=True)
            skipped += 1
        elif dry_run:
            click.echo(f"  would migrate: {item.name!r} ({len(item.keywords)} keyword(s))")
            migrated += 1
        else:
            click.echo(f"  migrated: {item.name!r}")
            migrated += 1
    action = "would migrate" if dry_run else "migrated"
    click.echo(f"\n{action} {migrated}, skipped {skipped}, errors {errors} (source: {source})")
    if errors:
        sys.exit(1)


# --------------------------------------------------------------------------
# Retrieval


@cli.command("recall")
@click.argument("query", required=False)
@click.option(
    "--prompt",
    help="Prompt text, or '-' to read a Claude Code hook payload or plain text from stdin.",
)
@click.option(
    "-k",
    "--limit",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="Maximum number of entries to return.",
)
@click.option(
    "--backend",
    type=click.Choice(RECALL_BACKENDS),
    default="auto",
    show_default=True,
    help="Ranking: auto = bm25 (built in); overlap = gptme's token overlap; tfidf.",
)
@click.option(
    "--format",
    "format_",
    type=click.Choice(OUTPUT_FORMATS),
    default="text",
    show_default=True,
    help="Output format. hook-json is a Claude Code UserPromptSubmit response.",
)
@click.option(
    "--body-chars",
    type=click.IntRange(min=1),
    default=1200,
    show_default=True,
    help="Maximum body characters to inject per text result.",
)
def recall_command(
    query: str | None,
    prompt: str | None,
    limit: int,
    backend: RecallBackend,  # one of RECALL_BACKENDS: click.Choice checks it
    format_: str,
    body_chars: int,
) -> None:
    """Recall the living entries most relevant to a query, from every root."""
    if query is not None and prompt is not None:
        raise click.UsageError("use either QUERY or --prompt, not both")
    from memls.store.recall import recall, render_recall

    text = read_prompt(prompt if prompt is not None else query)
    result = recall(open_store(), text, limit=limit, backend=backend)
    if format_ == "json":
        echo_json(result.to_dict())
        return
    rendered = clean_block(render_recall(result, body_chars=body_chars))
    if format_ == "hook-json":
        click.echo(hook_json(USER_PROMPT_SUBMIT, rendered))
    elif rendered:
        click.echo(rendered)


@cli.command("match")
@click.argument("query", required=False)
@click.option("--prompt", help="Text, or '-' for a hook payload or plain text on stdin.")
@click.option(
    "--pre-tool", is_flag=True, help="Answer as a PreToolUse hook for plain text input."
)
@click.option("-k", "--limit", type=click.IntRange(min=1), default=5, show_default=True)
@click.option(
    "--format",
    "format_",
    type=click.Choice(OUTPUT_FORMATS),
    default="text",
    show_default=True,
)
@click.option(
    "--body-chars", type=click.IntRange(min=1), default=1200, show_default=True
)
def match_command(
    query: str | None,
    prompt: str | None,
    pre_tool: bool,
    limit: int,
    format_: str,
    body_chars: int,
) -> None:
    """Deliver living entries whose keywords occur in this prompt or tool call.

    Only keywords trigger (never names or bodies), so a rule surfaces exactly
    when its phrase appears. Hook input: UserPromptSubmit and PreToolUse.
    Nothing is remembered between calls; wrappers apply their own budget.
    """
    if query is not None and prompt is not None:
        raise click.UsageError("use either QUERY or --prompt, not both")
    from memls.store.match import match_memories, render_matches

    text, event = read_match_input(prompt if prompt is not None else query, pre_tool)
    hits = match_memories(open_store(), text, limit=limit)
    if format_ == "json":
        echo_json({"hits": [hit.to_dict() for hit in hits]})
        return
    rendered = clean_block(render_matches(hits, body_chars=body_chars))
    if format_ == "hook-json":
        click.echo(hook_json(event, rendered))
    elif rendered:
        click.echo(rendered)


# --------------------------------------------------------------------------
# MEMORY.md in git, and the supersession graph


@cli.command("merge-index")
@click.argument("base", type=click.Path(dir_okay=False))
@click.argument("ours", type=click.Path(dir_okay=False))
@click.argument("theirs", type=click.Path(dir_okay=False))
@click.argument("path", required=False)
@click.option("--marker-size", type=click.IntRange(min=1), default=7, show_default=True,
              help="Length of the conflict markers (git's %L).")
@click.option("--base-label", default="base", show_default=True, help="Label of the base (git's %S).")
@click.option("--ours-label", default="ours", show_default=True, help="Label of ours on conflict markers (git's %X).")
@click.option("--theirs-label", default="theirs", show_default=True,
              help="Label of theirs on conflict markers (git's %Y).")
def merge_index_command(
    base: str, ours: str, theirs: str, path: str | None, marker_size: int,
    base_label: str, ours_label: str, theirs_label: str,
) -> None:
    """Git merge driver for MEMORY.md: merge BASE, OURS and THEIRS by entry into OURS.

    Git's placeholders are %O %A %B %P (see `memls setup git`). Lines added or
    removed on either side are added or removed, curated text is kept; only
    one entry's line changed differently on both sides is a conflict, marked
    as git marks one. Exit 0 when clean, 1 with conflicts. A version that is
    not UTF-8 is merged line by line as git itself would (`git merge-file`).
    """
    from memls.store.files import atomic_write
    from memls.store.index_merge import merge_index

    # A git older than 2.44 passes %S %X %Y through unexpanded.
    labels = [
        default if given.startswith("%") and len(given) == 2 else given
        for given, default in ((base_label, "base"), (ours_label, "ours"), (theirs_label, "theirs"))
    ]
    data = [Path(p).read_bytes() for p in (base, ours, theirs)]
    try:
        texts = [d.decode("utf-8") for d in data]
    except UnicodeDecodeError:
        sys.exit(_merge_line_by_line(base, ours, theirs, path, marker_size, labels))
    result = merge_index(*texts, marker_size=marker_size, labels=(labels[1], labels[2]))
    atomic_write(Path(ours), result.text.encode("utf-8"))
    if not result.clean:
        click.echo(f"memls merge-index: {path or ours}: {result.conflicts} conflict(s)", err=True)
        sys.exit(1)


def _merge_line_by_line(
    base: str, ours: str, theirs: str, path: str | None, marker_size: int, labels: list[str]
) -> int:
    """git's own line merge into OURS, for versions memls cannot read; git's exit status.

    Not UTF-8 is not an index memls wrote, and guessing an encoding could
    change the user's bytes; the merge git would have made without the driver
    keeps both sides (with markers where they clash) and leaves ``memls
    check`` to name the encoding.
    """
    import subprocess

    from memls.store.files import atomic_write

    where = path or ours
    command = ["git", "merge-file", "-p", f"--marker-size={marker_size}",
               "-L", labels[1], "-L", labels[0], "-L", labels[2], ours, base, theirs]
    try:
        done = subprocess.run(command, capture_output=True, check=False)
    except FileNotFoundError:
        click.echo(f"memls merge-index: {where}: not UTF-8, and git is not there to merge it", err=True)
        return 1
    if done.returncode < 0 or done.returncode > 127:
        message = done.stderr.decode("utf-8", "replace").strip() or f"exit status {done.returncode}"
        click.echo(f"memls merge-index: {where}: git merge-file failed: {message}", err=True)
        return 1
    atomic_write(Path(ours), done.stdout)
    click.echo(f"memls merge-index: {where}: not UTF-8, merged line by line", err=True)
    return 0 if done.returncode == 0 else 1


@cli.command("graph")
@click.option(
    "--scope", callback=validate_scope, help="Only this root (default: every root of the workspace)."
)
@click.option(
    "--format", "format_", type=click.Choice(["mermaid", "dot"]), default="mermaid",
    show_default=True, help="mermaid: for Markdown (GitHub renders it); dot: for Graphviz.",
)
@click.option("--all", "include_unlinked", is_flag=True, help="Also entries no link touches.")
def graph_command(scope: str | None, format_: str, include_unlinked: bool) -> None:
    """Draw the supersession chains: living, superseded and historical entries, dangling links.

    Arrows point from an entry to its successor; a dashed arrow is stated by
    one of the two entries only; a red dashed box is a name no entry has.
    """
    from memls.store.graph import graph_is_empty, root_graph
    from memls.store.graph_format import render_graph
    from memls.store.reader import read_root
    from memls.store.report import display_path

    roots = [r for r in open_store().roots if r.exists and (scope is None or r.scope == scope)]
    graphs = [
        root_graph(
            root.scope, f"{root.scope}: {display_path(root.path)}",
            read_root(root.path, root.scope).entries, include_unlinked=include_unlinked,
        )
        for root in roots
    ]
    click.echo(render_graph(graphs, format_), nl=False)
    if graph_is_empty(graphs):
        click.echo("(no supersession links to draw; --all draws every entry)", err=True)


# --------------------------------------------------------------------------
# Consistency and views


@cli.command("audit")
@click.option("--scope", help="Root to audit (default: write root).")
@click.option("--quiet", is_flag=True, help="Print nothing when the audit passes.")
def audit_command(scope: str | None, quiet: bool) -> None:
    """Check strict YAML parsing, duplicate names and supersession links."""
    text, status = audit_text(open_store(), scope, quiet)
    click.echo(text, nl=False)
    if status:
        sys.exit(status)


@cli.command("index")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--scope", help="Root whose index to generate (default: the write root).")
@click.option("--write", is_flag=True, help="Write MEMORY.md instead of printing it.")
@click.option(
    "--check", is_flag=True, help="Exit 1 when MEMORY.md differs from the regenerated index."
)
@click.option("--budget", type=click.IntRange(min=1), help="Cap the index at this many bytes.")
@click.option(
    "--refresh", is_flag=True,
    help="Rewrite the generated MEMORY.md of the roots of PATHS (default: every root); "
    "never a curated one. Exit 1 when a file changed (for commit hooks).",
)
def index_command(
    paths: tuple[str, ...], scope: str | None, write: bool, check: bool, budget: int | None,
    refresh: bool,
) -> None:
    """Generate the always-on index (living entries grouped by type).

    Prints by default, so a hand-curated MEMORY.md is never overwritten by
    accident; --write replaces it, --check verifies it (and wins over --write).
    --refresh takes the files of a commit (PATHS; other files are ignored) and
    rewrites only indexes that are generated (memls's rendering of the entries
    as last committed, or as they are) or policy-managed, or absent.
    """
    if paths and not refresh:
        raise click.UsageError("PATHS are taken only with --refresh")
    if refresh:
        refresh_indexes(paths)
        return
    store = open_store()
    if check:
        ok = store.check_index(scope, budget=budget)
        click.echo(f"{store.index_path(scope)}: {'up to date' if ok else 'DRIFT'}")
        sys.exit(0 if ok else 1)
    if write:
        click.echo(f"Wrote {store.write_index(scope, budget=budget)}")
        return
    click.echo(index_text(store, scope, budget), nl=False)


def refresh_indexes(paths: Sequence[str]) -> None:
    """``index --refresh``: the generated indexes of the roots of ``paths`` brought up to date."""
    from memls.committed_index import refresh_index
    from memls.store.index import INDEX_FILENAME
    from memls.store.report import display_path
    from memls.store.roots import resolve_roots, resolve_workspace
    from memls.store.settings import load_settings

    roots, _ = check_targets(paths, load_settings(resolve_workspace()).roots)
    # Each root read under the scope the other commands give it: the parse cache keeps records by scope.
    scopes = {root.path.resolve(): root.scope for root in resolve_roots()}
    changed = [root.path / INDEX_FILENAME for root in roots
               if refresh_index(root.path, scopes.get(root.path.resolve(), root.scope))]
    for path in changed:
        click.echo(f"Regenerated {display_path(path)}")
    if changed:
        sys.exit(1)


@cli.command("export")
@click.option(
    "--view",
    type=click.Choice(["cc", "codex"]),
    default="cc",
    show_default=True,
    help="'cc' = the MEMORY.md index Claude Code loads; "
    "'codex' = a memory section for AGENTS.md.",
)
@click.option(
    "--scope", help="Root to export (default: the write root for cc, every root for codex)."
)
@click.option(
    "--budget",
    type=click.IntRange(min=1),
    help="Byte cap for the export (as 'index --budget'); applies to both views.",
)
def export_command(view: str, scope: str | None, budget: int | None) -> None:
    """Export memory for another harness.

    \b
    cc:    the MEMORY.md index, exactly as `index` prints it.
    codex: an AGENTS.md `## Memory` section: how to recall and save, and the
           living entries.

    Example:

    \b
        memls export --view cc > path/to/MEMORY.md
        memls export --view codex >> AGENTS.md
    """
    from memls.store.export import codex_entries, render_codex_snippet

    store = open_store()
    if view == "cc":
        click.echo(clean_block(store.render_root_index(scope, budget=budget)), nl=False)
        return
    entries = codex_entries(store.entries(scope=scope))
    if not entries:
        click.echo("(no living memory entries — nothing to export)", err=True)
        return
    click.echo(render_codex_snippet(entries, budget=budget), nl=False)


# --------------------------------------------------------------------------
# memls check: the check catalogue for people and CI


def check_targets(
    paths: Sequence[str], extra_roots: Sequence[Path] = ()
) -> tuple[list[MemoryRoot], set[Path] | None]:
    """Roots to load for ``check``, and the files to report on (None = all).

    A directory argument is a memory root. A file argument is a memory file
    when memls would load it from its directory: an entry, ``MEMORY.md`` or
    the policy, directly in a root of the workspace (or of the settings) or
    in a directory that is a root by its look (a ``MEMORY.md``, a
    ``.memory-index.json``, a Claude Code memory folder), as in the editor.
    Its whole root is loaded (its links resolve there) and only its problems
    are shown; any other file is ignored, so a hook runner can pass every
    file of a commit. No argument: every existing root of the workspace,
    the settings' ``roots`` first, as the editor serves them.
    """
    from memls.store.index import INDEX_FILENAME
    from memls.store.model import document_kind
    from memls.store.roots import MemoryRoot, editor_stacks, is_memory_root, resolve_roots, resolve_workspace

    if not paths:
        workspace = resolve_workspace()
        return editor_stacks([workspace], extra=extra_roots)[workspace], None
    known = {r.path.resolve() for r in resolve_roots()} | {p.resolve() for p in extra_roots}
    roots: dict[Path, MemoryRoot] = {}
    only: set[Path] = set()
    files_only = True
    for raw in paths:
        path = Path(raw).absolute()
        if path.is_dir():
            roots.setdefault(path, MemoryRoot("explicit", path))
            files_only = False
        elif path.is_file() or path.is_symlink() or path.name == INDEX_FILENAME:
            # A dangling or looping link is still a file of the root, and
            # ``check`` of the root reports it (invalid-entry): so does this.
            parent = path.parent
            if document_kind(path.name) is None or not (
                parent.resolve() in known or is_memory_root(parent)
            ):
                continue  # not a memory file: a hook runner passes every file
            roots.setdefault(parent, MemoryRoot("explicit", parent))
            only.add(path)
        else:
            raise click.BadParameter(f"{raw} does not exist", param_hint="PATH")
    return list(roots.values()), (only if files_only else None)


@cli.command("check")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option(
    "--format", "output_format", type=click.Choice(CHECK_FORMATS), default="text", show_default=True,
    help="text: path:line:col lines; json: a list of objects; github: workflow annotations.",
)
@click.option("--fix", is_flag=True, help="Apply every safe fix (back-links, status, index) first.")
def check_command(paths: tuple[str, ...], output_format: str, fix: bool) -> None:
    """Run the check catalogue over memory roots (default: the workspace's roots).

    Prints one line per problem, `path:line:col: severity code message`, then a
    summary. Exit 0 when no problem at error severity remains, 1 otherwise.
    """
    # The catalogue is imported here: the other subcommands start without it.
    from memls.store.check_cache import check_roots
    from memls.store.checks import CheckContext, fixes_for
    from memls.store.fix_all import fix_all
    from memls.store.model import Workspace
    from memls.store.report import (
        display_path,
        format_github,
        format_json,
        format_text,
        sort_problems,
        summary_line,
    )
    from memls.store.roots import resolve_workspace
    from memls.store.settings import load_settings

    settings = load_settings(resolve_workspace())
    for warning in settings.warnings:
        click.echo(f"Warning: {one_line(warning)}", err=True)
    roots, only = check_targets(paths, settings.roots)
    if fix:
        report = fix_all(CheckContext(Workspace.load(roots), settings))
        for problem, applied in report.applied:
            click.echo(f"Fixed {display_path(problem.path)}: {problem.code}: {one_line(applied.title)}",
                       err=output_format != "text")
        for problem, why in report.failed:
            click.echo(f"Could not fix {display_path(problem.path)}: {problem.code}: {why}", err=True)
    # Unchanged roots replay their last check (store.check_cache); after
    # --fix the written files make it a full check of what is on disk now.
    run = check_roots(roots, settings)
    problems = sort_problems(
        p for path, found in run.results.items() if only is None or path in only for p in found
    )
    if output_format == "json":
        workspace = run.workspace
        if workspace is None and problems:  # fixes need the model
            workspace = Workspace.load(roots)
        ctx = CheckContext(workspace, settings) if workspace is not None else None
        click.echo(format_json(problems, [fixes_for(ctx, p) for p in problems] if ctx else []))
    elif output_format == "github":
        for line in format_github(problems):
            click.echo(line)
    else:
        for line in format_text(problems):
            click.echo(line)
        click.echo(summary_line(problems, len(only) if only is not None else run.documents))
    if any(p.severity == "error" for p in problems):
        sys.exit(1)


@cli.command("explain")
@click.argument("code", required=False)
@click.option("--path", "show_path", is_flag=True, help="Print the path of the code's page instead.")
def explain_command(code: str | None, show_path: bool) -> None:
    """Explain a check code (as `memls check` and the editor report it).

    Without CODE: every code with its default severity and family.
    """
    from memls.store.catalogue import CATALOGUE, codes, explain_markdown, spec

    if code is None:
        width = max(len(c) for c in codes())
        for item in CATALOGUE:
            click.echo(f"{item.code:<{width}}  {item.severity:<11}  {item.family}")
        return
    if code not in codes():
        close = difflib.get_close_matches(code, codes(), n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else " (`memls explain` lists them)"
        fail(f"no check code '{one_line(code)}'{hint}")
    click.echo(str(spec(code).docs_path) if show_path else explain_markdown(code), nl=show_path)


# --------------------------------------------------------------------------
# memls setup: wire memls into the tools its users already run


@cli.group("setup", cls=MemlsGroup)
def setup_group() -> None:
    """Wire memls into other tools (one subcommand per tool)."""


@setup_group.command("claude-code")
@click.option(
    "--scope", type=click.Choice(["project", "user"]), default="project", show_default=True,
    help="project: <workspace>/.claude/settings.json; user: ~/.claude/settings.json.",
)
@click.option("--dry-run", is_flag=True, help="Print the change as a diff; write nothing.")
@click.option("--remove", is_flag=True, help="Take memls's hooks out again (nothing else).")
def setup_claude_code_command(scope: str, dry_run: bool, remove: bool) -> None:
    """Add memls's hooks to Claude Code's settings.json.

    UserPromptSubmit runs `memls recall --prompt - --format hook-json` (the
    memories ranked for the prompt); PreToolUse runs `memls match --prompt -
    --format hook-json` (the memories whose keywords the tool call names).
    Every other setting and hook is kept; running it twice changes nothing.
    """
    import shutil

    from memls.setup_claude_code import SettingsError, plan, settings_path
    from memls.store.roots import resolve_workspace

    path = settings_path(scope, workspace=resolve_workspace(), home=Path.home())
    try:
        change = plan(path, remove=remove)
    except SettingsError as exc:
        fail(str(exc))
    if dry_run:
        click.echo(change.diff() or f"No change to {path}", nl=not change.changed)
        return
    if not change.changed:
        state = "has no memls hooks" if remove else "already has memls's hooks"
        click.echo(f"{path} {state}; nothing changed")
        return
    change.write()
    click.echo(f"{'Removed memls hooks from' if remove else 'Added memls hooks to'} {path}")
    if not remove and shutil.which("memls") is None:
        click.echo(
            "Warning: `memls` is not on PATH here; Claude Code runs the hooks through your "
            "shell, so put memls's bin directory on PATH",
            err=True,
        )


@cli.command("serve")
def serve_command() -> None:
    """Run the language server over stdio (for editors; see the README)."""
    from memls.lsp.boot import serve

    serve()


# --------------------------------------------------------------------------
# memls setup git: MEMORY.md merged by entry


@setup_group.command("git")
@click.option("--dry-run", is_flag=True, help="Print the change; write nothing.")
@click.option("--remove", is_flag=True, help="Take the attribute line and the driver out again.")
def setup_git_command(dry_run: bool, remove: bool) -> None:
    """Make git merge MEMORY.md with `memls merge-index` in this repository.

    Adds `MEMORY.md merge=memls` to the repository's .gitattributes (once,
    other lines kept) and the driver to its git config (merge.memls.*), which
    runs this memls by absolute path. Running it twice changes nothing.
    """
    from memls.setup_git import plan

    change = plan(Path.cwd(), remove=remove)
    if dry_run or not change.changed:
        click.echo(change.describe() or f"{change.repo}: nothing to change", nl=not change.changed)
        return
    change.apply()
    click.echo(change.describe(), nl=False)
    done = "Removed memls's merge driver from" if remove else "memls merges MEMORY.md in"
    click.echo(f"{done} {change.repo}")


if __name__ == "__main__":  # pragma: no cover
    main()
