"""Endpoint limits hold across worker processes: each worker gets its share of every limit,
and the shares add up to the limit set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.net.limits import limiter_for, reset_limiters, share_limits
from assay.run_options import RunOptions
from assay.runner.plan import RunPlan, plan_run
from assay.runner.shard import ShardSpec
from assay.runner.sharding import choose
from assay.runner.spread import cap, split
from tests.runner.scale_suite import run
from tests.targets.agent_server import agent_server


@pytest.mark.parametrize("limit", [1, 2, 5, 10, 11])
@pytest.mark.parametrize("workers", [1, 2, 3])
def test_the_shares_of_a_limit_add_up_to_it(limit: int, workers: int) -> None:
    if workers > limit:
        pytest.skip("the runner never starts more workers than the smallest max_in_flight")
    got = []
    try:
        for index in range(workers):
            share_limits(index, workers)
            limiter = limiter_for("http://127.0.0.1:1", limit, 600.0)
            got.append((limiter.max_in_flight, limiter.requests_per_minute))
    finally:
        share_limits(0, 1)
        reset_limiters()
    assert sum(in_flight or 0 for in_flight, _ in got) == limit
    assert max(i or 0 for i, _ in got) - min(i or 0 for i, _ in got) <= 1
    assert sum(rpm or 0 for _, rpm in got) == pytest.approx(600.0)


def one_test_plan(folder: Path, concurrency: int, http: str = "") -> RunPlan:
    """The plan of a one-test suite at ``concurrency``; ``http``: more target settings."""
    suite = folder / "suite.yaml"
    suite.write_text(
        f"name: s\ntarget: {{http: {{url: 'http://127.0.0.1:1'{http}}}}}\n"
        f"execution: {{concurrency: {concurrency}}}\ntests: [{{name: a, input: q}}]\n"
    )
    return plan_run(suite, [], None, None)


@pytest.mark.parametrize("workers", [1, 3, 7])
def test_a_run_is_split_into_numbered_shares_of_its_concurrency(
    tmp_path: Path, workers: int
) -> None:
    plan = one_test_plan(tmp_path, 10)
    spec = ShardSpec(plan, plan.cases, "run", 0, 1, 1, ["k"], "cache.db")
    specs = split(spec, workers)
    assert [s.index for s in specs] == list(range(workers))
    assert {s.workers for s in specs} == {workers}
    assert sum(s.concurrency for s in specs) == 10
    assert max(s.concurrency for s in specs) - min(s.concurrency for s in specs) <= 1
    assert {(s.run_id, s.cache_path, tuple(s.secrets)) for s in specs} == {
        ("run", "cache.db", ("k",))
    }


@pytest.mark.parametrize(
    ("limit", "count", "total", "capped"),
    [("", 8, 100, 6), (", max_in_flight: 3", 8, 100, 3), ("", 8, 2, 2), ("", 8, 0, 1)],
)
def test_workers_are_capped_by_concurrency_tests_and_max_in_flight(
    tmp_path: Path, limit: str, count: int, total: int, capped: int
) -> None:
    # the local pool and Ray (whose task count is known once it is connected) both cap so
    assert cap(count, one_test_plan(tmp_path, 6, limit), total) == capped


@pytest.mark.parametrize(
    ("executor", "announced"),
    [("local", "running on 2 worker processes"), ("ray", "running on 2 Ray tasks")],
)
def test_max_in_flight_holds_across_two_workers(
    tmp_path: Path, executor: str, announced: str
) -> None:
    if executor == "ray":
        pytest.importorskip("ray", reason="the test extras install Ray")
    with agent_server() as agent:
        # each request waits until 5 are in at once (then lingers): had each worker the
        # whole limit, the server would see up to 10
        agent.gate.hold_until, agent.gate.linger_s = 5, 0.2
        lines = [
            "name: limited",
            f"target: {{http: {{url: '{agent.chat_url}', max_in_flight: 5}}}}",
            "tests:",
        ]
        lines += [
            f"  - {{name: t{i}, input: q{i}, ground_truth: 'turn 1: q{i}'}}" for i in range(40)
        ]
        (tmp_path / "suite.yaml").write_text("\n".join(lines) + "\n")
        args = ("run", "suite.yaml", "--workers", "2", "--concurrency", "20", "--out", "r.json")
        done = run(tmp_path, *args, "--executor", executor)
        assert done.returncode == 0, done.stderr
        assert announced in done.stderr
        if executor == "local":
            assert agent.gate.peak == 5
        else:  # Ray may start its two tasks apart; together they still never pass the limit
            assert 3 <= agent.gate.peak <= 5
    assert json.loads((tmp_path / "r.json").read_text())["summary"]["passed"] == 40


def test_workers_are_capped_by_the_smallest_limit(tmp_path: Path) -> None:
    with agent_server() as agent:
        lines = [
            "name: one-at-a-time",
            f"target: {{http: {{url: '{agent.chat_url}', max_in_flight: 1}}}}",
            "tests:",
        ]
        lines += [f"  - {{name: t{i}, input: q{i}}}" for i in range(4)]
        (tmp_path / "suite.yaml").write_text("\n".join(lines) + "\n")
        done = run(tmp_path, "run", "suite.yaml", "--workers", "2")
        assert done.returncode == 0, done.stderr
        assert "one process (--workers, capped at 1" in done.stderr
        assert agent.gate.peak == 1


def test_ray_tasks_asked_for_are_capped_before_they_are_announced(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    plan = one_test_plan(tmp_path, 6, ", max_in_flight: 1")
    options = RunOptions(executor="ray", workers=2)
    sharding = choose(options, plan, plan.cases, 8)
    assert (sharding.workers, sharding.why) == (
        1,
        "1 Ray task (capped by the concurrency, the tests or max_in_flight)",
    )
