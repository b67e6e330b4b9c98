"""Dashboard fixtures: a seeded SQLite store, the app under FastAPI's TestClient, and headless
Chromium (Debian's package, driven by Playwright; never a browser download).

Without Chromium the browser tests skip with a loud reason, repeated in the summary; with
ASSAY_REQUIRE_BROWSER=1 (set by .ci/run) they fail instead."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from assay.store import open_store
from assay.web import Settings, create_app
from tests.web.seed import seed_history

CHROMIUM = os.environ.get("ASSAY_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1280, "height": 800}
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
_skipped: list[str] = []


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'store' / 'assay.db'}"


@pytest.fixture
def seeded(store_url: str) -> list[str]:
    """Eight stored runs (see seed.py); their ids, oldest first."""
    with open_store(store_url) as store:
        return seed_history(store)


@pytest.fixture
def settings(store_url: str, tmp_path: Path) -> Settings:
    return Settings(store_url=store_url, root=tmp_path)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    app = create_app(settings)
    with TestClient(app, base_url="http://127.0.0.1:8484") as test_client:
        yield test_client
    app.state.dashboard.runs.interrupt_all()
    app.state.dashboard.runs.wait_all(30)


def wait_for(check: Callable[[], Any], timeout_s: float = 60, what: str = "condition") -> Any:
    """Poll ``check`` until it returns something truthy (no timing assumption but the cap)."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}")
        time.sleep(0.1)


def _browser_missing() -> str | None:
    if not Path(CHROMIUM).exists() and shutil.which("chromium") is None:
        return f"Chromium not found at {CHROMIUM}: `make install` (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is missing: `make install`"
    return None


# Module scope, not session: Playwright's sync API keeps an event loop marked running in the
# main thread until it stops, and a later test that runs a loop there would fail.
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    reason = _browser_missing()
    if reason is not None:
        message = f"DASHBOARD BROWSER TESTS NOT RUN: {reason}"
        if os.environ.get("ASSAY_REQUIRE_BROWSER"):
            pytest.fail(message + " (ASSAY_REQUIRE_BROWSER is set)")
        _skipped.append(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    executable = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(30_000)
    opened = context.new_page()
    yield opened
    context.close()


def screenshot(page: Any, name: str) -> None:
    """Save what the page shows at 1280x800 as docs/screenshots/NAME.png."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _skipped:
        terminalreporter.write_sep("!", "dashboard browser tests skipped", red=True, bold=True)
        terminalreporter.write_line(_skipped[0], red=True, bold=True)
