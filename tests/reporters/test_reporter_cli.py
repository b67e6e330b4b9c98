"""``assay run --out`` in every format at once, on the calculator example (one test fails
by design)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ASSAY = str(Path(sys.executable).parent / "assay")


def test_every_format_from_one_run(tmp_path: Path) -> None:
    outs = {ext: tmp_path / f"X.{ext}" for ext in ("md", "xml", "html", "json")}
    args = [a for path in outs.values() for a in ("--out", str(path))]
    proc = subprocess.run(
        [ASSAY, "run", "examples/calculator/suite.yaml", *args],
        cwd=REPO,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr

    report = json.loads(outs["json"].read_text(encoding="utf-8"))
    assert report["summary"]["total_tests"] == 4 and report["summary"]["failed"] == 1
    run_id = report["run"]["id"]

    markdown = outs["md"].read_text(encoding="utf-8")
    assert markdown.startswith("## ❌ assay: calculator-example")
    assert run_id[:12] in markdown
    assert "**4 tests: 3 passed, 1 failed, 0 errored, 0 not run**" in markdown
    assert "| unknown-year | single_turn | ❌ failed | 0/1 |" in markdown
    assert "#### ❌ unknown-year" in markdown
    assert "the response 'unknown' is not a number" in markdown

    suite = ET.parse(outs["xml"]).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("4", "1", "0")
    failures = {case.get("name"): case.find("failure") for case in suite.iter("testcase")}
    assert set(failures) == {"capital", "revenue-dialogue", "change-2022", "unknown-year"}
    failure = failures["unknown-year"]
    assert failure is not None
    assert "not a number" in (failure.get("message") or "")
    assert [n for n, f in failures.items() if f is not None] == ["unknown-year"]

    page = outs["html"].read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and run_id in page
    assert page.count('<details class="test"') == 4
    assert "lookup_revenue" in page and "subtract" in page
