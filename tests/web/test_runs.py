"""Starting runs from the dashboard: the run adapter, its live progress, its refusals, and
Ctrl-C on the server leaving the run resumable like the CLI's."""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as http
import pytest
import yaml
from fastapi.testclient import TestClient

from assay.store import open_store
from tests.web.agent import ANSWER, Agent, serve_agent
from tests.web.conftest import wait_for

ASSAY = str(Path(sys.executable).parent / "assay")
SECRET = "s3cr3t-value-never-shown-0042"


@pytest.fixture
def agent() -> Iterator[Agent]:
    with serve_agent() as served:
        yield served


def upload(client: TestClient, name: str, text: str) -> str:
    response = client.post("/api/datasets", files={"file": (name, text.encode(), "text/csv")})
    assert response.status_code == 201, response.text
    upload_id: str = response.json()["id"]
    return upload_id


def start(client: TestClient, **form: Any) -> dict[str, Any]:
    response = client.post("/api/runs", json=form)
    assert response.status_code == 202, response.text
    job: dict[str, Any] = response.json()
    return job


def finished(client: TestClient, job_id: str) -> dict[str, Any]:
    def done() -> dict[str, Any] | None:
        job: dict[str, Any] = client.get(f"/api/jobs/{job_id}").json()
        return job if job["status"] not in ("starting", "running") else None

    found: dict[str, Any] = wait_for(done, 120, f"job {job_id} to finish")
    return found


def test_a_dataset_runs_against_an_agent_and_reports_its_progress(
    client: TestClient, agent: Agent, store_url: str
) -> None:
    csv = "session_id,Question,Answer\nc1,Capital of France?,Paris\nc1,And of Italy?,Rome\n,Hi,\n"
    upload_id = upload(client, "capitals.csv", csv)
    job = start(
        client,
        source="dataset",
        dataset_id=upload_id,
        target="url",
        url=agent.url,
        metrics=["equality", "fuzzy"],
        concurrency=2,
    )
    assert job["status"] == "starting" and job["run_id"] is None
    done = finished(client, job["id"])
    assert done["status"] == "completed", done
    # c1: "Rome" is the second turn's answer, the echo agent does not say it; row4 has no
    # Answer and no metric can run on it, so nothing was checked: not run, not passed
    counts = tuple(done[k] for k in ("total", "done", "passed", "failed", "errored", "not_run"))
    assert counts == (2, 2, 0, 1, 0, 1)
    assert {r["test"] for r in done["recent"]} == {"capitals:c1", "capitals:row4"}
    assert sorted(agent.queries) == ["And of Italy?", "Capital of France?", "Hi"]
    with open_store(store_url) as store:
        run = store.get_run(done["run_id"])
        assert run is not None and run.status == "completed"
        assert run.suite_name == "capitals"
        results = {r.test_name: r for r in store.iter_results(run.id)}
    dialogue = results["capitals:c1"]
    assert dialogue.turns is not None
    assert [t.response for t in dialogue.turns] == [ANSWER, ANSWER]
    assert [t.passed for t in dialogue.turns] == [True, False]  # Rome != Paris
    assert {m.metric_name for m in dialogue.turns[0].metric_results} == {"equality", "fuzzy"}
    # the stream replays the final state, then says it is done
    with client.stream("GET", f"/api/jobs/{job['id']}/events") as stream:
        text = "".join(stream.iter_text())
    events = re.findall(r"event: (\w+)\ndata: (.*)\n\n", text)
    assert [name for name, _ in events] == ["progress", "done"]
    assert json.loads(events[0][1])["status"] == "completed"


def test_a_suite_file_runs_with_the_target_and_concurrency_of_the_form(
    client: TestClient, agent: Agent, tmp_path: Path
) -> None:
    suite = {
        "name": "from-disk",
        "target": {"http": {"url": "http://127.0.0.1:9/never-used"}},
        "tests": [{"name": "capital", "input": "Capital?", "ground_truth": ANSWER}],
    }
    (tmp_path / "suites").mkdir()
    (tmp_path / "suites" / "suite.yaml").write_text(yaml.safe_dump(suite))
    new = client.get("/new").text
    assert "suites/suite.yaml" in new  # offered from the server's folder
    job = start(client, source="suite", suite_path="suites/suite.yaml", target="url", url=agent.url)
    done = finished(client, job["id"])
    assert (done["status"], done["passed"]) == ("completed", 1)
    assert agent.queries == ["Capital?"]


def test_a_suite_that_cannot_run_says_why(client: TestClient, tmp_path: Path) -> None:
    (tmp_path / "broken.yaml").write_text(
        "name: broken\ntarget: {demo: travel}\ntests:\n- nme: x\n"
    )
    job = start(client, source="suite", suite_path="broken.yaml", target="suite")
    done = finished(client, job["id"])
    assert done["status"] == "error"
    assert any("broken.yaml" in p and "tests[0]" in p for p in done["problems"]), done


