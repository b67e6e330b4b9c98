"""Threads the user's code leaves running once a run is over, and an exit that does not wait
for them: only for a process that is assay's own (``assay run``, a worker), never under
``assay.run``, where the caller owns the process and its exit.

Python's exit waits for every non-daemon thread (``threading._shutdown``) and for every busy
worker of a ``concurrent.futures`` pool, daemon or not (the pool's exit hook joins them). An
agent that hands a slow job to a module-level pool (a telemetry upload, a cache warm-up), or
starts a non-daemon thread, would keep ``assay run`` alive after its summary and reports, for
ever when that job never ends. A pool's idle worker (waiting for its next job) is no such
thread: that hook wakes it and it ends at once, as at any exit.

So such threads get a bounded grace (``WAIT_S``, all of them one deadline): a telemetry
upload that takes a second or two still completes, and the exit is then Python's own (the
atexit handlers run as usual). Only threads still running after it are left behind.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
import time
from types import FrameType

from assay._words import counted

WAIT_S = 10.0  # how long the threads left get to finish, in all
WAIT_ENV = "ASSAY_EXIT_WAIT_S"  # sets it (tests, or a CI that would rather not wait)
HANDLERS_WAIT_S = 2.0  # how long the atexit handlers get, once threads are left behind
_POLL_S = 0.05  # how often a busy pool worker is looked at again: it may go idle, not end


def threads_left() -> list[threading.Thread]:
    """The threads other than this one that Python's exit would wait for: the non-daemon
    ones and the busy workers of ``concurrent.futures`` pools."""
    futures = sys.modules.get("concurrent.futures.thread")  # not imported: no pool anywhere
    pooled = getattr(futures, "_threads_queues", {})
    idle_code = getattr(getattr(futures, "_worker", None), "__code__", None)
    frames = sys._current_frames()
    here = threading.current_thread()
    left = []
    for thread in threading.enumerate():
        if thread is here or not thread.is_alive():
            continue
        if thread in pooled:
            if _top_code(frames.get(thread.ident or 0)) is idle_code:
                continue  # waiting in the pool's queue for a job: the exit hook ends it
        elif thread.daemon:
            continue
        left.append(thread)
    return left


def _top_code(frame: FrameType | None) -> object:
    return None if frame is None else frame.f_code


def exit_if_threads_left(code: int, warn: bool = True, wait: bool = True) -> None:
    """When threads are left (``threads_left``): give them the grace (``wait``, see
    ``grace_s``) and return if they all finish in it, for the process to exit as usual.
    Otherwise run the atexit handlers (for ``HANDLERS_WAIT_S`` at most: they may wait for
    those threads too), say how many threads are left behind on stderr (``warn``), flush the
    standard streams and end the process with ``code`` at once. Without ``wait``, none of
    that: the process ends at once, as a forked one does."""
    if not threads_left():
        return
    from assay.runner.forking import flush_std_streams  # the run is over: runner is loaded

    waited = ""
    if wait:
        flush_std_streams()  # the summary out before the wait, were stdout a pipe
        grace = grace_s()
        left, cut_short = _waited_for(grace)
        if not left:
            return
        waited = " (Ctrl-C cut the wait short)" if cut_short else f" after waiting {grace:g} s"
        _run_atexit_handlers()
    else:
        left = threads_left()
    if warn:
        with contextlib.suppress(Exception):  # stderr closed: nothing to tell
            print(
                f"warning: the agent's or a grader's code left {counted(len(left), 'thread')} "
                f"running{waited}; assay exited without {'it' if len(left) == 1 else 'them'}",
                file=sys.stderr,
            )
    flush_std_streams()
    os._exit(code)


def grace_s() -> float:
    """``WAIT_S``, or the seconds ``ASSAY_EXIT_WAIT_S`` sets (0 or more); a value that is
    no such number is said on stderr and ``WAIT_S`` kept (the run is over: it fails nothing)."""
    raw = os.environ.get(WAIT_ENV, "").strip()
    if not raw:
        return WAIT_S
    try:
        seconds = float(raw)
    except ValueError:
        seconds = -1.0
    if 0 <= seconds < float("inf"):
        return seconds
    with contextlib.suppress(Exception):
        print(
            f"warning: {WAIT_ENV}={raw!r} is not a number of seconds (0 or more); "
            f"waiting {WAIT_S:g} s, its default",
            file=sys.stderr,
        )
    return WAIT_S


def _waited_for(grace: float) -> tuple[list[threading.Thread], bool]:
    """The threads still left once they all finished or ``grace`` seconds went by (one
    deadline for all), and whether Ctrl-C cut the wait short."""
    deadline = time.monotonic() + grace
    try:
        while left := threads_left():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            # a non-daemon thread ends (join returns at once); a busy pool worker goes idle
            # and stays alive, so it is looked at again every _POLL_S
            left[0].join(min(remaining, _POLL_S))
    except KeyboardInterrupt:  # Ctrl-C while waiting: wait no more
        return threads_left(), True
    return left, False


def _run_atexit_handlers() -> None:
    """The atexit handlers (the user's too), as an exit would run them, on a daemon thread
    given ``HANDLERS_WAIT_S``: one may wait for a thread that never ends."""
    handlers = threading.Thread(target=atexit._run_exitfuncs, name="assay-atexit", daemon=True)
    handlers.start()
    with contextlib.suppress(KeyboardInterrupt):
        handlers.join(HANDLERS_WAIT_S)
