"""A clock that moves only when a test moves it, for time-dependent logic without timing
windows (``assay.net.limits.Clock``).

    clock = ManualClock()
    limiter = EndpointLimiter(requests_per_minute=120, clock=clock)
    ...
    await clock.advance(0.5)  # wakes every sleeper due by then, in time order

``sleeps`` records each requested sleep, so a test can assert what was asked for.
"""

from __future__ import annotations

import asyncio


class ManualClock:
    def __init__(self, start: float = 0.0) -> None:
        self.time = start
        self.sleeps: list[float] = []
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = 0

    def now(self) -> float:
        return self.time

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._order += 1
        self._sleepers.append((self.time + seconds, self._order, waiter))
        try:
            await waiter
        finally:
            self._sleepers = [s for s in self._sleepers if s[2] is not waiter]

    @property
    def sleeping(self) -> int:
        return sum(1 for _, _, w in self._sleepers if not w.done())

    async def settle(self) -> None:
        """Let every task that can run do so (no real time passes)."""
        for _ in range(20):
            await asyncio.sleep(0)

    async def advance(self, seconds: float) -> None:
        """Move time on by ``seconds``, waking sleepers as their time comes."""
        end = self.time + seconds
        await self.settle()
        while True:
            due = sorted(s for s in self._sleepers if not s[2].done() and s[0] <= end + 1e-9)
            if not due:
                break
            when, _, waiter = due[0]
            self.time = max(self.time, when)
            waiter.set_result(None)
            await self.settle()
        self.time = end
        await self.settle()
