"""``assay.run``: a suite file, a suite object or a dataset alone, run against a real agent on
127.0.0.1 and stored; the options it takes and the errors it raises."""

from __future__ import annotations

from pathlib import Path

import pytest

import assay
from assay.store import open_store
from tests.api.conftest import write_suite
from tests.targets.agent_server import AgentServer, Step, free_port


def test_a_suite_file_runs_is_stored_and_comes_back_as_its_report(
    tmp_path: Path, agent: AgentServer, store_url: str
) -> None:
    path = write_suite(tmp_path, agent.chat_url, ["alpha", "beta"])
    agent.by_query["beta"] = Step(json={"response": "something else"})
    report = assay.run(path, store=store_url)
    assert isinstance(report, assay.Report)
    assert {r.test_name: r.status for r in report.results} == {
        "alpha": "passed",
        "beta": "failed",
    }
    assert (report.summary.total_tests, report.summary.passed) == (2, 1)
    assert report.run.status == "completed" and report.run.suite_name == "api"
    assert sorted(r.body["query"] for r in agent.requests) == ["alpha", "beta"]
    with open_store(store_url) as store:  # the same run, as assay runs and the dashboard see it
        assert store.load_report(report.run.id) == report


def test_a_suite_object_runs_with_the_target_given_as_an_option(
    tmp_path: Path, agent: AgentServer, store_url: str
) -> None:
    suite = assay.parse_suite(
        {
            "name": "in-memory",
            "tests": [{"name": "hi", "input": "hi", "ground_truth": "turn 1: hi"}],
            "metrics": ["equality"],
        },
        "my-notebook",
    )
    report = assay.run(suite, target=agent.chat_url, store=store_url)
    [result] = report.results
    assert (result.test_name, result.status) == ("hi", "passed")
    assert [r.body["query"] for r in agent.requests] == ["hi"]


def test_a_dataset_alone_runs_against_the_target(
    tmp_path: Path, agent: AgentServer, store_url: str
) -> None:
    data = tmp_path / "questions.csv"
    data.write_text("session_id,Question,Answer\nc1,first,turn 1: first\nc1,second,nope\n")
    report = assay.run(dataset=data, target=agent.chat_url, store=store_url)
    [result] = report.results  # one conversation of two turns
    assert result.test_name == "questions:c1" and result.test_type == "multi_turn"
    assert [t.passed for t in result.turns or []] == [True, False]


def test_the_options_reach_the_run(tmp_path: Path, agent: AgentServer, store_url: str) -> None:
    path = write_suite(tmp_path, agent.chat_url, ["a", "b", "c"], execution={"repeat": 1})
    report = assay.run(path, store=store_url, repeat=2, limit=2, concurrency=1)
    assert sorted((r.test_name, r.repeat_index) for r in report.results) == [
        ("a", 0),
        ("a", 1),
        ("b", 0),
        ("b", 1),
    ]
    assert agent.peak_in_flight == 1


def test_an_option_given_wins_over_the_suites_execution(
    tmp_path: Path, agent: AgentServer, store_url: str
) -> None:
    """The suite allows a turn 30 s; turn_timeout_s=1 given to assay.run cuts a 30 s reply
    at 1 s (the reply would take 30: the margin is wide on a busy machine)."""
    path = write_suite(tmp_path, agent.chat_url, ["slow"], execution={"turn_timeout_s": 30})
    agent.queue(Step(json={"response": "turn 1: slow"}, delay_s=30))
    report = assay.run(path, store=store_url, turn_timeout_s=1, retries=0)
    [result] = report.results
    assert result.status == "error"
    assert result.errors == ["Agent invocation timeout after 1s"]
    assert result.execution_time_ms < 29_000  # cut at the option's 1 s, not the suite's 30


@pytest.mark.parametrize(
    ("call", "where"),
    [
        (lambda p, s: assay.run(p, store=s, concurrency=0), "options: concurrency:"),
        (lambda p, s: assay.run(p, store=s, repeat="many"), "options: repeat:"),
        (lambda p, s: assay.run(p, store=s, dataset=p.parent / "missing.csv"), "missing.csv"),
        (lambda p, s: assay.run(p.parent / "nope.yaml", store=s), "nope.yaml"),
        (lambda p, s: assay.run(42, store=s), "options: suite_or_path: expected a suite"),
        (lambda p, s: assay.run(store=s), "give a suite file, or --dataset FILE"),
    ],
)
def test_bad_input_raises_config_error_and_runs_nothing(
    tmp_path: Path, agent: AgentServer, store_url: str, call: object, where: str
) -> None:
    path = write_suite(tmp_path, agent.chat_url, ["a"])
    with pytest.raises(assay.ConfigError) as caught:
        call(path, store_url)  # type: ignore[operator]
    assert where in str(caught.value)
    assert agent.requests == []
    with open_store(store_url) as store:
        assert store.list_runs() == []


def test_a_store_that_cannot_be_opened_raises_store_error(
    tmp_path: Path, agent: AgentServer
) -> None:
    path = write_suite(tmp_path, agent.chat_url, ["a"])
    (tmp_path / "a-file").write_text("not a folder")
    with pytest.raises(assay.StoreError, match="cannot open the store"):
        assay.run(path, store=f"sqlite:///{tmp_path / 'a-file' / 'x.db'}")
    assert agent.requests == []


def test_an_unreachable_target_raises_target_error_and_the_run_is_stored_failed(
    tmp_path: Path, store_url: str
) -> None:
    path = write_suite(tmp_path, f"http://127.0.0.1:{free_port()}/chat", ["a"])
    with pytest.raises(assay.TargetError, match="127.0.0.1"):
        assay.run(path, store=store_url)
    with open_store(store_url) as store:
        assert [run.status for run in store.list_runs()] == ["failed"]


def test_a_test_on_which_nothing_was_checked_is_not_run_not_passed(
    tmp_path: Path, agent: AgentServer, store_url: str
) -> None:
    suite = assay.parse_suite({"name": "bare", "tests": [{"name": "q", "input": "q"}]}, "bare")
    report = assay.run(suite, target=agent.chat_url, store=store_url)
    [result] = report.results
    assert result.status == "not_run" and not result.passed
    assert (report.summary.passed, report.summary.failed, report.summary.not_run) == (0, 1, 1)


async def capital(query: str, session_id: str) -> str:
    """A Python agent, given to assay.run as a function."""
    return "Paris" if "France" in query else "I do not know"


def test_a_python_agent_is_given_as_a_function(tmp_path: Path, store_url: str) -> None:
    suite = assay.parse_suite(
        {
            "name": "capitals",
            "metrics": ["equality"],
            "tests": [
                {"name": "fr", "input": "Capital of France?", "ground_truth": "Paris"},
                {"name": "it", "input": "Capital of Italy?", "ground_truth": "Rome"},
            ],
        },
        "capitals",
    )
    report = assay.run(suite, target=capital, store=store_url)
    assert {r.test_name: r.status for r in report.results} == {"fr": "passed", "it": "failed"}
    assert report.run.target == "python:tests.api.test_run:capital"

    def inner(query: str, session_id: str) -> str:
        return "?"

    for unnamed in (inner, lambda query, session_id: "?"):
        with pytest.raises(assay.ConfigError, match="cannot be found by name"):
            assay.run(suite, target=unnamed, store=store_url)
