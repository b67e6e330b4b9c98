"""End to end: a suite YAML using the metric library, run against a python agent; and load-time
errors for bad metric options, named by their field path."""

from __future__ import annotations

import asyncio
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from assay.cases import parse_suite
from assay.errors import ConfigError
from assay.results.models import MetricResult, TestResult
from assay.runner import CaseSettings, run_case
from assay.targets.python import PythonTarget

AGENT = """
def respond(query, session_id):
    if "revenue" in query:
        return {
            "response": "Revenue in 2021 was $5,120 (contact: cfo@example.com).",
            "token_usage": {"prompt_tokens": 1000, "completion_tokens": 500},
        }
    if "stay" in query:
        return {
            "response": "Cheapest first: Holiday Inn (ID 8), Hyatt (ID 3)",
            "tool_invocations": [{"name": "search_hotels", "args": {"location": "Basel"}}],
        }
    return {
        "response": '{"hotel_id": 8, "status": "booked"}',
        "tool_invocations": [
            {"name": "get_weather", "args": {"city": "Basel"}},
            {"name": "book_hotel", "args": {"hotel_id": "8", "nights": 7.0}},
        ],
    }
"""

GRADER = """
def mentions_basel(ctx):
    called = [c for c in ctx.tool_invocations if c.args.get("location") == "Basel"]
    return {"passed": bool(called) or "Basel" in (ctx.response or ""), "reason": "looked"}
"""

SUITE = """
name: metric-library
target: {python: "assay_e2e_agent:respond"}
metrics:
  - {metric: numeric, extract: true}
  - {metric: contains, value: "5,120"}
  - {metric: rouge, type: rouge1}
  - {metric: fuzzy, threshold: 0.9}
  - pii
  - secrets
  - {metric: latency, max_ms: 60000}
  - {metric: cost, model: gpt-4o-mini, max_usd: 0.01}
tests:
  - name: revenue
    input: What was revenue in 2021?
    ground_truth: "5120"
  - name: booking
    metrics:
      - {type: code, grader: "assay_e2e_grader:mentions_basel", name: basel}
      - {metric: json_schema, schema: {type: object, required: [hotel_id]}}
      - trajectory_exact_match
      - trajectory_in_order_match
      - trajectory_any_order_match
      - trajectory_precision
      - trajectory_recall
      - {metric: turn_efficiency, expected_turns: 2}
    expected_trajectory:
      - {name: search_hotels, args: {location: {one_of: [Basel, Bâle]}}}
      - {name: book_hotel, args: {hotel_id: {approx: 8}, nights: {any: true}}}
    turns:
      - input: I like a cheap hotel for my 7 day stay.
        expected_tools: [{name: search_hotels, args: {location: {contains: Bas}}}]
      - input: Book the cheapest hotel.
"""


@pytest.fixture
def suite_dir(tmp_path: Path) -> Iterator[Path]:
    (tmp_path / "assay_e2e_agent.py").write_text(AGENT, encoding="utf-8")
    (tmp_path / "assay_e2e_grader.py").write_text(GRADER, encoding="utf-8")
    sys.path.insert(0, str(tmp_path))  # the grader resolves from sys.path and the cwd
    yield tmp_path
    sys.path.remove(str(tmp_path))
    for module in ("assay_e2e_agent", "assay_e2e_grader"):
        sys.modules.pop(module, None)


def by_name(results: list[MetricResult]) -> dict[str, MetricResult]:
    return {r.metric_name: r for r in results}


def run_suite(suite_dir: Path) -> dict[str, TestResult]:
    loaded = parse_suite(yaml.safe_load(SUITE), "suite.yaml", suite_dir / "suite.yaml")
    target = PythonTarget("assay_e2e_agent:respond", (suite_dir,))
    results = [asyncio.run(run_case(case, target, CaseSettings())) for case in loaded.cases]
    return {r.test_name: r for r in results}


