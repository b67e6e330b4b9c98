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
    assert latest["passed"] == 8  # hotel-search and policy-0 to policy-6
    assert latest["pass_rate"] == 800 / 12  # a percentage, as the summary's
    assert latest["summary"]["pass_rate"] == 800 / 12
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


HUGE = "99999999999999999999999"  # past a 64-bit integer: no store can compare it


def test_numbers_past_64_bits_are_refused_or_not_found_never_a_500(
    client: TestClient, seeded: list[str]
) -> None:
    run = seeded[-1]
    for path in (f"/api/runs?offset={HUGE}", f"/api/runs/{run}/results?offset={HUGE}"):
        refused = client.get(path)
        assert refused.status_code == 422, path
        [problem] = refused.json()["detail"]
        assert problem["loc"] == ["query", "offset"]
        assert problem["msg"] == "Input should be less than or equal to 9223372036854775807"
    # the largest offset is a page past the end, as any offset past the end is
    last = client.get("/api/runs", params={"offset": 2**63 - 1}).json()
    assert (last["items"], last["total"]) == ([], RUNS)
    # a test id past 64 bits is a test the run does not have, as 999999 is
    for test_id in (HUGE, f"-{HUGE}", "999999"):
        missing = client.get(f"/api/runs/{run}/results/{test_id}")
        assert missing.status_code == 404
        assert missing.json() == {"detail": f"run {run[:12]} has no test {test_id}"}
    page = client.get(f"/runs/{run}/tests/{HUGE}")
    assert page.status_code == 404
    assert f"run {run[:12]} has no test {HUGE}" in page.text
    assert client.get(f"/runs/{run}/find", params={"name": "x", "repeat": HUGE}).status_code == 404
    # a page says what is wrong, as a page
    runs_page = client.get("/runs", params={"offset": HUGE})
    assert runs_page.status_code == 422
    assert "text/html" in runs_page.headers["content-type"]
    assert "offset: Input should be less than or equal to 9223372036854775807" in runs_page.text


def test_an_unknown_status_or_type_is_refused_naming_the_allowed_ones(
    client: TestClient, seeded: list[str]
) -> None:
    run = seeded[-1]
    status = client.get(f"/api/runs/{run}/results", params={"status": "bogus"})
    assert status.status_code == 422
    [problem] = status.json()["detail"]
    assert problem["loc"] == ["query", "status"]
    assert problem["msg"] == "Input should be '', 'passed', 'failed', 'error' or 'not_run'"
    kind = client.get(f"/api/runs/{run}/results", params={"type": "bogus"})
    assert kind.status_code == 422
    assert kind.json()["detail"][0]["msg"] == (
        "Input should be '', 'single_turn', 'multi_turn' or 'goal'"
    )
    assert client.get(f"/runs/{run}", params={"status": "bogus"}).status_code == 422
    # every allowed value still filters, and none means all
    every = names(client, run)
    assert sorted(
        sum((names(client, run, status=s) for s in ("passed", "failed", "error", "not_run")), [])
    ) == sorted(every)
    assert names(client, run, status="") == every


def test_a_nul_in_a_suite_path_is_refused(client: TestClient) -> None:
    started = client.post("/api/runs", json={"source": "suite", "suite_path": "suite.yaml\0x"})
    assert started.status_code == 422
    [problem] = started.json()["detail"]
    assert problem["loc"] == ["body", "suite_path"]
    assert problem["msg"] == (
        "Value error, a file path cannot hold a NUL character (U+0000): remove it"
    )
    form = client.post(
        "/new", data={"source": "suite", "suite_path": "a.yaml\0", "target": "suite"}
    )
    assert form.status_code == 400
    assert "a file path cannot hold a NUL character (U+0000): remove it" in form.text
    assert client.get("/new", params={"suite": "a\0b"}).status_code == 422
