"""Turn deadlines on one shared timer behave as ``asyncio.timeout``: the turn past its
deadline ends in TimeoutError, the others are untouched, a cancellation from outside is not
mistaken for a deadline, and finished turns do not pile up. The clock is injected: no test
waits for time to pass."""

from __future__ import annotations

import asyncio

import pytest

from assay.net.deadlines import Deadlines, TurnDeadline, turn_deadline


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def turn(deadlines: Deadlines, delay: float, gate: asyncio.Event) -> str:
    try:
        async with TurnDeadline(delay, deadlines):
            await gate.wait()
    except TimeoutError:
        return "timed out"
    return "answered"


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_only_the_turns_past_their_deadline_time_out() -> None:
    clock = Clock()
    deadlines = Deadlines(clock)
    gates = [asyncio.Event() for _ in range(3)]
    tasks = [
        asyncio.create_task(turn(deadlines, delay, gate))
        for delay, gate in zip((10.0, 30.0, 20.0), gates, strict=True)
    ]
    await settle()

    clock.now = 25.0
    deadlines.expire_due()
    await settle()
    gates[1].set()

    assert await asyncio.gather(*tasks) == ["timed out", "answered", "timed out"]


async def test_a_turn_that_ends_before_its_deadline_is_not_cancelled_later() -> None:
    clock = Clock()
    deadlines = Deadlines(clock)
    gate = asyncio.Event()
    gate.set()
    assert await turn(deadlines, 1.0, gate) == "answered"

    clock.now = 5.0
    deadlines.expire_due()
    await settle()  # had the entry cancelled this task, the next await would raise

    assert len(deadlines) == 0


async def test_a_cancellation_from_outside_is_not_a_timeout() -> None:
    deadlines = Deadlines(Clock())
    task = asyncio.create_task(turn(deadlines, 10.0, asyncio.Event()))
    await settle()

    task.cancel()

    with pytest.raises(asyncio.CancelledError):
        await task


async def test_an_outside_cancellation_at_the_deadline_still_cancels() -> None:
    clock = Clock()
    deadlines = Deadlines(clock)
    task = asyncio.create_task(turn(deadlines, 10.0, asyncio.Event()))
    await settle()

    clock.now = 10.0
    deadlines.expire_due()
    task.cancel()  # the run stopping (Ctrl-C) at the same moment: not this turn's timeout

    with pytest.raises(asyncio.CancelledError):
        await task


async def test_finished_turns_do_not_pile_up() -> None:
    deadlines = Deadlines(Clock())
    gate = asyncio.Event()
    gate.set()
    waiting = asyncio.create_task(turn(deadlines, 1.0, asyncio.Event()))  # first, never ends
    await settle()

    for _ in range(1_000):
        assert await turn(deadlines, 1.0, gate) == "answered"

    assert len(deadlines) <= 202  # compacted once half of them are done
    waiting.cancel()


async def test_the_loops_timer_fires_the_deadline() -> None:
    async def hang() -> None:
        async with turn_deadline(0.01):
            await asyncio.Event().wait()

    with pytest.raises(TimeoutError):
        await hang()


def test_each_event_loop_keeps_its_own_deadlines() -> None:
    async def hang() -> str:
        try:
            async with turn_deadline(0.01):
                await asyncio.Event().wait()
        except TimeoutError:
            return "timed out"
        return "answered"

    assert [asyncio.run(hang()) for _ in range(2)] == ["timed out", "timed out"]