def test_suite_end_to_end(suite_dir: Path) -> None:
    results = run_suite(suite_dir)

    revenue = results["revenue"]
    metrics = by_name(revenue.metric_results)
    assert set(metrics) == {
        "numeric",
        "contains",
        "rouge",
        "fuzzy",
        "pii",
        "secrets",
        "latency",
        "cost",
    }
    assert metrics["numeric"].score == 1.0  # 5,120 among [2021, 5,120]
    assert metrics["contains"].score == 1.0
    # rouge1: response words [revenue, in, 2021, was, 5, 120, contact, cfo, example, com]
    # vs [5120]: no shared word -> 0 (the tokenizer splits "5,120" at the comma)
    assert metrics["rouge"].score == 0.0
    assert metrics["rouge"].details is not None and metrics["rouge"].details["type"] == "rouge1"
    assert metrics["fuzzy"].passed is False
    assert metrics["pii"].passed is False
    assert metrics["pii"].details is not None and metrics["pii"].details["kinds"] == ["email"]
    assert "cfo@example.com" not in str(metrics["pii"].details)
    assert metrics["secrets"].passed is True
    assert metrics["latency"].passed is True and metrics["latency"].dimension == "performance"
    # gpt-4o-mini: 1000 * 0.00015 / 1000 + 500 * 0.0006 / 1000 = 0.00045 USD
    assert metrics["cost"].details is not None
    assert metrics["cost"].details["usd"] == pytest.approx(0.00045)
    assert revenue.passed is False  # pii and fuzzy failed

    booking = results["booking"]
    assert booking.turns is not None and len(booking.turns) == 2
    first, second = booking.turns
    assert first.tools_matched is True
    # the turn-scoped metrics of the test's list ran on each turn
    assert by_name(first.metric_results)["basel"].passed is True
    assert by_name(second.metric_results)["basel"].passed is False
    assert by_name(second.metric_results)["json_schema"].score == 1.0
    assert by_name(first.metric_results)["json_schema"].score == 0.0  # prose is not JSON
    assert by_name(first.metric_results)["basel"].dimension == "comparison"
    scored = by_name(booking.metric_results)
    # calls in order: search_hotels, get_weather, book_hotel(hotel_id "8")
    assert scored["trajectory_exact_match"].score == 0.0
    assert scored["trajectory_in_order_match"].score == 1.0
    assert scored["trajectory_any_order_match"].score == 1.0
    assert scored["trajectory_precision"].score == pytest.approx(2 / 3)
    assert scored["trajectory_recall"].score == 1.0
    assert scored["turn_efficiency"].score == 1.0  # 2 turns of 2
    assert booking.passed is False


def test_metrics_missing_inputs_are_reported_not_scored(suite_dir: Path) -> None:
    raw = yaml.safe_load(SUITE)
    raw["tests"] = [{"name": "no-answer", "input": "hello"}]
    raw["metrics"] = ["trajectory_recall", {"metric": "token_budget", "max_tokens": 10}, "bleu"]
    loaded = parse_suite(raw, "suite.yaml")
    target = PythonTarget("assay_e2e_agent:respond", (suite_dir,))
    result = asyncio.run(run_case(loaded.cases[0], target, CaseSettings()))
    assert result.metrics_not_run == {
        "token_budget": "the target reported no token usage",
        "bleu": "no ground truth (Answer) for this turn",
        "trajectory_recall": "no expected_trajectory on this test",
    }
    assert result.metric_results == []


def load_errors(metrics: list[Any], tests: list[Any] | None = None) -> list[str]:
    raw = {
        "name": "bad",
        "metrics": metrics,
        "tests": tests or [{"name": "t", "input": "hi"}],
    }
    with pytest.raises(ConfigError) as exc:
        parse_suite(raw, "suite.yaml")
    return [str(p) for p in exc.value.problems]


