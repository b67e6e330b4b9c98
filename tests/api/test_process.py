"""``assay.run`` from a fresh interpreter: the travel example from the repository root, a
light ``import assay``, ``assay --version``, and where the result writer runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from importlib.metadata import version
from pathlib import Path

import yaml

from assay.store import open_store
from tests.cli.conftest import ASSAY, REPO

PYTHON = sys.executable  # the project's .venv, made by make install


def python(code: str, cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PYTHON, "-c", textwrap.dedent(code), *args],
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_travel_example_runs_from_the_repository_root(tmp_path: Path) -> None:
    """Exactly the README's two lines. The suite's target is the built-in travel agent
    (``demo: travel``), which assay serves itself on 127.0.0.1: nothing else need run. With
    no judge model, its judge metric and its two goal tests are not run, and say so."""
    store_url = f"sqlite:///{tmp_path / 'runs.db'}"  # $ASSAY_STORE: not the repository's
    proc = python(
        """
        import assay; report = assay.run("examples/travel/suite.yaml")
        print(report.model_dump_json())
        """,
        REPO,
        ASSAY_STORE=store_url,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    statuses = {r["test_name"]: r["status"] for r in report["results"]}
    # 6 tests in the suite, 9 rows of lab1.csv, 3 conversations of lab2.csv
    assert len(statuses) == 18
    assert statuses["plan-a-basel-stay"] == statuses["cancel-without-confirmation"] == "not_run"
    assert statuses["car-rental-after-a-hotel-search"] == "failed"  # the agent's flaw 3
    assert statuses["book-by-name"] == "passed"
    assert report["run"]["status"] == "completed"
    with open_store(store_url) as store:
        assert [run.id for run in store.list_runs()] == [report["run"]["id"]]


def test_import_assay_loads_no_network_database_or_web_library() -> None:
    proc = python(
        """
        import sys
        import assay
        assert assay.__version__
        heavy = ("aiohttp", "sqlalchemy", "fastapi", "starlette", "alembic", "openpyxl", "rich")
        print(sorted(name for name in heavy if name in sys.modules))
        """,
        REPO,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_version_flag_prints_the_installed_version() -> None:
    proc = subprocess.run([ASSAY, "--version"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0
    assert proc.stdout == f"assay {version('assay')}\n"


AGENT = """
async def respond(query: str, session_id: str) -> str:
    return f"turn 1: {query}"
