"""The JSON API over a seeded store: runs, filtered result pages, one result, compare."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from fastapi.testclient import TestClient

from assay.results.models import TestResult
from assay.store import open_store
from tests.web.seed import IMPROVED, MULTI_TURN, REGRESSED, RUNS, SUITE

ASSAY = str(Path(sys.executable).parent / "assay")


def names(client: TestClient, run: str, **params: object) -> list[str]:
    found = client.get(f"/api/runs/{run}/results", params={"limit": 500, **params})
    assert found.status_code == 200, found.text
    body = found.json()
    assert body["total"] == len(body["items"])
    return [item["result"]["test_name"] for item in body["items"]]


def test_runs_are_listed_latest_first_with_their_summaries(
    client: TestClient, seeded: list[str]
) -> None:
    body = client.get("/api/runs").json()
    assert body["total"] == RUNS
    assert [item["run"]["id"] for item in body["items"]] == seeded[::-1]
    latest = body["items"][0]
    assert latest["run"]["suite_name"] == SUITE
    assert latest["total"] == 12
    assert latest["pass_rate"] == latest["passed"] / 12
    assert latest["duration_s"] == 42.0  # started at :00, finished at :42
    assert latest["summary"]["total_tests"] == 12
    page = client.get("/api/runs", params={"limit": 3, "offset": 6}).json()
    assert [item["run"]["id"] for item in page["items"]] == seeded[1::-1]


def test_a_run_by_id_prefix(client: TestClient, seeded: list[str]) -> None:
    found = client.get(f"/api/runs/{seeded[3][:8]}")
    assert found.status_code == 200
    assert found.json()["run"]["id"] == seeded[3]


def test_results_are_paged_in_test_order(client: TestClient, seeded: list[str]) -> None:
    every = names(client, seeded[-1])
    assert every[:3] == [REGRESSED, IMPROVED, MULTI_TURN]
    assert every[3:] == [f"policy-{k}" for k in range(9)]
    page = client.get(f"/api/runs/{seeded[-1]}/results", params={"limit": 5, "offset": 10}).json()
    assert page["total"] == 12
    assert [i["result"]["test_name"] for i in page["items"]] == ["policy-7", "policy-8"]


def test_results_filter_by_status_type_metric_tag_and_text(
    client: TestClient, seeded: list[str], store_url: str
) -> None:
    run = seeded[-1]
    with open_store(store_url) as store:
        stored = list(store.iter_results(run))
    failed = [r.test_name for r in stored if r.status == "failed"]
    equality_failed = [
        r.test_name
        for r in stored
        if any(m.metric_name == "equality" and m.passed is False for m in r.metric_results)
    ]
    assert failed and equality_failed  # the filters below can tell something apart
    assert names(client, run, status="failed") == failed
    assert names(client, run, type="multi_turn") == [MULTI_TURN]
    assert names(client, run, metric="correctness") == [MULTI_TURN]
    assert names(client, run, metric="equality", metric_failed="true") == equality_failed
    assert names(client, run, tag="fees") == [REGRESSED]
    assert names(client, run, tag="seats") == [MULTI_TURN]
    assert names(client, run, tag="nope") == []
    assert names(client, run, q="window SEAT") == [MULTI_TURN]  # a turn's input, any case
    assert names(client, run, q="baggage") == [REGRESSED]  # the test name
    assert names(client, run, q="%") == []  # LIKE's wildcard is a plain character
    assert names(client, run, status="failed", tag="fees") == [REGRESSED]


def test_one_result_is_the_stored_test_result(
    client: TestClient, seeded: list[str], store_url: str
) -> None:
    item = client.get(f"/api/runs/{seeded[0]}/results", params={"type": "multi_turn"}).json()[
        "items"
    ][0]
    one = client.get(f"/api/runs/{seeded[0]}/results/{item['id']}")
    assert one.status_code == 200
    with open_store(store_url) as store:
        stored = next(r for r in store.iter_results(seeded[0]) if r.test_name == MULTI_TURN)
    assert TestResult.model_validate(one.json()) == stored
    assert client.get(f"/api/runs/{seeded[1]}/results/{item['id']}").status_code == 404


def test_compare_gives_the_verdict_of_assay_diff(
    client: TestClient, seeded: list[str], store_url: str
) -> None:
    a, b = seeded[-2], seeded[-1]
    body = client.get("/api/compare", params={"a": a, "b": b}).json()
    cli = subprocess.run(
        [ASSAY, "diff", a, b, "--json", "--store", store_url],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert cli.returncode == 1  # a regression
    from_cli = json.loads(cli.stdout)
    assert body["summary"] == from_cli["summary"]
    assert body["regressions"] == from_cli["regressions"]
    assert body["improvements"] == from_cli["improvements"]
    assert body["regressed"] is True
    assert [c["test_name"] for c in body["regressions"]] == [REGRESSED]
    assert [c["test_name"] for c in body["improvements"]] == [IMPROVED]
    assert body["metric_deltas"]["equality"]["delta"] is not None


def test_unknown_runs_and_tests_are_404_with_a_reason(
    client: TestClient, seeded: list[str]
) -> None:
    missing = client.get("/api/runs/ffffffffffff")
    assert missing.status_code == 404
    assert "no stored run 'ffffffffffff'" in missing.json()["detail"]
    page = client.get("/runs/ffffffffffff")
    assert page.status_code == 404
    assert "text/html" in page.headers["content-type"]
    assert "no stored run" in page.text
    assert client.get(f"/runs/{seeded[0]}/tests/999999").status_code == 404


def test_openapi_describes_the_api_with_the_result_models(client: TestClient) -> None:
    spec = client.get("/api/openapi.json").json()
    assert {"/api/runs", "/api/runs/{run_id}/results", "/api/compare", "/api/datasets"} <= set(
        spec["paths"]
    )
    schemas = spec["components"]["schemas"]
    assert {"TestResult", "TurnResult", "ReportSummary", "RunInfo"} <= set(schemas)
    assert set(schemas["TurnResult"]["properties"]) >= {"turn_index", "tool_invocations"}
    assert not any(path.startswith(("/runs", "/datasets")) for path in spec["paths"])
    # the interactive docs would load scripts from a CDN: not served
    assert client.get("/docs").status_code == 404
