"""Per-endpoint limits, shared by everything that calls the same server in one process:
targets, judges and simulated users.

    limiter = limiter_for(endpoint_key(url), max_in_flight=8, requests_per_minute=600)
    if limiter is None:
        ...  # no limits configured: nothing to wait for
    async with limiter:
        ...  # one request

``max_in_flight`` caps concurrent requests (a semaphore); ``requests_per_minute`` spaces them
with a token bucket that holds at most one second's worth of requests (at least one), so a
burst never exceeds what the endpoint would accept in a second. Both are per event loop:
a limiter used from two loops keeps separate counts in each.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from types import TracebackType


class _TokenBucket:
    """Tokens refill at ``rate`` per second up to ``capacity``. ``take`` reserves a token
    at once (the balance may go negative) and sleeps until it is due, so waiters are
    served in arrival order without a lock."""

    def __init__(self, rate_per_s: float, capacity: float, loop: asyncio.AbstractEventLoop):
        self.rate = rate_per_s
        self.capacity = capacity
        self.tokens = capacity
        self.loop = loop
        self.updated = loop.time()

    async def take(self) -> None:
        now = self.loop.time()
        self.tokens = min(self.capacity, self.tokens + (now - self.updated) * self.rate)
        self.updated = now
        self.tokens -= 1.0
        if self.tokens >= 0:
            return
        try:
            await asyncio.sleep(-self.tokens / self.rate)
        except asyncio.CancelledError:
            self.tokens += 1.0  # give the reservation back
            raise


class _LoopState:
    __slots__ = ("semaphore", "bucket")

    def __init__(self, limiter: EndpointLimiter, loop: asyncio.AbstractEventLoop) -> None:
        self.semaphore = asyncio.Semaphore(limiter.max_in_flight) if limiter.max_in_flight else None
        rpm = limiter.requests_per_minute
        self.bucket = _TokenBucket(rpm / 60.0, max(1.0, rpm / 60.0), loop) if rpm else None


class EndpointLimiter:
    """``async with limiter:`` around each request. Waiting for a rate-limit token happens
    after a concurrency slot is taken, so the slot also bounds how many wait."""

    def __init__(
        self, max_in_flight: int | None = None, requests_per_minute: float | None = None
    ) -> None:
        if max_in_flight is not None and max_in_flight < 1:
            raise ValueError(f"max_in_flight must be at least 1, got {max_in_flight}")
        if requests_per_minute is not None and requests_per_minute <= 0:
            raise ValueError(f"requests_per_minute must be positive, got {requests_per_minute}")
        self.max_in_flight = max_in_flight
        self.requests_per_minute = requests_per_minute
        self._states: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopState] = (
            weakref.WeakKeyDictionary()
        )

    def __repr__(self) -> str:
        return (
            f"EndpointLimiter(max_in_flight={self.max_in_flight}, "
            f"requests_per_minute={self.requests_per_minute})"
        )

    def _state(self) -> _LoopState:
        loop = asyncio.get_running_loop()
        state = self._states.get(loop)
        if state is None:
            state = self._states[loop] = _LoopState(self, loop)
        return state

    async def __aenter__(self) -> None:
        state = self._state()
        if state.semaphore is not None:
            await state.semaphore.acquire()
        if state.bucket is not None:
            try:
                await state.bucket.take()
            except BaseException:
                if state.semaphore is not None:
                    state.semaphore.release()
                raise

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        state = self._states.get(asyncio.get_running_loop())
        if state is not None and state.semaphore is not None:
            state.semaphore.release()


_registry: dict[str, EndpointLimiter] = {}
_registry_lock = threading.Lock()


def _stricter(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else min(a, b)


def limiter_for(
    key: str, max_in_flight: int | None, requests_per_minute: float | None
) -> EndpointLimiter | None:
    """The process-wide limiter for an endpoint (``endpoint_key(url)``); ``None`` when no
    limit is given. Callers naming the same endpoint share one limiter. When a later caller
    asks for different limits, the endpoint gets a new limiter with the stricter of each,
    which that caller and later ones share (earlier holders keep theirs)."""
    if max_in_flight is None and requests_per_minute is None:
        return None
    with _registry_lock:
        current = _registry.get(key)
        if current is not None:
            in_flight = _stricter(current.max_in_flight, max_in_flight)
            rpm = _stricter(current.requests_per_minute, requests_per_minute)
            if (in_flight, rpm) == (current.max_in_flight, current.requests_per_minute):
                return current
            max_in_flight = None if in_flight is None else int(in_flight)
            requests_per_minute = rpm
        limiter = _registry[key] = EndpointLimiter(max_in_flight, requests_per_minute)
        return limiter


def reset_limiters() -> None:
    """Forget every registered limiter (for tests, and between runs in one process)."""
    with _registry_lock:
        _registry.clear()
