"""The code metric: graders imported at load time, what they may return, how they fail."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator

import pytest

from assay.metrics import MetricConfigError, build_metric
from assay.metrics._user_code import to_score
from assay.results.models import MetricResult
from tests.metrics._helpers import call, context

GRADERS = """
import asyncio

def says_paris(ctx):
    return "paris" in (ctx.response or "").lower()

def quarter(ctx):
    return 0.25

def verdict(ctx):
    return {"score": 0.5, "passed": True, "reason": "half right", "details": {"n": 1}}

def passed_only(ctx):
    return {"passed": False, "reason": "no"}

async def slow_yes(ctx):
    await asyncio.sleep(0)
    return True

def boom(ctx):
    raise RuntimeError("grader broke")

def too_big(ctx):
    return 1.7

def nothing(ctx):
    return None

def mutate(ctx):
    ctx.tool_invocations[0].args["city"] = "Hacked"
    return True

def reassign(ctx):
    ctx.response = "changed"
    return True

NOT_CALLABLE = 3
"""


@pytest.fixture(autouse=True, scope="module")
def graders_module(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    folder = tmp_path_factory.mktemp("graders")
    (folder / "assay_test_graders.py").write_text(GRADERS, encoding="utf-8")
    sys.path.insert(0, str(folder))
    yield
    sys.path.remove(str(folder))
    sys.modules.pop("assay_test_graders", None)


def grade(fn: str, response: str = "Paris", **options: object) -> MetricResult:
    metric = build_metric("code", {"grader": f"assay_test_graders:{fn}", **options})
    ctx = context(response, tools=[call("weather", city="Basel")])
    return asyncio.run(metric.evaluate(ctx))


def test_bool_number_and_dict_returns() -> None:
    yes = grade("says_paris")
    assert (yes.score, yes.passed, yes.kind, yes.metric_name) == (
        1.0,
        True,
        "code",
        "code:says_paris",
    )
    no = grade("says_paris", "Lyon")
    assert (no.score, no.passed) == (0.0, False)
    quarter = grade("quarter", threshold=0.2)
    assert (quarter.score, quarter.passed) == (0.25, True)
    verdict = grade("verdict")
    assert (verdict.score, verdict.passed, verdict.reasoning, verdict.details) == (
        0.5,
        True,
        "half right",
        {"n": 1},
    )
    only = grade("passed_only")
    assert (only.score, only.passed, only.reasoning) == (0.0, False, "no")


def test_async_grader() -> None:
    assert grade("slow_yes").passed is True


def test_an_exception_fails_only_that_metric() -> None:
    result = grade("boom")
    assert (result.score, result.passed) == (0.0, False)  # as HoloDeck scores it
    assert result.error == "RuntimeError: grader broke"


def test_fail_on_error_false_leaves_the_metric_unjudged() -> None:
    result = grade("boom", fail_on_error=False)
    assert (result.score, result.passed, result.error) == (None, None, "RuntimeError: grader broke")


def test_bad_returns_are_errors() -> None:
    too_big = grade("too_big")
    assert (too_big.score, too_big.passed) == (0.0, False)
    assert too_big.error == "the grader returned 1.7; a score is between 0 and 1"
    assert grade("nothing").error == (
        "the grader returned NoneType; return a bool, a 0-1 number or a dict"
    )


def test_the_context_is_read_only() -> None:
    metric = build_metric("code", {"grader": "assay_test_graders:mutate"})
    ctx = context("x", tools=[call("weather", city="Basel")])
    assert asyncio.run(metric.evaluate(ctx)).passed is True
    assert ctx.tool_invocations[0].args == {"city": "Basel"}  # the grader changed a copy
    frozen = grade("reassign")
    assert frozen.passed is False and "FrozenInstanceError" in (frozen.error or "")


def test_name_and_dimension_options() -> None:
    result = grade("says_paris", name="mentions-paris", dimension="reasoning")
    assert (result.metric_name, result.dimension) == ("mentions-paris", "reasoning")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_such_module_xyz:fn", "cannot import module 'no_such_module_xyz'"),
        ("assay_test_graders:missing", "has no attribute 'missing'"),
        ("assay_test_graders:NOT_CALLABLE", "is not callable"),
        ("no-colon", "expected 'module:function'"),
    ],
)
def test_import_problems_are_load_time_errors(spec: str, message: str) -> None:
    with pytest.raises(MetricConfigError) as exc:
        build_metric("code", {"grader": spec})
    field, text = exc.value.problems[0]
    assert field == "grader" and message in text


def test_to_score_rejects_odd_dicts() -> None:
    with pytest.raises(TypeError, match="unknown keys"):
        to_score({"score": 1, "why": "x"})
    with pytest.raises(TypeError, match="neither 'score' nor 'passed'"):
        to_score({"reason": "x"})
    assert to_score(True).passed is True
