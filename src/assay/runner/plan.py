"""Turn the command line into a plan: the suite, its test cases, the target and judge."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.cases import LoadedSuite, TestCase, load_suite
from assay.config import ModelConfig, Suite
from assay.errors import ConfigError, Problem
from assay.secrets import REDACTOR, redact_config
from assay.target_config import TargetConfig
from assay.targets import Target, make_target
from assay.targets.factory import parse_target_option

if TYPE_CHECKING:
    from assay.models import ChatModel, ResponseCache


@dataclass
class RunPlan:
    suite: Suite
    cases: list[TestCase]
    target: TargetConfig
    base_dir: Path
    judge: ModelConfig | None = None
    # the suite as given, with the options that override it: secrets in clear, until
    # stored_config() masks them
    snapshot: dict[str, Any] = field(default_factory=dict)
    source: str = "options"  # the suite file, for messages
    files: list[Path] = field(default_factory=list)  # the suite and dataset files read
    simulator: ModelConfig | None = None  # goal tests' simulated user; the judge's by default
    # where the judge's config is written (the suite's judge:, or --judge), for its messages
    judge_where: tuple[str, str] = ("options", "--judge")
    suite_source: str = "suite"  # the suite file: where a simulator: is written

    def make_target(self) -> Target:
        return make_target(
            self.target, self.base_dir, retries=self.suite.execution.retries, source=self.source
        )

    def make_judge(self, cache: ResponseCache | None) -> ChatModel:
        """The judge model; a ConfigError (exit 2) when its API key is missing."""
        from assay.models import make_model

        assert self.judge is not None
        source, where = self.judge_where
        return make_model(self.judge, cache, source=source, field=where)

    def make_simulator(self, config: ModelConfig, cache: ResponseCache | None) -> ChatModel:
        """The suite's ``simulator:`` model; a ConfigError when its API key is missing."""
        from assay.models import make_model

        return make_model(config, cache, source=self.suite_source, field="simulator")

    def stored_config(self) -> dict[str, Any]:
        """The config a run stores and reports (``run.config``), with every secret masked
        that ``REDACTOR`` knows now: so taken once the target and the judge are made, which
        register theirs (a literal credential header, a URL's password, an API key), as well
        as the ``${VAR}`` values the suite's load registered; a test input that quotes one
        is then masked as a result that quotes it is."""
        masked: dict[str, Any] = redact_config(self.snapshot)
        return masked


def parse_judge_option(value: str) -> ModelConfig:
    provider, sep, model = value.partition(":")
    if not sep or not model or provider not in ("openai", "anthropic"):
        raise ConfigError(
            [
                Problem(
                    "options", "--judge", f"expected openai:MODEL or anthropic:MODEL, got {value!r}"
                )
            ]
        )
    return ModelConfig.model_validate({"provider": provider, "model": model})


def plan_run(
    suite_path: Path | LoadedSuite | None,
    datasets: list[Path],
    target_option: str | None,
    judge_option: str | None,
    judge_base_url: str | None = None,
    max_file_mb: float | None = None,
) -> RunPlan:
    """``max_file_mb``: the option given (``--max-file-mb``), over the suite's."""
    if suite_path is None and not datasets:
        raise ConfigError([Problem("options", "SUITE", "give a suite file, or --dataset FILE")])
    if isinstance(suite_path, LoadedSuite):  # loaded (or parsed) by the caller: assay.run
        loaded, suite_path = suite_path, suite_path.path
        base_dir = loaded.base_dir
    elif suite_path is not None:
        loaded = load_suite(suite_path)
        base_dir = loaded.base_dir
    else:
        stem = datasets[0].stem
        loaded = LoadedSuite(suite=Suite(name=stem), cases=[], path=None, raw={"name": stem})
        # a python target (--target module:function) is imported from the dataset's folder
        # first, as it is from the suite's when there is a suite
        base_dir = datasets[0].resolve().parent
    REDACTOR.add(*loaded.secrets)
    suite = loaded.suite
    judge = parse_judge_option(judge_option) if judge_option else suite.judge
    if judge is not None and judge_base_url:
        judge = judge.model_copy(update={"base_url": judge_base_url})
    target = parse_target_option(target_option) if target_option else suite.target
    if target is None:  # said before any dataset is read: a big file is no reason to wait
        where = str(suite_path) if suite_path else "options"
        raise ConfigError(
            [Problem(where, "target", "no target: add target: to the suite, or pass --target")]
        )
    cases, read = suite_cases(loaded, datasets, judge is not None)
    files = [suite_path, *read] if suite_path else read
    if not cases:
        raise ConfigError(
            [
                Problem(
                    str(suite_path),
                    "tests",
                    "nothing to run: the suite has no tests and no datasets; add tests: or "
                    "datasets:, or pass --dataset FILE",
                )
            ]
        )
    _check_unique_names(cases)
    cases, attached = _attach(cases, max_file_mb or suite.execution.max_file_mb)
    files += attached
    snapshot = {
        **loaded.raw,
        "datasets": [*suite.datasets, *(str(d) for d in datasets)],
        "target_override": target_option,
        "judge_override": judge_option,
        "judge_base_url": judge_base_url,
    }
    source = str(suite_path) if suite_path and not target_option else "options"
    simulator = suite.simulator or judge
    suite_source = str(suite_path) if suite_path else "suite"
    judge_where = ("options", "--judge") if judge_option else (suite_source, "judge")
    return RunPlan(
        suite,
        cases,
        target,
        base_dir,
        judge,
        snapshot,
        source,
        files,
        simulator,
        judge_where,
        suite_source,
    )


