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
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


class Engine:
    def __init__(self) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memls-engine")
        self._held = False
        # Jobs waiting for the engine to be free, oldest first; each is handed
        # over by the one before it (so none overtakes another).
        self._waiting: deque[asyncio.Future[None]] = deque()
        self._handing_over = False

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
        job = asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)  # queued now, in turn
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
        return await loop.run_in_executor(self._executor, fn, *args)

    def submit(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        """Queue ``fn(*args)`` without waiting (from any thread)."""
        return self._executor.submit(fn, *args)

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
