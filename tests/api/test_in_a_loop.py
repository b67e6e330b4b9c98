"""``assay.run_async`` in a running event loop (as in a notebook, a web handler or this
pytest-asyncio test), ``assay.run`` called where a loop runs, stopping a run by cancelling
it, and a host's signal handlers left alone."""

from __future__ import annotations

import asyncio
import signal
import threading
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

import assay
from assay.store import open_store
from tests.api.conftest import write_suite
from tests.targets.agent_server import AgentServer, Step


async def test_run_async_runs_in_the_callers_loop_and_calls_the_hooks_in_its_thread(
    tmp_path: Path, agent: AgentServer, store_url: str
) -> None:
    path = write_suite(tmp_path, agent.chat_url, ["a", "b", "c"])
    threads: list[int] = []
    ticks = 0

    async def ticking() -> None:  # the caller's loop keeps turning while the run goes on
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    ticker = asyncio.create_task(ticking())
    try:
        report = await assay.run_async(
            path,
            store=store_url,
            on_start=lambda start: threads.append(threading.get_ident()),
            on_result=lambda result: threads.append(threading.get_ident()),
        )
    finally:
        ticker.cancel()
    assert [r.status for r in report.results] == ["passed"] * 3
    assert threads == [threading.get_ident()] * 4  # on_start, then on_result three times
    assert ticks > 0


async def test_run_called_where_a_loop_runs_gets_a_thread_of_its_own(
    tmp_path: Path, agent: AgentServer, store_url: str
) -> None:
    path = write_suite(tmp_path, agent.chat_url, ["a"])
    threads: list[int] = []
    report = assay.run(
        path, store=store_url, on_result=lambda r: threads.append(threading.get_ident())
    )
    assert [r.status for r in report.results] == ["passed"]
    assert len(threads) == 1 and threads[0] != threading.get_ident()


async def test_cancelling_run_async_stores_what_finished_and_resume_runs_the_rest(
    tmp_path: Path, agent: AgentServer, store_url: str
) -> None:
    path = write_suite(tmp_path, agent.chat_url, ["a", "b"], execution={"concurrency": 1})
    agent.by_query["b"] = Step(json={"response": "turn 1: b"}, delay_s=60)
    a_finished = asyncio.Event()
    run = asyncio.create_task(
        assay.run_async(path, store=store_url, on_result=lambda r: a_finished.set())
    )
    await asyncio.wait_for(a_finished.wait(), 60)
    run.cancel()  # "b" is in flight, held by the agent for a minute
    with pytest.raises(asyncio.CancelledError) as caught:
        await run
    with open_store(store_url) as store:
        [stopped] = store.list_runs()
        assert stopped.status == "interrupted"
        assert [r.test_name for r in store.iter_results(stopped.id)] == ["a"]
    notes = "\n".join(caught.value.__notes__)
    assert f"assay.run(resume={stopped.id[:12]!r}" in notes
    assert f"run {stopped.id[:12]} was interrupted with 1 test stored; " in notes

    del agent.by_query["b"]
    asked = len(agent.requests)
    report = await assay.run_async(resume=stopped.id, store=store_url)
    assert [r.body["query"] for r in agent.requests[asked:]] == ["b"]  # "a" is not re-run
    assert report.run.id == stopped.id and report.run.status == "completed"
    assert sorted((r.test_name, r.status) for r in report.results) == [
        ("a", "passed"),
        ("b", "passed"),
    ]


async def test_a_run_is_not_run_twice_at_once_by_one_process(
    tmp_path: Path, agent: AgentServer, store_url: str
) -> None:
    """The store's lock names a process; two resumes of one run in one process (a server
    calling run_async twice) would both pass it, so the second is refused here."""
    path = write_suite(tmp_path, agent.chat_url, ["a", "b"], execution={"concurrency": 1})
    agent.by_query["b"] = Step(json={"response": "turn 1: b"}, delay_s=60)
    started = asyncio.Event()
    first = asyncio.create_task(
        assay.run_async(path, store=store_url, on_start=lambda s: started.set())
    )
    await asyncio.wait_for(started.wait(), 60)
    await asyncio.wait_for(_held(agent, "b"), 60)  # "a" is done, "b" is in flight
    with open_store(store_url) as store:
        [running] = store.list_runs()
    with pytest.raises(assay.ConfigError, match="is still running"):
        await assay.run_async(resume=running.id, store=store_url)
    first.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first
    asked = Counter(r.body["query"] for r in agent.requests)
    assert asked == {"a": 1, "b": 1}  # no test was sent twice: the second run sent nothing


async def _held(agent: AgentServer, query: str) -> None:
    while not any(r.body["query"] == query for r in agent.requests):
        await asyncio.sleep(0.01)


def test_the_api_installs_no_signal_handler(
    tmp_path: Path, agent: AgentServer, store_url: str
) -> None:
    """A host's SIGINT and SIGTERM handlers stay in place while a run goes on (only the CLI
    turns SIGTERM into a clean stop)."""
    path = write_suite(tmp_path, agent.chat_url, ["a"])

    def hosts(signum: int, frame: FrameType | None) -> None:
        pass

    during: list[Any] = []
    previous = signal.signal(signal.SIGINT, hosts)
    try:
        before_term = signal.getsignal(signal.SIGTERM)
        report = assay.run(
            path,
            store=store_url,
            on_result=lambda r: during.append(
                (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM))
            ),
        )
        assert signal.getsignal(signal.SIGINT) is hosts
    finally:
        signal.signal(signal.SIGINT, previous)
    assert [r.status for r in report.results] == ["passed"]
    assert during == [(hosts, before_term)]
