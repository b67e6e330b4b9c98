"""Who is running a run: one process at a time may write a run's results.

The holder (host name and pid) is stored on the run's row when it starts or is resumed, its
``heartbeat_at`` refreshed every HEARTBEAT_S by the result writer, and cleared when it ends.
A second ``--resume`` is refused while the holder lives; a lock is stale, and taken over,
when its holder's pid is gone on this same host, or when it has not beaten for
STALE_AFTER_S (a holder on another host, or a pid reused since). Times are seconds since
the epoch, passed in by the caller, so tests use their own clock.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from assay.errors import ConfigError, Problem

if TYPE_CHECKING:  # SQLAlchemy is imported where it is used: the run's writer names
    from sqlalchemy import Connection  # RunHolder before anything opens the store

HEARTBEAT_S = 5.0
STALE_AFTER_S = 60.0


@dataclass(frozen=True)
class RunHolder:
    host: str
    pid: int

    @classmethod
    def this_process(cls) -> RunHolder:
        return cls(socket.gethostname(), os.getpid())

    def columns(self, now: float) -> dict[str, Any]:
        return {"holder_host": self.host, "holder_pid": self.pid, "heartbeat_at": now}


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists on this host."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, owned by someone else
        return True
    except OSError:
        return True  # cannot tell: assume alive, the heartbeat decides
    return True


class RunLocked(ConfigError):
    """The run is being run by a live process; exit code 2, nothing was run."""

    def __init__(self, run_id: str, holder: RunHolder, age_s: float) -> None:
        self.holder = holder
        super().__init__(
            [
                Problem(
                    "options",
                    "--resume",
                    f"run {run_id[:12]} is still running: pid {holder.pid} on {holder.host} "
                    f"holds it (last heartbeat {age_s:.0f} s ago). Wait for it to end, or stop "
                    f"it (Ctrl-C) and resume again; a run whose process is gone is taken "
                    f"over at once, one on another host after {STALE_AFTER_S:.0f} s "
                    "without a heartbeat",
                )
            ]
        )


def is_stale(
    holder: RunHolder,
    heartbeat_at: float | None,
    now: float,
    me: RunHolder,
    alive: Callable[[int], bool] = pid_alive,
    stale_after_s: float = STALE_AFTER_S,
) -> bool:
    if heartbeat_at is None or now - heartbeat_at > stale_after_s:
        return True
    return holder.host == me.host and holder.pid != me.pid and not alive(holder.pid)


def claim(
    conn: Connection,
    run_id: str,
    me: RunHolder,
    now: float,
    alive: Callable[[int], bool] = pid_alive,
) -> bool:
    """In ``conn``'s write transaction: take the run for ``me`` unless a live process holds
    it (raises RunLocked). False when there is no such run."""
    from sqlalchemy import select, update

    from assay.store.models import runs

    query = select(runs.c.holder_host, runs.c.holder_pid, runs.c.heartbeat_at).where(
        runs.c.id == run_id
    )
    row = conn.execute(query.with_for_update()).first()
    if row is None:
        return False
    if row.holder_host is not None and row.holder_pid is not None:
        holder = RunHolder(row.holder_host, row.holder_pid)
        if holder != me and not is_stale(holder, row.heartbeat_at, now, me, alive):
            raise RunLocked(run_id, holder, now - (row.heartbeat_at or now))
    conn.execute(update(runs).where(runs.c.id == run_id).values(**me.columns(now)))
    return True


def held_by(run_id: str, me: RunHolder) -> Any:
    """The WHERE clause of an update only ``me``, the holder, may make."""
    from assay.store.models import runs

    return (runs.c.id == run_id) & (runs.c.holder_host == me.host) & (runs.c.holder_pid == me.pid)


RELEASED = {"holder_host": None, "holder_pid": None, "heartbeat_at": None}
