"""``assay run`` of a suite whose openai target declares tools, against the scripted
OpenAI-compatible server playing a model that calls them: ``expected_tools`` with argument
matchers pass and fail for the right reasons, and the report holds each call's result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from tests.cli.conftest import RunCli
from tests.fakes.llm_server import Completion, Scripted, ToolCall, scripted_llm
from tests.test_docs import suite_blocks

TOOLS = "def get_weather(city):\n    return {'city': city, 'temp_c': 21}\n"
SUITE = """
name: weather-agent
target:
  openai:
    base_url: {base_url}
    model: weather-model
    tools:
      - name: get_weather
        description: Current weather in a city
        parameters:
          type: object
          properties: {{city: {{type: string}}}}
          required: [city]
        implementation: weather_tools
tests:
  - name: basel
    input: Weather in Basel?
    ground_truth: It is 21 °C in Basel.
    expected_tools:
      - {{name: get_weather, args: {{city: {{regex: "(?i)^basel$"}}}}}}
  - name: bern
    input: Weather in Bern?
    expected_tools:
      - {{name: get_weather, args: {{city: Bern}}}}
  - name: hello
    input: Hello!
    expected_tools: [get_weather]
"""
# what the scripted model asks for, per question: Bern is looked up as Zurich
CITY = {"Weather in Basel?": "Basel", "Weather in Bern?": "Zurich"}


def model(api: str, body: dict[str, Any]) -> Scripted:
    """A model that calls get_weather for a weather question, then answers from the result."""
    messages = body["messages"]
    last = messages[-1]
    if last["role"] == "tool":
        weather = json.loads(last["content"])
        return Completion(f"It is {weather['temp_c']} °C in {weather['city']}.")
    city = CITY.get(last["content"])
    if city is None:
        return Completion("Hello! Ask me about the weather.")
    assert [t["function"]["name"] for t in body["tools"]] == ["get_weather"]
    return Completion(None, [ToolCall("get_weather", {"city": city})])


def test_expected_tools_pass_and_fail_for_the_right_reasons(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    (tmp_path / "weather_tools.py").write_text(TOOLS)
    with scripted_llm() as llm:
        llm.responder = model
        (tmp_path / "suite.yaml").write_text(SUITE.format(base_url=llm.base_url))
        proc = assay_cli("run", "suite.yaml", "--out", "report.json", "--concurrency", "1")
    assert proc.returncode == 1, proc.stdout + proc.stderr  # bern and hello fail
    results = {
        r["test_name"]: r for r in json.loads((tmp_path / "report.json").read_text())["results"]
    }

    basel = results["basel"]
    assert basel["passed"] is True, basel
    [call] = basel["tool_invocations"]
    assert call["name"] == "get_weather" and call["args"] == {"city": "Basel"}
    assert call["result"] == {"city": "Basel", "temp_c": 21} and call["error"] is None
    assert call["bytes"] == len(b'{"city": "Basel", "temp_c": 21}')
    assert call["duration_ms"] is not None
    assert basel["agent_response"] == "It is 21 °C in Basel."
    # the turn's usage sums its two requests (10 prompt and 5 completion tokens each)
    assert basel["token_usage"]["prompt_tokens"] == 20
    assert basel["token_usage"]["total_tokens"] == 30
    assert basel["tools_matched"] is True
    [detail] = basel["arg_match_details"]
    assert detail["matched_call_index"] == 0 and detail["unmatched_reason"] is None

    bern = results["bern"]  # called, with the wrong city
    assert bern["passed"] is False and bern["tools_matched"] is False
    assert bern["tool_calls"] == ["get_weather"]
    [detail] = bern["arg_match_details"]
    assert detail["matched_call_index"] == -1
    assert detail["unmatched_reason"] == 'arg \'city\' mismatch: expected "Bern", got "Zurich"'

    hello = results["hello"]  # never called
    assert hello["passed"] is False and hello["tools_matched"] is False
    assert hello["tool_calls"] == [] and hello["tool_invocations"] == []
    assert hello["agent_response"] == "Hello! Ask me about the weather."

    # a weather question took two requests (the call, then the answer); hello took one
    assert llm.calls() == 5


TRAVEL_TOOLS = """
def search_trains(origin, destination, date=None):
    return [{"train": "IC 61", "departs": "08:02"}, {"train": "IR 17", "departs": "08:32"}]
"""


def travel_model(api: str, body: dict[str, Any]) -> Scripted:
    """Searches, then asks the fare of the first train and books it, then answers."""
    answered = [m for m in body["messages"] if m["role"] == "tool"]
    if not answered:
        args = {"origin": "Basel", "destination": "Bern", "date": "2025-06-02"}
        return Completion(None, [ToolCall("search_trains", args)])
    if len(answered) == 1:
        train = json.loads(answered[0]["content"])[0]["train"]
        return Completion(None, [ToolCall("fare", {"train": train}), ToolCall("book", {})])
    return Completion("IC 61 at 08:02 costs 39 CHF, but booking failed.")


def test_the_documented_tools_example_runs_as_documented(assay_cli: RunCli, tmp_path: Path) -> None:
    [block] = [b for _, b in suite_blocks() if "name: travel-agent-with-tools" in b]
    suite = yaml.safe_load(block)
    (tmp_path / "travel_tools.py").write_text(TRAVEL_TOOLS)
    with scripted_llm() as llm:
        llm.responder = travel_model
        suite["target"]["openai"]["base_url"] = llm.base_url
        (tmp_path / "suite.yaml").write_text(yaml.safe_dump(suite))
        proc = assay_cli("run", "suite.yaml", "--out", "report.json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    [result] = json.loads((tmp_path / "report.json").read_text())["results"]
    assert result["passed"] is True and result["tools_matched"] is True
    outcomes = [(c["name"], c["result"], c["error"]) for c in result["tool_invocations"]]
    assert outcomes == [
        (
            "search_trains",
            [{"train": "IC 61", "departs": "08:02"}, {"train": "IR 17", "departs": "08:32"}],
            None,
        ),
        ("fare", {"fare_chf": 39}, None),  # the case for IC 61, not the tool's 54
        ("book", None, "the booking service is down"),
    ]
    system = llm.requests[0].body["messages"][0]
    assert system == {"role": "system", "content": "You book trains. Use the tools."}
