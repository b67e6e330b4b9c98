"""Per-endpoint limits, shared by everything that calls the same server in one process:
targets, judges and simulated users.

    limiter = limiter_for(endpoint_key(url), max_in_flight=8, requests_per_minute=600)
    async with limiter:
        ...  # one request

Every caller of an endpoint gets the same limiter, whatever limits it asked for, and the
limiter applies the strictest limit anyone set (a caller that sets none is still counted
against the others' limits). ``max_in_flight`` caps concurrent requests; ``requests_per_minute``
spaces them with a token bucket that holds at most one second's worth of requests (at least
one), so a burst never exceeds what the endpoint would accept in a second. Counts are per
event loop: a limiter used from two loops keeps separate counts in each.

A run sharded over several worker processes (``assay run --workers N``, Ray) gives each
worker its share of every limit (``share_limits``): worker i of N gets ``limit // N`` slots,
one more while i < ``limit % N``, and ``requests_per_minute / N``, so the workers together
never pass the limit set.

Time comes from a ``Clock`` (the event loop's by default), so tests can drive it by hand.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections import deque
from types import TracebackType
from typing import Protocol


class Clock(Protocol):
    """Where the limiter reads the time and waits: ``now()`` in seconds, ``sleep(s)``."""

    def now(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class LoopClock:
    """The running event loop's monotonic clock."""

    def now(self) -> float:
        return asyncio.get_running_loop().time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


LOOP_CLOCK = LoopClock()


class _TokenBucket:
    """Tokens refill at ``rate`` per second up to ``capacity``. ``take`` reserves a token
    at once (the balance may go negative) and sleeps until it is due, so waiters are
    served in arrival order without a lock."""

    def __init__(self, rate_per_s: float, clock: Clock) -> None:
        self.clock = clock
        self.rate = rate_per_s
        self.capacity = max(1.0, rate_per_s)
        self.tokens = self.capacity
        self.updated = clock.now()

    def set_rate(self, rate_per_s: float) -> None:
        self._refill()
        self.rate = rate_per_s
        self.capacity = max(1.0, rate_per_s)
        self.tokens = min(self.tokens, self.capacity)

    def _refill(self) -> None:
        now = self.clock.now()
        self.tokens = min(self.capacity, self.tokens + (now - self.updated) * self.rate)
        self.updated = now

    async def take(self) -> None:
        self._refill()
        self.tokens -= 1.0
        if self.tokens >= 0:
            return
        try:
            await self.clock.sleep(-self.tokens / self.rate)
        except asyncio.CancelledError:
            self.tokens += 1.0  # give the reservation back
            raise


class _Slots:
    """Counts requests in flight and admits waiters in arrival order while fewer than
    ``limit()`` are; the limit may drop while requests are in flight."""

    def __init__(self, limiter: EndpointLimiter) -> None:
        self.limiter = limiter
        self.in_use = 0
        self.waiters: deque[asyncio.Future[None]] = deque()

    def _free(self) -> bool:
        limit = self.limiter.max_in_flight
        return limit is None or self.in_use < limit

    async def acquire(self) -> None:
        if not self.waiters and self._free():
            self.in_use += 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiters.append(waiter)
        try:
            await waiter  # resolved by ``_admit``, which counts the slot as taken
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release()  # admitted just as it was cancelled: hand the slot on
            else:
                self.waiters.remove(waiter)
            raise

    def release(self) -> None:
        self.in_use -= 1
        if self.waiters:  # (``_admit`` admits no one from an empty queue)
            self._admit()

    def _admit(self) -> None:
        while self.waiters and self._free():
            waiter = self.waiters.popleft()
            if not waiter.done():
                self.in_use += 1
                waiter.set_result(None)


class _LoopState:
    __slots__ = ("slots", "bucket")

    def __init__(self, limiter: EndpointLimiter) -> None:
        self.slots = _Slots(limiter)
        self.bucket: _TokenBucket | None = None


