"""The pytest plugin's work once ``--assay-suite`` is given (``assay.pytest_plugin``): the
suites collected as files of items, each item one assay test run on its own through
``assay.run``, and the JSON report of what ran.

Why one run per item, rather than the whole selection run once and looked up: pytest decides
item by item what runs. ``-x`` stops after a failure, and pytest-xdist hands each worker its
items a few at a time, so no process knows its whole share in advance. A run per item calls
the agent for exactly the items pytest runs, on the worker that runs them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Generator, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from assay._pytest_report import Collected, failure_text, not_run_reason, write_session_report
from assay.api import run
from assay.cases import LoadedSuite, TestCase, load_suite
from assay.errors import AssayError, ConfigError
from assay.store import Store, open_store

# an item's results travel on its call report as this attribute: xdist sends a report's
# attributes from the worker to the controller (user properties would also land in JUnit XML)
RESULT_ATTRIBUTE = "assay_result"


def activate(config: pytest.Config) -> None:
    """Called by the plugin when ``--assay-suite`` is given."""
    suites = AssaySuites(config)
    config.stash[SUITES] = suites
    config.pluginmanager.register(suites, "assay-suites")


class AssayTestFailed(Exception):
    """An assay test did not pass; its message is the explanation ``assay run`` prints."""


class AssaySuites:
    """The session's state, registered as a plugin when suites are given: the suite paths,
    the options, the store (opened at the first item) and the results seen."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        given: list[str] = config.getoption("assay_suite")
        # each suite's resolved path -> its place on the command line, and the path as given
        self.suites = {Path(p).resolve(): (i, p) for i, p in enumerate(given)}
        self.target: str | None = config.getoption("assay_target")
        self.store_url: str | None = config.getoption("assay_store")
        report: str | None = config.getoption("assay_report")
        self.report_path = Path(report) if report else None
        self._check_options()
        self._store: Store | None = None
        self.report_line = ""  # what became of --assay-report, said in the summary
        self.collected = Collected(several_suites=len(self.suites) > 1)
        config.args = _with_suites(config, given)

    def _check_options(self) -> None:
        """Bad options stop the session before collection, with pytest's usage error."""
        if self.target is not None:
            from assay.targets.factory import parse_target_option

            try:
                parse_target_option(self.target)
            except ConfigError as exc:
                raise pytest.UsageError(str(exc).replace("--target", "--assay-target")) from None
        if self.report_path is not None and self.report_path.is_dir():
            raise pytest.UsageError(
                f"--assay-report: {str(self.report_path)!r} is a folder; give a file name"
            )

    def store(self) -> Store:
        if self._store is None:
            self._store = open_store(self.store_url)
        return self._store

    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector) -> SuiteFile | None:
        found = self.suites.get(file_path.resolve())
        if found is None:
            return None
        index, given = found
        return SuiteFile.from_parent(parent, path=file_path, suite_index=index, given=given)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if isinstance(item, SuiteItem) and call.when == "call" and item.payload:
            setattr(report, RESULT_ATTRIBUTE, item.payload)
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # on the controller, the workers' reports too
        payload = getattr(report, RESULT_ATTRIBUTE, None)
        if isinstance(payload, str):
            self.collected.add(json.loads(payload))

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None
        if self.report_path is None or hasattr(self.config, "workerinput"):
            return  # an xdist worker: the controller writes the report
        if exitstatus in (pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.INTERNAL_ERROR):
            return  # the session never started
        interrupted = exitstatus == pytest.ExitCode.INTERRUPTED
        stopped = bool(session.shouldstop or session.shouldfail) or interrupted
        self.report_line = write_session_report(self.collected, self.report_path, stopped)

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.report_line:
            terminalreporter.write_line(self.report_line)


class SuiteFile(pytest.File):
    """An assay suite file: one item per test, the suite's own and its datasets' rows."""

    def __init__(self, *, suite_index: int, given: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.suite_index = suite_index
        self.given = given  # the path as on the command line, for messages
        self.loaded: LoadedSuite | None = None

    def collect(self) -> Iterator[SuiteItem]:
        from assay.runner.plan import suite_cases

        try:
            self.loaded = load_suite(self.given)
            cases, _ = suite_cases(self.loaded, [], self.loaded.suite.judge is not None)
        except AssayError as exc:  # shown as the message alone, never a traceback
            raise self.CollectError(f"assay: {exc}") from None
        for index, case in enumerate(cases):
            yield SuiteItem.from_parent(self, name=case.name, case=case, case_index=index)


class SuiteItem(pytest.Item):
    """One assay test, run on its own: a run of one test, stored like any other."""

    def __init__(self, *, case: TestCase, case_index: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.case_index = case_index
        self.payload = ""  # its results, once run, when --assay-report asks for them

    @property
    def suite_file(self) -> SuiteFile:
        assert isinstance(self.parent, SuiteFile)
        return self.parent

    def runtest(self) -> None:
        suites = self.config.stash[SUITES]
        assert self.suite_file.loaded is not None
        try:
            report = run(
                _only(self.suite_file.loaded, self.case), target=suites.target, store=suites.store()
            )
        except AssayError as exc:
            raise AssayTestFailed(f"assay could not run {self.name!r}: {exc}") from None
        if suites.report_path is not None:  # only the session's report reads the results
            order = (self.suite_file.suite_index, self.case_index)
            self.payload = Collected.payload(report, order, self.nodeid)
        self.user_properties.append(("assay_run", report.run.id))  # in JUnit XML, say
        not_passed = [r for r in report.results if not r.passed]
        if any(r.status != "not_run" for r in not_passed):
            raise AssayTestFailed(failure_text(report, not_passed))
        if not_passed:  # nothing was checked: not a failure, as in assay run (but --strict)
            # reported at the suite file, not at this line (pytest's flag for it, since 7.4)
            raise pytest.skip.Exception(not_run_reason(not_passed), _use_item_location=True)

    def repr_failure(
        self,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: Any = None,
    ) -> str | Any:
        if isinstance(excinfo.value, AssayTestFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[os.PathLike[str] | str, int | None, str]:
        return self.path, 0, f"assay test {self.name}"  # the suite file, from its top


SUITES = pytest.StashKey[AssaySuites]()


def _with_suites(config: pytest.Config, suites: list[str]) -> list[str]:
    """What pytest collects: with no path on the command line, the suites alone (not the
    testpaths' tests); else the paths given and each suite that none of them holds."""
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        return list(suites)
    given = [Path(arg.split("::")[0]).resolve() for arg in config.args]
    missing = [
        suite
        for suite in suites
        if not any(Path(suite).resolve().is_relative_to(path) for path in given)
    ]
    return [*config.args, *missing]


def _only(loaded: LoadedSuite, case: TestCase) -> LoadedSuite:
    """The suite with one test: its datasets' rows are tests of their own items."""
    return replace(loaded, suite=loaded.suite.model_copy(update={"datasets": []}), cases=[case])
