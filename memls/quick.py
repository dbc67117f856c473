"""The ``memls`` console script: plain read commands answered without loading click.

``memls index``, ``memls list``, ``memls show NAME`` and ``memls audit`` are
what hooks and agents run again and again; replayed from the cache
(:mod:`memls.store.replay`) they cost little more than listing the root,
and importing click would add a third. So exactly those forms (no option,
no argument starting with ``-``) are answered here, printing what
:mod:`memls.reads` computes, the same functions the click commands print;
every other command line, ``--help`` included, goes to :func:`memls.cli.main`.

A failure is the CLI's: one ``Error:`` line and exit 1 (the message made by
:func:`memls.cli.error_message`, imported only then).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from memls import reads

if TYPE_CHECKING:
    from memls.store.store import MemoryStore


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point (``memls``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    answer = _plain_read(args)
    if answer is None:
        from memls.cli import main as full

        full(args)
        return
    try:
        out, err, status = answer()
        sys.stdout.write(out)
        sys.stdout.flush()
        if err:
            sys.stderr.write(err)
    except KeyboardInterrupt:
        sys.stderr.write("Aborted!\n")
        sys.exit(1)
    except BrokenPipeError:
        # The reader went away (``memls list | head``): exit 1 quietly, as click does,
        # with nothing left for the interpreter to flush into the closed pipe.
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - lives until exit
        sys.exit(1)
    except Exception as exc:  # noqa: BLE001 - the CLI's rule: one line, never a traceback
        from memls.cli import error_message, fail

        fail(error_message(exc))
    sys.exit(status)


def _plain_read(args: list[str]) -> Callable[[], tuple[str, str, int]] | None:
    """The answer to a plain read command line, or None when click must parse it."""
    if any(arg.startswith("-") for arg in args):
        return None
    if args == ["index"]:
        return lambda: (reads.index_text(_store(), None, None), "", 0)
    if args == ["list"]:
        return _list
    if args == ["audit"]:
        return _audit
    if len(args) == 2 and args[0] == "show":
        return lambda: _show(args[1])
    return None


def _store() -> MemoryStore:
    from memls.store.store import MemoryStore

    return MemoryStore.from_workspace()


def _list() -> tuple[str, str, int]:
    text, skipped = reads.list_text(_store(), None, None, None)
    return text, reads.skipped_note(skipped), 0


def _audit() -> tuple[str, str, int]:
    text, status = reads.audit_text(_store(), None, False)
    return text, "", status


def _show(name: str) -> tuple[str, str, int]:
    text = reads.show_text(_store(), name)
    if text is None:
        from memls.cli import fail

        fail(reads.no_entry_message(name))
    return text, "", 0
