"""``assay run`` survives what user code does (issue 10, points 1-3): an agent that calls
``sys.exit``, fakes Ctrl-C or returns a cyclic reply fails its own test, and the run exits by
its results; a real Ctrl-C still interrupts (130) and the run resumes."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import ASSAY, REPO, RunCli

AGENTS = "tests.runner.hostile_agents"
EXITED = "os._exit(0) (it would have ended the run)"
STOPPED = "asyncio's loop.stop() (it would have stopped the run)"
CANCELLED = "CancelledError: the code cancelled its own task (asyncio.current_task().cancel())"


def suite(tmp_path: Path, agent: str, *, tests: str = "abc") -> Path:
    path = tmp_path / "suite.yaml"
    lines = [f"name: s\ntarget: {{python: '{AGENTS}:{agent}'}}\ntests:"]
    lines += [f"  - {{name: {t}, input: {t}, ground_truth: ok}}" for t in tests]
    path.write_text("\n".join(lines) + "\n")
    return path


def run_report(assay_cli: RunCli, tmp_path: Path, *args: str) -> tuple[int, str, dict[str, Any]]:
    out = tmp_path / "report.json"
    proc = assay_cli(
        "run", *args, "--store", f"sqlite:///{tmp_path / 'a.db'}", "--out", str(out), cwd=REPO
    )
    assert "Traceback" not in proc.stderr + proc.stdout
    return proc.returncode, proc.stderr, json.loads(out.read_text())


@pytest.mark.parametrize(
    ("agent", "error"),
    [
        ("exits_on_b", "Agent invocation error: SystemExit(0)"),
        ("async_exits_on_b", "Agent invocation error: SystemExit(0)"),
        ("interrupts_on_b", "Agent invocation error: KeyboardInterrupt()"),
        ("os_exits_on_b", f"Agent invocation error: {EXITED}"),  # status 0, no report, before
        ("async_os_exits_on_b", f"Agent invocation error: {EXITED}"),
        ("cancels_itself_on_b", f"Agent invocation error: {CANCELLED}"),  # 130, before
        ("cancels_itself_quietly_on_b", f"Agent invocation error: {CANCELLED}"),
        ("stops_the_loop_on_b", f"Agent invocation error: {STOPPED}"),  # exit 3, before
    ],
)
def test_sys_exit_or_a_fake_ctrl_c_is_not_a_pass(
    assay_cli: RunCli, tmp_path: Path, agent: str, error: str
) -> None:
    code, _, report = run_report(assay_cli, tmp_path, str(suite(tmp_path, agent)))
    assert code == 1  # some test failed: not 0 (a false pass), not 130 (interrupted)
    assert report["run"]["status"] == "completed"
    by_name = {r["test_name"]: r for r in report["results"]}
    assert sorted(by_name) == ["a", "b", "c"]
    assert by_name["b"]["status"] == "error" and by_name["b"]["errors"] == [error]
    assert by_name["a"]["passed"] and by_name["c"]["passed"]


@pytest.mark.parametrize("workers", [(), ("--workers", "2")])
def test_os_exit_on_a_thread_the_agent_started_is_a_warning_not_a_traceback(
    assay_cli: RunCli, tmp_path: Path, workers: tuple[str, ...]
) -> None:
    """No turn awaits that thread: it ends, the run says so on stderr and goes on. Before,
    a raw traceback of ``ExitCalled`` on stderr."""
    path = suite(tmp_path, "os_exits_on_a_thread_on_b", tests="abcd")
    code, stderr, report = run_report(assay_cli, tmp_path, str(path), *workers)
    assert code == 0, stderr
    assert "Traceback" not in stderr and "ExitCalled" not in stderr
    assert (
        f"warning: {EXITED} was called on a thread the agent's or a grader's code started "
        "('agents-own'): that thread ended there, and the run goes on"
    ) in stderr
    assert report["run"]["status"] == "completed"
    assert sorted(r["test_name"] for r in report["results"]) == ["a", "b", "c", "d"]


def test_loop_stop_on_a_worker_fails_only_its_turn(assay_cli: RunCli, tmp_path: Path) -> None:
    """A worker's event loop is guarded as the run's. Before, the worker's run ended."""
    path = suite(tmp_path, "stops_the_loop_on_b", tests="abcd")
    code, stderr, report = run_report(assay_cli, tmp_path, str(path), "--workers", "2")
    assert code == 1, stderr
    assert "running on 2 worker processes (--workers)" in stderr
    by_name = {r["test_name"]: r for r in report["results"]}
    assert [by_name[t]["passed"] for t in "abcd"] == [True, False, True, True]
    assert by_name["b"]["errors"] == [f"Agent invocation error: {STOPPED}"]


