"""The token rule, and what a browser on another site may not do."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from assay.errors import ConfigError
from assay.web import Settings, create_app
from assay.web._auth import COOKIE
from assay.web.settings import check_token

ASSAY = str(Path(sys.executable).parent / "assay")
TOKEN = "correct-horse-battery-staple-42"


@pytest.fixture
def guarded(store_url: str, tmp_path: Path, seeded: list[str]) -> Iterator[TestClient]:
    app = create_app(Settings(store_url=store_url, root=tmp_path, host="0.0.0.0", token=TOKEN))
    with TestClient(app, base_url="http://dashboard.example:8484") as client:
        yield client


def test_any_address_but_loopback_needs_a_token() -> None:
    assert check_token("127.0.0.1", None) is None
    assert check_token("localhost", "") is None
    assert check_token("::1", None) is None
    for host in ("0.0.0.0", "192.0.2.10", "::", "dashboard.example"):
        with pytest.raises(ConfigError, match="give a token with --token or \\$ASSAY_TOKEN"):
            check_token(host, None)
    with pytest.raises(ConfigError, match="at least 16"):
        check_token("0.0.0.0", "short")
    assert check_token("0.0.0.0", TOKEN) == TOKEN


def test_serve_refuses_to_start_on_an_open_address_without_a_token(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ASSAY_TOKEN"}
    done = subprocess.run(
        [ASSAY, "serve", "--host", "0.0.0.0", "--port", "0"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "give a token with --token or $ASSAY_TOKEN" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / ".assay").exists()  # refused before opening anything


def test_with_a_token_every_page_and_api_call_needs_it(guarded: TestClient) -> None:
    page = guarded.get("/runs?suite=x", follow_redirects=False)
    assert page.status_code == 303
    assert page.headers["location"] == "/login?next=%2Fruns%3Fsuite%3Dx"
    for path in ("/api/runs", "/api/openapi.json", "/api/datasets"):
        refused = guarded.get(path)
        assert refused.status_code == 401, path
        assert TOKEN not in refused.text
    assert guarded.get("/api/runs", headers={"Authorization": "Bearer nope"}).status_code == 401
    allowed = guarded.get("/api/runs", headers={"Authorization": f"Bearer {TOKEN}"})
    assert allowed.status_code == 200 and allowed.json()["total"] == 8
    assert guarded.get("/static/style.css").status_code == 200  # the sign-in page needs it
    upload = guarded.post("/api/datasets", files={"file": ("a.csv", b"Question\nhi\n")})
    assert upload.status_code == 401


def test_signing_in_sets_a_cookie_that_is_not_the_token(guarded: TestClient) -> None:
    wrong = guarded.post("/login", data={"token": "guess-guess-guess-guess", "next": "/runs"})
    assert wrong.status_code == 401
    assert "guess-guess" not in wrong.text and TOKEN not in wrong.text
    assert guarded.get("/runs", follow_redirects=False).status_code == 303
    right = guarded.post(
        "/login", data={"token": TOKEN, "next": "//evil.example/"}, follow_redirects=False
    )
    assert right.status_code == 303
    assert right.headers["location"] == "/"  # never sent to another site
    cookie = right.cookies[COOKIE]
    assert cookie and cookie != TOKEN and TOKEN not in cookie
    set_cookie = right.headers["set-cookie"].lower()
    assert "httponly" in set_cookie and "samesite=strict" in set_cookie
    runs = guarded.get("/runs")
    assert runs.status_code == 200 and "travel-assistant" in runs.text
    assert TOKEN not in runs.text


def test_on_loopback_a_foreign_host_name_is_refused(client: TestClient) -> None:
    """A DNS-rebinding page reaches the dashboard under its own host name: refused."""
    assert client.get("/runs", headers={"host": "127.0.0.1:8484"}).status_code == 200
    assert client.get("/runs", headers={"host": "localhost:8484"}).status_code == 200
    refused = client.get("/api/runs", headers={"host": "attacker.example:8484"})
    assert refused.status_code == 421


def test_another_site_cannot_post_forms(client: TestClient) -> None:
    form = {"source": "suite", "suite_path": "x.yaml", "target": "demo"}
    refused = client.post("/new", data=form, headers={"origin": "http://attacker.example"})
    assert refused.status_code == 403
    refused = client.post("/new", data=form, headers={"referer": "http://attacker.example/x"})
    assert refused.status_code == 403
    ours = client.post("/new", data=form, headers={"origin": "http://127.0.0.1:8484"})
    assert ours.status_code == 400  # let through, and refused for what it asks: no such suite
    assert "choose a suite file" in ours.text


def test_every_response_forbids_foreign_scripts_and_framing(client: TestClient) -> None:
    for path in ("/runs", "/api/runs", "/static/live.js"):
        headers = client.get(path).headers
        policy = headers["content-security-policy"]
        assert "script-src 'self'" in policy and "default-src 'none'" in policy
        assert "frame-ancestors 'none'" in policy
        assert headers["x-content-type-options"] == "nosniff"
