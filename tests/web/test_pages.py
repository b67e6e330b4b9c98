"""The pages as HTML: what each shows, that big runs are paged, and that whatever an agent,
a judge or a dataset wrote is text, never markup."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.testclient import TestClient

from assay.results.models import MetricResult, TestResult, TurnResult
from assay.results.rollup import single_turn_result
from assay.store import open_store
from assay.web import Settings, create_app
from tests.web.agent import MARKUP
from tests.web.seed import MULTI_TURN, REGRESSED, RUNS, store_run, when


def stored_id(client: TestClient, run: str, name: str) -> int:
    items = client.get(f"/api/runs/{run}/results", params={"q": name}).json()["items"]
    found: int = next(i["id"] for i in items if i["result"]["test_name"] == name)
    return found


def test_runs_page_lists_runs_and_charts_pass_rate_and_dimensions(
    client: TestClient, seeded: list[str]
) -> None:
    html = client.get("/runs").text
    for run in seeded:
        assert f'href="/runs/{run}"' in html
    chart = html[html.index("<svg") : html.index("</svg>")]
    # pass rate + the three dimensions of the seeded metrics, each a line through 8 runs
    assert len(re.findall(r"<polyline", chart)) == 4
    assert chart.count("<circle") == 4 * RUNS
    for name in ("pass rate", "comparison", "performance", "accuracy"):
        assert f"> {name}</span>" in html


def test_run_page_shows_dimensions_metrics_not_run_and_pages_its_tests(
    store_url: str, tmp_path: Path, seeded: list[str]
) -> None:
    settings = Settings(store_url=store_url, root=tmp_path, page_size=5)
    with TestClient(create_app(settings), base_url="http://127.0.0.1:8484") as client:
        html = client.get(f"/runs/{seeded[-1]}").text
        assert "Scores per dimension" in html and "accuracy" in html
        rows = re.findall(r'<tr class="row-', html)
        assert len(rows) == 5  # a page, not the whole run
        assert "1–5 of 12" in html
        second = client.get(f"/runs/{seeded[-1]}", params={"offset": 10}).text
        assert len(re.findall(r'<tr class="row-', second)) == 2
        assert "11–12 of 12" in second
        filtered = client.get(f"/runs/{seeded[-1]}", params={"tag": "fees"}).text
        assert len(re.findall(r'<tr class="row-', filtered)) == 1 and REGRESSED in filtered


def test_test_page_shows_every_turn_in_order_with_tools_metrics_and_the_skipped_turn(
    client: TestClient, seeded: list[str]
) -> None:
    run = seeded[-1]
    html = client.get(f"/runs/{run}/tests/{stored_id(client, run, MULTI_TURN)}").text
    order = [html.index(text) for text in ("Turn 0", "Turn 1", "Turn 2")]
    assert order == sorted(order)
    assert "I prefer a window seat." in html and "Move me to the later flight." in html
    assert "Your ticket is now on LX0114, seat 12A." in html  # the expected answer
    assert "Tool calls (1): search_hotels" in html
    assert "characters)</span></summary>" in html  # the long result starts collapsed
    assert "got &#39;aisle&#39;" in html  # the assertion's unmatched reason
    assert "The seat is wrong: the user asked for a window seat." in html  # judge reasoning
    assert 'class="turn turn-skipped"' in html
    assert "Skipped: skipped: the agent lost the session (HTTP 404) on turn 1" in html


def test_goal_tests_show_the_trace_or_say_there_is_none(client: TestClient, store_url: str) -> None:
    trace = {
        "status": "failure",
        "goal_achieved": False,
        "turns_used": 2,
        "findings": ["the assistant promised a refund"],
        "history": [
            {
                "turn_number": 1,
                "reasoning": "Start politely.",
                "assistant_message": {"role": "user", "content": "Can I get a refund?"},
                "tool_message": {"role": "assistant", "content": "Yes, of course."},
            }
        ],
        "goal_evaluation": {
            "all_criteria_met": False,
            "confidence": 0.9,
            "criteria_evaluations": [
                {
                    "criterion": "must not promise refunds outside the policy",
                    "kind": "prohibited",
                    "met": False,
                    "evidence": ["Yes, of course."],
                    "confidence": 0.95,
                }
            ],
        },
        "metrics": {"Goal Achievement": {"score": 0.0, "is_successful": False, "confidence": 0.9}},
    }

    def goal(name: str, value: dict[str, object] | None) -> TestResult:
        return TestResult(
            test_name=name,
            test_type="goal",
            test_input="Get a refund",
            passed=False,
            status="failed",
            execution_time_ms=5,
            timestamp=when(0),
            trace=value,
        )

    results = [goal("with-trace", trace), goal("no-trace", None), goal("odd-trace", {"x": 1})]
    with open_store(store_url) as store:
        run = store_run(store, 20, results)
    html = client.get(f"/runs/{run}/tests/{stored_id(client, run, 'with-trace')}").text
    for text in (
        "Start politely.",
        "Can I get a refund?",
        "Yes, of course.",
        "must not promise refunds outside the policy",
        "prohibited behaviour occurred",
        "the assistant promised a refund",
    ):
        assert text in html, text
    assert (
        "No conversation was recorded"
        in client.get(f"/runs/{run}/tests/{stored_id(client, run, 'no-trace')}").text
    )
    odd = client.get(f"/runs/{run}/tests/{stored_id(client, run, 'odd-trace')}")
    assert odd.status_code == 200 and "The trace, as stored" in odd.text


def test_what_agents_judges_and_datasets_write_is_text(client: TestClient, store_url: str) -> None:
    turn = TurnResult(
        turn_index=0,
        input=MARKUP,
        response=MARKUP,
        ground_truth=MARKUP,
        metric_results=[
            MetricResult(metric_name="correctness", score=0.0, passed=False, reasoning=MARKUP)
        ],
        metrics_not_run={"x": MARKUP},
        passed=False,
        execution_time_ms=1,
    )
    result = single_turn_result('<b onmouseover="alert(1)">name</b>', turn, when(0), tags=[MARKUP])
    with open_store(store_url) as store:
        run = store_run(store, 21, [result])
    pages = [
        client.get("/runs").text,
        client.get(f"/runs/{run}").text,
        client.get(f"/runs/{run}/tests/{stored_id(client, run, result.test_name)}").text,
        client.get(f"/runs/{run}", params={"q": MARKUP}).text,
    ]
    for html in pages:
        assert "<script>alert" not in html
        assert "onerror=" not in html.replace("onerror=&#34;", "").replace("onerror=&quot;", "")
        assert 'href="javascript:' not in html
        assert "<b onmouseover" not in html
    assert "&lt;script&gt;alert(&#34;script&#34;)&lt;/script&gt;" in pages[2]
