"""Turn deadlines that share one timer: ``async with turn_deadline(s): ...`` is
``asyncio.timeout(s)`` (the body is cancelled at the deadline and ``TimeoutError`` raised in
its place; a cancellation from outside passes through), without a timer of the event loop's
made and cancelled for every turn, which cost about a tenth of a turn's CPU. An HTTP
request's own timeout is one too (``send_request``), in place of aiohttp's timer.

The deadlines of a loop wait in one heap with one timer armed for the earliest; a turn
that ends marks its entry done, and done entries leave the heap when they reach its top
or, past half of it, all at once.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
import weakref
from asyncio import current_task, get_running_loop
from collections.abc import Callable
from heapq import heappush
from types import TracebackType
from typing import Any
from weakref import WeakKeyDictionary

from assay._isolation import cancel_at_deadline, deadline_left

_WAITING, _DONE, _EXPIRED = range(3)
_MIN_COMPACTED = 100  # a heap this small is never compacted: popping suffices
# An entry is a list [when, order, task, state]: heap order by when, ties by arrival (the
# order is unique, so the task is never compared); a list, not an object, as it is made on
# every turn and every request.
_WHEN, _ORDER, _TASK, _STATE = range(4)
_Entry = list[Any]  # [when: float, order: int, task: asyncio.Task[object], state: int]


class Deadlines:
    """The deadlines of one event loop, used only from inside it (holding no reference to
    it, so the loop is collected when done with). ``clock`` (tests): a clock to read instead
    of the loop's; then no timer is armed and ``expire_due`` is called by hand."""

    def __init__(self, clock: Callable[[], float] | None = None) -> None:
        self._clock = clock or _loop_time
        self._arms = clock is None
        self._heap: list[_Entry] = []
        self._order = itertools.count()  # ties broken by arrival, never by comparing tasks
        self._done = 0  # entries in the heap marked done
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = float("inf")

    def __len__(self) -> int:
        """Entries still in the heap (done ones included), for tests."""
        return len(self._heap)

    # (entries are pushed and marked done by ``TurnDeadline``, entering and leaving)

    def _compact(self) -> None:
        """Past half of the heap done: keep the waiting entries only."""
        self._heap = [item for item in self._heap if item[_STATE] == _WAITING]
        heapq.heapify(self._heap)
        self._done = 0

    def expire_due(self) -> None:
        """Cancel every waiting turn whose deadline has come; arm the timer for the next."""
        now = self._clock()
        heap = self._heap
        while heap and (heap[0][_WHEN] <= now or heap[0][_STATE] != _WAITING):
            entry = heapq.heappop(heap)
            if entry[_STATE] == _WAITING:
                entry[_STATE] = _EXPIRED
                cancel_at_deadline(entry[_TASK])  # on the record: assay's, not the user's
            else:
                self._done -= entry[_STATE] == _DONE
        self._timer, self._timer_at = None, float("inf")
        if heap and self._arms:
            self._arm(heap[0][_WHEN])

    def _arm(self, when: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        timer = asyncio.get_running_loop().call_at(when, self.expire_due)
        self._timer, self._timer_at = timer, when


def _loop_time() -> float:
    return asyncio.get_running_loop().time()


def _deadlines_for(loop: asyncio.AbstractEventLoop) -> Deadlines:
    deadlines = Deadlines()
    if type(loop).time is asyncio.BaseEventLoop.time:  # asyncio's own clock: read it directly
        deadlines._clock = time.monotonic
    return deadlines


class TurnDeadline:
    """``asyncio.timeout(delay)`` on the running loop's shared ``Deadlines`` (``deadlines``:
    other ones, for tests with an injected clock); also a plain (sync) context manager, as
    entering and leaving it never waits. ``turn_deadline`` is this class."""

    __slots__ = ("_cancelling", "_deadlines", "_delay", "_entry")

    def __init__(self, delay: float, deadlines: Deadlines | None = None) -> None:
        self._deadlines = deadlines
        self._delay = delay
        self._entry: _Entry | None = None
        self._cancelling = 0

    def expired(self) -> bool:
        return self._entry is not None and self._entry[_STATE] == _EXPIRED

    def __enter__(self) -> TurnDeadline:
        loop = get_running_loop()  # once, for the task and the loop's deadlines both
        task = current_task(loop)
        if task is None:
            raise RuntimeError("a turn deadline must be used inside a task")
        deadlines = self._deadlines
        if deadlines is None:
            last = _last
            deadlines = last[1] if last is not None and last[0]() is loop else _loop_deadlines(loop)
            self._deadlines = deadlines
        self._cancelling = task.cancelling()
        # its entry pushed, and the timer armed when it is the soonest
        when = deadlines._clock() + self._delay
        self._entry = entry = [when, next(deadlines._order), task, _WAITING]
        heappush(deadlines._heap, entry)
        if when < deadlines._timer_at and deadlines._arms:
            deadlines._arm(when)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        entry = self._entry
        assert entry is not None and self._deadlines is not None
        state = entry[_STATE]
        if state != _EXPIRED:
            if state == _WAITING:  # its entry no longer matters: done, and counted
                entry[_STATE] = _DONE
                deadlines = self._deadlines
                deadlines._done += 1
                if deadlines._done > _MIN_COMPACTED and deadlines._done * 2 > len(deadlines._heap):
                    deadlines._compact()
            return
        deadline_left(entry[_TASK])
        # as asyncio.timeout: our cancel becomes TimeoutError unless another one is pending
        if entry[_TASK].uncancel() <= self._cancelling and exc_type is asyncio.CancelledError:
            raise TimeoutError from exc

    async def __aenter__(self) -> TurnDeadline:
        return self.__enter__()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.__exit__(exc_type, exc, tb)


_per_loop: WeakKeyDictionary[asyncio.AbstractEventLoop, Deadlines] = WeakKeyDictionary()
_last: tuple[weakref.ref[asyncio.AbstractEventLoop], Deadlines] | None = None  # the usual one


def _loop_deadlines(loop: asyncio.AbstractEventLoop) -> Deadlines:
    """The loop's deadlines, made on first use, and remembered as the usual ones (``_last``:
    a run uses one loop, found without a weak dictionary's lookup)."""
    global _last
    deadlines = _per_loop.get(loop)
    if deadlines is None:
        deadlines = _per_loop[loop] = _deadlines_for(loop)
    _last = (weakref.ref(loop), deadlines)
    return deadlines


# ``turn_deadline(delay)``: a deadline ``delay`` seconds from entering the body of
# ``async with`` (or ``with``), on the running loop's deadlines (looked up on entering: no
# call of its own between the caller and the class)
turn_deadline = TurnDeadline
