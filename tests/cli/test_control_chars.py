"""Agent text cannot drive the terminal: escape sequences in an agent's reply and error
(over real HTTP), in a judge's reasoning (the scripted OpenAI-compatible server) and in the
test names of a stored run reach stdout and stderr only made visible (a suite's own names
may not hold controls: the loader refuses them); report files keep the exact text
but NUL; JUnit XML stays well-formed. Checked on the raw bytes, piped and on a real
pseudo-terminal."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.results.models import RunInfo, TestResult
from assay.results.rollup import SummaryBuilder
from assay.store import Store, open_store
from tests.cli.conftest import ASSAY, RunCli
from tests.fakes.llm_server import ScriptedLLM, scripted_llm
from tests.targets.agent_server import AgentServer, Step, agent_server

HOSTILE = (
    "\x1b]0;PWNED-TITLE\x07"  # window title (OSC 0), ended by a bell
    "\x1b]2;PWNED-TITLE-2\x1b\\"  # window title (OSC 2), ended by ST
    "\x1b[2J\x1b[H"  # clear the screen, cursor home
    "\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\"  # a hyperlink (OSC 8)
    "\x07"  # bell
    "\x9b2J"  # clear the screen through the 8-bit CSI
    "\x9d0;C1-TITLE\x9c"  # window title through the 8-bit OSC and ST
    "\r3 passed\x08\x7f"  # carriage return over the totals, backspace, DEL
    "\x00end"  # NUL
)
STORED = HOSTILE.replace("\x00", "\ufffd")  # as the store keeps it
# every control byte but tab and newline, and C1 controls as UTF-8 encodes them
RAW_CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")
HOSTILE_BYTES = (b"\x1b]0;", b"\x1b]2;", b"\x1b[2J", b"\x1b]8;", b"\x07", b"\xc2\x9b", b"\xc2\x9d")
SECRET = "sk-judge-key-for-the-control-test"


@pytest.fixture
def server() -> Iterator[AgentServer]:
    with agent_server() as s:
        yield s


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    with scripted_llm() as s:
        s.responder = lambda api, body: json.dumps({"reasoning": HOSTILE, "score": 1})
        yield s


def write_suite(tmp_path: Path, url: str, extra_test: str = "") -> None:
    # one test at a time, so the scripted replies go to the tests in order
    (tmp_path / "suite.yaml").write_text(
        "name: suite\n"
        f"target: {{http: {{url: '{url}'}}}}\n"
        "execution: {concurrency: 1, retries: 0}\n"
        "tests:\n"
        "  - name: reply\n"
        "    input: hi\n"
        "    ground_truth: Paris\n"
        "    metrics: [equality]\n"
        "  - {name: error, input: hi, ground_truth: Paris, metrics: [equality]}\n"
        "  - {name: judged, input: hi, ground_truth: Paris, metrics: [correctness]}\n"
        "  - {name: unchecked, input: hi, metrics: [{metric: equality, name: eq}]}\n" + extra_test
    )


def queue_replies(server: AgentServer) -> None:
    reply = Step(json={"response": HOSTILE})
    error = Step(status=400, raw=HOSTILE, content_type="text/plain")
    server.queue(reply, error, reply, reply)


def run_args(llm: ScriptedLLM) -> list[str]:
    return ["--judge", "openai:judge-model", "--judge-base-url", llm.base_url]


def on_a_terminal(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, bytes]:
    """Run ``assay`` with stdin, stdout and stderr on a new pseudo-terminal; what it wrote."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [ASSAY, *args], cwd=cwd, env=env, stdin=slave, stdout=slave, stderr=slave
    )
    os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + 120  # a hung command fails the test instead of hanging it
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: every writer closed the terminal
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
    return proc.wait(timeout=30), b"".join(chunks)


def terminal_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    return {**env, "TERM": "xterm-256color", "COLUMNS": "200", "OPENAI_API_KEY": SECRET, **extra}


