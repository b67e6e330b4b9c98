"""A request's deadline inside its turn's, at an injected clock: each expires at its own
time (the request's first by default), one that ended never cancels, both due at once end
in the outer's TimeoutError, and the heap empties of what is done."""

from __future__ import annotations

import asyncio

from assay.net.deadlines import Deadlines, TurnDeadline


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def nested(
    deadlines: Deadlines, turn_s: float, request_s: float, request: asyncio.Event, after: float
) -> list[str]:
    """A turn with a request inside, then (if the request ends) a wait of ``after`` s."""
    seen: list[str] = []
    try:
        with TurnDeadline(turn_s, deadlines):
            try:
                with TurnDeadline(request_s, deadlines):
                    await request.wait()
                seen.append("answered")
            except TimeoutError:
                seen.append("request timed out")
            if after:
                await asyncio.sleep(3600)
    except TimeoutError:
        seen.append("turn timed out")
    return seen


async def run(turn_s: float, request_s: float, steps: list[float | str], after: float) -> list[str]:
    clock = Clock()
    deadlines = Deadlines(clock)
    request = asyncio.Event()
    task = asyncio.create_task(nested(deadlines, turn_s, request_s, request, after))
    await settle()
    for step in steps:
        if step == "answer":
            request.set()
        else:
            assert isinstance(step, float)
            clock.now = step
            deadlines.expire_due()
        await settle()
    if not task.done():
        task.cancel()
        return ["still running"]
    return await task


async def test_the_request_expires_at_its_own_time() -> None:
    assert await run(60.0, 30.0, [29.9], 0) == ["still running"]
    assert await run(60.0, 30.0, [30.0], 0) == ["request timed out"]


async def test_the_turn_expires_at_its_own_time_after_its_request() -> None:
    # the request answered: its deadline passes without a cancel; the turn's comes later
    assert await run(60.0, 30.0, ["answer", 30.0, 59.9], 1) == ["still running"]
    assert await run(60.0, 30.0, ["answer", 30.0, 60.0], 1) == ["answered", "turn timed out"]
    # the request timed out; the turn goes on to its own deadline
    assert await run(60.0, 30.0, [30.0, 60.0], 1) == ["request timed out", "turn timed out"]


async def test_a_sooner_turn_deadline_is_the_turns() -> None:
    assert await run(10.0, 30.0, [10.0], 0) == ["turn timed out"]


async def test_both_due_at_once_end_in_the_turns_timeout() -> None:
    assert await run(60.0, 30.0, [90.0], 0) == ["turn timed out"]


async def test_done_entries_leave_the_heap() -> None:
    clock = Clock()
    deadlines = Deadlines(clock)
    request = asyncio.Event()
    request.set()
    assert await nested(deadlines, 60.0, 30.0, request, 0) == ["answered"]
    assert len(deadlines) == 2  # both done, still in the heap
    clock.now = 1.0
    deadlines.expire_due()  # done entries at the top leave, due or not
    assert len(deadlines) == 0
