"""Compile validated test specs into runnable TestCases: matchers and metric instances are
built here, once, and every problem is reported with its field path.

The one compiler of assay: a suite's tests (``Compiler.test``) and a dataset's rows
(``Compiler.dataset_test``, from ``from_dataset``) are compiled here, by the same rules:
which metric list applies (``metric_plan``: a test's or a turn's own list replaces the one
it inherits, ``[]`` included; the defaults apply when no level has one), which metrics score
each turn and which the whole conversation (``scope``), and how expected tool calls become
``ExpectedTool``s. A dataset's rows were checked cell by cell when the file was read, so
they take a direct path here, with no per-row validation: a file may have a million."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay.cases.models import GoalSpec, TestCase, Turn
from assay.config import ExpectedToolSpec, FileSpec, MetricSpec, Suite, TestSpec, TurnSpec
from assay.datasets.model import DatasetRow
from assay.errors import Problem
from assay.files.model import FileRef
from assay.limits import name_problem
from assay.metrics import MetricConfigError, build_metric
from assay.metrics.base import Metric
from assay.metrics.tools import (
    ExpectedTool,
    LiteralMatcher,
    Matcher,
    MatcherError,
    parse_matcher,
)

_TOOL_OPTIONS = ExpectedToolSpec.OPTIONS


def turn_scoped(metrics: tuple[Metric, ...]) -> tuple[Metric, ...]:
    return tuple(m for m in metrics if m.scope == "turn")


def test_scoped(metrics: tuple[Metric, ...]) -> tuple[Metric, ...]:
    return tuple(m for m in metrics if m.scope == "test")


def default_metrics() -> tuple[Metric, ...]:
    """What a turn gets when no metric list applies to it: equality, case-insensitive and
    whitespace-stripped (it needs a ground truth, so it is simply absent without one)."""
    return (build_metric("equality", {"case_insensitive": True, "strip_whitespace": True}),)


@dataclass(frozen=True)
class MetricPlan:
    """The metrics of one test: ``turn`` for each turn without a list of its own, ``test``
    scored once over the whole conversation."""

    turn: tuple[Metric, ...]
    test: tuple[Metric, ...]


class Compiler:
    """Collects problems instead of stopping at the first, so a user fixes them in one go.

    ``defaults`` are a turn's metrics when no list applies to it; attached files' paths are
    relative to ``base_dir`` (the suite's or the dataset's folder)."""

    def __init__(
        self,
        source: str,
        defaults: tuple[Metric, ...] | None = None,
        base_dir: Path | None = None,
    ) -> None:
        self.source = source
        self.problems: list[Problem] = []
        self.defaults = default_metrics() if defaults is None else defaults
        self.base_dir = base_dir or Path.cwd()

    def files(self, specs: Sequence[FileSpec] | None, path: str) -> tuple[FileRef, ...]:
        """The files a turn attaches, resolved; they are read when the run is planned."""
        return tuple(
            FileRef(
                path=self.base_dir / spec.path,
                written=spec.path,
                source=self.source,
                where=f"{path}[{i}]",
                mime_type=spec.mime_type,
                read_as=spec.read_as,
            )
            for i, spec in enumerate(specs or ())
        )

    def problem(self, path: str, message: str) -> None:
        self.problems.append(Problem(self.source, path, message))

    def name(self, text: str, path: str, what: str) -> None:
        """Names are stored and shown: refuse a control character in one."""
        problem = name_problem(text, what)
        if problem is not None:
            self.problem(path, problem)

    def metrics(self, specs: Sequence[MetricSpec] | None, path: str) -> tuple[Metric, ...]:
        built = []
        first: dict[str, int] = {}  # each label's first place in the list
        for i, spec in enumerate(specs or ()):
            try:
                metric = build_metric(spec.metric, spec.options)
            except MetricConfigError as exc:
                for sub, msg in exc.problems:
                    self.problem(f"{path}[{i}]" + (f".{sub}" if sub else ""), msg)
                continue
            where = f"{path}[{i}]" + (".name" if metric.options.name else "")
            self.name(metric.label, where, "metric name")
            # a result is known by its label: two alike would be two results no one can tell
            # apart, and a conversation's roll-up would average them into one score
            if metric.label in first:
                self.problem(
                    where,
                    f"{path}[{first[metric.label]}] is also called {metric.label!r}: give each "
                    f"a name: of its own (e.g. name: {metric.label}-{i + 1}), or their results "
                    "cannot be told apart",
                )
            first.setdefault(metric.label, i)
            built.append(metric)
        return tuple(built)

    def _count(self, value: Any, path: str) -> int | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            self.problem(path, f"expected a whole number >= 0, got {value!r}")
            return None
        return value

    def expected_tool(self, spec: ExpectedToolSpec, path: str) -> ExpectedTool | None:
        self.name(spec.name, f"{path}.name", "tool name")
        options = spec.options
        for key in options:
            if key not in _TOOL_OPTIONS:
                self.problem(
                    f"{path}.{key}",
                    f"unknown key; an expected tool has name, {', '.join(_TOOL_OPTIONS)}",
                )
        raw_args = options.get("args")
        args: dict[str, Matcher] | None = None
        if raw_args is not None:
            if not isinstance(raw_args, dict):
                self.problem(
                    f"{path}.args", f"expected a mapping of argument matchers, got {raw_args!r}"
                )
            else:
                args = {}
                for key, raw in raw_args.items():
                    self.name(str(key), f"{path}.args", "argument name")
                    try:
                        args[str(key)] = parse_matcher(raw)
                    except MatcherError as exc:
                        sub = f".{exc.subpath}" if exc.subpath else ""
                        self.problem(f"{path}.args.{key}{sub}", str(exc))
        count = self._count(options.get("count"), f"{path}.count")
        return ExpectedTool(
            name=spec.name,
            args=args,
            count=1 if count is None else count,
            count_exact=self._count(options.get("count_exact"), f"{path}.count_exact"),
            max_count=self._count(options.get("max_count"), f"{path}.max_count"),
            explicit=frozenset(k for k in options if k in _TOOL_OPTIONS),
        )

    def expected_tools(
        self, specs: Sequence[ExpectedToolSpec] | None, path: str
    ) -> tuple[ExpectedTool, ...] | None:
        if specs is None:
            return None
        tools = [self.expected_tool(s, f"{path}[{i}]") for i, s in enumerate(specs)]
        return tuple(t for t in tools if t is not None)

    def turn(self, spec: TurnSpec | TestSpec, path: str, metrics: tuple[Metric, ...]) -> Turn:
        assert spec.input is not None
        if not spec.input.strip():
            self.problem(f"{path}.input", "input is empty")
        context = spec.context
        if isinstance(context, dict):
            context = json.dumps(context, ensure_ascii=False)
        return Turn(
            input=spec.input,
            ground_truth=spec.ground_truth,
            context=context,
            expected_tools=self.expected_tools(spec.expected_tools, f"{path}.expected_tools"),
            metrics=metrics,
            files=self.files(spec.files, f"{path}.files"),
        )

    def test(self, spec: TestSpec, path: str, suite_metrics: tuple[Metric, ...] | None) -> TestCase:
        """``suite_metrics``: the suite's list, or None when the suite has none."""
        self.name(spec.name, f"{path}.name", "test name")
        for i, tag in enumerate(spec.tags):
            self.name(tag, f"{path}.tags[{i}]", "tag")
        own = self.metrics(spec.metrics, f"{path}.metrics")
        plan = self.metric_plan(own if spec.metrics is not None else None, suite_metrics)
        inherited, test_metrics = plan.turn, plan.test
        common: dict[str, Any] = {
            "name": spec.name,
            "type": spec.test_type,
            "tags": tuple(spec.tags),
            "source": f"{self.source}: {path}",
            "expected_trajectory": self.expected_tools(
                spec.expected_trajectory, f"{path}.expected_trajectory"
            ),
        }
        if spec.goal is not None:
            return self.goal_test(spec, path, test_metrics, common)
        if spec.turns is not None:
            turns = tuple(
                self.turn(t, f"{path}.turns[{i}]", self.turn_metrics(t, path, i, inherited))
                for i, t in enumerate(spec.turns)
            )
            return TestCase(turns=turns, test_metrics=test_metrics, **common)
        # single-turn: the test's own metrics are its turn's metrics
        return TestCase(
            turns=(self.turn(spec, path, inherited),), test_metrics=test_metrics, **common
        )

    def metric_plan(
        self, own: tuple[Metric, ...] | None, inherited: tuple[Metric, ...] | None
    ) -> MetricPlan:
        """A test's own list (None: it has none) replaces the one it inherits (None: the
        suite has none either, and the defaults apply: equality where there is a ground
        truth); each metric then scores the turns or the conversation, by its scope."""
        chosen = own if own is not None else inherited
        if chosen is None:
            return MetricPlan(self.defaults, ())
        return MetricPlan(turn_scoped(chosen), test_scoped(chosen))

    def dataset_test(
        self, name: str, rows: Sequence[DatasetRow], plan: MetricPlan, where: str
    ) -> TestCase:
        """A dataset conversation: a test with no metric list of its own (``plan`` is the
        suite's, or the dataset defaults), one turn per row, each with the row's Answer and
        tools; its expected trajectory is the rows' tool calls, when every row has some."""
        # a dataset of 100,000 rows compiles 100,000 of these: a row alone without a
        # comprehension
        turn = plan.turn
        if len(rows) == 1:
            calls = rows[0].expected_tools  # mostly None: no call to literal_tools then
            row_tools = None if calls is None else literal_tools(calls)
            trajectory = None if row_tools is None else tuple(row_tools)
            turns: tuple[Turn, ...] = (self._row_turn(rows[0], row_tools, turn),)
        else:
            tools = [literal_tools(row.expected_tools) for row in rows]
            trajectory = None
            if None not in tools:
                trajectory = tuple(tool for row_tools in tools for tool in row_tools or ())
            turns = tuple(
                [self._row_turn(row, t, turn) for row, t in zip(rows, tools, strict=True)]
            )
        # TestCase's and Turn's fields in order, positionally: a class called with keywords
        # packs them into a dict and __init__ unpacks it again (5 k instructions a row)
        return TestCase(
            name,  # name
            "single_turn" if len(turns) == 1 else "multi_turn",  # type
            turns,  # turns
            None,  # goal
            (),  # tags
            f"{self.source}: {where}",  # source
            plan.test,  # test_metrics
            trajectory,  # expected_trajectory
        )

    def _row_turn(
        self,
        row: DatasetRow,
        tools: tuple[ExpectedTool, ...] | None,
        metrics: tuple[Metric, ...],
    ) -> Turn:
        return Turn(
            row.question,  # input
            row.turn_id,  # turn_id
            row.answer,  # ground_truth
            row.context,  # context
            tools,  # expected_tools
            metrics,  # metrics
            self._row_files(row) if row.files else (),  # files
        )

    def _row_files(self, row: DatasetRow) -> tuple[FileRef, ...]:
        where = f"row {row.row_number}, column files"
        return tuple(
            FileRef(path=self.base_dir / written, written=written, source=self.source, where=where)
            for written in row.files
        )

    def goal_test(
        self,
        spec: TestSpec,
        path: str,
        test_metrics: tuple[Metric, ...],
        common: dict[str, Any],
    ) -> TestCase:
        """A goal-driven test. Its opening turns (if any) carry only their own checks: the
        suite's turn metrics do not apply, as the judge gives the test's verdict."""
        assert spec.goal is not None
        opening = tuple(
            self.turn(t, f"{path}.turns[{i}]", self.turn_metrics(t, path, i, ()))
            for i, t in enumerate(spec.turns or ())
        )
        goal = GoalSpec(
            goal=spec.goal,
            instructions=spec.instructions,
            scenario=spec.scenario,
            restrictions=spec.restrictions,
            context=spec.context,
            max_turns=spec.max_turns,
            min_turns=spec.min_turns,
            required=_stated(spec.required),
            prohibited=_stated(spec.prohibited),
        )
        return TestCase(goal=goal, turns=opening, test_metrics=test_metrics, **common)

    def turn_metrics(
        self, spec: TurnSpec, test_path: str, index: int, inherited: tuple[Metric, ...]
    ) -> tuple[Metric, ...]:
        """The turn's own list (``[]`` too: no metric), else what it inherits."""
        if spec.metrics is None:
            return inherited
        path = f"{test_path}.turns[{index}]"
        metrics = self.metrics(spec.metrics, f"{path}.metrics")
        for i, metric in enumerate(metrics):
            if metric.scope == "test":
                self.problem(
                    f"{path}.metrics[{i}]",
                    f"{metric.name!r} scores a whole conversation; list it on the test, not a turn",
                )
        return metrics


