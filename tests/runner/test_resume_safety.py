"""Resume is safe: SIGTERM stops a run like Ctrl-C (interrupted, resumable, exit 130); a
second resume of a run still running is refused; a resume sends requests only to the
endpoints named now, and refuses other ones than the run used; results reach the store
as their tests finish, not when a batch fills."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import signal
import subprocess
import time
from pathlib import Path

from assay.results.models import RunInfo
from assay.runner.writer import ResultWriter
from assay.store import open_store
from tests.cli.conftest import ASSAY
from tests.runner.test_resume import run_id, stored
from tests.store.conftest import single
from tests.targets.agent_server import agent_server

ENV = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}


def start(folder: Path, *args: str) -> subprocess.Popen[str]:
    """``assay`` in a process group of its own, so a signal can reach the whole group (the
    run and its result writer), as a CI runner cancelling a job does."""
    return subprocess.Popen(
        [ASSAY, *args],
        cwd=folder,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
        start_new_session=True,
    )


def run(folder: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    proc = subprocess.run(
        [ASSAY, *args],
        cwd=folder,
        capture_output=True,
        text=True,
        env=env or ENV,
        timeout=120,
        check=False,
    )
    return proc.returncode, proc.stdout, proc.stderr


def wait_for_results(db: Path, proc: subprocess.Popen[str], at_least: int) -> None:
    deadline = time.monotonic() + 60
    while stored(db) < at_least and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.01)
    assert proc.poll() is None, "the run finished before the test could act"


def status(folder: Path) -> str:
    _, out, _ = run(folder, "runs", "--json")
    return str(json.loads(out)[0]["status"])


GATED_AGENT = """
import os, time

def respond(query, session_id):
    while query.startswith("late") and not os.path.exists("open-the-gate"):
        time.sleep(0.02)  # held until the test opens the gate: the run is surely running
    return "ok " + query
