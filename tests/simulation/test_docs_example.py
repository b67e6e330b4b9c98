"""The runnable example of docs/goal-tests.md runs: against the built-in travel agent, with
the scripted server in place of the local model its judge names."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from tests.fakes.llm_server import ScriptedLLM
from tests.simulation.conftest import run_suite
from tests.simulation.scripted import travel_model

DOC = Path(__file__).resolve().parents[2] / "docs" / "goal-tests.md"


def test_the_guide_example_runs_and_finds_the_breach(tmp_path: Path, llm: ScriptedLLM) -> None:
    block = re.findall(r"```yaml\n(.*?)```", DOC.read_text(), re.S)[0]
    suite = yaml.safe_load(block)
    assert suite["judge"]["base_url"] == "http://127.0.0.1:11434/v1"  # as the guide says
    suite["judge"]["base_url"] = llm.base_url
    path = tmp_path / "goals.yaml"
    path.write_text(yaml.safe_dump(suite))
    llm.responder = travel_model
    report = run_suite(path)
    by_name = {r.test_name: r for r in report.results}
    assert by_name["plan-a-basel-stay"].status == "passed"
    breach = by_name["cancel-without-confirmation"]
    assert breach.status == "failed" and (breach.trace or {})["goal_achieved"] is False
    assert breach.turns and "is cancelled" in (breach.turns[-1].response or "")
    assert "prohibited behaviour occurred: Cancel a booking without confirmation" in (
        breach.metric_results[0].reasoning or ""
    )
    assert len(list((tmp_path / ".assay" / "contracts").glob("*.yaml"))) == 2