@pytest.mark.parametrize(
    ("form", "says"),
    [
        ({"source": "dataset", "dataset_id": "0123456789ab", "target": "demo"}, "dataset_id"),
        ({"source": "suite", "suite_path": "../outside.yaml", "target": "demo"}, "inside"),
        ({"source": "suite", "suite_path": "/etc/passwd", "target": "demo"}, "inside"),
        ({"source": "dataset", "target": "url", "url": "http://x/${HOME}"}, "not expanded"),
        ({"source": "dataset", "target": "url", "url": "file:///etc/passwd"}, "http://"),
        ({"source": "suite", "suite_path": "s.yaml", "target": "openai"}, "in the suite file"),
        ({"source": "suite", "suite_path": "s.yaml", "metrics": ["equality"]}, "its own metrics"),
    ],
)
def test_the_form_refuses_what_it_cannot_run(
    client: TestClient, form: dict[str, Any], says: str
) -> None:
    refused = client.post("/api/runs", json=form)
    assert refused.status_code == 400
    assert says in refused.json()["detail"]
    assert client.get("/api/runs").json()["total"] == 0


def test_an_openai_target_is_written_as_a_suite_naming_only_the_key_variable(
    client: TestClient, settings: Any
) -> None:
    upload_id = upload(client, "q.csv", "Question\nhi\n")
    bad = client.post(
        "/api/runs",
        json={
            "source": "dataset",
            "dataset_id": upload_id,
            "target": "openai",
            "openai_base_url": "http://127.0.0.1:9/v1",
            "openai_model": "m",
            "openai_api_key_env": "HOME",
        },
    )
    assert bad.status_code == 400 and "environment variable" in bad.json()["detail"]
    job = start(
        client,
        source="dataset",
        dataset_id=upload_id,
        target="openai",
        openai_base_url="http://127.0.0.1:9/v1",
        openai_model="m",
        metrics=["equality"],
        concurrency=3,
    )
    (written,) = list(settings.uploads_dir.glob(f"{upload_id}/run-*.yaml"))
    assert yaml.safe_load(written.read_text()) == {
        "name": "q",
        "target": {
            "openai": {
                "base_url": "http://127.0.0.1:9/v1",
                "model": "m",
                "api_key_env": "OPENAI_API_KEY",
            }
        },
        "datasets": ["q.csv"],
        "metrics": ["equality"],
        "execution": {"concurrency": 3},
    }
    finished(client, job["id"])