"""


def _suite(folder: Path) -> Path:
    (folder / "agent.py").write_text(AGENT)
    suite = {
        "name": "writer",
        "target": {"python": "agent:respond"},
        "metrics": ["equality"],
        "tests": [{"name": n, "input": n, "ground_truth": f"turn 1: {n}"} for n in "abc"],
    }
    path = folder / "suite.yaml"
    path.write_text(yaml.safe_dump(suite))
    return path


def test_the_writer_is_a_process_in_a_one_thread_program_and_a_thread_beside_others(
    tmp_path: Path,
) -> None:
    """A fork is safe only when no other thread holds a lock the child might need: a script
    (like the CLI) gets the writer process, a program with threads (a notebook, a web
    server) a writer thread. Both store every result."""
    code = """
        import multiprocessing, sys, threading
        import assay
        if sys.argv[-1] == "threads":
            threading.Thread(target=threading.Event().wait, daemon=True).start()
        seen = []
        def where(result):
            processes = [p.name for p in multiprocessing.active_children()]
            threads = [t.name for t in threading.enumerate()]
            seen.append(("process" if "assay-writer" in processes else "")
                        + ("thread" if "assay-writer" in threads else ""))
        report = assay.run("suite.yaml", store=sys.argv[1], on_result=where)
        print(sorted(set(seen)), report.summary.passed)
    """
    _suite(tmp_path)
    for mode, expected in (("alone", "['process'] 3"), ("threads", "['thread'] 3")):
        store_url = f"sqlite:///{tmp_path / mode}.db"
        proc = python(code, tmp_path, store_url, mode)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == expected, mode
        with open_store(store_url) as store:
            [run] = store.list_runs()
            assert len(list(store.iter_results(run.id))) == 3


def test_a_forked_writer_does_not_wake_the_parents_signal_handlers(tmp_path: Path) -> None:
    """An event loop's signal handlers (``add_signal_handler``) are woken through a pipe
    the forked writer shares; a signal the writer gets must not run the parent's handler."""
    code = """
        import asyncio, multiprocessing, os, signal, sys
        from assay.results import TurnResult, single_turn_result
        from assay.results.models import RunInfo
        from assay.runner.writer import ResultWriter
        from assay.store import open_store

        async def main():
            woken = []
            loop = asyncio.get_running_loop()
            loop.add_signal_handler(signal.SIGUSR1, lambda: woken.append(1))
            store = open_store(sys.argv[1])
            store.create_run(RunInfo(id="r", suite_name="s", started_at="t", assay_version="0"))
            writer = ResultWriter(store.reopen, "r")
            [child] = multiprocessing.active_children()
            os.kill(child.pid, signal.SIGUSR1)  # at once, while the child may be starting
            turn = TurnResult(turn_index=0, input="q", response="r", passed=True,
                              execution_time_ms=1)
            writer.add(0, single_turn_result("t", turn, "t").model_dump_json())
            while not store.completed_keys("r"):  # the writer works on after the signal
                await asyncio.sleep(0.01)
            await asyncio.sleep(2)  # the parent's loop would have run the handler by now
            writer.close()
            os.kill(os.getpid(), signal.SIGUSR1)  # the handler works: the test can fail
            await asyncio.sleep(2)
            print(writer.in_process, woken)

        asyncio.run(main())
    """
    proc = python(code, tmp_path, f"sqlite:///{tmp_path / 'w.db'}")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "True [1]"


SLOW_B = """
import asyncio

async def respond(query: str, session_id: str) -> str:
    if query == "b":
        await asyncio.sleep(60)  # in flight when Ctrl-C comes
    return f"turn 1: {query}"
"""

CTRL_C_AFTER_A = """
import asyncio, os, signal, sys
import assay

def ctrl_c(result):
    os.kill(os.getpid(), signal.SIGINT)  # as a user's Ctrl-C, once "a" is stored

def call():
    assay.run("suite.yaml", store=sys.argv[1], on_result=ctrl_c)

async def in_a_loop():
    call()  # run() where a loop runs: its helper thread is stopped by the cancellation

if sys.argv[2] == "loop":
    asyncio.run(in_a_loop())
else:
    call()
"""


def test_ctrl_c_stops_assay_run_cleanly_with_or_without_a_running_loop(tmp_path: Path) -> None:
    """Ctrl-C during assay.run (in a script, or in a coroutine of asyncio.run) stores what
    finished, marks the run interrupted and raises KeyboardInterrupt naming how to resume;
    the test in flight is not waited for (it would take a minute)."""
    _suite(tmp_path)
    (tmp_path / "agent.py").write_text(SLOW_B)
    suite = yaml.safe_load((tmp_path / "suite.yaml").read_text())
    suite["execution"] = {"concurrency": 1}
    (tmp_path / "suite.yaml").write_text(yaml.safe_dump(suite))
    for mode in ("script", "loop"):
        store_url = f"sqlite:///{tmp_path / mode}.db"
        proc = python(CTRL_C_AFTER_A, tmp_path, store_url, mode)
        assert "KeyboardInterrupt" in proc.stderr, proc.stderr
        with open_store(store_url) as store:
            [run] = store.list_runs()
            assert run.status == "interrupted", mode
            assert [r.test_name for r in store.iter_results(run.id)] == ["a"]
        assert f"assay.run(resume={run.id[:12]!r}, ...)" in proc.stderr, mode
