"""What the test servers share: counting requests in flight, holding them in rounds, and
pauses that end when the server stops.

    gate = Gate()
    async with gate.request():    # in a handler: counted while inside
        await gate.pause(30)      # a slow reply, cut short when the server stops

``hold_until = n`` holds each request until n are in flight at once (at most
``HOLD_MAX_S``), then ``linger_s`` more; ``peak`` is the most there ever were. A test of a
limit of n then sees the peak reach n whatever the machine's load (requests did overlap),
and a client that breaks the limit has ``linger_s`` to show it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

HOLD_MAX_S = 5.0


class Gate:
    def __init__(self) -> None:
        self.in_flight = 0
        self.peak = 0
        self.hold_until: int | None = None
        self.linger_s = 0.0
        self._round: asyncio.Event | None = None
        self._stopping: asyncio.Event | None = None

    @contextlib.asynccontextmanager
    async def request(self) -> AsyncIterator[None]:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            await self._hold()
            yield
        finally:
            self.in_flight -= 1

    async def _hold(self) -> None:
        if self.hold_until is None:
            return
        if self._round is None:
            self._round = asyncio.Event()
        this_round = self._round
        if self.in_flight >= self.hold_until:
            this_round.set()  # release this round; later arrivals wait for the next
            self._round = None
        else:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(this_round.wait(), HOLD_MAX_S)
        if self.linger_s:
            await self.pause(self.linger_s)

    async def pause(self, seconds: float) -> None:
        """Sleep, but end at once when the server stops (so stopping never waits)."""
        if self._stopping is None:
            self._stopping = asyncio.Event()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stopping.wait(), seconds)

    def stop(self) -> None:
        """End every pause (call on the server's loop)."""
        if self._stopping is not None:
            self._stopping.set()
