"""``assay.run`` and ``assay.run_async``: the one way in under the CLI, the dashboard and
your own code (docs/python-api.md).

Each takes a suite (a YAML file's path, a suite from ``assay.load_suite`` or
``assay.parse_suite``, or None with ``dataset=`` only) and the options of ``RunOptions``
as keyword arguments, runs it with the runner ``assay run`` uses, stores it, and returns
its ``Report``. The override rule is ``RunOptions``'s: an option given here wins over the
suite's ``execution:``, which wins over the default.

Bad input raises ``ConfigError`` (a ``DatasetError`` for a dataset file), listing every
problem with its file and field, before anything runs; a store that cannot be opened or
written raises ``StoreError``; a target or model that cannot be reached at the start
raises ``TargetError``. Nothing here calls ``sys.exit`` or installs a signal handler.

Stopping: ``run_async`` cancelled (or ``run`` stopped by Ctrl-C) stores every finished
result, marks the run interrupted and raises ``CancelledError`` (``KeyboardInterrupt``);
``resume=RUN_ID`` runs what is left.

``execute`` is the same run without loading its report (a big run's report is big): the
CLI and the dashboard's run worker print from its outcome.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import sys
import threading
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec

from assay._words import counted
from assay.errors import ConfigError, Problem

if TYPE_CHECKING:
    from assay.cases import LoadedSuite
    from assay.results.models import Report
    from assay.run_options import RunOptions
    from assay.runner.job import RunJob
    from assay.runner.observer import OnResult, OnStart
    from assay.runner.outcome import JobOutcome
    from assay.store import Store

PathArgument = str | os.PathLike[str]
WAIT_STEP_S = 0.2  # how often run(), waiting inside a running loop, looks for a cancellation
# a Python agent: (query, session_id) -> str or dict, sync or async
AgentFunction = Callable[[str, str], Any]
P = ParamSpec("P")


async def run_async(
    suite_or_path: str | os.PathLike[str] | LoadedSuite | None = None,
    *,
    target: str | AgentFunction | None = None,
    dataset: PathArgument | Sequence[PathArgument] | None = None,
    store: str | Store | None = None,
    concurrency: int | None = None,
    workers: int | None = None,
    executor: str | None = None,
    ray_address: str | None = None,
    repeat: int | None = None,
    limit: int | None = None,
    keyword: str | None = None,
    tags: Sequence[str] | None = None,
    only_failed: str | None = None,
    judge: str | None = None,
    judge_base_url: str | None = None,
    turn_timeout_s: float | None = None,
    metric_timeout_s: float | None = None,
    retries: int | None = None,
    max_file_mb: float | None = None,
    no_cache: bool = False,
    resume: str | None = None,
    on_start: OnStart | None = None,
    on_result: OnResult | None = None,
) -> Report:
    """Run a suite in the running event loop, store it, and return its report.

    ``target``, ``dataset`` (one file or several), ``concurrency``, ``workers``,
    ``executor`` ... ``no_cache``: the options of ``RunOptions`` (``keyword``, ``tags`` and
    ``only_failed`` are ``assay run``'s ``-k``, ``--tag`` and ``--only-failed``); ``target``
    may also be a Python agent function defined at the top level of a module or notebook (it
    is run as ``module:function``).
    ``store``: a store URL or an open ``Store`` (default: the CLI's, ``$ASSAY_STORE`` or
    ``sqlite:///.assay/assay.db``). ``resume``: a stored run's
    id (or a prefix) to finish; it keeps its suite and options, and the target and judge
    options must be given again. ``on_start(RunStart)``, ``on_result(TestResult)``: called
    in the loop's thread as the run starts and as each test finishes (see
    ``assay.runner.observer``: an exception there costs no result and is raised at the end).
    """
    call = _Call(suite_or_path, _options(locals()), store, resume, on_start, on_result)
    return await call.run_async()


def _sync_twin(
    twin: Callable[P, Coroutine[Any, Any, Report]],
) -> Callable[[Callable[[dict[str, Any]], Report]], Callable[P, Report]]:
    """``run`` from its body: a function with ``twin``'s (``run_async``'s) parameters, one
    list for both, that binds its call's arguments as ``twin`` would (defaults filled in)
    and hands them to the body as one mapping."""
    signature = inspect.signature(twin)

    def decorate(body: Callable[[dict[str, Any]], Report]) -> Callable[P, Report]:
        def twinned(*args: P.args, **kwargs: P.kwargs) -> Report:
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError as exc:  # as Python words a bad call: "run() got an ..."
                raise TypeError(f"{body.__name__}() {exc}") from None
            bound.apply_defaults()
            return body(bound.arguments)

        for name in ("__module__", "__name__", "__qualname__", "__doc__"):
            setattr(twinned, name, getattr(body, name))
        twinned.__signature__ = signature  # type: ignore[attr-defined]
        return twinned

    return decorate


@_sync_twin(run_async)
def run(arguments: dict[str, Any]) -> Report:
    """Run a suite and return its report; the arguments are ``run_async``'s.

    Called where an event loop is already running (a notebook cell), the run gets a loop of
    its own in a helper thread, and the hooks are called in that thread."""
    call = _Call(
        arguments["suite_or_path"],
        _options(arguments),
        arguments["store"],
        arguments["resume"],
        arguments["on_start"],
        arguments["on_result"],
    )
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return call.run()
    return _in_a_thread(call)


def execute(
    suite_or_path: str | os.PathLike[str] | LoadedSuite | None,
    options: RunOptions,
    *,
    store: Store,
    store_url: str | None = None,
    resume: str | None = None,
    on_start: OnStart | None = None,
    on_result: OnResult | None = None,
    check_names: Callable[[list[str]], None] | None = None,
) -> JobOutcome:
    """The run, in an event loop of its own, returning its outcome (summary and the few
    results a terminal shows) rather than its report; Ctrl-C returns the interrupted
    run's outcome. ``store_url``: the URL ``store`` was opened from, if any.
    ``check_names``: given the (stored) names of the tests the run will run once it is
    planned, before anything runs or is stored; what it raises (a ConfigError) ends the
    call (the CLI's gate refuses a baseline that has none of them)."""
    call = _Call(suite_or_path, options, store, resume, on_start, on_result, store_url)
    call.check_names = check_names
    try:
        return call.execute()
    finally:
        call.close()


def _options(arguments: dict[str, Any]) -> RunOptions:
    """RunOptions from ``run``'s keyword arguments (its locals: the options are its
    parameters of the same names, ``dataset`` for ``datasets``)."""
    from assay.run_options import RunOptions
    from assay.runner.request import run_options

    values = {k: v for k, v in arguments.items() if k in RunOptions.model_fields and v is not None}
    if isinstance(values.get("tags"), str):  # one tag given as a string, not its letters
        values["tags"] = [values["tags"]]
    if callable(values.get("target")):
        values["target"] = _by_name(values["target"])
    given = arguments.get("dataset")
    if given is not None:
        values["datasets"] = [given] if isinstance(given, str | os.PathLike) else list(given)
    return run_options(values, spell=lambda name: "dataset" if name == "datasets" else name)


def _by_name(agent: AgentFunction) -> str:
    """A Python agent given as a function, as ``module:function``: the name assay stores with
    the run and imports it by (a resume, the dashboard's run process)."""
    module = getattr(agent, "__module__", None) or ""
    name = getattr(agent, "__qualname__", "")
    found: Any = sys.modules.get(module)
    for part in name.split("."):
        found = getattr(found, part, None)
    if found is not agent:
        raise ConfigError(
            [
                Problem(
                    "options",
                    "target",
                    f"the agent {name or agent!r} cannot be found by name: define it with def "
                    "at the top level of a module, script or notebook cell (not a lambda or "
                    "a function inside another), or pass 'module:function'",
                )
            ]
        )
    return f"{module}:{name}"


def _suite(value: object) -> Path | LoadedSuite | None:
    from assay.cases import LoadedSuite

    if value is None or isinstance(value, LoadedSuite):
        return value
    if isinstance(value, str | os.PathLike):
        return Path(value)
    raise ConfigError(
        [
            Problem(
                "options",
                "suite_or_path",
                f"expected a suite file's path or a suite from assay.load_suite or "
                f"assay.parse_suite, got {type(value).__name__}",
            )
        ]
    )


class _Call:
    """One call of ``run``, ``run_async`` or ``execute``: its store (opened here unless
    given open, and then closed here), its job, and its end."""

    def __init__(
        self,
        suite: object,
        options: RunOptions,
        store: str | Store | None,
        resume: str | None,
        on_start: OnStart | None,
        on_result: OnResult | None,
        store_url: str | None = None,
    ) -> None:
        from assay.runner.observer import Observer

        self.suite = _suite(suite)
        self.options = options
        self.store_given = store
        self.store_url = store if isinstance(store, str) else store_url
        self.resume = resume
        self.observer = Observer(on_start, on_result)
        self.opened: Store | None = None
        self.job: RunJob | None = None
        self.stop_requested = False
        self.check_names: Callable[[list[str]], None] | None = None  # execute's

    def _prepare(self) -> RunJob:
        """Open the store and plan the run: every input checked, nothing run yet."""
        from assay.runner.job import RunJob
        from assay.runner.request import RunRequest

        given = self.store_given  # a Store, or the CLI's stand-in for a new one
        if given is None or isinstance(given, str):
            from assay.store import open_store

            given = open_store(given)
        self.opened = given
        request = RunRequest(self.suite, self.options)
        self.job = RunJob(self.opened, request, self.resume, self.store_url, self.observer)
        if self.check_names is not None:
            self.check_names(list(self.job.names))
        if self.stop_requested:  # stop() came while planning
            self.job.cancel()
        return self.job

    def close(self) -> None:
        if self.opened is not None and self.opened is not self.store_given:
            self.opened.close()

    def _ended(self, outcome: JobOutcome) -> JobOutcome:
        """A hook's exception, once the run has ended (an interruption comes first)."""
        if not outcome.interrupted:
            self.observer.raise_error(outcome.run)
        return outcome

    def execute(self) -> JobOutcome:
        return self._ended(self._prepare().execute())

    def run(self) -> Report:
        try:
            outcome = self.execute()
            if outcome.interrupted:
                stop = KeyboardInterrupt()
                stop.add_note(self._resume_note(outcome))
                raise stop
            assert self.opened is not None
            return self.opened.load_report(outcome.run.id)
        finally:
            self.close()

    async def run_async(self) -> Report:
        try:
            # planning reads files and the store: not in the caller's event loop
            job = await asyncio.to_thread(self._prepare)
            try:
                outcome = self._ended(await job.execute_async())
            except asyncio.CancelledError as stop:
                if job.outcome is not None:
                    stop.add_note(self._resume_note(job.outcome))
                raise
            assert self.opened is not None
            return await asyncio.to_thread(self.opened.load_report, outcome.run.id)
        finally:
            self.close()

    def stop(self) -> None:
        """From another thread: stop the run cleanly, or keep it from starting."""
        self.stop_requested = True
        if self.job is not None:
            self.job.cancel()

    @staticmethod
    def _resume_note(outcome: JobOutcome) -> str:
        return (
            f"assay: run {outcome.run.id[:12]} was interrupted with "
            f"{counted(outcome.summary.total_tests, 'test')} stored; finish it with "
            f"assay.run(resume={outcome.run.id[:12]!r}, ...) or {outcome.resume_command}"
        )


def _in_a_thread(call: _Call) -> Report:
    """``run`` inside a running event loop: the run in a helper thread with a loop of its
    own, while this thread waits. Ctrl-C here stops the run cleanly, as it would outside:
    raised here (a notebook), or turned by ``asyncio.run`` into a cancellation of the
    caller's task, which this thread sees as it waits."""
    box: dict[str, Any] = {}

    def main() -> None:
        try:
            box["report"] = call.run()
        except BaseException as exc:
            box["error"] = exc

    caller = asyncio.current_task()
    helper = threading.Thread(target=main, name="assay-run")
    helper.start()
    try:
        while helper.is_alive():
            helper.join(WAIT_STEP_S)
            if caller is not None and caller.cancelling() and not call.stop_requested:
                call.stop()
    except KeyboardInterrupt:
        call.stop()
        helper.join()
        raise
    if "error" in box:
        raise box["error"]
    report: Report = box["report"]
    return report
