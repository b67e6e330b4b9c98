"""Threads the user's code leaves running once a run is over, and an exit that does not wait
for them: only for a process that is assay's own (``assay run``, a worker), never under
``assay.run``, where the caller owns the process and its exit.

Python's exit waits for every non-daemon thread (``threading._shutdown``) and for every busy
worker of a ``concurrent.futures`` pool, daemon or not (the pool's exit hook joins them). An
agent that hands a slow job to a module-level pool (a telemetry upload, a cache warm-up), or
starts a non-daemon thread, would keep ``assay run`` alive after its summary and reports, for
ever when that job never ends. A pool's idle worker (waiting for its next job) is no such
thread: that hook wakes it and it ends at once, as at any exit.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from types import FrameType

from assay._words import counted


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


def exit_if_threads_left(code: int, warn: bool = True) -> None:
    """When threads are left (``threads_left``): say how many on stderr (``warn``), flush the
    standard streams and end the process with ``code`` at once, without waiting for them (nor
    running the atexit handlers, which may wait for them too). Returns when none is left:
    the process then exits as usual."""
    left = len(threads_left())
    if not left:
        return
    if warn:
        with contextlib.suppress(Exception):  # stderr closed: nothing to tell
            print(
                f"warning: the agent's or a grader's code left {counted(left, 'thread')} "
                f"running; assay exited without waiting for {'it' if left == 1 else 'them'}",
                file=sys.stderr,
            )
    from assay.runner.forking import flush_std_streams  # the run is over: runner is loaded

    flush_std_streams()
    os._exit(code)
