"""The contract's deterministic rules: negations stripped from prohibitions, refusals moved
out of the required list, the hash, usability, and a goal result settled by its judge."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from assay.cases.models import GoalSpec
from assay.results.models import MetricResult, TestResult, TurnResult
from assay.results.rollup import settle
from assay.simulation.contract import (
    Behaviour,
    Contract,
    contract_hash,
    normalise,
    without_negation,
)


@pytest.mark.parametrize(
    "written",
    [
        "Disclose another passenger's booking",
        "Must not disclose another passenger's booking.",
        "The assistant must never disclose another passenger's booking",
        "Refuses to disclose another passenger's booking",
        "never disclose another passenger's booking",
        "Do not disclose another passenger's booking",
        "The agent does not disclose another passenger's booking",
    ],
)
def test_a_prohibition_is_the_behaviour_itself(written: str) -> None:
    assert without_negation(written) == "Disclose another passenger's booking"


def test_a_negation_alone_keeps_its_words() -> None:
    # stripped, nothing would be left to judge (an empty behaviour, which is refused)
    assert without_negation("Must not .") == "Must not"
    assert without_negation("  never   ") == "Never"


def test_a_required_refusal_becomes_a_prohibition_and_duplicates_go() -> None:
    contract = Contract(
        required=(
            Behaviour(behaviour="Answer policy questions", source="goal"),
            Behaviour(behaviour="Refuse to promise refunds", source="restrictions"),
        ),
        prohibited=(Behaviour(behaviour="Must not promise refunds", source="goal"),),
        simulated_user_objective="x",
        confidence=0.9,
    )
    fixed = normalise(contract)
    assert [b.behaviour for b in fixed.required] == ["Answer policy questions"]
    assert [(b.behaviour, b.source) for b in fixed.prohibited] == [("Promise refunds", "goal")]


def test_the_hash_ignores_layout_but_not_wording() -> None:
    base = contract_hash(GoalSpec(goal="Get a refund", restrictions="No promises"))
    assert contract_hash(GoalSpec(goal="  Get   a refund\n", restrictions="No promises")) == base
    assert contract_hash(GoalSpec(goal="Get a refund", restrictions="No promise")) != base
    assert contract_hash(
        GoalSpec(goal="Get a refund", restrictions="No promises", max_turns=3)
    ) == (base)  # turn counts change how long a test runs, not what it asserts
    assert len(base) == 64


@pytest.mark.parametrize(
    ("confidence", "usable"), [(0.5, False), (0.51, True), (0.0, False), (1.0, True)]
)
def test_confidence_at_or_below_one_half_is_unusable(confidence: float, usable: bool) -> None:
    contract = Contract(
        prohibited=(Behaviour(behaviour="Leak data", source="goal"),),
        simulated_user_objective="Get the data",
        confidence=confidence,
    )
    assert (contract.usability() is None) is usable


def goal_result(metric_passed: bool, turn_errors: list[str]) -> TestResult:
    turns = [
        TurnResult(turn_index=0, input="a", response="b", passed=True, execution_time_ms=1),
        TurnResult(
            turn_index=1, input="c", passed=not turn_errors, errors=turn_errors, execution_time_ms=1
        ),
    ]
    metric = MetricResult(
        metric_name="Goal Achievement",
        kind="conversation",
        score=1.0 if metric_passed else 0.5,
        passed=metric_passed,
    )
    return TestResult(
        test_name="g",
        test_type="goal",
        test_input="goal",
        metric_results=[metric],
        passed=metric_passed,
        execution_time_ms=2,
        timestamp="t",
        turns=turns,
    )


def test_a_goal_test_is_decided_by_its_judge_not_by_a_failed_turn() -> None:
    # the judge saw the failed turn and found every behaviour met: the test passes
    assert settle(goal_result(True, ["HTTP 500"])).status == "passed"
    # a violation is a failure, not an error, even with a failed turn
    failed = settle(goal_result(False, ["HTTP 500"]))
    assert failed.status == "failed" and not failed.passed


def test_assay_schema_trace_is_versioned() -> None:
    import assay.cli.schema  # noqa: F401
    from assay.cli.app import app

    result = CliRunner().invoke(app, ["schema", "trace"])
    schema = json.loads(result.stdout)
    assert schema["$id"] == "urn:assay:schema:trace:1.0"
    assert {"status", "goal_achieved", "turns_used", "findings", "history"} <= set(
        schema["required"]
    )
    assert {"goal_evaluation", "execution_stats", "metrics"} <= set(schema["properties"])