def test_piped_output_carries_no_control_character_and_shows_them(
    assay_cli: RunCli, tmp_path: Path, server: AgentServer, llm: ScriptedLLM
) -> None:
    write_suite(tmp_path, server.chat_url)
    queue_replies(server)
    outs = ["--out", "r.md", "--out", "r.html", "--out", "r.xml", "--out", "r.json"]
    proc = subprocess.run(
        [ASSAY, "run", "suite.yaml", *run_args(llm), *outs],
        cwd=tmp_path,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200", "OPENAI_API_KEY": SECRET},
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    both = proc.stdout + proc.stderr
    assert RAW_CONTROL.search(both) is None, RAW_CONTROL.findall(both)
    text = both.decode()
    assert "HTTP 400 from" in text and "\\u001b]0;PWNED-TITLE\\u0007" in text  # agent error
    assert "correctness 0.00" in text  # the judge's reasoning follows, made visible
    assert "4 tests: 0 passed, 2 failed, 1 errored, 1 not run" in text

    report = json.loads((tmp_path / "r.json").read_text())
    # JSON keeps the exact text, but NUL, which no store holds (see results.md)
    assert report["results"][0]["agent_response"] == STORED
    markdown, html = (tmp_path / "r.md").read_bytes(), (tmp_path / "r.html").read_bytes()
    for body in (markdown, html):
        assert b"\x00" not in body
        assert "\ufffdend".encode() in body  # NUL shown as U+FFFD, as CommonMark and HTML do
        assert b"\x1b]0;PWNED-TITLE\x07" in body  # a report file keeps the exact text
    assert HOSTILE.replace("\x00", "\ufffd").encode() in html  # the reply, exact in a <pre>
    root = ET.parse(tmp_path / "r.xml").getroot()  # expat: well-formed XML 1.0 or it raises
    assert root.find("testsuite") is not None


def test_reports_on_a_terminal_show_controls_and_piped_keep_them(
    assay_cli: RunCli, tmp_path: Path, server: AgentServer, llm: ScriptedLLM
) -> None:
    write_suite(tmp_path, server.chat_url)
    queue_replies(server)
    code, seen = on_a_terminal(
        ["run", "suite.yaml", *run_args(llm), "--out", "r.json"], tmp_path, terminal_env()
    )
    assert code == 1, seen.decode(errors="replace")
    for sequence in HOSTILE_BYTES:  # rich styles its own output; none of the agent's gets out
        assert sequence not in seen, sequence
    assert b"4 tests: 0 passed, 2 failed, 1 errored, 1 not run" in seen
    run_id = json.loads((tmp_path / "r.json").read_text())["run"]["id"][:12]

    for fmt in ("markdown", "html", "json", "junit"):
        code, shown = on_a_terminal(["report", run_id, "--format", fmt], tmp_path, terminal_env())
        assert code == 0, shown
        for sequence in HOSTILE_BYTES:
            assert sequence not in shown, (fmt, sequence)
        assert b"\\u001b" in shown or fmt == "junit"  # junit already turned ESC into U+FFFD
    piped = assay_cli("report", run_id, "--format", "markdown")
    assert "\x1b]0;PWNED-TITLE\x07" in piped.stdout  # a pipe or a file gets the exact text
    on_screen_json = on_a_terminal(
        ["report", run_id, "--format", "json"], tmp_path, terminal_env()
    )[1]
    # written out as JSON escapes, the report read from the screen is still the same JSON
    parsed = json.loads(on_screen_json.decode().replace("\r\n", "\n"))
    assert parsed["results"][0]["agent_response"] == STORED


def _stored_run(store: Store, run_id: str, names: list[str], suite: str = "s") -> None:
    """A finished run whose test names hold controls, as a store written by another tool
    or an older assay may hold them (today's loader refuses such names)."""
    started = "2026-01-01T00:00:00+00:00"
    store.create_run(
        RunInfo(
            id=run_id,
            suite_name=suite,
            status="running",
            started_at=started,
            assay_version="0",
            target="t",
        )
    )
    results = [
        TestResult(
            test_name=name,
            test_type="single_turn",
            test_input="hi",
            passed=True,
            status="passed",
            execution_time_ms=1,
            timestamp=started,
        )
        for name in names
    ]
    store.add_results(run_id, list(enumerate(results)))
    summary = SummaryBuilder(1)
    for result in results:
        summary.add(result)
    store.finish_run(run_id, "completed", summary.build(), started)


def test_diff_shows_hostile_test_names_made_visible(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    with open_store(url) as store:
        _stored_run(store, "a" * 32, ["old"])
        _stored_run(store, "b" * 32, ["old", "new\x1b]0;NEW-TITLE\x07\x9b2J"])
    diff = subprocess.run(
        [ASSAY, "diff", "a" * 12, "b" * 12, "--store", url],
        cwd=tmp_path,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"},
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert RAW_CONTROL.search(diff.stdout + diff.stderr) is None
    assert "new in B: new\\u001b]0;NEW-TITLE\\u0007\\u009b2J" in diff.stdout.decode()


def test_stored_runs_datasets_and_judge_checks_print_no_control_character(
    assay_cli: RunCli, tmp_path: Path, server: AgentServer, llm: ScriptedLLM
) -> None:
    write_suite(tmp_path, server.chat_url)
    queue_replies(server)
    env = {"OPENAI_API_KEY": SECRET}
    assert assay_cli("run", "suite.yaml", *run_args(llm), env=env).returncode == 1
    with open_store(f"sqlite:///{tmp_path / '.assay' / 'assay.db'}") as store:
        _stored_run(store, "c" * 32, ["x"], suite="suite\x1b]0;SUITE-TITLE\x07")
    in_a_cell = "\x1b]0;PWNED-TITLE\x07\x9b2J"  # csv has its own rules for NUL and CR
    (tmp_path / "hostile.csv").write_text(f"Question,Answer,{in_a_cell}\nhi,{in_a_cell}\n")
    (tmp_path / "labelled.csv").write_text(
        f"Question,Response,Reference,Label\nCapital?,{in_a_cell},Paris,pass\n"
    )
    judge_check = ["judge", "check", "labelled.csv", "--metric", "correctness", "--json"]
    commands = [
        ["runs"],
        ["validate", "hostile.csv"],
        ["validate", "hostile.csv", "--json"],
        [*judge_check, "--judge", "openai:judge-model", "--judge-base-url", llm.base_url],
    ]
    for args in commands:
        proc = subprocess.run(
            [ASSAY, *args],
            cwd=tmp_path,
            env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200", **env},
            capture_output=True,
            timeout=60,
            check=False,
        )
        both = proc.stdout + proc.stderr
        assert RAW_CONTROL.search(both) is None, (args, both)
        assert b"\\u001b]0;" in both, (args, both)  # shown, not dropped


def test_an_error_line_shows_the_controls_of_a_bad_suite(assay_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text(
        'name: s\ntarget: {python: "agent:respond"}\n'
        'tests:\n  - {name: a, input: hi, "\\e]0;KEY-TITLE\\a": 1}\n'
    )
    proc = subprocess.run(
        [ASSAY, "run", "suite.yaml"],
        cwd=tmp_path,
        env={**os.environ, "NO_COLOR": "1"},
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert RAW_CONTROL.search(proc.stdout + proc.stderr) is None, proc.stderr


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "xlsx"])
def test_a_dataset_answer_with_controls_prints_them_escaped(
    assay_cli: RunCli, tmp_path: Path, fmt: str
) -> None:
    # the Answer is test data, kept verbatim (NUL included); the failure summary, which
    # quotes it, shows every control written out
    answer = "Par\x00is\x1b[2J\x07\x9b2J"
    (tmp_path / "agent.py").write_text("def respond(query, session_id):\n    return 'Rome'\n")
    if fmt == "csv":
        (tmp_path / "data.csv").write_text(f"Question,Answer\nCapital?,{answer}\n")
    elif fmt == "jsonl":
        line = json.dumps({"question": "Capital?", "answer": answer})
        (tmp_path / "data.jsonl").write_text(line + "\n")
    else:
        import xlsxwriter

        book = xlsxwriter.Workbook(str(tmp_path / "data.xlsx"))
        sheet = book.add_worksheet()
        sheet.write_row(0, 0, ["Question", "Answer"])
        sheet.write_row(1, 0, ["Capital?", answer])
        book.close()
    proc = subprocess.run(
        [ASSAY, "run", "--dataset", f"data.{fmt}", "--target", "agent:respond"],
        cwd=tmp_path,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"},
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    both = proc.stdout + proc.stderr
    assert RAW_CONTROL.search(both) is None, RAW_CONTROL.findall(both)
    text = both.decode()
    # the stored Answer holds U+FFFD for the NUL (datasets.md); the rest is written out
    assert "expected: Par\ufffdis\\u001b[2J\\u0007\\u009b2J" in text
    assert "expected 'Par\\x00is\\x1b[2J\\x07\\x9b2J', got 'Rome'" in text  # the reason
