"""``enter_nowait`` and ``acquire`` hand back the slots they took from, and releasing to
them is ``leave``: the same counts, and a queued waiter admitted as ``leave`` admits it."""

from __future__ import annotations

import asyncio

from assay.net.limits import EndpointLimiter


async def test_a_slot_taken_without_waiting_is_released_to_its_slots() -> None:
    limiter = EndpointLimiter(max_in_flight=2)
    first = limiter.enter_nowait()
    second = limiter.enter_nowait()
    assert first is not None and first is second
    assert limiter.in_flight() == 2
    assert limiter.enter_nowait() is None  # full: nothing taken
    assert limiter.in_flight() == 2
    first.release()
    assert limiter.in_flight() == 1
    limiter.leave()
    assert limiter.in_flight() == 0


async def test_a_rate_limit_always_waits() -> None:
    limiter = EndpointLimiter(requests_per_minute=60)
    assert limiter.enter_nowait() is None
    slots = await limiter.acquire()  # the bucket starts full: no wait
    assert limiter.in_flight() == 1
    slots.release()
    assert limiter.in_flight() == 0


async def test_releasing_admits_the_next_waiter() -> None:
    limiter = EndpointLimiter(max_in_flight=1)
    held = limiter.enter_nowait()
    assert held is not None
    waiter = asyncio.create_task(limiter.acquire())
    await asyncio.sleep(0)
    assert not waiter.done() and limiter.in_flight() == 1
    held.release()  # hands the slot to the waiter
    assert await waiter is held
    assert limiter.in_flight() == 1
    assert limiter.enter_nowait() is None  # still held, by the waiter now
    limiter.leave()
    assert limiter.in_flight() == 0