@pytest.mark.parametrize(
    ("metric", "expected"),
    [
        ({"metric": "latency", "max_ms": -1}, "suite.yaml: metrics[0].max_ms: "),
        (
            {"metric": "latency", "max_ms": 1, "max_msec": 5},
            "suite.yaml: metrics[1].max_msec: unknown option for metric 'latency' "
            "(options: max_ms, name, threshold)",
        ),
        ({"metric": "latency"}, "suite.yaml: metrics[0].max_ms: Field required"),
        ({"metric": "rouge", "type": "rouge3"}, "suite.yaml: metrics[0].type: "),
        ({"metric": "fuzzy", "threshold": 1.5}, "suite.yaml: metrics[0].threshold: "),
        (
            {"metric": "json_schema", "schema": {"type": 5}},
            "suite.yaml: metrics[0].schema: not a valid JSON Schema",
        ),
        ({"metric": "regex", "pattern": "("}, "suite.yaml: metrics[0].pattern: invalid regular"),
        (
            {"type": "code", "grader": "assay_missing_grader_mod:fn"},
            "suite.yaml: metrics[0].grader: cannot import module 'assay_missing_grader_mod'",
        ),
        ({"metric": "pii", "kinds": ["dna"]}, "suite.yaml: metrics[0].kinds.0: "),
        ({"metric": "cost", "model": "x", "max_usd": 1}, "suite.yaml: metrics[0]: no price"),
    ],
)
def test_bad_options_are_config_errors_with_the_field_path(
    metric: dict[str, Any], expected: str
) -> None:
    errors = load_errors(["equality", metric])
    assert len(errors) == 1
    assert errors[0].startswith(expected.replace("metrics[0]", "metrics[1]")), errors


def test_a_remote_schema_ref_is_refused_with_its_path() -> None:
    schema = {"type": "object", "properties": {"a": {"$ref": "http://127.0.0.1:9/a.json"}}}
    tests = [{"name": "t", "input": "hi", "metrics": [{"metric": "json_schema", "schema": schema}]}]
    assert load_errors([], tests) == [
        "suite.yaml: tests[0].metrics[0].schema: $ref 'http://127.0.0.1:9/a.json' (at "
        "$.properties.a.$ref) points outside the schema, and assay fetches no schema: put what "
        "it refers to under $defs and refer to it as '#/$defs/<name>' (test 't')"
    ]


def test_bad_matchers_in_a_suite_name_their_path() -> None:
    tests = [
        {
            "name": "t",
            "input": "hi",
            "expected_tools": [{"name": "book", "args": {"id": {"one_of": [{"approx": "x"}]}}}],
        }
    ]
    assert load_errors([], tests) == [
        "suite.yaml: tests[0].expected_tools[0].args.id.one_of[0].approx: "
        "expected a number, got \"x\" (test 't')"
    ]


def test_a_trajectory_metric_on_a_turn_is_refused() -> None:
    tests = [{"name": "t", "turns": [{"input": "a", "metrics": ["trajectory_recall"]}]}]
    errors = load_errors([], tests)
    assert errors == [
        "suite.yaml: tests[0].turns[0].metrics[0]: 'trajectory_recall' scores a whole "
        "conversation; list it on the test, not a turn (test 't')"
    ]


def test_yaml_as_users_write_it(tmp_path: Path) -> None:
    text = textwrap.dedent(
        """
        name: forms
        metrics:
          - {metric: numeric, extract: true}
          - {metric: rouge, type: rouge2}
          - {metric: bleu}
          - {metric: fuzzy, threshold: 0.9}
          - {metric: json_schema, schema: {type: object}}
          - {metric: pii}
          - {metric: secrets}
          - {metric: latency, max_ms: 2000}
        tests: [{name: t, input: hi, ground_truth: "1"}]
        """
    )
    loaded = parse_suite(yaml.safe_load(text), "forms.yaml")
    names = [m.name for m in loaded.cases[0].turns[0].metrics]
    assert names == [
        "numeric",
        "rouge",
        "bleu",
        "fuzzy",
        "json_schema",
        "pii",
        "secrets",
        "latency",
    ]
