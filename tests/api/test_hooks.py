"""``on_start`` and ``on_result``: what they are given, when, and what a hook that raises
costs (no result, and not the run)."""

from __future__ import annotations

from pathlib import Path

import pytest

import assay
from assay.store import open_store
from tests.api.conftest import write_suite
from tests.targets.agent_server import AgentServer, Step

SECRET = "sk-hook-test-secret-0042"


def test_on_start_comes_once_then_on_result_gives_each_result_as_stored(
    tmp_path: Path, agent: AgentServer, store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOOK_KEY", SECRET)
    path = write_suite(
        tmp_path,
        agent.chat_url,
        ["a", "b"],
        execution={"repeat": 2},
    )
    text = path.read_text().replace(
        "url: ", "headers: {Authorization: 'Bearer ${HOOK_KEY}'}\n    url: ", 1
    )
    path.write_text(text)
    agent.by_query["b"] = Step(json={"response": f"the key is {SECRET}"})  # echoed back
    calls: list[object] = []
    report = assay.run(path, store=store_url, on_start=calls.append, on_result=calls.append)
    start, *results = calls
    assert isinstance(start, assay.RunStart)
    assert (start.total, start.done, start.remaining) == (4, 0, 4)
    assert start.run.id == report.run.id and start.run.status == "running"
    assert len(results) == 4 and all(isinstance(r, assay.TestResult) for r in results)
    key = lambda r: (r.test_name, r.repeat_index)  # noqa: E731
    assert sorted(results, key=key) == sorted(report.results, key=key)  # as stored
    assert SECRET not in str(results)  # masked before the hook sees it, as in the store


def test_a_hook_that_raises_costs_no_result_and_is_raised_when_the_run_ends(
    tmp_path: Path, agent: AgentServer, store_url: str
) -> None:
    path = write_suite(tmp_path, agent.chat_url, ["a", "b", "c"], execution={"concurrency": 1})
    calls: list[str] = []

    def broken(result: assay.TestResult) -> None:
        calls.append(result.test_name)
        raise ValueError("my dashboard is down")

    with pytest.raises(ValueError, match="my dashboard is down") as caught:
        assay.run(path, store=store_url, on_result=broken)
    assert len(calls) == 1  # not called again once it raised
    with open_store(store_url) as store:
        [run] = store.list_runs()
        assert run.status == "completed"
        assert sorted(r.test_name for r in store.iter_results(run.id)) == ["a", "b", "c"]
    [note] = caught.value.__notes__
    assert f"on_result hook (given test {calls[0]!r}) of run {run.id[:12]}" in note
    assert "is stored (completed)" in note


@pytest.mark.parametrize("stop", [SystemExit(3), GeneratorExit()])
def test_a_hook_that_exits_does_not_stop_the_run_its_exit_comes_at_the_end(
    tmp_path: Path, agent: AgentServer, store_url: str, stop: BaseException
) -> None:
    path = write_suite(tmp_path, agent.chat_url, ["a", "b", "c"], execution={"concurrency": 1})

    def leaving(result: assay.TestResult) -> None:
        raise stop

    with pytest.raises(type(stop)) as caught:
        assay.run(path, store=store_url, on_result=leaving)
    assert caught.value is stop
    with open_store(store_url) as store:
        [run] = store.list_runs()
        assert run.status == "completed"
        assert len(store.load_report(run.id).results) == 3  # every test ran and is stored


def test_a_resumed_run_says_how_many_results_it_had(
    tmp_path: Path, agent: AgentServer, store_url: str
) -> None:
    path = write_suite(tmp_path, agent.chat_url, ["a", "b", "c"], execution={"concurrency": 1})
    first = assay.run(path, store=store_url, limit=1)  # nothing to resume: a new run of one
    assert [r.test_name for r in first.results] == ["a"]
    starts: list[assay.RunStart] = []
    with pytest.raises(assay.ConfigError, match="different --limit"):
        assay.run(resume=first.run.id, store=store_url, limit=3)
    report = assay.run(resume=first.run.id, store=store_url, on_start=starts.append)
    assert [(s.total, s.done) for s in starts] == [(1, 1)]  # its limit is kept: nothing left
    assert [r.test_name for r in report.results] == ["a"]
