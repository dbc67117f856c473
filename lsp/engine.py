"""The engine thread: the one place the memory model is read and changed.

The model is not thread-safe and does not need to be: every change and every
check runs, in order, on one worker thread. The asyncio loop that speaks the
protocol only hands work over and awaits the result, so a slow check never
delays reading the next message, and two edits can never interleave.

While the first scan loads the roots, the model is incomplete: a request
answered from it could say "no such memory" about one not loaded yet, and a
check could report a link to it as dangling. So from ``initialize`` until the
scan ends the engine is *held*: :meth:`Engine.run` waits, and jobs are handed
over in the order they asked, once the model is whole. The scan's own jobs
(and the handshake's) go through :meth:`Engine.run_now`. A warm scan of 10k
entries takes a fraction of a second, so the wait is short, and every answer
is the one the finished model gives.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

QUIET_SECONDS = 0.05
"""How long the engine must have had no job before background work takes a turn."""


class Engine:
    def __init__(self) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memls-engine")
        self._held = False
        # Jobs waiting for the engine to be free, oldest first; each is handed
        # over by the one before it (so none overtakes another).
        self._waiting: deque[asyncio.Future[None]] = deque()
        self._handing_over = False
        # Jobs handed to the thread and not finished, and when the last one ended.
        self._activity = threading.Condition()
        self._running = 0
        self._last_end = 0.0

    @property
    def held(self) -> bool:
        return self._held

    def hold(self) -> None:
        """Make :meth:`run` wait until :meth:`release` (the model is being loaded)."""
        self._held = True

    def release(self) -> None:
        """Hand the waiting jobs over, in the order they asked."""
        self._held = False
        self._wake_next()

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` on the engine thread once it is not held, and await its result."""
        if not (self._held or self._waiting or self._handing_over):
            return await self.run_now(fn, *args)
        turn = asyncio.get_running_loop().create_future()
        self._waiting.append(turn)
        try:
            await turn
        except BaseException:
            if turn.done() and not turn.cancelled():  # woken, then cancelled: pass the turn on
                self._handing_over = False
                self._wake_next()
            elif turn in self._waiting:
                self._waiting.remove(turn)
            raise
        job = asyncio.get_running_loop().run_in_executor(self._executor, self._tracked(fn, args))  # in turn
        self._handing_over = False
        self._wake_next()
        return await job

    def _wake_next(self) -> None:
        while not self._held and not self._handing_over and self._waiting:
            turn = self._waiting.popleft()
            if not turn.done():
                self._handing_over = True
                turn.set_result(None)

    async def run_now(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` on the engine thread even while it is held (the scan, the handshake)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._tracked(fn, args))

    def submit(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        """Queue ``fn(*args)`` without waiting (from any thread)."""
        return self._executor.submit(self._tracked(fn, args))

    def wait_until_quiet(self, quiet: float = QUIET_SECONDS) -> None:
        """Block the calling thread (never the loop's) until no job has run or waited for ``quiet`` seconds.

        For background work in this process (writing the parse cache): it
        takes the interpreter's lock in turns with the engine and the loop,
        so while the editor is being answered it waits, and runs in the
        pauses between keystrokes.
        """
        with self._activity:
            while True:
                if self._running or self._waiting or self._held:
                    left: float | None = quiet
                else:
                    left = self._last_end + quiet - time.monotonic()
                    if left <= 0:
                        return
                self._activity.wait(left)

    def _tracked(self, fn: Callable[..., T], args: tuple) -> Callable[[], T]:
        """``fn(*args)``, counted as engine work while it runs.

        Counted from its start, not its submission: a job cancelled before it
        ran (the executor's shutdown) must not leave the engine busy forever.
        Jobs queued back to back start within microseconds of each other,
        well inside the quiet time.
        """

        def job() -> T:
            with self._activity:
                self._running += 1
            try:
                return fn(*args)
            finally:
                with self._activity:
                    self._running -= 1
                    self._last_end = time.monotonic()
                    self._activity.notify_all()

        return job

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
