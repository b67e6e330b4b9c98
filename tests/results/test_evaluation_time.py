"""``evaluation_time_ms`` is whole milliseconds, an integer, as in the turn-result contract's
example (``"evaluation_time_ms": 0``) and HoloDeck's MetricResult: in the record, the schema,
what every kind of metric writes and a multi-turn test's roll-up."""

from __future__ import annotations

import asyncio
import re

from assay.metrics.base import MetricContext
from assay.metrics.registry import build_metric
from assay.results.models import MetricResult, TurnResult
from assay.results.rollup import rollup_multi_turn
from assay.results.schema import json_schema


def test_the_schema_says_integer() -> None:
    metric = json_schema("turn-result")["$defs"]["MetricResult"]
    # whole milliseconds (null only as HoloDeck's model allows it), never a float
    assert metric["properties"]["evaluation_time_ms"]["type"] == ["integer", "null"]


def test_a_metric_writes_an_integer_whether_it_passes_fails_or_errors() -> None:
    ctx = MetricContext(input="q", response="5", ground_truth="5")
    scored = asyncio.run(build_metric("numeric", {}).evaluate(ctx))
    failed = asyncio.run(build_metric("numeric", {}).evaluate(MetricContext("q", "6", "5")))
    errored = asyncio.run(build_metric("numeric", {}).evaluate(MetricContext("q", "5", "n/a")))
    for result in (scored, failed, errored):
        assert type(result.evaluation_time_ms) is int
    # whole milliseconds in the JSON too (no ".0"), whatever the call took
    assert re.search(r'"evaluation_time_ms":\d+[,}]', scored.model_dump_json())


def test_a_report_written_with_fractions_reads_as_whole_milliseconds() -> None:
    old = MetricResult.model_validate_json('{"metric_name": "m", "evaluation_time_ms": 812.4}')
    assert old.evaluation_time_ms == 812 and type(old.evaluation_time_ms) is int


def test_the_roll_up_sums_integers() -> None:
    turns = [
        TurnResult(
            turn_index=i,
            input="q",
            passed=True,
            execution_time_ms=1,
            metric_results=[
                MetricResult(metric_name="m", score=1.0, passed=True, evaluation_time_ms=i + 2)
            ],
        )
        for i in range(2)
    ]
    rolled = rollup_multi_turn("t", turns, "2026-01-01T00:00:00+00:00").metric_results[0]
    assert rolled.evaluation_time_ms == 5 and type(rolled.evaluation_time_ms) is int
