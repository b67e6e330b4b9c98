"""The guide's "Metrics of your own" example runs as written: its Python blocks become
``my_metrics.py``, its YAML block the suite's metrics, and ``assay run`` scores with them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from tests.cli.conftest import RunCli

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "metrics.md"
AGENT = """
def respond(query, session_id):
    return {"Basel": "The Hyatt in BASEL, CHF 120", "Bern": "The Bellevue in Bern, EUR 90"}[query]
"""


def section() -> str:
    text = GUIDE.read_text(encoding="utf-8")
    return text[text.index("## Metrics of your own") :]


def test_the_custom_metrics_example_runs(assay_cli: RunCli, tmp_path: Path) -> None:
    blocks = re.findall(r"```(python|yaml)\n(.*?)```", section(), re.S)
    module = "\n".join(code for kind, code in blocks if code.startswith("# my_metrics.py"))
    suite = next(yaml.safe_load(code) for kind, code in blocks if code.startswith("# suite.yaml"))
    assert "@assay.metric" in module and suite["plugins"] == ["my_metrics"]
    (tmp_path / "my_metrics.py").write_text(module, encoding="utf-8")
    (tmp_path / "agent.py").write_text(AGENT, encoding="utf-8")
    suite |= {
        "name": "custom",
        "target": {"python": "agent:respond"},
        "tests": [{"name": "basel", "input": "Basel"}, {"name": "bern", "input": "Bern"}],
    }
    (tmp_path / "suite.yaml").write_text(yaml.safe_dump(suite), encoding="utf-8")
    proc = assay_cli("run", "suite.yaml", "--out", "r.json", "--store", "sqlite:///s.db")
    assert proc.returncode == 1, proc.stderr  # bern fails both
    results = json.loads((tmp_path / "r.json").read_text())["results"]
    passed = {
        (r["test_name"], m["metric_name"]): m["passed"]
        for r in results
        for m in r["metric_results"]
    }
    assert passed == {
        ("basel", "mentions_price"): True,
        ("basel", "has_word"): True,  # "basel" found in "BASEL": case_insensitive
        ("bern", "mentions_price"): False,
        ("bern", "has_word"): False,
    }
