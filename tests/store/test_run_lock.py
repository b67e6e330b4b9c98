"""One process at a time runs a run: the holder (host, pid) and its heartbeat live on the
run's row; a second claim is refused while the holder lives and takes over a stale lock.
Times come from the test (seconds since the epoch), never from a clock."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from assay.store import Store, open_store
from assay.store._engine import (
    HEAD_REVISION,
    VERSION_TABLE,
    _alembic_config,
    create_store_engine,
    resolve_url,
)
from assay.store._lock import STALE_AFTER_S, RunHolder, RunLocked
from tests.store.conftest import run_info, single

T0 = 1_800_000_000.0
HERE_A = RunHolder("host-a", 1001)
HERE_B = RunHolder("host-a", 1002)
THERE = RunHolder("host-b", 1001)


def alive(pid: int) -> bool:
    return True


def gone(pid: int) -> bool:
    return False


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    with open_store(store_url) as opened:
        opened.create_run(run_info("run-held"), holder=HERE_A, now=T0)
        yield opened


def holder_of(store: Store, run_id: str = "run-held") -> tuple[str | None, int | None]:
    with store._engine.connect() as conn:
        row = conn.execute(
            text("SELECT holder_host, holder_pid FROM assay_runs WHERE id = :id"), {"id": run_id}
        ).one()
    return row[0], row[1]


def test_a_live_holder_on_this_host_keeps_its_run(store: Store) -> None:
    with pytest.raises(RunLocked) as info:
        store.claim_run("run-held", HERE_B, T0 + 10, alive)
    [problem] = info.value.problems
    assert problem.path == "--resume"
    assert "run run-held is still running: pid 1001 on host-a holds it" in problem.message
    assert "(last heartbeat 10 s ago)" in problem.message
    assert holder_of(store) == ("host-a", 1001)


def test_a_holder_whose_pid_is_gone_on_this_host_is_taken_over(store: Store) -> None:
    store.claim_run("run-held", HERE_B, T0 + 10, gone)
    assert holder_of(store) == ("host-a", 1002)
    assert store.get_run("run-held").status == "running"  # type: ignore[union-attr]


def test_a_real_dead_process_is_taken_over(store_url: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    me = RunHolder.this_process()
    dead = RunHolder(me.host, int(done.stdout))
    with open_store(store_url) as store:
        store.create_run(run_info("run-dead"), holder=dead, now=T0)
        store.claim_run("run-dead", me, T0 + 1)  # the real check that the pid is gone
        assert holder_of(store, "run-dead") == (me.host, me.pid)


def test_a_holder_on_another_host_is_taken_over_only_after_its_heartbeat_stops(
    store: Store,
) -> None:
    store.create_run(run_info("run-there"), holder=THERE, now=T0)
    with pytest.raises(RunLocked):  # a pid of host-b says nothing about host-a's processes
        store.claim_run("run-there", HERE_A, T0 + 30, gone)
    assert store.heartbeat("run-there", THERE, T0 + 50)
    with pytest.raises(RunLocked):
        store.claim_run("run-there", HERE_A, T0 + 50 + STALE_AFTER_S - 1, gone)
    store.claim_run("run-there", HERE_A, T0 + 50 + STALE_AFTER_S + 1, gone)
    assert holder_of(store, "run-there") == ("host-a", 1001)
    assert not store.heartbeat("run-there", THERE, T0 + 200)  # host-b lost it, and is told


def test_release_frees_the_run_and_only_its_holder_can(store: Store) -> None:
    store.release_run("run-held", HERE_B)  # not the holder: nothing happens
    assert holder_of(store) == ("host-a", 1001)
    store.release_run("run-held", HERE_A)
    assert holder_of(store) == (None, None)
    store.claim_run("run-held", HERE_B, T0 + 1, alive)  # free: taken at once
    assert holder_of(store) == ("host-a", 1002)


def test_the_holder_may_claim_its_own_run_again(store: Store) -> None:
    store.claim_run("run-held", HERE_A, T0 + 5, alive)
    assert holder_of(store) == ("host-a", 1001)


def test_a_store_made_before_the_lock_is_migrated_with_its_runs(tmp_path: Path) -> None:
    from alembic import command

    url = f"sqlite:///{tmp_path}/old.db"
    engine = create_store_engine(resolve_url(url))
    config = _alembic_config()
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "0001")
        conn.execute(
            text(
                "INSERT INTO assay_runs (id, suite_name, status, started_at, assay_version, "
                "config, inputs, total, passed, failed) VALUES ('run-old', 's', 'interrupted', "
                "'t', '0', '{}', '{}', 0, 0, 0)"
            )
        )
    engine.dispose()
    with open_store(url) as store:
        assert store.get_run("run-old") is not None
        store.claim_run("run-old", HERE_A, T0, alive)  # never held: free
        store.add_results("run-old", [(0, single("a"))])
        assert holder_of(store, "run-old") == ("host-a", 1001)
        with store._engine.connect() as conn:
            version = conn.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalar()
        assert version == HEAD_REVISION
