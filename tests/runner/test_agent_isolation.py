"""Agent code cannot end or fake the run (issue 10, points 1 and 2): whatever a Python agent
raises or returns costs at most its own turn, while the runner's own time limit and a real
Ctrl-C still work (``tests/cli/test_run_isolation.py`` runs them through ``assay run``)."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from pathlib import Path

import pytest

from assay._isolation import (
    MESSAGE_LIMIT,
    ExitCalled,
    described,
    exit_guarded,
    user_code_guarded,
)
from assay.cases import parse_suite
from assay.results.models import TestResult
from assay.runner import CaseSettings, forking, run_case
from assay.targets.python import PythonTarget
from tests.runner.hostile_agents import in_a_run

AGENTS = "tests.runner.hostile_agents"
EXITED = "os._exit(0) (it would have ended the run)"
CANCELLED = "CancelledError: the code cancelled its own task (asyncio.current_task().cancel())"


async def run_turns(agent: str, inputs: list[str], timeout: float = 10.0) -> TestResult:
    test = {"name": "t", "turns": [{"input": i, "ground_truth": "ok"} for i in inputs]}
    case = parse_suite({"name": "s", "tests": [test]}, "suite.yaml").cases[0]
    target = PythonTarget(f"{AGENTS}:{agent}")
    return await run_case(case, target, CaseSettings(turn_timeout_s=timeout, run_id="r" * 32))


@pytest.mark.parametrize("agent", ["raising", "async_raising"])
@pytest.mark.parametrize(
    ("what", "shown"),
    [
        ("exit", "SystemExit(0)"),
        ("interrupt", "KeyboardInterrupt()"),
        ("generator-exit", "GeneratorExit()"),
        ("escape", "Escape('out')"),
        ("cancelled", "CancelledError()"),
        ("stop-iteration", "RuntimeError: coroutine raised StopIteration"),
    ],
)
async def test_a_base_exception_fails_only_its_turn(agent: str, what: str, shown: str) -> None:
    result = await run_turns(agent, [what, "fine"])
    assert result.turns is not None
    failed, answered = result.turns
    assert failed.errors == [shown]
    assert failed.passed is False and failed.skipped is False
    assert answered.passed is True and answered.response == "ok"  # the session went on


async def test_the_turn_time_limit_still_ends_an_agent_that_exits_when_cancelled() -> None:
    result = await run_turns("exits_when_cancelled", ["wait", "wait"], timeout=1.0)
    assert result.turns is not None
    assert [t.errors for t in result.turns] == [["timeout"]] * 2


@pytest.mark.parametrize(
    ("agent", "error"),
    [
        ("os_exits_on_b", EXITED),  # sync: on a thread of its own
        ("async_os_exits_on_b", EXITED),  # in the turn's task
        ("cancels_itself_on_b", CANCELLED),
        ("cancels_itself_quietly_on_b", CANCELLED),  # pending past the agent's return
    ],
)
async def test_os_exit_or_a_self_cancel_fails_only_its_turn_in_a_run(
    agent: str, error: str
) -> None:
    result = await in_a_run(run_turns(agent, ["a", "b", "c"]))
    assert result.turns is not None
    assert [t.errors for t in result.turns] == [[], [error], []]
    assert [t.passed for t in result.turns] == [True, False, True]  # the session went on
    assert result.status == "error"


async def test_in_a_run_the_turn_time_limit_and_the_runs_stop_are_still_assays() -> None:
    timed_out = await in_a_run(run_turns("exits_when_cancelled", ["wait"], timeout=0.2))
    assert timed_out.turns is not None and timed_out.turns[0].errors == ["timeout"]

    async def stopped() -> None:  # the run's own task cancelled, as Ctrl-C does
        run = asyncio.current_task()
        assert run is not None
        asyncio.get_running_loop().call_later(0.2, run.cancel)
        await in_a_run(run_turns("exits_when_cancelled", ["wait"], timeout=60))

    with pytest.raises(asyncio.CancelledError):
        await asyncio.create_task(stopped())


async def test_the_guard_is_the_run_process_own_and_is_undone_after() -> None:
    real = os._exit
    task = asyncio.current_task()
    assert task is not None
    with user_code_guarded(task), user_code_guarded(task):  # runs may overlap
        assert os._exit is not real
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child: a fork exits for real
            os._exit(7)
        assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 7
    assert os._exit is real


async def test_a_process_forked_while_guarded_guards_itself() -> None:
    """A worker forked from the run's process inherits its guard, under which its own
    ``os._exit`` exits (its pid is not the run's); a guard of its own makes it ``ExitCalled``
    there, while a fork of the worker still exits for real."""
    real = os._exit
    task = asyncio.current_task()
    assert task is not None
    with user_code_guarded(task):
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child, the worker: it must never return
            code = 1
            try:
                with exit_guarded():
                    try:
                        os._exit(9)
                    except ExitCalled as exc:
                        grandchild = os.fork()
                        if grandchild == 0:
                            os._exit(7)
                        status = os.waitpid(grandchild, 0)[1]
                        if exc.code == 9 and os.waitstatus_to_exitcode(status) == 7:
                            code = 0
                code = code if os._exit is real else 2  # the guard undone after
            finally:
                real(code)
        assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    assert os._exit is real


@pytest.mark.parametrize(
    ("query", "error"),
    [
        ("cyclic-response", "response.self contains itself (a cycle)"),
        ("cyclic-result", "tool_invocations[0].result.self contains itself (a cycle)"),
        ("cyclic-args", "tool_invocations[0].args.self contains itself (a cycle)"),
        ("deep-result", "is nested deeper than 64 levels"),
        ("deep-response", "is nested deeper than 64 levels"),
        ("doubling", "has more than 1,000,000 values"),
        ("huge-int", "tool_invocations[0].result is an integer of more than 4,200 digits"),
    ],
)
async def test_a_reply_no_record_can_hold_fails_only_its_turn(query: str, error: str) -> None:
    # read under the turn's limit, on the agent's thread: a generous one, for a busy machine
    result = await run_turns("returning", [query, "fine"], timeout=120.0)
    assert result.turns is not None
    failed, answered = result.turns
    assert len(failed.errors) == 1
    assert failed.errors[0].startswith("the reply cannot be recorded as JSON: ")
    assert error in failed.errors[0]
    assert len(failed.errors[0]) < 300  # a 64-level path is shortened
    assert answered.passed is True


async def test_the_agents_own_methods_are_not_called_after_it_returned() -> None:
    result = await run_turns("returning", ["shouting", "sneaky", "shared"])
    assert result.turns is not None
    shouting, sneaky, shared = result.turns
    assert shouting.errors == ["SystemExit(3)"]  # its __str__, in its turn
    assert sneaky.errors == [] and sneaky.response == "hi"  # read as a plain dict
    [call] = shared.tool_invocations
    assert call.result == {"a": [1, 2], "b": [1, 2]}  # a shared value is not a cycle
    assert call.bytes == len(json.dumps({"a": [1, 2], "b": [1, 2]}))


@pytest.mark.parametrize("query", ["endless-response", "endless-result"])
async def test_a_reply_whose_text_never_comes_costs_its_turn_the_time_limit(query: str) -> None:
    """The reply is read (its objects' __str__: the agent's code) on the agent's own thread,
    under the turn's time limit: one that never ends is a timeout, not a stalled run."""
    result = await run_turns("returning", [query, "fine"], timeout=1.0)
    assert result.turns is not None
    failed, answered = result.turns
    assert failed.errors == ["timeout"]
    assert answered.passed is True and answered.response == "ok"


class Marked(str):
    pass


class MarkedMessage(Exception):
    def __str__(self) -> str:
        return Marked("odd")


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no")


def test_described_is_the_description_and_the_message_alone() -> None:
    # a single-turn test's error words the message alone, a turn's the description
    assert described(ValueError("Invalid API key")) == (
        "ValueError: Invalid API key",
        "Invalid API key",
    )
    assert described(ValueError()) == ("ValueError", "ValueError")  # never blank
    assert described(SystemExit(0)) == ("SystemExit(0)", "SystemExit(0)")
    assert described(Unprintable()) == ("Unprintable", "Unprintable")  # its __str__ raised
    text, message = described(MarkedMessage())
    assert (text, message) == ("MarkedMessage: odd", "odd")
    assert type(message) is str  # not the agent's str subclass


def test_described_clips_both_as_describe_does() -> None:
    text, message = described(ValueError("x" * 5000))
    assert len(text) == len(message) == MESSAGE_LIMIT == 2000
    assert text == "ValueError: " + "x" * (2000 - 13) + "…"
    assert message == "x" * 1999 + "…"


def test_os_exit_on_a_fresh_worker_fails_only_its_turn(tmp_path: Path) -> None:
    """A worker started as a fresh interpreter (the run's process runs other threads, so
    its workers are not forks) inherits no guard: it guards itself as a forked one does
    (``tests/cli/test_run_isolation.py`` runs forked ones)."""
    import assay

    suite = tmp_path / "suite.yaml"
    suite.write_text(
        f"name: s\ntarget: {{python: '{AGENTS}:os_exits_on_b'}}\ntests:\n"
        + "".join(f"  - {{name: {t}, input: {t}, ground_truth: ok}}\n" for t in "abcd")
    )
    other = threading.Event()
    threading.Thread(target=other.wait, daemon=True).start()
    try:
        assert not forking.can_fork()
        report = assay.run(suite, workers=2, store=f"sqlite:///{tmp_path / 'a.db'}")
    finally:
        other.set()
    assert report.run.status == "completed"
    by_name = {r.test_name: r for r in report.results}
    assert [by_name[t].passed for t in "abcd"] == [True, False, True, True]
    assert by_name["b"].errors == [f"Agent invocation error: {EXITED}"]


def test_a_fresh_worker_ends_without_waiting_for_the_agent_s_threads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker started as a fresh interpreter whose agent left a job running on a pool
    (which Python's exit joins) ends once its results are sent, as a forked one does: the
    driver neither waits ``STOP_WAIT_S`` for it nor kills it."""
    import assay
    from assay.runner import pool

    (tmp_path / "lingering.py").write_text(
        "import threading\nfrom concurrent.futures import ThreadPoolExecutor\n"
        "_POOL = ThreadPoolExecutor(max_workers=1)\n_NEVER = threading.Event()\n"
        "def respond(query, session_id):\n    _POOL.submit(_NEVER.wait)\n    return 'ok'\n"
    )
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: s\ntarget: {python: 'lingering:respond'}\ntests:\n"
        + "".join(f"  - {{name: {t}, input: {t}, ground_truth: ok}}\n" for t in "abcd")
    )
    ended: list[int | None] = []
    close = pool._Worker.close

    def recorded(worker: pool._Worker) -> None:
        close(worker)
        ended.append(worker.process.returncode)

    monkeypatch.setattr(pool._Worker, "close", recorded)
    monkeypatch.setattr(pool, "STOP_WAIT_S", 10.0)  # before: each worker killed after this
    other = threading.Event()
    threading.Thread(target=other.wait, daemon=True).start()
    try:
        assert not forking.can_fork()
        report = assay.run(suite, workers=2, store=f"sqlite:///{tmp_path / 'a.db'}")
    finally:
        other.set()
    assert [r.passed for r in report.results] == [True] * 4
    assert ended == [0, 0]  # not -9 (SIGKILL)