@pytest.mark.parametrize(
    ("grader", "error"), [("os_exits_on_b", EXITED), ("cancels_itself_on_b", CANCELLED)]
)
def test_a_grader_that_exits_or_cancels_itself_fails_only_its_metric(
    assay_cli: RunCli, tmp_path: Path, grader: str, error: str
) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(
        "name: s\ntarget: {python: 'tests.runner.hostile_agents:echo'}\n"
        "execution: {concurrency: 1}\n"
        f"metrics: [{{type: code, grader: 'tests.metrics.hostile_graders:{grader}'}}]\n"
        "tests:\n" + "".join(f"  - {{name: {t}, input: {t}}}\n" for t in "abc")
    )
    code, _, report = run_report(assay_cli, tmp_path, str(path))
    assert code == 1  # before: 0 with no report (os._exit), 130 and no report (cancel)
    assert report["run"]["status"] == "completed"
    by_name = {r["test_name"]: r for r in report["results"]}
    assert [by_name[t]["passed"] for t in "abc"] == [True, False, True]
    (failed,) = by_name["b"]["metric_results"]
    # scored 0, as HoloDeck scores a grader that fails
    assert failed["error"] == error and failed["passed"] is False and failed["score"] == 0.0


@pytest.mark.parametrize(
    ("agent", "grader"),
    [("os_exits_on_b", None), ("async_os_exits_on_b", None), ("echo", "os_exits_on_b")],
)
def test_os_exit_on_a_worker_fails_only_its_turn_or_metric(
    assay_cli: RunCli, tmp_path: Path, agent: str, grader: str | None
) -> None:
    """On a worker of ``--workers 2`` as in one process. Before, the worker exited, and its
    tests in flight had no result (exit 3)."""
    path = suite(tmp_path, agent, tests="abcd")
    if grader is not None:
        metrics = f"metrics: [{{type: code, grader: 'tests.metrics.hostile_graders:{grader}'}}]"
        path.write_text(path.read_text().replace("tests:", f"{metrics}\ntests:"))
    code, stderr, report = run_report(assay_cli, tmp_path, str(path), "--workers", "2")
    assert code == 1, stderr
    assert "running on 2 worker processes (--workers)" in stderr
    assert report["run"]["status"] == "completed"
    by_name = {r["test_name"]: r for r in report["results"]}
    assert sorted(by_name) == ["a", "b", "c", "d"]
    assert [by_name[t]["passed"] for t in "abcd"] == [True, False, True, True]
    if grader is None:
        assert by_name["b"]["errors"] == [f"Agent invocation error: {EXITED}"]
    else:
        assert [m["error"] for m in by_name["b"]["metric_results"]] == [EXITED]


def test_sys_exit_out_of_the_event_loop_is_never_a_pass(assay_cli: RunCli, tmp_path: Path) -> None:
    path = suite(tmp_path, "exits_from_a_callback_on_b")
    store = f"sqlite:///{tmp_path / 'a.db'}"
    proc = assay_cli("run", str(path), "--store", store, "--concurrency", "1", cwd=REPO)
    assert proc.returncode == 3, proc.stderr  # before: 0, with nothing reported
    assert "Traceback" not in proc.stderr
    assert "stopped by SystemExit(0), raised outside any turn" in proc.stderr
    assert "1 tests are stored; run the rest with assay run --resume " in proc.stderr
    runs = assay_cli("runs", "--store", store, cwd=REPO)
    assert "interrupted" in runs.stdout