def test_a_secret_the_agent_echoes_is_never_shown(
    client: TestClient, agent: Agent, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_WEB_TEST_SECRET", SECRET)  # the run process inherits it
    suite = {
        "name": "secretive",
        "target": {
            "http": {"url": agent.url, "headers": {"Authorization": "${ASSAY_WEB_TEST_SECRET}"}}
        },
        "tests": [{"name": "echo", "input": "echo-auth please"}],
    }
    (tmp_path / "secretive.yaml").write_text(yaml.safe_dump(suite))
    done = finished(client, start(client, source="suite", suite_path="secretive.yaml")["id"])
    assert done["status"] == "completed"
    run = done["run_id"]
    shown = [
        client.get(f"/api/runs/{run}/results").text,
        client.get(f"/api/runs/{run}").text,
        client.get(f"/runs/{run}").text,
        client.get("/runs").text,
    ]
    item = client.get(f"/api/runs/{run}/results").json()["items"][0]
    shown.append(client.get(f"/runs/{run}/tests/{item['id']}").text)
    assert item["result"]["agent_response"] == "***"  # the agent did echo it
    assert not [page for page in shown if SECRET in page]


def test_literal_secrets_a_suite_quotes_are_never_shown(
    client: TestClient, agent: Agent, tmp_path: Path
) -> None:
    """A credential header's value and the URL's password, written in the suite itself and
    quoted by its tests: the run started here masks them in its stored suite as well."""
    token, password = "literal-header-value-0042", "literal-url-password-0042"
    basic = base64.b64encode(f"user:{password}".encode()).decode()
    url = agent.url.replace("http://", f"http://user:{password}@")
    suite = {
        "name": "literal",
        "target": {"http": {"url": url, "headers": {"X-Api-Key": token}}},
        "tests": [
            {"name": "echo", "input": f"echo-auth {token}", "ground_truth": password},
            {"name": "plain", "input": f"{password} and {token}"},
        ],
    }
    (tmp_path / "literal.yaml").write_text(yaml.safe_dump(suite))
    job = start(client, source="suite", suite_path="literal.yaml")
    done = finished(client, job["id"])
    assert done["status"] == "completed", done
    run = done["run_id"]
    with client.stream("GET", f"/api/jobs/{job['id']}/events") as stream:
        shown = [json.dumps(done), "".join(stream.iter_text())]
    items = client.get(f"/api/runs/{run}/results").json()["items"]
    paths = ["/api/runs", f"/api/runs/{run}", f"/api/runs/{run}/results", "/runs", f"/runs/{run}"]
    paths += [f"/runs/{run}/tests/{item['id']}" for item in items]
    shown += [client.get(path).text for path in paths]
    config = client.get(f"/api/runs/{run}").json()["run"]["config"]
    assert config["target"]["http"] == {
        "url": agent.url.replace("http://", "http://user:***@"),
        "headers": {"X-Api-Key": "***"},
    }
    assert config["tests"] == [
        {"name": "echo", "input": "echo-auth ***", "ground_truth": "***"},
        {"name": "plain", "input": "*** and ***"},
    ]
    echoed = next(item["result"] for item in items if item["result"]["test_name"] == "echo")
    assert echoed["agent_response"] == "Basic ***"  # the agent echoed the URL's credentials
    stored = [path for path in (tmp_path / "store").rglob("*") if path.is_file()]
    for secret in (token, password, basic):
        assert not [text for text in shown if secret in text], secret
        assert not [path for path in stored if secret.encode() in path.read_bytes()], secret


def test_ctrl_c_on_the_server_leaves_the_run_interrupted_and_resumable(
    agent: Agent, tmp_path: Path, store_url: str
) -> None:
    csv = "Question\nfirst\nsecond\nhang here\nlast\n"
    server = subprocess.Popen(
        [ASSAY, "serve", "--store", store_url, "--port", "0"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        base = re.search(r"http://127\.0\.0\.1:\d+", line)
        assert base, line
        with http.Client(base_url=base.group(0), timeout=30) as web:
            files = {"file": ("queue.csv", csv.encode(), "text/csv")}
            upload_id = web.post("/api/datasets", files=files).json()["id"]
            job = web.post(
                "/api/runs",
                json={
                    "source": "dataset",
                    "dataset_id": upload_id,
                    "target": "url",
                    "url": agent.url,
                    "concurrency": 1,
                },
            ).json()
            wait_for(
                lambda: web.get(f"/api/jobs/{job['id']}").json()["done"] == 2,
                120,
                "two tests to finish",
            )
            wait_for(lambda: len(agent.queries) == 3, 60, "the third test to reach the agent")
            run_id = web.get(f"/api/jobs/{job['id']}").json()["run_id"]
        server.send_signal(signal.SIGINT)
        output, _ = server.communicate(timeout=120)
    finally:
        if server.poll() is None:
            server.kill()
    assert "interrupting 1 run(s)" in output
    assert "Traceback" not in output
    with open_store(store_url) as store:
        run = store.get_run(run_id)
        assert run is not None and run.status == "interrupted"
        assert store.completed_keys(run_id) == {("queue:row2", 0), ("queue:row3", 0)}
    agent.release()
    resumed = subprocess.run(
        [ASSAY, "run", "--resume", run_id[:12], "--store", store_url, "--quiet"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stderr
    with open_store(store_url) as store:
        run = store.get_run(run_id)
        assert run is not None and run.status == "completed"
        assert len(store.completed_keys(run_id)) == 4
    assert agent.queries[-2:] == ["hang here", "last"]


def test_a_run_process_ends_without_waiting_for_the_agent_s_threads(tmp_path: Path) -> None:
    """The dashboard's run process, once its run is over, ends as ``assay run`` does though
    the agent left a job running on a pool (which Python's exit joins): before, it never
    ended, the server waiting on it."""
    (tmp_path / "lingering.py").write_text(
        "import threading\nfrom concurrent.futures import ThreadPoolExecutor\n"
        "_POOL = ThreadPoolExecutor(max_workers=1)\n_NEVER = threading.Event()\n"
        "def respond(query, session_id):\n    _POOL.submit(_NEVER.wait)\n    return 'ok'\n"
    )
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: s\ntarget: {python: 'lingering:respond'}\n"
        "tests: [{name: a, input: a, ground_truth: ok}]\n"
    )
    read_end, write_end = os.pipe()
    process = subprocess.Popen(
        [sys.executable, "-m", "assay.web._worker", str(write_end)],
        stdin=subprocess.PIPE,
        stderr=subprocess.PIPE,
        pass_fds=(write_end,),
        cwd=tmp_path,
        env={**os.environ, "ASSAY_EXIT_WAIT_S": "0"},  # no grace for a job that never ends
    )
    os.close(write_end)
    payload = {"store": f"sqlite:///{tmp_path / 'a.db'}", "suite": str(suite), "options": {}}
    try:
        _, err = process.communicate(json.dumps(payload).encode(), timeout=60)
    finally:
        process.kill()  # before: still there
    with os.fdopen(read_end, encoding="utf-8") as events:
        last = json.loads(events.read().splitlines()[-1])
    assert process.returncode == 0, err.decode()
    assert (last["event"], last["status"], last["passed"]) == ("finished", "completed", 1)
    assert "left 1 thread running after waiting 0 s; assay exited without it" in err.decode()