def suite_cases(
    loaded: LoadedSuite, datasets: list[Path], with_judge: bool
) -> tuple[list[TestCase], list[Path]]:
    """Every test a run of ``loaded`` has, in order: the suite's own, then each row group of
    its ``datasets:`` and of ``datasets``; and the dataset files read. ``with_judge``: a
    judge model is given (its metrics join the datasets' defaults)."""
    cases = list(loaded.cases)
    sources = [(loaded.base_dir / ds, ds) for ds in loaded.suite.datasets]
    sources += [(ds_path, str(ds_path)) for ds_path in datasets]
    files: list[Path] = []
    if sources:
        _each_file_once(loaded, sources)
        from assay.cases.from_dataset import dataset_cases  # reading spreadsheets costs imports

        prefixes = dataset_prefixes([label for _, label in sources])
        for (path, label), prefix in zip(sources, prefixes, strict=True):
            files.append(path)
            cases.extend(dataset_cases(path, loaded.suite, label, with_judge, prefix))
    return cases, files


def _each_file_once(loaded: LoadedSuite, sources: list[tuple[Path, str]]) -> None:
    """Refuse a dataset file given twice (in the suite's ``datasets:``, with ``--dataset``,
    or in both): its rows would run twice, under the same test names."""
    listed = len(loaded.suite.datasets)  # the suite's come first in ``sources``
    suite_file = str(loaded.path) if loaded.path else "suite"
    first: dict[Path, int] = {}
    problems = []
    for i, (path, label) in enumerate(sources):
        j = first.setdefault(path.resolve(), i)
        if j == i:
            continue
        if i < listed:  # both in the suite's list
            source, where, earlier = suite_file, f"datasets[{i}]", f"datasets[{j}]"
        elif j < listed:
            source, where = "options", "--dataset"
            earlier = f"the suite's datasets[{j}] ({suite_file})"
        else:
            source, where, earlier = (
                "options",
                "--dataset",
                f"an earlier --dataset ({sources[j][1]})",
            )
        problems.append(
            Problem(
                source,
                where,
                f"{label} is the same file as {earlier}: give each dataset file once, or its "
                "rows would run twice under the same test names",
            )
        )
    if problems:
        raise ConfigError(problems)


def dataset_prefixes(labels: list[str]) -> list[str]:
    """Each dataset's test-name prefix: its file stem, or, when two files share a stem
    (a/data.csv, b/data.csv), its path without the extension."""
    stems = [Path(label).stem for label in labels]
    return [
        stem if stems.count(stem) == 1 else str(Path(label).with_suffix("")).replace("\\", "/")
        for stem, label in zip(stems, labels, strict=True)
    ]


def _attach(cases: list[TestCase], max_file_mb: float) -> tuple[list[TestCase], list[Path]]:
    """Every attached file read, before anything runs: a problem is a load-time error."""
    if not any(turn.files for case in cases for turn in case.turns):
        return cases, []
    from assay.files.attach import attach_files

    cases, attached, problems = attach_files(cases, max_file_mb)
    if problems:
        raise ConfigError(problems)
    return cases, attached


def _check_unique_names(cases: list[TestCase]) -> None:
    seen: dict[str, str] = {}
    for case in cases:
        if case.name in seen:
            raise ConfigError(
                [
                    Problem(
                        case.source,
                        "name",
                        f"test name {case.name!r} is also used by "
                        f"{seen[case.name]}; test names must be unique",
                    )
                ]
            )
        seen[case.name] = case.source