class EndpointLimiter:
    """``async with limiter:`` around each request. Waiting for a rate-limit token happens
    after a concurrency slot is taken, so the slot also bounds how many wait."""

    def __init__(
        self,
        max_in_flight: int | None = None,
        requests_per_minute: float | None = None,
        clock: Clock = LOOP_CLOCK,
    ) -> None:
        _check(max_in_flight, requests_per_minute)
        self.max_in_flight = max_in_flight
        self.requests_per_minute = requests_per_minute
        self.clock = clock
        self._states: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopState] = (
            weakref.WeakKeyDictionary()
        )
        # the state of the loop used last (a run uses one): found without a weak lookup
        self._last: tuple[weakref.ref[asyncio.AbstractEventLoop], _LoopState] | None = None

    def __repr__(self) -> str:
        return (
            f"EndpointLimiter(max_in_flight={self.max_in_flight}, "
            f"requests_per_minute={self.requests_per_minute})"
        )

    def tighten(self, max_in_flight: int | None, requests_per_minute: float | None) -> None:
        """Apply the stricter of the current and the given limits, from now on, to every
        holder of this limiter (requests already in flight finish)."""
        _check(max_in_flight, requests_per_minute)
        in_flight = _stricter(self.max_in_flight, max_in_flight)
        self.max_in_flight = None if in_flight is None else int(in_flight)
        rpm = _stricter(self.requests_per_minute, requests_per_minute)
        if rpm != self.requests_per_minute:
            self.requests_per_minute = rpm
            for state in list(self._states.values()):
                if state.bucket is not None and rpm is not None:
                    state.bucket.set_rate(rpm / 60.0)

    def _loop_state(self) -> _LoopState | None:
        """The running loop's state, when it has one."""
        loop = asyncio.get_running_loop()
        last = self._last
        if last is not None and last[0]() is loop:
            return last[1]
        state = self._states.get(loop)
        if state is not None:
            self._last = (weakref.ref(loop), state)
        return state

    def _state(self) -> _LoopState:
        state = self._loop_state()
        if state is None:
            loop = asyncio.get_running_loop()
            state = self._states[loop] = _LoopState(self)
            self._last = (weakref.ref(loop), state)
        if state.bucket is None and self.requests_per_minute is not None:
            state.bucket = _TokenBucket(self.requests_per_minute / 60.0, self.clock)
        return state

    def enter_nowait(self) -> _Slots | None:
        """Take a slot without waiting, when that needs no wait at all: a slot is free, no
        one is queued and no rate limit applies. The slots it was taken from (their
        ``release()``, or ``leave``, gives it back); None: nothing was taken, ``acquire``
        (or ``async with``) must wait its turn."""
        if self.requests_per_minute is not None:
            return None
        slots = self._state().slots
        if not slots.waiters and (self.max_in_flight is None or slots.in_use < self.max_in_flight):
            slots.in_use += 1
            return slots
        return None

    def leave(self) -> None:
        """Give back the slot taken by ``enter_nowait`` or ``__aenter__``."""
        state = self._loop_state()
        if state is not None:
            state.slots.release()

    async def acquire(self) -> _Slots:
        """Wait for a slot (and a rate-limit token): the slots it was taken from (their
        ``release()``, or ``leave``, gives it back)."""
        state = self._state()
        await state.slots.acquire()
        if state.bucket is not None:
            try:
                await state.bucket.take()
            except BaseException:
                state.slots.release()
                raise
        return state.slots

    async def __aenter__(self) -> None:
        await self.acquire()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.leave()

    def in_flight(self) -> int:
        """Requests holding a slot on the running loop."""
        state = self._loop_state()
        return 0 if state is None else state.slots.in_use


def _check(max_in_flight: int | None, requests_per_minute: float | None) -> None:
    if max_in_flight is not None and max_in_flight < 1:
        raise ValueError(f"max_in_flight must be at least 1, got {max_in_flight}")
    if requests_per_minute is not None and requests_per_minute <= 0:
        raise ValueError(f"requests_per_minute must be positive, got {requests_per_minute}")


def _stricter(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else min(a, b)


_share = (0, 1)  # (this worker's index, how many workers share each limit)


def share_limits(index: int, workers: int) -> None:
    """From now on, limits given to ``limiter_for`` in this process are worker ``index``'s
    share of ``workers`` (see the module's doc); forgets the limiters made before."""
    global _share
    if not 0 <= index < workers:
        raise ValueError(f"worker {index} of {workers}")
    _share = (index, workers)
    reset_limiters()


def shares(total: int, parts: int) -> list[int]:
    """``total`` split into ``parts`` that differ by at most one (a limit among workers, the
    run's concurrency among shards)."""
    return [total // parts + (i < total % parts) for i in range(parts)]


def _my_share(max_in_flight: int | None, rpm: float | None) -> tuple[int | None, float | None]:
    index, workers = _share
    if max_in_flight is not None:
        max_in_flight = max(1, shares(max_in_flight, workers)[index])
    return max_in_flight, None if rpm is None else rpm / workers


# Weak values: an endpoint's limits live as long as some target or model holds its limiter,
# so a later run in the same process starts from its own settings.
_registry: weakref.WeakValueDictionary[str, EndpointLimiter] = weakref.WeakValueDictionary()
_registry_lock = threading.Lock()


def limiter_for(
    key: str, max_in_flight: int | None = None, requests_per_minute: float | None = None
) -> EndpointLimiter:
    """The process-wide limiter for an endpoint (``endpoint_key(url)``). Every caller naming
    the same endpoint gets the same limiter, tightened to the stricter of each limit."""
    max_in_flight, requests_per_minute = _my_share(max_in_flight, requests_per_minute)
    with _registry_lock:
        limiter = _registry.get(key)
        if limiter is None:
            limiter = EndpointLimiter(max_in_flight, requests_per_minute)
            _registry[key] = limiter
        else:
            limiter.tighten(max_in_flight, requests_per_minute)
        return limiter


def reset_limiters() -> None:
    """Forget every registered limiter (for tests, and between runs in one process)."""
    with _registry_lock:
        _registry.clear()
