"""``assay run --workers N``: the same suite gives the same report on one process and on two
workers; a worker or the driver killed (SIGKILL), then ``--resume``, loses nothing and
stores nothing twice. Real processes, a real HTTP agent on 127.0.0.1, a real SQLite store.

The kill tests hold a few slow tests at the agent (``Step`` with a long delay, ended by
``gate.stop``) and wait until every other result is stored, so the kill always lands while
exactly those are in flight, whatever the machine's load."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.runner.pool import WORKER_NAME
from tests.runner.scale_suite import (
    PASSED,
    TOTAL,
    essence,
    resume_completes,
    rows,
    run,
    run_id,
    start,
    wait_for,
    write_suite,
)
from tests.targets.agent_server import AgentServer, Step, agent_server

HELD = 6  # slow tests; with 2 workers of 4 slots each, each worker holds at least 2 of them


@pytest.fixture
def agent() -> Iterator[AgentServer]:
    with agent_server() as server:
        yield server


def hold_some(agent: AgentServer) -> list[str]:
    """Make HELD single-turn tests (they pass once answered) wait at the agent until
    ``release``; their names."""
    numbers = [2 * k * 97 for k in range(1, HELD + 1)]  # even: expected to pass, spread out
    for i in numbers:
        reply = {"response": f"turn 1: q{i}"}
        agent.by_query[f"q{i}"] = Step(json=reply, delay_s=3_600)
    return [f"single-{i:04d}" for i in numbers]


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():  # a thread may end while it is read
        found += [int(p) for p in _proc_file(pid, f"task/{task.name}/children").split()]
    return found


def forked_workers_of(pid: int) -> list[int]:
    """The worker processes forked from a run (not its forked result writer): what
    ``assay run`` starts, one thread in its process."""
    return [child for child in children(pid) if _proc_file(child, "comm").startswith(WORKER_NAME)]


def fresh_workers_of(pid: int) -> list[int]:
    """The worker processes of a run started as fresh interpreters: what a run started in a
    process that runs other threads (this one) starts."""
    return [
        child for child in children(pid) if "assay.runner.shard" in _proc_file(child, "cmdline")
    ]


def _proc_file(pid: int, name: str) -> str:
    """/proc/PID/NAME, or "" for a child that ended since it was listed (a busy machine
    gives a short-lived child the time to go: reading its files then raises)."""
    try:
        return Path(f"/proc/{pid}/{name}").read_bytes().decode(errors="replace")
    except (ProcessLookupError, FileNotFoundError):
        return ""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat").read_text() if Path(f"/proc/{pid}/stat").exists() else ""
    return " Z " not in stat  # a zombie has ended


def test_two_workers_give_the_one_process_report(tmp_path: Path, agent: AgentServer) -> None:
    reports = {}
    for workers in ("1", "2"):
        folder = tmp_path / f"w{workers}"
        folder.mkdir()
        write_suite(folder, agent.chat_url)
        done = run(folder, "run", "suite.yaml", "--workers", workers, "--out", "r.json")
        assert done.returncode == 1, done.stderr  # the odd single-turn tests fail by design
        reports[workers] = json.loads((folder / "r.json").read_text())
        if workers == "2":
            assert "running on 2 worker processes (--workers)" in done.stderr
    one, two = reports["1"], reports["2"]
    assert one["summary"]["total_tests"] == TOTAL and one["summary"]["passed"] == PASSED
    names = [r["test_name"] for r in two["results"]]
    assert len(names) == TOTAL and len(set(names)) == TOTAL
    assert essence(two) == essence(one)


def test_the_default_uses_every_core_for_a_big_run(tmp_path: Path, agent: AgentServer) -> None:
    write_suite(tmp_path, agent.chat_url, single=301, multi=0)
    done = run(tmp_path, "run", "suite.yaml")
    assert done.returncode == 1, done.stderr
    cores = len(os.sched_getaffinity(0))
    said = f"running on {cores} worker processes (one per core, for 301 tests)"
    assert (said in done.stderr) == (cores > 1), done.stderr


def test_repeats_are_sharded_like_tests(tmp_path: Path, agent: AgentServer) -> None:
    reports = {}
    for workers in ("1", "2"):
        folder = tmp_path / f"w{workers}"
        folder.mkdir()
        write_suite(folder, agent.chat_url, single=20, multi=10)
        args = ("run", "suite.yaml", "--repeat", "3", "--workers", workers, "--out", "r.json")
        done = run(folder, *args)
        assert done.returncode == 1, done.stderr
        reports[workers] = json.loads((folder / "r.json").read_text())
    assert reports["2"]["summary"]["total_tests"] == 90
    assert essence(reports["2"]) == essence(reports["1"])


def test_a_killed_worker_loses_only_its_tests_in_flight(tmp_path: Path, agent: AgentServer) -> None:
    write_suite(tmp_path, agent.chat_url, patient=True)
    held = hold_some(agent)
    db = tmp_path / ".assay" / "assay.db"
    args = ("run", "suite.yaml", "--workers", "2", "--concurrency", "8", "--quiet")
    proc = start(tmp_path, *args)
    wait_for(lambda: len(rows(db)) == TOTAL - HELD, "every test but the held ones stored")
    victim = forked_workers_of(proc.pid)[0]
    os.kill(victim, signal.SIGKILL)
    wait_for(lambda: not alive(victim), "the killed worker to end")
    agent.end_pauses()  # the other worker's held tests now finish
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 3, err
    assert "worker" in err and "stopped unexpectedly (killed by SIGKILL)" in err
    stored = rows(db)
    lost = TOTAL - len(stored)
    assert 2 <= lost <= 4  # what the killed worker held: its share (4) less the other's
    assert len(set(stored)) == len(stored)
    assert {f"single-{i:04d}" for i in range(1_500)} - {n for n, _ in stored} <= set(held)
    assert f"{lost} tests have no result" in err
    rid = run_id(db)
    assert f"assay run --resume {rid[:12]}" in err

    resume_completes(tmp_path, db, "--out", "r.json")
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["run"]["status"] == "completed"
    assert report["summary"]["passed"] == PASSED


def test_a_killed_driver_loses_nothing_on_resume(tmp_path: Path, agent: AgentServer) -> None:
    write_suite(tmp_path, agent.chat_url, patient=True)
    hold_some(agent)
    db = tmp_path / ".assay" / "assay.db"
    args = ("run", "suite.yaml", "--workers", "2", "--concurrency", "8", "--quiet")
    proc = start(tmp_path, *args)
    wait_for(lambda: len(rows(db)) == TOTAL - HELD, "every test but the held ones stored")
    workers = forked_workers_of(proc.pid)
    assert len(workers) == 2
    proc.kill()
    proc.communicate(timeout=300)
    # the workers see their pipe end and stop: nothing of the run goes on without it
    wait_for(lambda: not any(alive(w) for w in workers), "the orphaned workers to end")
    agent.end_pauses()
    assert len(rows(db)) == TOTAL - HELD

    resume_completes(tmp_path, db, "--out", "r.json")
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["run"]["status"] == "completed"
    assert report["summary"]["passed"] == PASSED


def test_sigterm_stops_every_worker_cleanly(tmp_path: Path, agent: AgentServer) -> None:
    write_suite(tmp_path, agent.chat_url, patient=True)
    held = hold_some(agent)
    db = tmp_path / ".assay" / "assay.db"
    args = ("run", "suite.yaml", "--workers", "2", "--concurrency", "8", "--quiet")
    proc = start(tmp_path, *args)
    wait_for(lambda: len(rows(db)) == TOTAL - HELD, "every test but the held ones stored")
    workers = forked_workers_of(proc.pid)
    assert len(workers) == 2
    proc.terminate()
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 130, err
    assert not any(alive(w) for w in workers)  # the driver waited for them
    stored = rows(db)
    assert len(stored) == TOTAL - HELD and not {n for n, _ in stored} & set(held)
    assert f"interrupted: {TOTAL - HELD} tests stored" in err
    agent.end_pauses()
    resume_completes(tmp_path, db, "--out", "r.json")


def test_assay_run_takes_workers_from_python(tmp_path: Path, agent: AgentServer) -> None:
    """From a process that runs other threads (the agent's, here), the workers are fresh
    interpreters, not forks."""
    import assay
    from assay.results.models import TestResult
    from assay.runner.observer import RunStart

    write_suite(tmp_path, agent.chat_url, single=30, multi=10)
    starts: list[RunStart] = []
    workers: list[tuple[list[int], list[int]]] = []

    def on_result(result: TestResult) -> None:
        if not workers:
            workers.append((fresh_workers_of(os.getpid()), forked_workers_of(os.getpid())))

    report = assay.run(
        tmp_path / "suite.yaml",
        workers=2,
        store=f"sqlite:///{tmp_path}/py.db",
        on_start=starts.append,
        on_result=on_result,
    )
    assert starts[0].workers == "2 worker processes (--workers)"
    assert report.summary.total_tests == 40 and report.summary.passed == 15 + 10
    assert len({r.test_name for r in report.results}) == 40
    fresh, forked = workers[0]
    assert len(fresh) == 2 and not forked


def test_an_unreachable_agent_fails_the_run_once(tmp_path: Path) -> None:
    """The workers start before the driver checks the agent (so they can be forks: the
    check may leave a DNS thread behind); it is still the driver's one check that fails
    the run, not each worker's."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    write_suite(tmp_path, f"http://127.0.0.1:{port}/chat", single=30, multi=0)
    done = run(tmp_path, "run", "suite.yaml", "--workers", "2")
    assert done.returncode == 3, done.stderr
    assert done.stderr.count("cannot reach") == 1 and "worker" not in done.stderr.split("\n", 1)[1]


def test_a_status_hook_gets_every_status_from_workers(tmp_path: Path, agent: AgentServer) -> None:
    """A hook that reads only the status (the progress bar's) is told each worker result's
    status, which the driver has without parsing the result back."""
    from collections import Counter

    import assay
    from assay.runner.observer import StatusHook

    write_suite(tmp_path, agent.chat_url, single=30, multi=10)
    statuses: list[str] = []
    report = assay.run(
        tmp_path / "suite.yaml",
        workers=2,
        store=f"sqlite:///{tmp_path}/status.db",
        on_result=StatusHook(statuses.append),
    )
    summary = report.summary
    assert len(statuses) == summary.total_tests == 40
    assert Counter(statuses)["passed"] == summary.passed


def test_a_store_that_cannot_store_the_run_fails_it(
    tmp_path: Path, agent: AgentServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On workers, a new run is stored once its first tests are under way; a store that
    refuses it still fails the run with the store's own error, and nothing is stored."""
    import assay
    from assay.errors import StoreError
    from assay.store import Store, open_store

    refused = StoreError("the store sqlite:///full.db failed: database or disk is full")
    calls: list[str] = []

    def create_run(self: Store, run: object, *args: object, **kwargs: object) -> None:
        calls.append("create_run")
        raise refused

    monkeypatch.setattr(Store, "create_run", create_run)
    write_suite(tmp_path, agent.chat_url, single=30, multi=0)
    url = f"sqlite:///{tmp_path}/full.db"
    starts: list[object] = []
    with pytest.raises(StoreError) as failed:
        assay.run(tmp_path / "suite.yaml", workers=2, store=url, on_start=starts.append)
    assert failed.value is refused and calls == ["create_run"] and starts == []
    with open_store(url) as store:
        assert store.list_runs() == []


def test_on_start_finds_the_run_stored(tmp_path: Path, agent: AgentServer) -> None:
    """On workers, the new run is stored after its first tests are handed out; ``on_start``
    is still told only once it is stored."""
    import assay
    from assay.runner.observer import RunStart
    from assay.store import open_store

    write_suite(tmp_path, agent.chat_url, single=30, multi=0)
    url = f"sqlite:///{tmp_path}/started.db"
    found: list[str | None] = []

    def on_start(start: RunStart) -> None:
        with open_store(url) as store:
            run = store.get_run(start.run.id)
            found.append(run.status if run is not None else None)

    assay.run(tmp_path / "suite.yaml", workers=2, store=url, on_start=on_start)
    assert found == ["running"]
