"""A run's token total is a sum of turns' totals: each fits a 64-bit column, their sum need
not. The summary is stored as JSON text, so the dashboard, its API and every report format
show a total above 2**63 as it is."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient

from assay.reporters.registry import FORMATS, render
from assay.results.models import TokenUsage
from assay.store import open_store
from tests.web.seed import single, store_run

INT64_MAX = 2**63 - 1
TOTAL = 2 * INT64_MAX


def test_a_token_total_over_64_bits_is_shown_as_it_is(client: TestClient, store_url: str) -> None:
    results = [single(f"big-{k}", 0, "yes", "yes", good=True) for k in range(2)]
    for result in results:
        result.token_usage = TokenUsage(prompt_tokens=INT64_MAX, total_tokens=INT64_MAX)
    with open_store(store_url) as store:
        run = store_run(store, 0, results)
        report = store.load_report(run)
    assert report.summary.token_usage.total_tokens == TOTAL
    shown = f"{TOTAL:,}"

    api = client.get(f"/api/runs/{run}")
    assert api.status_code == 200, api.text
    assert api.json()["summary"]["token_usage"]["total_tokens"] == TOTAL
    listed = client.get("/api/runs").json()["items"][0]
    assert listed["summary"]["token_usage"]["prompt_tokens"] == TOTAL
    for page in ("/runs", f"/runs/{run}"):
        html = client.get(page)
        assert html.status_code == 200, html.text
        assert shown in html.text

    rendered = {fmt: render(report, fmt) for fmt in FORMATS.names()}
    assert set(rendered) == {"json", "markdown", "junit", "html"}
    assert json.loads(rendered["json"])["summary"]["token_usage"]["total_tokens"] == TOTAL
    assert f"<b>{TOTAL}</b>tokens" in rendered["html"]
