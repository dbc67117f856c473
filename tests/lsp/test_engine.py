"""The engine thread while it is held for the first scan: jobs wait, then run in the order they asked."""

from __future__ import annotations

import asyncio

from memls.lsp.engine import Engine


async def test_a_held_engine_runs_the_waiting_jobs_after_release_in_the_order_they_asked():
    engine = Engine()
    ran: list[object] = []
    engine.hold()
    first = asyncio.ensure_future(engine.run(ran.append, 1))
    dropped = asyncio.ensure_future(engine.run(ran.append, "cancelled while waiting"))
    second = asyncio.ensure_future(engine.run(ran.append, 2))
    await asyncio.sleep(0.05)
    assert ran == []  # nothing runs while held...
    await engine.run_now(ran.append, "scan")  # ...but the scan's own jobs
    dropped.cancel()
    engine.release()
    # Asked after the release but before the waiters were handed over: it does not overtake them.
    third = asyncio.ensure_future(engine.run(ran.append, 3))
    await asyncio.gather(first, second, third)
    assert ran == ["scan", 1, 2, 3]
    engine.shutdown()


async def test_a_job_cancelled_after_its_turn_came_passes_the_turn_on():
    engine = Engine()
    ran: list[int] = []
    engine.hold()
    first = asyncio.ensure_future(engine.run(ran.append, 1))
    second = asyncio.ensure_future(engine.run(ran.append, 2))
    await asyncio.sleep(0)
    engine.release()  # first's turn has come; it is cancelled before it wakes
    first.cancel()
    await second
    assert ran == [2]
    assert await engine.run(lambda: "free again") == "free again"
    engine.shutdown()