def _stated(items: list[str] | None) -> tuple[str, ...] | None:
    return None if items is None else tuple(item.strip() for item in items)


def literal_tools(calls: Sequence[dict[str, Any]] | None) -> tuple[ExpectedTool, ...] | None:
    """A dataset cell's tool calls (``{"name", "args"}``, checked by the dataset reader):
    each argument a literal (a dataset's JSON is data, not matchers); None: no assertion."""
    if calls is None:
        return None
    return tuple(
        ExpectedTool(
            name=call["name"],
            args={k: LiteralMatcher(v) for k, v in call["args"].items()} if call["args"] else None,
        )
        for call in calls
    )


def compile_tests(
    suite: Suite | None,
    tests: Sequence[tuple[int, TestSpec]],
    source: str,
    metric_specs: Sequence[MetricSpec] | None = None,
    base_dir: Path | None = None,
) -> tuple[list[TestCase], list[Problem]]:
    """The suite's tests (each with its index in ``tests:``), and every problem found.
    ``metric_specs`` is the suite's metric list (None when it has none); it is taken from
    ``suite`` when that is given. Attached files are relative to ``base_dir``."""
    compiler = Compiler(source, base_dir=base_dir)
    if suite is not None:
        compiler.name(suite.name, "name", "suite name")
        metric_specs = suite_metric_specs(suite)
    suite_metrics = None if metric_specs is None else compiler.metrics(metric_specs, "metrics")
    cases = [compiler.test(spec, f"tests[{i}]", suite_metrics) for i, spec in tests]
    return cases, compiler.problems


def suite_metric_specs(suite: Suite) -> list[MetricSpec] | None:
    """The suite's metric list, or None when it has none (``metrics: []`` is a list: the
    tests then have no metric unless they list their own)."""
    return suite.metrics if "metrics" in suite.model_fields_set else None
