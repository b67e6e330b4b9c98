"""One options model, ``RunOptions``: the same list behind ``assay.run``'s keyword arguments,
``assay run``'s flags and the suite's ``execution:``, with one override rule; and what a
resume keeps of them."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
import typer

import assay
from assay.cli._terminal import markup_safe
from assay.cli.app import app
from assay.config import ExecutionConfig
from assay.run_options import RunOptions
from assay.store import open_store
from tests.api.conftest import write_suite
from tests.cli.conftest import RunCli
from tests.targets.agent_server import AgentServer, Step

API_ONLY = {"suite_or_path", "store", "resume", "on_start", "on_result"}


def api_name(field: str) -> str:
    return "dataset" if field == "datasets" else field


def test_every_execution_key_is_an_option() -> None:
    assert set(ExecutionConfig.model_fields) <= set(RunOptions.model_fields)


def test_run_and_run_async_take_exactly_the_options_and_the_same_arguments() -> None:
    run = inspect.signature(assay.run).parameters
    run_async = inspect.signature(assay.run_async).parameters
    assert list(run) == list(run_async)
    assert {str(p) for p in run.values()} == {str(p) for p in run_async.values()}
    assert set(run) - API_ONLY == {api_name(name) for name in RunOptions.model_fields}


def test_a_bad_call_of_run_is_the_type_error_python_gives() -> None:
    with pytest.raises(TypeError, match=r"^run\(\) got an unexpected keyword argument 'bogus'$"):
        assay.run(bogus=1)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"^run\(\) "):
        assay.run("suite.yaml", "another")  # type: ignore[call-arg]
    assert assay.run.__name__ == "run" and "run_async" in (assay.run.__doc__ or "")


def test_every_option_is_a_flag_of_assay_run_with_the_options_help() -> None:
    root: Any = typer.main.get_command(app)
    command = root.get_command(root.context_class(root), "run")  # loaded when asked for
    flags = {param.name: param for param in command.params}
    for name, field in RunOptions.model_fields.items():
        spelled = {"datasets": "--dataset", "keyword": "-k", "tags": "--tag"}
        flag = spelled.get(name, "--" + name.replace("_", "-"))
        assert flags[name].opts == [flag], name
        # the help as rich shows it: `assay[ray]` escaped so that it is not taken for markup
        assert flags[name].help == markup_safe(field.description or "") and field.description, name


def test_the_override_rule_given_then_the_suite_then_the_default() -> None:
    suite = ExecutionConfig(concurrency=8, turn_timeout_s=10)
    given = RunOptions(concurrency=3, retries=0).execution(suite)
    assert (given.concurrency, given.turn_timeout_s, given.retries) == (3, 10, 0)
    assert given.metric_timeout_s == ExecutionConfig().metric_timeout_s  # the default
    assert RunOptions().execution(suite) == suite


def test_a_flag_reaches_the_run_as_the_keyword_does(
    tmp_path: Path, agent: AgentServer, assay_cli: RunCli
) -> None:
    path = write_suite(tmp_path, agent.chat_url, ["slow"], execution={"turn_timeout_s": 30})
    agent.queue(Step(json={"response": "turn 1: slow"}, delay_s=30))
    store_url = f"sqlite:///{tmp_path / 'runs.db'}"
    proc = assay_cli("run", str(path), "--store", store_url, "--turn-timeout-s", "1")
    assert proc.returncode == 1, proc.stderr
    with open_store(store_url) as store:
        [run] = store.list_runs()
        [result] = store.iter_results(run.id)
    assert result.errors == ["Agent invocation timeout after 1s"]  # HoloDeck's words


def test_a_bad_flag_value_is_named_as_typed(tmp_path: Path, assay_cli: RunCli) -> None:
    path = write_suite(tmp_path, "http://127.0.0.1:9/chat", ["a"])
    proc = assay_cli("run", str(path), "--turn-timeout-s", "0")
    assert proc.returncode == 2
    assert proc.stderr.startswith(
        "error: options: --turn-timeout-s: Input should be greater than 0 "
    )


def test_a_suite_object_is_resumed_only_with_the_same_suite_given_again(
    tmp_path: Path, agent: AgentServer, store_url: str
) -> None:
    data = {
        "name": "notebook",
        "target": {"http": {"url": agent.chat_url}},
        "execution": {"concurrency": 1},
        "tests": [{"name": n, "input": n, "ground_truth": f"turn 1: {n}"} for n in "ab"],
        "metrics": ["equality"],
    }
    suite = assay.parse_suite(data, "notebook")
    agent.by_query["b"] = Step(json={"response": "turn 1: b"}, delay_s=60)

    def stop_after_a(result: assay.TestResult) -> None:
        raise KeyboardInterrupt  # as Ctrl-C would, once "a" is stored

    with pytest.raises(KeyboardInterrupt):
        assay.run(suite, store=store_url, on_result=stop_after_a)
    with open_store(store_url) as store:
        [run] = store.list_runs()
    assert run.status == "interrupted"
    del agent.by_query["b"]

    with pytest.raises(assay.ConfigError, match="Pass the same suite object again"):
        assay.run(resume=run.id, store=store_url)
    edited = assay.parse_suite({**data, "tests": data["tests"][:1]}, "notebook")
    with pytest.raises(assay.ConfigError, match="changed since run"):
        assay.run(edited, resume=run.id, store=store_url)
    asked = len(agent.requests)
    report = assay.run(suite, resume=run.id, store=store_url, concurrency=4)
    assert [r.body["query"] for r in agent.requests[asked:]] == ["b"]
    assert sorted(r.test_name for r in report.results) == ["a", "b"]


def test_a_resume_takes_the_target_only_from_the_caller_never_from_the_store(
    tmp_path: Path, agent: AgentServer, store_url: str
) -> None:
    path = write_suite(tmp_path, None, ["a"])  # no target in the suite: given as an option
    first = assay.run(path, target=agent.chat_url, store=store_url)
    with pytest.raises(assay.ConfigError) as refused:
        assay.run(resume=first.run.id, store=store_url)
    assert f"it was started with --target {agent.chat_url}, not given now" in str(refused.value)
    again = assay.run(resume=first.run.id, target=agent.chat_url, store=store_url)
    assert again.run.id == first.run.id and len(agent.requests) == 1  # nothing left to run
