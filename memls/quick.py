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

if TYPE_CHECKING:
    from memls.store.replay import Observation
    from memls.store.store import MemoryStore


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point (``memls``)."""
    _escape_what_no_stream_can_hold()
    args = list(sys.argv[1:] if argv is None else argv)
    answer = _plain_read(args)
    if answer is None:
        from memls.cli import main as full

        full(args)
        return
    try:
        out, err, status = answer()
        _write_out(out)
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


def _escape_what_no_stream_can_hold() -> None:
    """Print a lone surrogate as its escape (``\\ud835``) instead of failing the whole report.

    YAML's ``"\\ud835"`` escape reads as a lone surrogate, which no UTF-8
    stream can carry: a name holding one made every report (check, list,
    audit, index) end in an encoding error, and ``check --fix`` fail after
    writing its fixes. The check says what is wrong with such a name.
    """
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def _write_out(out: str | bytes) -> None:
    """Print the answer; given as UTF-8, straight into the stream's buffer when that is what
    the text layer would write (no decoding and encoding again a megabyte of index)."""
    if isinstance(out, bytes):
        buffer = getattr(sys.stdout, "buffer", None)
        encoding = getattr(sys.stdout, "encoding", None) or ""
        if buffer is not None and os.linesep == "\n" and _is_utf8(encoding):
            sys.stdout.flush()
            buffer.write(out)
            buffer.flush()
            return
        out = out.decode("utf-8")
    sys.stdout.write(out)
    sys.stdout.flush()


def _is_utf8(encoding: str) -> bool:
    import codecs

    try:
        return codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return False


def _plain_read(args: list[str]) -> Callable[[], tuple[str | bytes, str, int]] | None:
    """The answer to a plain read command line, or None when click must parse it."""
    if any(arg.startswith("-") for arg in args):
        return None
    if args == ["index"]:
        return lambda: _replayed("index", "", lambda store, _: _index(store))
    if args == ["list"]:
        return lambda: _replayed("list", "", lambda store, _: _list(store))
    if args == ["audit"]:
        from datetime import date

        # ``recheck`` dates come due without any file changing.
        return lambda: _replayed("audit", date.today().isoformat(), _audit)
    if len(args) == 2 and args[0] == "show":
        return lambda: _replayed("show", "", lambda store, _: _show(store, args[1]), key=args[1])
    return None


def _replayed(
    kind: str, params: str, answer: Callable[[MemoryStore, Observation | None], tuple[str, str, int]],
    *, key: str | None = None,
) -> tuple[str | bytes, str, int]:
    """The command's answer (stdout, stderr, exit status), replayed while no file changed.

    The whole answer is the view (:mod:`memls.store.replay`): a replay then
    costs the interpreter, the proof that no file of the roots changed, and
    one write, with no engine module loaded. The roots are resolved once,
    for the key and the computation alike (as
    (scope, directory) pairs: the public ``MemoryRoot`` is a dataclass, and
    ``dataclasses`` alone would cost a tenth of a replay). The view is keyed by this
    module's and :mod:`memls.reads`'s sources too (they format the answer;
    the engine's are in every cache header). A failure is never a view: it
    leaves by an exception, and the next run computes again. No lock is
    taken for the key: it is the files' identity before computing, so an
    answer computed while a writer was half-way through is stored under a
    state that has already changed, and is never matched again. ``answer``
    is given the listing the key was made of (None for a member of a view),
    so the engine under it need not list the roots again.
    """
    from memls.store.cache import cache_enabled
    from memls.store.replay import observe, replayed, replayed_member
    from memls.store.roots import resolve_layers

    roots = resolve_layers()
    observation = observe(roots) if key is None and cache_enabled() else None

    def compute() -> tuple[str | bytes, str, int]:
        from memls.store.root import MemoryRoot
        from memls.store.store import MemoryStore

        out, err, status = answer(MemoryStore(MemoryRoot(*root) for root in roots), observation)
        try:
            return out.encode("utf-8"), err, status
        except UnicodeEncodeError:  # printed as text, to fail as printing it always did
            return out, err, status

    params = f"{params}\0{_sources_digest()}"
    if key is None:
        return replayed(f"cli-{kind}", roots, params, compute, observation=observation)
    return replayed_member(f"cli-{kind}", roots, params, key, compute)


def _sources_digest() -> str:
    from memls.store.cache import sources_identity

    here = os.path.dirname(os.path.abspath(__file__))
    return sources_identity([os.path.join(here, "quick.py"), os.path.join(here, "reads.py")])


def _index(store: MemoryStore) -> tuple[str, str, int]:
    from memls import reads

    return reads.index_text(store, None, None), "", 0


def _list(store: MemoryStore) -> tuple[str, str, int]:
    from memls import reads

    text, skipped = reads.list_text(store, None, None, None)
    return text, reads.skipped_note(skipped), 0


def _audit(store: MemoryStore, observation: Observation | None) -> tuple[str, str, int]:
    from memls import reads

    text, status = reads.audit_text(store, None, False, observation)
    return text, "", status


def _show(store: MemoryStore, name: str) -> tuple[str, str, int]:
    from memls import reads

    text = reads.show_text(store, name)
    if text is None:
        from memls.cli import fail

        fail(reads.no_entry_message(name))
    return text, "", 0