def test_a_cyclic_reply_fails_its_test_and_the_run_completes(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(
        f"name: s\ntarget: {{python: '{AGENTS}:returning'}}\ntests:\n"
        "  - {name: a, input: fine, ground_truth: ok}\n"
        "  - {name: b, input: cyclic-result}\n"
        "  - {name: c, input: deep-response}\n"
        "  - {name: d, input: fine, ground_truth: ok}\n"
    )
    code, _, report = run_report(assay_cli, tmp_path, str(path))
    assert code == 1
    by_name = {r["test_name"]: r for r in report["results"]}
    assert [by_name[n]["status"] for n in "abcd"] == ["passed", "error", "error", "passed"]
    assert "contains itself (a cycle)" in by_name["b"]["errors"][0]
    assert "nested deeper than 64 levels" in by_name["c"]["errors"][0]


def _resumed(assay_cli: RunCli, tmp_path: Path, stderr: str) -> dict[str, Any]:
    """The interrupted run of tests a, b, c that ``stderr``'s resume line names, resumed to
    its end: its report, every test in it."""
    run_id = re.search(r"assay run --resume (\w+)", stderr)
    assert run_id is not None, stderr
    code, _, report = run_report(assay_cli, tmp_path, "--resume", run_id.group(1))
    assert code == 0
    assert sorted(r["test_name"] for r in report["results"]) == ["a", "b", "c"]
    return report


def _wait_for(path: Path, proc: subprocess.Popen[str], limit_s: float = 60) -> None:
    deadline = time.monotonic() + limit_s
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"the agent never made {path.name}"
        time.sleep(0.05)


@pytest.mark.parametrize(
    ("agent", "workers"),
    [
        ("blocks_on_b", ()),
        ("async_blocks_on_b", ()),
        # on a worker forked from the run's process: its stop is still assay's there
        ("async_blocks_on_b", ("--workers", "2")),
    ],
)
def test_a_real_ctrl_c_still_interrupts_and_the_run_resumes(
    assay_cli: RunCli, tmp_path: Path, agent: str, workers: tuple[str, ...]
) -> None:
    block = tmp_path / "block"
    block.touch()
    store = f"sqlite:///{tmp_path / 'a.db'}"
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", "ASSAY_TEST_BLOCK": str(block)}
    args = [ASSAY, "run", str(suite(tmp_path, agent)), "--store", store, "--concurrency", "1"]
    args += workers
    proc = subprocess.Popen(
        args, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        _wait_for(Path(f"{block}.started"), proc)  # the agent is inside test b's turn
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    block.unlink()  # the agent answers at once now
    report = _resumed(assay_cli, tmp_path, stderr)
    assert report["run"]["status"] == "completed"


def _start_blocked(
    tmp_path: Path, ctrl_c: signal.Handlers
) -> tuple[subprocess.Popen[str], Path, str]:
    """``assay run`` of a, b, c in one process, whose async agent holds the event loop in
    test b while the block file exists; Ctrl-C as given (ignored: a background job)."""
    block = tmp_path / "block"
    block.touch()
    store = f"sqlite:///{tmp_path / 'a.db'}"
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", "ASSAY_TEST_BLOCK": str(block)}
    path = suite(tmp_path, "async_blocks_the_loop_on_b")
    args = [ASSAY, "run", str(path), "--store", store, "--concurrency", "1", "--workers", "1"]
    proc = subprocess.Popen(
        args,
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, ctrl_c),
    )
    _wait_for(Path(f"{block}.started"), proc)  # the agent is inside test b's turn
    return proc, block, store


STOPS = [
    pytest.param(signal.SIGINT, signal.SIG_DFL, id="ctrl-c"),
    pytest.param(signal.SIGTERM, signal.SIG_DFL, id="sigterm"),
    pytest.param(signal.SIGTERM, signal.SIG_IGN, id="sigterm-background"),  # Ctrl-C ignored
]


@pytest.mark.parametrize(("sent", "ctrl_c"), STOPS)
def test_a_stop_while_an_async_agent_holds_the_loop_runs_no_further_test(
    assay_cli: RunCli, tmp_path: Path, sent: signal.Signals, ctrl_c: signal.Handlers
) -> None:
    """The stop reaches the run while the agent works synchronously on the event loop's
    thread: its turn ends as it can, and the run stops there. Before, every test left ran
    (the agent never awaits, so the run never waited), then exit 130."""
    proc, block, store = _start_blocked(tmp_path, ctrl_c)
    try:
        proc.send_signal(sent)
        _wait_for(Path(f"{block}.stopped"), proc)  # the stop is the run's, the agent still busy
        block.unlink()  # the agent returns
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr
    assert "interrupted: 2 tests stored" in stderr  # a and b; c never started
    _resumed(assay_cli, tmp_path, stderr)


@pytest.mark.parametrize(("sent", "ctrl_c"), STOPS)
def test_a_second_stop_ends_a_run_whose_async_agent_keeps_the_loop(
    assay_cli: RunCli, tmp_path: Path, sent: signal.Signals, ctrl_c: signal.Handlers
) -> None:
    """A second Ctrl-C or SIGTERM stops the run at once, while the agent goes on holding
    the event loop: exit 130, a stored, the run interrupted and resumable. Before, a second
    SIGTERM was ignored (the run went on until the agent returned: never, here)."""
    proc, block, store = _start_blocked(tmp_path, ctrl_c)
    try:
        proc.send_signal(sent)
        _wait_for(Path(f"{block}.stopped"), proc)  # the first was taken: the run is stopping
        proc.send_signal(sent)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr
    assert "interrupted: 1 test stored" in stderr
    runs = assay_cli("runs", "--store", store, cwd=REPO)
    assert "interrupted" in runs.stdout
    block.unlink()  # the agent answers at once now
    report = _resumed(assay_cli, tmp_path, stderr)
    assert all(r["status"] == "passed" for r in report["results"]), report["results"]


def _openai_body(**override: Any) -> str:
    """A chat completion whose verdict is fine, with one part replaced."""
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "judge-model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": '{"reasoning": "r", "score": 5}'},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }
    return json.dumps(body | override)


