"""A worker process forked from the run's process: it starts in milliseconds with every
module already imported, where a fresh interpreter spends most of a second importing assay.

Forking is safe only while the process runs one thread (``single_threaded``): another thread
may hold a lock the child needs. Every signal is blocked across the fork (``signals_held``),
so none reaches the child before it has let go of the parent's signal handling
(``let_go_of_signals``: the run's Ctrl-C and SIGTERM handling, its event loop's wake-up fd);
the result writer's process (``assay.runner.writer``) starts the same way. The child never
returns into the parent's stack (it ends with ``os._exit``) and never touches the parent's
event loop or store; it closes every inherited pipe end but its own two, for a pipe ends
only when every process holding its writing end has closed it (the result writer's, the
other workers').
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Collection, Iterator

_FDS = "/dev/fd"  # this process's open descriptors (Linux, macOS)
_WAIT_STEP_S = 0.05


def single_threaded() -> bool:
    """Whether no other thread runs Python code here: then a fork is safe. (Native threads,
    such as numpy's BLAS pool, park on their own and register their own fork handlers; a
    Python thread may hold a lock the child needs: the import lock, logging's, an I/O
    buffer's.)"""
    return threading.active_count() == 1


@contextlib.contextmanager
def signals_held() -> Iterator[set[int | signal.Signals]]:
    """Every signal blocked while a child is forked, so none reaches it before it has let go
    of the parent's handling (``let_go_of_signals``); gives the mask to restore after."""
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
    try:
        yield mask
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def let_go_of_signals(mask: Collection[int | signal.Signals]) -> None:
    """In a forked child, signals still blocked: Ctrl-C and SIGTERM reach the whole process
    group, and are the parent's to handle (it says "stop"); the parent's event loop's wake-up
    fd is not the child's (its handlers would write there); then the parent's ``mask``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.set_wakeup_fd(-1)
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def can_fork() -> bool:
    return hasattr(os, "fork") and os.path.isdir(_FDS) and single_threaded()


class Forked:
    """A forked child, waited for as a ``subprocess.Popen`` is."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if timeout is None:
            if self.returncode is None:
                self.returncode = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
            return self.returncode
        deadline = time.monotonic() + timeout
        step = 0.0005
        while (code := self.poll()) is None:
            if time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(f"pid {self.pid}", timeout)
            time.sleep(step)
            step = min(step * 2, _WAIT_STEP_S)
        return code

    def kill(self) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)


def _close_inherited_pipes(keep: Collection[int]) -> None:
    for name in os.listdir(_FDS):
        fd = int(name)
        if fd <= 2 or fd in keep:
            continue
        with contextlib.suppress(OSError):  # the listing's own descriptor, closed by now
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                os.close(fd)


def _become_worker(name: str, keep: Collection[int], mask: set[int | signal.Signals]) -> None:
    """In the child, before anything else: the parent's signal handling, pipes and standard
    streams let go of, as a fresh ``python -c`` worker would start."""
    # Linux: what ps and top show for it, not the driver's name
    with contextlib.suppress(OSError), open("/proc/self/comm", "w") as comm:
        comm.write(name[:15])
    for number in signal.valid_signals():  # the parent's Python handlers
        if callable(signal.getsignal(number)):
            signal.signal(number, signal.SIG_DFL)
    _close_inherited_pipes(keep)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    if sys.__stderr__ is not None:  # stdout is the run's report: what a test prints goes here
        os.dup2(sys.__stderr__.fileno(), 1)
    let_go_of_signals(mask)


def flush_std_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            if stream is not None:
                stream.flush()


def fork_worker(name: str, child: Callable[[], int], keep: Collection[int]) -> Forked:
    """Fork a process named ``name`` that runs ``child`` (its exit status) with only the
    inherited pipe ends ``keep``, then exits; call only when ``can_fork()``."""
    flush_std_streams()  # or the child would write the parent's buffered output again
    with signals_held() as mask:
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child's coverage is not collected
            code = 70  # EX_SOFTWARE: the child failed before running its work
            try:
                _become_worker(name, keep, mask)
                code = child()
            except BaseException:
                with contextlib.suppress(BaseException):
                    import traceback

                    traceback.print_exc()
            finally:
                flush_std_streams()
                os._exit(code)
    return Forked(pid)
