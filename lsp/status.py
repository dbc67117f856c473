"""What the server tells the user about itself: a status notification and a start-up report.

**``memls/status``.** An editor's status item must be right after every change
(a new memory, an external save, an ``rm``, a folder added), and polling a
request cannot know when that is. The server knows: every change ends in a
check of the documents it affected (:mod:`memls.lsp.diagnostics`), so the
status is sent from there, with the number of memories, of error and
warning diagnostics over the whole workspace, and the first scan's
progress. It is a notification the client must ask for
(``initializationOptions.client.statusNotification``): a client that does
not know the method would log every one as unhandled. Such a client gets
the first scan's progress as ``$/progress`` instead; one that asked for the
status gets it there, so the editor shows one item, not two.

The error and warning counts are the tally of the diagnostics last computed
for each path that the publisher keeps as checks run
(``DiagnosticsPublisher.problem_counts``); a check of the whole workspace at every
change would cost what the incremental checks save.

**The start-up report.** After the first scan the server logs (``window/logMessage``,
shown in the editor's output channel) its version, the interpreter running
it, the roots it found and how long the scan took, so the output says what
is running before anything goes wrong. Settings problems are logged as
warnings.
"""

from __future__ import annotations

import sys
from dataclasses import asdict
from typing import TYPE_CHECKING

from lsprotocol import types

from memls.store.structs import struct

from . import __version__

if TYPE_CHECKING:
    from .server import MemlsServer
    from .state import ServerState

STATUS_METHOD = "memls/status"


@struct
class Status:
    """The payload of ``memls/status`` (JSON keys as named here)."""

    memories: int
    errors: int
    warnings: int
    roots: int
    scanning: bool
    # Files of the first scan loaded so far, of ``total`` (both 0 when no scan runs).
    scanned: int
    total: int


class StatusReporter:
    """Sends ``memls/status`` when it changes (event loop)."""

    def __init__(self, server: MemlsServer) -> None:
        self.server = server
        self._memories = 0
        self._roots = 0
        self._sent: Status | None = None
        # The first scan's model is loaded but checked only after it (several folders, folder
        # settings): the status still says scanning until that check is delivered.
        self.first_check_pending = False

    @property
    def enabled(self) -> bool:
        return self.server.state.client.status_notification

    def model_counts(self, state: ServerState) -> None:
        """Read the model's counts (engine thread: call inside an engine job)."""
        self._memories = state.workspace.entry_count()
        self._roots = len(state.workspace.roots)

    def current(self) -> Status:
        state = self.server.state
        counts = self.server.diagnostics.problem_counts.values()
        scanning = state.scanning or self.first_check_pending
        return Status(
            memories=self._memories,
            errors=sum(e for e, _ in counts),
            warnings=sum(w for _, w in counts),
            roots=self._roots,
            scanning=scanning,
            scanned=state.scanned_files if scanning else 0,
            total=state.scan_total if scanning else 0,
        )

    def send(self) -> None:
        """Send the status if the client asked for it and it changed."""
        if not self.enabled or self.server.stopping:
            return
        status = self.current()
        if status != self._sent:
            self._sent = status
            self.server.protocol.notify(STATUS_METHOD, asdict(status))


async def startup_report(ls: MemlsServer, seconds: float) -> None:
    """Log what is running and what it found, once the first scan is done."""
    report = await ls.engine.run(_report_lines, ls.state, seconds, ls.diagnostics.pull)
    ls.window_log_message(types.LogMessageParams(type=types.MessageType.Info, message="\n".join(report)))
    for warning in ls.state.settings.warnings:
        ls.window_log_message(types.LogMessageParams(
            type=types.MessageType.Warning, message=f"settings: {warning}"))


def _report_lines(state: ServerState, seconds: float, pull: bool) -> list[str]:
    """The start-up report's lines (engine thread: it reads the model)."""
    import yaml  # here, not at the top: a start that parses nothing does not load YAML

    roots = sorted(state.workspace.roots, key=lambda r: r.order)
    lines = [
        f"memls {__version__} on Python {sys.version.split()[0]} ({sys.executable}), PyYAML {yaml.__version__}",
        f"{state.workspace.entry_count()} memories in {len(roots)} roots, scanned in {seconds:.2f} s; "
        f"diagnostics: {'pull' if pull else 'push'}",
    ]
    lines += [f"  {root.scope:<8} {root.path} ({len(root.by_name)} memories)" for root in roots]
    return lines