# The judge replies of issue 10 that crashed runs with a traceback and exit 1. The first
# three carry a usable verdict (the judge may score it or call it an error); the last two
# carry none (an error for certain).
MALFORMED = {
    "usage-text": (_openai_body(usage="abc"), False),
    "usage-text-count": (_openai_body(usage={"prompt_tokens": "abc"}), False),
    "usage-list-count": (_openai_body(usage={"prompt_tokens": [1]}), False),
    "deep-body": ("[" * 100_000 + "]" * 100_000, True),
    "message-string": (
        _openai_body(choices=[{"index": 0, "message": "hi", "finish_reason": "stop"}]),
        True,
    ),
}


@pytest.mark.parametrize("kind", list(MALFORMED))
def test_a_malformed_judge_reply_is_that_metrics_error(
    assay_cli: RunCli, tmp_path: Path, kind: str
) -> None:
    from tests.fakes.llm_server import Fault, scripted_llm

    raw, always_an_error = MALFORMED[kind]
    with scripted_llm() as llm:
        llm.responder = lambda api, body: (
            Fault(raw=raw)
            if "QUESTION-BAD" in json.dumps(body)
            else '{"reasoning": "r", "score": 5}'
        )
        path = tmp_path / "suite.yaml"
        path.write_text(
            f"name: s\ntarget: {{python: '{AGENTS}:raising'}}\n"
            f"judge: {{provider: openai, model: judge-model, base_url: '{llm.base_url}', "
            "api_key_env: JUDGE_KEY, timeout_s: 10}\n"
            "metrics: [correctness]\nexecution: {concurrency: 1}\ntests:\n"
            "  - {name: bad, input: QUESTION-BAD, ground_truth: ok}\n"
            "  - {name: good, input: QUESTION-GOOD, ground_truth: ok}\n"
        )
        out = tmp_path / "report.json"
        proc = assay_cli(
            "run", str(path), "--no-cache", "--store", f"sqlite:///{tmp_path / 'a.db'}",
            "--out", str(out), cwd=REPO, env={"JUDGE_KEY": "judge-key"},
        )  # fmt: skip
    assert "Traceback" not in proc.stdout + proc.stderr
    report = json.loads(out.read_text())
    results = {r["test_name"]: r for r in report["results"]}
    assert results["good"]["passed"] is True  # the run went on past the bad reply
    [metric] = results["bad"]["metric_results"]
    assert metric["metric_name"] == "correctness"
    if always_an_error:
        assert metric["error"], metric
    if metric["error"]:
        assert (metric["passed"], metric["score"]) == (False, None)
        assert proc.returncode == 1  # a test failed: the run itself did not
    else:
        assert metric["score"] == 1.0 and proc.returncode == 0


def _cli_with_a_bug(tmp_path: Path, raised: str, env: dict[str, str] | None = None) -> Any:
    """``assay run`` in a real process, with a fault injected where a bug of assay's would
    be (RunJob.execute), since a real one cannot be staged."""
    patch = f"import assay.runner.job as job\ndef broken(self): raise {raised}\n"
    return _cli_patched(
        tmp_path, patch + "job.RunJob.execute = broken\n", suite(tmp_path, "raising"), env
    )


def _cli_patched(
    tmp_path: Path, patch: str, suite_path: Path, env: dict[str, str] | None = None
) -> Any:
    """``assay run suite_path`` in a real process, after the Python code ``patch``."""
    code = (
        "import sys\n"
        f"{patch}"
        "from assay.cli import main\n"
        f"sys.argv = ['assay', 'run', {str(suite_path)!r}, '--store', "
        f"{'sqlite:///' + str(tmp_path / 'a.db')!r}]\n"
        "main()\n"
    )
    full_env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", **(env or {})}
    python = str(Path(ASSAY).parent / "python")
    return subprocess.run(
        [python, "-c", code], cwd=REPO, env=full_env, capture_output=True, text=True, timeout=60
    )


