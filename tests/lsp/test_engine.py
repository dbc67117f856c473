"""The engine thread while it is held for the first scan: jobs wait, then run in the order they asked."""

from __future__ import annotations

import asyncio
import threading
import time

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


async def test_background_work_waits_while_a_job_runs_and_for_the_quiet_time_after_it():
    engine = Engine()
    release = threading.Event()
    started = threading.Event()
    job = asyncio.ensure_future(engine.run(lambda: (started.set(), release.wait(10))))
    await asyncio.get_running_loop().run_in_executor(None, started.wait, 10)
    resumed: list[float] = []
    waiter = threading.Thread(target=lambda: (engine.wait_until_quiet(0.2), resumed.append(time.monotonic())))
    waiter.start()
    await asyncio.sleep(0.3)
    assert resumed == []  # the job still runs: background work waits
    release.set()
    await job
    ended = time.monotonic()
    await asyncio.get_running_loop().run_in_executor(None, waiter.join, 10)
    assert resumed and resumed[0] >= ended + 0.15  # and for the quiet time after the job
    engine.shutdown()


async def test_background_work_is_not_kept_waiting_by_jobs_cancelled_at_shutdown():
    engine = Engine()
    release = threading.Event()
    engine.submit(release.wait, 10)
    never_run = engine.submit(lambda: None)
    engine.shutdown()  # cancels the queued job before it starts
    release.set()
    waiter = threading.Thread(target=engine.wait_until_quiet, args=(0.05,))
    waiter.start()
    await asyncio.get_running_loop().run_in_executor(None, waiter.join, 5)
    assert never_run.cancelled()
    assert not waiter.is_alive()
