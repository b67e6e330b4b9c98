"""The dashboard in real headless Chromium (Debian's package, through Playwright): what a
person does with it, end to end, against a real server, store and agent on 127.0.0.1.
Each test saves a screenshot of the page it ends on into docs/screenshots/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as http
import pytest
from playwright.sync_api import expect

from assay.store import open_store
from assay.web import Settings
from tests.web.agent import MARKUP, Agent, serve_agent
from tests.web.conftest import screenshot
from tests.web.live import serve
from tests.web.seed import IMPROVED, MULTI_TURN, REGRESSED, seed_history
from tests.web.test_datasets import MULTI_TURN_CSV, SHAPE

LIVE_TIMEOUT_MS = 120_000


def main_text(page: Any) -> str:
    text: str = page.inner_text("main")
    return text


class Live:
    def __init__(self, base: str, agent: Agent, runs: list[str], store_url: str) -> None:
        self.base = base
        self.agent = agent
        self.runs = runs
        self.store_url = store_url

    def url(self, path: str) -> str:
        return self.base + path

    def upload(self, name: str, text: str) -> str:
        files = {"file": (name, text.encode(), "text/csv")}
        response = http.post(self.url("/api/datasets"), files=files, timeout=30)
        assert response.status_code == 201, response.text
        upload_id: str = response.json()["id"]
        return upload_id


@pytest.fixture
def live(tmp_path: Path, browser: Any) -> Iterator[Live]:
    """A seeded store, the dashboard served by uvicorn, and an agent (browser first: without
    Chromium, nothing is started)."""
    store_url = f"sqlite:///{tmp_path / 'store' / 'assay.db'}"
    with open_store(store_url) as store:
        runs = seed_history(store)
    with serve_agent() as agent, serve(Settings(store_url=store_url, root=tmp_path)) as (base, _):
        yield Live(base, agent, runs, store_url)


def test_upload_a_multi_turn_csv_and_read_the_shape_line(
    page: Any, live: Live, tmp_path: Path
) -> None:
    data = tmp_path / "revenue.csv"
    data.write_text(MULTI_TURN_CSV)
    page.goto(live.url("/datasets"))
    page.set_input_files("input[name=file]", str(data))
    page.click("text=Upload and Validate")
    page.wait_for_url("**/datasets/*")
    assert page.inner_text("#shape") == SHAPE
    assert "Revenue in 2021?" in page.inner_text("main")
    turn_ids = page.locator(".conversation").first.locator("li .small").all_inner_texts()
    assert [t.split("turn_id ")[1] for t in turn_ids] == ["1", "9", "10"]
    screenshot(page, "dataset")
    page.goto(live.url("/datasets"))
    assert "revenue.csv" in page.inner_text("table")
    screenshot(page, "datasets")


def test_start_a_run_and_watch_it_finish_live(page: Any, live: Live) -> None:
    csv = "session_id,Question,Answer\nc1,Capital of France?,Paris\nc1,And Germany?,Berlin\n"
    upload_id = live.upload("capitals.csv", csv)
    page.goto(live.url(f"/new?dataset={upload_id}"))
    page.check("input[name=target][value=url]")
    page.fill("input[name=url]", live.agent.url)
    page.check("input[name=metrics][value=equality]")
    screenshot(page, "new")
    page.click("text=Start the run")
    page.wait_for_url("**/jobs/*")
    navigations: list[str] = []
    page.on("framenavigated", lambda frame: navigations.append(frame.url))
    expect(page.locator("#job-status")).to_have_text("completed", timeout=LIVE_TIMEOUT_MS)
    assert navigations == []  # updated live, not by reloading the page
    assert page.inner_text("#job-done") == page.inner_text("#job-total") == "1"
    assert page.inner_text("#job-failed") == "1"  # Berlin is not Paris
    assert page.evaluate("document.getElementById('job-progress').value") == 1  # full bar
    assert "capitals:c1" in page.inner_text("#job-recent")
    screenshot(page, "job")
    page.click("text=Open the run's results")
    page.wait_for_url("**/runs/*")
    assert "capitals" in page.inner_text("h1")


def test_open_a_multi_turn_test_and_expand_a_turns_tool_calls(page: Any, live: Live) -> None:
    page.goto(live.url("/runs"))
    assert page.locator("figure.chart svg polyline").count() == 4
    screenshot(page, "runs")
    page.click(f"a[href='/runs/{live.runs[-1]}']")
    page.wait_for_url(f"**/runs/{live.runs[-1]}")
    screenshot(page, "run")
    page.click(f"text={MULTI_TURN}")
    page.wait_for_url("**/tests/*")
    turn = page.locator("#turn-0")
    arguments = turn.locator("details.tools pre").first
    assert not arguments.is_visible()  # collapsed until asked for
    turn.locator("details.tools > summary").click()
    assert arguments.is_visible()
    assert '"location": "Basel"' in arguments.inner_text()
    long_result = turn.locator("details.tools details.value").first
    assert "result" in long_result.locator("summary").inner_text()
    assert not long_result.locator("pre").is_visible()  # a long result stays collapsed
    assert "opacity" not in (page.locator("#turn-2").get_attribute("style") or "")
    assert page.locator("#turn-2").evaluate("e => getComputedStyle(e).opacity") == "0.55"
    turn.scroll_into_view_if_needed()
    screenshot(page, "test")


def test_compare_two_runs_and_see_the_regression(page: Any, live: Live) -> None:
    with open_store(live.store_url) as store:
        expected = store.compare_runs(live.runs[-2], live.runs[-1]).summary_line()
    page.goto(live.url("/compare"))  # the latest run against the one before
    assert page.inner_text("#verdict") == expected
    assert expected.startswith("1 regression, 1 improvement")
    first_table = page.locator("table.changes").first
    assert REGRESSED in first_table.inner_text()
    assert IMPROVED in page.locator("table.changes").nth(1).inner_text()
    matrix_rows = page.locator("table.matrix tbody tr").all_inner_texts()
    assert REGRESSED in matrix_rows[0] and "regression" in matrix_rows[0]
    screenshot(page, "compare")


def test_agent_replies_with_markup_run_nothing(page: Any, live: Live) -> None:
    dialogs: list[str] = []
    requests: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("request", lambda r: requests.append(r.url))
    csv = f'Question\nshow markup\n"{MARKUP.replace(chr(34), chr(34) * 2)} markup"\n'
    upload_id = live.upload("markup.csv", csv)
    page.goto(live.url(f"/datasets/{upload_id}"))
    assert "<script>" in page.inner_text("main")  # the dataset's own text, shown as text
    page.goto(live.url(f"/new?dataset={upload_id}"))
    page.check("input[name=target][value=url]")
    page.fill("input[name=url]", live.agent.url)
    page.click("text=Start the run")
    expect(page.locator("#job-status")).to_have_text("completed", timeout=LIVE_TIMEOUT_MS)
    page.click("text=Open the run's results")
    page.wait_for_url("**/runs/*")
    page.click("text=markup:row2")
    page.wait_for_url("**/tests/*")
    page.locator("details.tools > summary").first.click()
    assert MARKUP in main_text(page)  # the tool's arguments and result, as text
    main = page.locator("main")
    assert main.locator("pre.response").first.inner_text() == MARKUP
    assert main.locator("script, img, iframe, object").count() == 0
    assert page.locator("a[href^='javascript:']").count() == 0
    assert page.locator("[onerror], [onmouseover]").count() == 0
    page.get_by_text("click me").first.click()  # text, not a link: nothing happens
    page.wait_for_load_state()
    assert dialogs == []
    foreign = [u for u in requests if not u.startswith(live.base) or "x-onerror" in u]
    assert foreign == []
