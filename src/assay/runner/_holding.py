"""One run at a time in this process, too: the store's lock (``assay.store._lock``) is held
by a process, and one process (a server calling ``assay.run_async``) may run several runs;
two of the same run at once would run its tests twice."""

from __future__ import annotations

import threading

from assay.store._lock import RunHolder, RunLocked

_RUNNING: set[str] = set()
_RUNNING_LOCK = threading.Lock()


def hold_in_this_process(run_id: str, holder: RunHolder) -> None:
    """Take the run for this process, or raise RunLocked if it runs here already."""
    with _RUNNING_LOCK:
        if run_id in _RUNNING:
            raise RunLocked(run_id, holder, 0.0)
        _RUNNING.add(run_id)


def let_go_in_this_process(run_id: str) -> None:
    with _RUNNING_LOCK:
        _RUNNING.discard(run_id)