"""
EARLY, LATE = 6, 10


def gated_suite(folder: Path) -> Path:
    """Six tests that answer at once, then ten whose agent waits for a file to appear."""
    (folder / "gated.py").write_text(GATED_AGENT)
    names = [f"early-{i}" for i in range(EARLY)] + [f"late-{i}" for i in range(LATE)]
    tests = "".join(f"  - {{name: {n}, input: {n}, ground_truth: ok {n}}}\n" for n in names)
    (folder / "suite.yaml").write_text(
        f"name: gated\ntarget: {{python: 'gated:respond'}}\n"
        f"execution: {{concurrency: 2}}\ntests:\n{tests}"
    )
    return folder / ".assay" / "assay.db"


def test_sigterm_interrupts_and_a_second_resume_of_a_live_run_is_refused(tmp_path: Path) -> None:
    db = gated_suite(tmp_path)
    first = start(tmp_path, "run", "suite.yaml", "--quiet")
    wait_for_results(db, first, at_least=EARLY)
    rid = run_id(db)

    code, out, err = run(tmp_path, "run", "--resume", rid)
    assert code == 2, out + err
    assert f"run {rid[:12]} is still running: pid {first.pid} on " in err
    assert "Traceback" not in err
    assert first.poll() is None  # the refused resume touched nothing

    os.killpg(first.pid, signal.SIGTERM)  # the run and its writer, as a cancelled CI job
    _, err = first.communicate(timeout=60)
    assert first.returncode == 130, err
    assert f"resume with assay run --resume {rid[:12]}" in err
    assert status(tmp_path) == "interrupted"
    assert stored(db) == EARLY

    (tmp_path / "open-the-gate").touch()
    code, out, err = run(tmp_path, "run", "--resume", rid, "--quiet")  # the lock was released
    assert code == 0, out + err
    assert f"{EARLY + LATE} tests: {EARLY + LATE} passed" in out
    assert stored(db) == EARLY + LATE and status(tmp_path) == "completed"


def test_a_resume_of_a_killed_run_takes_its_lock_over(tmp_path: Path) -> None:
    db = gated_suite(tmp_path)
    first = start(tmp_path, "run", "suite.yaml", "--quiet")
    wait_for_results(db, first, at_least=EARLY)
    os.killpg(first.pid, signal.SIGKILL)  # no chance to release anything
    first.communicate(timeout=60)
    assert status(tmp_path) == "running"
    (tmp_path / "open-the-gate").touch()
    code, out, err = run(tmp_path, "run", "--resume", run_id(db), "--quiet")
    assert code == 0, out + err
    assert f"{EARLY + LATE} tests: {EARLY + LATE} passed" in out


def test_the_resume_command_printed_names_the_store_it_was_given(tmp_path: Path) -> None:
    """A run stored with ``--store`` elsewhere says to resume with that ``--store``: the
    command as printed finishes the run (without it, the default store has no such run)."""
    gated_suite(tmp_path)
    db = tmp_path / "elsewhere.db"
    first = start(tmp_path, "run", "suite.yaml", "--quiet", "--store", f"sqlite:///{db.name}")
    wait_for_results(db, first, at_least=EARLY)
    os.killpg(first.pid, signal.SIGTERM)
    _, err = first.communicate(timeout=60)
    assert first.returncode == 130, err
    command = " ".join(err.split("resume with", 1)[1].split())
    assert command == f"assay run --resume {run_id(db)[:12]} --store sqlite:///elsewhere.db"
    (tmp_path / "open-the-gate").touch()
    code, out, err = run(tmp_path, *command.split()[1:], "--quiet")
    assert code == 0, out + err
    assert f"{EARLY + LATE} tests: {EARLY + LATE} passed" in out
    assert stored(db) == EARLY + LATE


def test_a_resume_command_masks_the_store_password_and_quotes_it() -> None:
    from assay.run_options import RunOptions
    from assay.runner.request import RunRequest

    request = RunRequest(None, RunOptions())
    assert request.resume_command("0123456789abcdef") == "assay run --resume 0123456789ab"
    command = request.resume_command(
        "0123456789abcdef", "postgresql+psycopg://ci:hunter2@db.internal:5432/assay"
    )
    assert command == (
        "assay run --resume 0123456789ab "
        "--store 'postgresql+psycopg://ci:***@db.internal:5432/assay'"
    )
    spaced = request.resume_command("0123456789abcdef", "sqlite:////home/me/My  Runs/a.db")
    assert shlex.split(spaced)[-1] == "sqlite:////home/me/My  Runs/a.db"  # one word, as given
    query = "postgresql://ci@db/assay?application_name=ci&sslmode=require"
    assert shlex.split(request.resume_command("0123456789abcdef", query))[-1] == query


def test_a_resume_command_masks_a_store_password_given_in_the_query() -> None:
    from assay.run_options import RunOptions
    from assay.runner.request import RunRequest

    url = "postgresql+psycopg://ci@db.internal:5432/assay?password=hunter2&sslmode=require"
    command = RunRequest(None, RunOptions()).resume_command("0123456789abcdef", url)
    assert "hunter2" not in command
    assert shlex.split(command)[-1] == url.replace("hunter2", "***")


def agent_suite(folder: Path, url: str) -> None:
    (folder / "suite.yaml").write_text(
        "name: endpoints\n"
        "target: {http: {url: '${AGENT_URL}', headers: {X-Key: '${AGENT_KEY}'}}}\n"
        "tests:\n  - {name: a, input: hi}\n  - {name: b, input: ho}\n"
    )


def test_resume_refuses_endpoints_other_than_the_runs_and_sends_them_nothing(
    tmp_path: Path,
) -> None:
    with agent_server() as used, agent_server() as other:
        agent_suite(tmp_path, used.chat_url)
        env = {**ENV, "AGENT_URL": used.chat_url, "AGENT_KEY": "key-1234"}
        code, _, err = run(tmp_path, "run", "suite.yaml", "--limit", "1", env=env)
        assert code == 0, err
        rid = run_id(tmp_path / ".assay" / "assay.db")

        moved = {**env, "AGENT_URL": other.chat_url}  # the same suite, another endpoint
        code, _, err = run(tmp_path, "run", "--resume", rid, env=moved)
        assert code == 2
        assert (  # a URL from a ${VAR} is masked like any substituted value
            f"cannot resume run {rid[:12]}: it used target ***, and this resume would use "
            "target *** (*** is a masked ${VAR} value)" in err
        )
        code, _, err = run(tmp_path, "run", "--resume", rid, "--target", other.chat_url, env=env)
        assert code == 2
        assert f"it used target ***, and this resume would use target {other.chat_url}" in err
        assert other.requests == []  # no key, no request went there

        code, _, err = run(tmp_path, "run", "--resume", rid, env=env)
        assert code == 0, err
        assert len(used.requests) == 1  # the limit was kept: nothing left to run


def test_a_run_started_with_target_is_resumed_only_with_it_given_again(tmp_path: Path) -> None:
    with agent_server() as server:
        (tmp_path / "d.csv").write_text("Question,Answer\nhi,x\nho,y\n")
        code, _, err = run(tmp_path, "run", "--dataset", "d.csv", "--target", server.chat_url)
        assert code == 1, err  # the answers do not match
        rid = run_id(tmp_path / ".assay" / "assay.db")
        code, _, err = run(tmp_path, "run", "--resume", rid)
        assert code == 2
        assert f"it was started with --target {server.chat_url}, not given now" in err
        assert f"resume with --target {server.chat_url} again" in err
        code, _, err = run(tmp_path, "run", "--resume", rid, "--target", server.chat_url)
        assert code == 1, err
        assert len(server.requests) == 2  # both stored the first time; none repeated


def test_a_result_is_handed_to_the_store_when_its_test_ends(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'a.db'}")
    store.create_run(RunInfo(id="run-1", suite_name="s", started_at="t", assay_version="0"))
    writer = ResultWriter(store.reopen, "run-1")

    async def one_result_then_wait() -> int:
        writer.add(0, single("only").model_dump_json())  # one result: no batch to fill
        deadline = time.monotonic() + 30
        while not store.completed_keys("run-1") and time.monotonic() < deadline:
            await asyncio.sleep(0.01)  # the loop keeps turning, the writer is not closed
        return len(store.completed_keys("run-1"))

    try:
        assert asyncio.run(one_result_then_wait()) == 1
    finally:
        writer.close()
        store.close()


def test_a_test_whose_name_holds_a_secret_is_not_re_run_by_resume(tmp_path: Path) -> None:
    with agent_server() as server:
        (tmp_path / "suite.yaml").write_text(
            f"name: named\ntarget: {{http: {{url: '{server.chat_url}'}}}}\n"
            "tests:\n  - {name: 'ask-${NAME_SECRET}', input: hi}\n  - {name: plain, input: ho}\n"
        )
        env = {**ENV, "NAME_SECRET": "sekret-name-77"}
        code, out, err = run(tmp_path, "run", "suite.yaml", env=env)
        assert code == 0, out + err
        assert "ask-***" in out and "sekret-name-77" not in out
        rid = run_id(tmp_path / ".assay" / "assay.db")
        code, out, err = run(tmp_path, "run", "--resume", rid, env=env)
        assert code == 0, out + err
        assert len(server.requests) == 2  # the stored "ask-***" is the planned test: not re-run


def test_two_names_stored_alike_are_refused_before_anything_runs(tmp_path: Path) -> None:
    with agent_server() as server:
        (tmp_path / "suite.yaml").write_text(
            f"name: named\ntarget: {{http: {{url: '{server.chat_url}'}}}}\n"
            "tests:\n  - {name: 'ask-${SECRET_A}', input: hi}\n"
            "  - {name: 'ask-${SECRET_B}', input: ho}\n"
        )
        env = {**ENV, "SECRET_A": "first-secret", "SECRET_B": "other-secret"}
        code, _, err = run(tmp_path, "run", "suite.yaml", env=env)
        assert code == 2
        assert "test name 'ask-***' is also the stored name of" in err
        assert "first-secret" not in err and "other-secret" not in err
        assert server.requests == []
