"""One bad result fails one test, never the run: an agent's out-of-range numbers, NUL
characters, lone surrogates and non-JSON values are made storable (and said in the result's
``warnings``) on SQLite and on PostgreSQL; a row the database still refuses is stored as
that test's error; a resume after any of it re-runs nothing. A database that itself failed
(its disk full, the connection lost) is no row's fault: nothing stands in for the result."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import text

from assay.errors import StoreError
from assay.results.models import TestResult
from assay.runner.writer import ResultWriter, store_batch
from assay.store import open_store
from tests.cli.conftest import ASSAY
from tests.store.conftest import run_info, single
from tests.targets.agent_server import AgentServer, Step, agent_server

BIG = 2**64
INT64_MAX = 2**63 - 1

# One scripted reply per test, in test order (the suite runs at concurrency 1). Raw JSON, so
# the agent can send what Python's json module would not: a lone surrogate escape.
REPLIES = {
    "huge-tokens": f'{{"response": "ok", "token_usage": {{"prompt_tokens": {BIG}}}}}',
    "nul-tool": '{"response": "ok", "tool_invocations": [{"name": "look\\u0000up"}]}',
    "surrogate": '{"response": "ok", "tool_invocations": [{"name": "t", "args": '
    '{"q": "a \\ud800 b"}, "result": {"n": -' + str(BIG * BIG) + "}}]}",
    "nul-error": '{"response": "ok", "tool_invocations": [{"name": "t", "error": "e\\u0000"}]}',
    "plain": '{"response": "ok"}',
}
WARNINGS = {
    "huge-tokens": [
        f"token_usage.prompt_tokens: {BIG} is outside the 64-bit range; stored as {INT64_MAX}",
        f"token_usage.total_tokens: {BIG} is outside the 64-bit range; stored as {INT64_MAX}",
    ],
    "nul-tool": [
        "tool_calls[0]: NUL characters replaced with U+FFFD",
        "tool_invocations[0].name: NUL characters replaced with U+FFFD",
    ],
    "surrogate": [
        "tool_invocations[0].args.q: unpaired surrogate characters replaced with U+FFFD",
        "tool_invocations[0].result.n: an integer outside the 64-bit range; stored as its text",
    ],
    "nul-error": ["tool_invocations[0].error: NUL characters replaced with U+FFFD"],
    "plain": [],
}


def assay(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ASSAY, *args], cwd=folder, capture_output=True, text=True, timeout=120, check=False
    )


def poison_suite(folder: Path, server: AgentServer) -> None:
    tests = "".join(f"  - {{name: {name}, input: {name}, ground_truth: ok}}\n" for name in REPLIES)
    (folder / "suite.yaml").write_text(
        f"name: poison\ntarget: {{http: {{url: '{server.chat_url}'}}}}\n"
        f"execution: {{concurrency: 1}}\ntests:\n{tests}"
    )
    server.queue(*(Step(raw=raw) for raw in REPLIES.values()))


def stored_report(folder: Path, store_url: str) -> dict[str, Any]:
    runs = json.loads(assay(folder, "runs", "--json", "--store", store_url).stdout)
    [run] = runs
    proc = assay(folder, "report", run["id"], "--format", "json", "--store", store_url)
    loaded: dict[str, Any] = json.loads(proc.stdout)
    return loaded


def test_an_agents_unstorable_values_are_stored_and_said(tmp_path: Path, store_url: str) -> None:
    with agent_server() as server:
        poison_suite(tmp_path, server)
        proc = assay(tmp_path, "run", "suite.yaml", "--store", store_url, "--quiet")
        assert proc.returncode == 0, proc.stderr
        assert "5 tests: 5 passed" in proc.stdout
        report = stored_report(tmp_path, store_url)
        results = {r["test_name"]: r for r in report["results"]}
        assert {name: r["warnings"] for name, r in results.items()} == WARNINGS
        assert results["huge-tokens"]["token_usage"]["prompt_tokens"] == INT64_MAX
        assert results["nul-tool"]["tool_invocations"][0]["name"] == "look\ufffdup"
        call = results["surrogate"]["tool_invocations"][0]
        assert call["args"] == {"q": "a \ufffd b"}
        assert call["result"] == {"n": str(-BIG * BIG)}  # the exact value, as text
        assert report["run"]["status"] == "completed"
        assert report["summary"]["token_usage"]["prompt_tokens"] == INT64_MAX

        # a resume finds every result stored and sends the agent nothing more
        asked = len(server.requests)
        resumed = assay(tmp_path, "run", "--resume", report["run"]["id"], "--store", store_url)
        assert resumed.returncode == 0, resumed.stderr
        assert len(server.requests) == asked
        assert len(stored_report(tmp_path, store_url)["results"]) == 5


def raw_payload(result: TestResult, **changes: Any) -> str:
    """A result's JSON with values ``encode_result`` would have fixed: what a broken or
    older run process could hand the writer."""
    data = json.loads(result.model_dump_json())
    for path, value in changes.items():
        *parents, leaf = path.split(".")
        node = data
        for part in parents:
            node = node[int(part)] if part.isdigit() else node[part]
        node[leaf] = value
    return json.dumps(data)


def test_a_row_the_database_refuses_becomes_that_tests_error(store_url: str) -> None:
    store = open_store(store_url)
    store.create_run(run_info("run-poison"))
    writer = ResultWriter(store.reopen, "run-poison")
    writer.add(0, single("first").model_dump_json())
    # SQLite cannot hold the integer; PostgreSQL refuses it for a bigint column
    writer.add(1, raw_payload(single("bad"), **{"token_usage.total_tokens": BIG}))
    writer.add(2, single("last").model_dump_json())
    writer.close()

    assert writer.written == 3 and writer.replaced == [1]
    stored = {r.test_name: r for r in store.iter_results("run-poison")}
    assert set(stored) == {"first", "bad", "last"}
    assert stored["first"].passed and stored["last"].passed
    bad = stored["bad"]
    assert bad.status == "error" and not bad.passed
    [error] = bad.errors
    assert error.startswith("this test's result could not be stored (")
    assert "only its name was kept" in error
    assert store.completed_keys("run-poison") == {("first", 0), ("bad", 0), ("last", 0)}
    store.close()


def test_nul_in_a_metric_name_reaching_the_store_costs_only_its_row(store_url: str) -> None:
    store = open_store(store_url)
    store.create_run(run_info("run-nul"))
    poisoned = single("nul-metric")
    metric = poisoned.metric_results[0].model_copy(update={"metric_name": "equal\x00ity"})
    poisoned = poisoned.model_copy(update={"metric_results": [metric]})
    replaced = store_batch(store, "run-nul", [(0, single("a")), (1, poisoned)])
    assert len(list(store.iter_results("run-nul"))) == 2
    if store_url.startswith("postgresql"):  # text columns cannot hold NUL there
        assert replaced == []  # the store cleans its columns; the payload keeps the name
    with store._engine.connect() as conn:
        names = conn.execute(text("SELECT metric_name FROM assay_metric_results")).scalars()
        assert "equal\ufffdity" in set(names)
    store.close()


def test_a_store_that_fails_every_row_still_fails_the_run(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'a.db'}")
    with pytest.raises(Exception, match="no stored run"):  # the run's row is missing
        store_batch(store, "no-such-run", [(0, single("a"))])
    store.close()


def test_a_handed_over_result_that_does_not_parse_keeps_its_name(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'a.db'}")
    store.create_run(run_info("run-odd"))
    writer = ResultWriter(store.reopen, "run-odd")
    writer.add(0, raw_payload(single("odd", repeat=2), test_type="not-a-type"))
    writer.close()
    [kept] = store.iter_results("run-odd")
    assert (kept.test_name, kept.repeat_index, kept.status) == ("odd", 2, "error")
    assert "could not be stored (ValidationError: 1 validation error" in kept.errors[0]
    store.close()


class FailingStore:
    """A store whose database fails every write of ``real`` (the test's own result) with
    ``cause``, and stores anything else (an error result standing in for it)."""

    def __init__(self, cause: Exception) -> None:
        self.cause = cause
        self.stored: list[TestResult] = []

    def add_results(self, run_id: str, items: list[tuple[int, TestResult]]) -> None:
        if any(result.status != "error" for _, result in items):
            raise StoreError("the store failed: " + str(self.cause)) from self.cause
        self.stored += [result for _, result in items]


@pytest.mark.parametrize(
    "cause",
    [
        psycopg.OperationalError("connection failed: Connection refused"),  # no SQLSTATE
        psycopg.errors.DiskFull("could not extend file: No space left on device"),
        psycopg.errors.AdminShutdown("terminating connection due to administrator command"),
        psycopg.errors.IoError("could not read block"),
    ],
)
def test_a_database_that_failed_leaves_no_stand_in(cause: Exception) -> None:
    """The database itself failed, not the row: nothing stands in for the result (a resume
    would count it as that test's), and the run fails."""
    store = FailingStore(cause)
    with pytest.raises(StoreError, match="the store failed"):
        store_batch(store, "run", [(0, single("a"))])
    assert store.stored == []


@pytest.mark.parametrize(
    "cause",
    [
        psycopg.errors.ProgramLimitExceeded("index row size 9000 exceeds maximum 2712"),
        psycopg.errors.NumericValueOutOfRange("bigint out of range"),
    ],
)
def test_a_row_too_large_or_out_of_range_still_keeps_its_name(cause: Exception) -> None:
    store = FailingStore(cause)
    assert store_batch(store, "run", [(0, single("a"))]) == [0]
    [kept] = store.stored
    assert kept.test_name == "a" and "only its name was kept" in kept.errors[0]