def test_an_unexpected_exception_exits_3_with_one_line(tmp_path: Path) -> None:
    proc = _cli_with_a_bug(tmp_path, "TypeError('cannot add\\nint and str')")
    assert proc.returncode == 3  # assay could not run: never 1, which says tests failed
    lines = proc.stderr.strip().splitlines()
    assert lines == [
        "error: assay could not run: TypeError: cannot add int and str (a bug in assay: "
        "please report it; ASSAY_DEBUG=1 shows where)"
    ]
    debug = _cli_with_a_bug(tmp_path, "TypeError('cannot add')", {"ASSAY_DEBUG": "1"})
    assert debug.returncode == 3 and "Traceback" in debug.stderr


def test_ctrl_c_outside_the_run_exits_130(tmp_path: Path) -> None:
    proc = _cli_with_a_bug(tmp_path, "KeyboardInterrupt")
    assert proc.returncode == 130
    assert proc.stderr.strip() == "interrupted"


def test_ctrl_c_while_a_metric_scores_inline_interrupts_the_run(tmp_path: Path) -> None:
    """Python raises Ctrl-C (or SIGTERM, when Ctrl-C is ignored) on the event loop's
    thread, where assay's own metrics score a small reply: staged there, in json_valid on
    test b. The run stops (130, resumable), instead of recording the metric's error
    KeyboardInterrupt() and going on."""
    path = tmp_path / "suite.yaml"
    path.write_text(
        f"name: s\ntarget: {{python: '{AGENTS}:raising'}}\nmetrics: [json_valid]\n"
        "execution: {concurrency: 1}\ntests:\n"
        + "".join(f"  - {{name: {t}, input: {t}}}\n" for t in "abc")
    )
    patch = (
        "import assay.metrics.structured as structured\n"
        "def measure(self, ctx):\n"
        "    if ctx.input == 'b':\n"
        "        raise KeyboardInterrupt\n"
        "    return structured.Score(1.0)\n"
        "structured.JsonValid.measure = measure\n"
    )
    proc = _cli_patched(tmp_path, patch, path)
    assert proc.returncode == 130, proc.stderr
    assert "Traceback" not in proc.stderr
    assert re.search(r"interrupted: 1 test stored; resume with assay run --resume \w+", proc.stderr)


def test_an_agent_module_that_exits_on_import_is_a_bad_suite(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    (tmp_path / "quitter.py").write_text("import sys\nsys.exit(0)\n")
    path = tmp_path / "suite.yaml"
    path.write_text("name: s\ntarget: {python: 'quitter:respond'}\ntests: [{name: a, input: x}]\n")
    proc = assay_cli("run", str(path), "--store", f"sqlite:///{tmp_path / 'a.db'}")
    assert proc.returncode == 2  # not 0: nothing was tested
    assert "cannot import module 'quitter': SystemExit(0)" in proc.stderr


@pytest.mark.parametrize(
    ("line", "where"),
    [
        ("metrics: [{type: code, grader: 'quitter:grade'}]", "metrics[0].grader"),
        ("plugins: [quitter]", "plugins[0]"),
    ],
    ids=["grader", "plugin"],
)
def test_a_grader_or_plugin_module_that_calls_os_exit_on_import_is_a_bad_suite(
    assay_cli: RunCli, tmp_path: Path, line: str, where: str
) -> None:
    """Imported when the suite loads, before the run guards ``os._exit``: guarded there too,
    as the agent's module is."""
    (tmp_path / "quitter.py").write_text("import os\nos._exit(0)\n")
    (tmp_path / "agent.py").write_text("def respond(query, session_id):\n    return 'ok'\n")
    path = tmp_path / "suite.yaml"
    path.write_text(
        f"name: s\ntarget: {{python: 'agent:respond'}}\n{line}\ntests: [{{name: a, input: x}}]\n"
    )
    proc = assay_cli("run", str(path), "--store", f"sqlite:///{tmp_path / 'a.db'}")
    assert proc.returncode == 2, proc.stdout + proc.stderr  # before: 0, and nothing printed
    assert f"{where}: cannot import module 'quitter': {EXITED}" in proc.stderr
    assert not (tmp_path / "a.db").exists()  # nothing ran
