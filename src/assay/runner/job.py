"""One run from request to stored results: plan, store, run, summarise. ``assay.run`` and
``assay run`` are built on it.

Every finished test is written to the store as it finishes (in batches, by the result
writer), so memory does not grow with the number of tests and a run killed at any moment
loses nothing that was written; ``resume`` re-runs only the tests without a stored result.

``execute_async`` is the run, awaitable in any event loop; cancelling it (or Ctrl-C under
``execute``, which runs it in a loop of its own) stops the run cleanly: every finished result
is stored and the run is marked interrupted, resumable.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import time
import uuid
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from assay._isolation import describe, loop_stop_guarded, user_code_guarded
from assay._words import counted
from assay.cases import LoadedSuite
from assay.cases.models import TestCase
from assay.errors import AssayError, ConfigError, Problem, StoreError
from assay.results.models import RunInfo, TestResult
from assay.results.rollup import SummaryBuilder
from assay.runner import sharding
from assay.runner._holding import hold_in_this_process, let_go_in_this_process
from assay.runner.conversation import CaseSettings, now_iso
from assay.runner.observer import Observer, RunStart
from assay.runner.outcome import JobOutcome, Shown
from assay.runner.plan import RunPlan, plan_run
from assay.runner.pool import EncodedSink, Lost, WorkerFailed
from assay.runner.request import (
    ENDPOINT_OPTIONS,
    IN_MEMORY,
    RunRequest,
    check_endpoints,
    endpoints,
    endpoints_refused,
    fingerprint,
)
from assay.runner.scheduler import ResultSink, run_cases
from assay.runner.select import failed_tests, rerun_id, rerun_request, select_cases
from assay.runner.shard import Encoded
from assay.runner.storable import storable_text
from assay.runner.writer import encode_result, result_writer
from assay.store._lock import RunHolder
from assay.targets.base import Target
from assay.version import __version__

if TYPE_CHECKING:
    from assay.models import ChatModel, ResponseCache
    from assay.store import Store  # SQLAlchemy: imported once the store is opened
    from assay.store._rows import Handed


def git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return (out.stdout.strip() or None) if out.returncode == 0 else None


def _slots(cases: list[TestCase], repeat: int) -> Iterator[tuple[int, TestCase, int]]:
    """Every (position, case, repeat_index) of a run; positions order the stored results."""
    for i, case in enumerate(cases):
        for r in range(repeat):
            yield i * repeat + r, case, r


def _stored_names(cases: list[TestCase]) -> list[str]:
    """Each case's name as the store keeps it (secrets masked, NUL replaced): what resume
    compares. Two names that would be stored alike are refused, or one result would be lost."""
    names = [storable_text(case.name) for case in cases]
    seen: dict[str, TestCase] = {}
    for case, name in zip(cases, names, strict=True):
        if name in seen:
            problem = (
                f"test name {name!r} is also the stored name of {seen[name].source} "
                "(once secrets are masked and NUL characters replaced); make the names differ"
            )
            raise ConfigError([Problem(case.source, "name", problem)])
        seen[name] = case
    return names


def lost_tests(reasons: list[str], count: int, resume_command: str) -> str:
    """Why a run with workers ended with ``count`` tests lost, and how to run them."""
    have = "has" if count == 1 else "have"
    return (
        f"{'; '.join(reasons) or 'every worker stopped'}: {counted(count, 'test')} {have} no "
        f"result (the other results are stored); run them with {resume_command}"
    )


class RunCutShort(AssayError):
    """The run's process was made to stop outside any turn (``SystemExit`` out of its event
    loop); what finished is stored and the run is resumable."""

    exit_code = 3


class RunJob:
    """A planned run bound to a store: ``execute`` runs what is left and records it."""

    def __init__(
        self,
        store: Store,
        request: RunRequest,
        resume: str | None = None,
        store_url: str | None = None,
        observer: Observer | None = None,
    ) -> None:
        self.store = store
        self.store_url = store_url
        self.observer = observer or Observer()
        self.holder = RunHolder.this_process()
        self.resume_id: str | None = None
        self.outcome: JobOutcome | None = None  # set when the run has ended, even interrupted
        stored_fingerprint: str | None = None
        inputs: dict[str, Any] = {}
        started, given = RunRequest(), request.options
        if resume is not None:
            self.resume_id = store.resolve_run_id(resume)
            inputs = store.run_inputs(self.resume_id)
            stored = inputs.get("request") or {}
            started = RunRequest.from_inputs(stored)
            request = started.resumed_with(request, self.resume_id, bool(stored.get(IN_MEMORY)))
            stored_fingerprint = inputs.get("fingerprint")
        rerun: tuple[str, set[str] | None] = ("", None)
        if request.options.only_failed is not None:  # checked first: a typo costs no planning
            rerun = failed_tests(store, request.options.only_failed)
            if resume is None:
                request = rerun_request(request, store, rerun[0])
        self.request = request
        self.plan: RunPlan = self._plan(started)
        # the one override rule: an option given > the suite's execution: > the default
        suite_execution = self.plan.suite.execution
        execution = request.options.execution(suite_execution)
        self.plan.suite = self.plan.suite.model_copy(update={"execution": execution})
        self.endpoints = endpoints(self.plan.target, self.plan.judge)
        if self.resume_id is not None:
            check_endpoints(self.resume_id, inputs.get("endpoints"), self.endpoints, started)
        suite = request.suite if isinstance(request.suite, LoadedSuite) else None
        self.fingerprint = fingerprint(self.plan.files, suite)
        if self.resume_id and stored_fingerprint and stored_fingerprint != self.fingerprint:
            raise ConfigError(
                [
                    Problem(
                        "options",
                        "--resume",
                        (
                            f"the suite, dataset or attached files changed since run "
                            f"{self.resume_id[:12]} started, so its stored results would not "
                            "match; start a new run"
                        ),
                    )
                ]
            )
        if self.resume_id is not None:  # the suite is the run's: its execution.repeat too
            started.check_kept(
                given, self.resume_id, suite_execution, lambda ref: rerun_id(store, ref)
            )
        self.repeat = execution.repeat
        self.concurrency = execution.concurrency
        options = request.options
        chosen = select_cases(self.plan.cases, options.keyword, options.tags, rerun[1], rerun[0])
        self.cases = chosen[: options.limit] if options.limit else chosen
        self._goal: Any = None  # an assay.simulation.GoalRuntime, once execute builds it
        self.names = _stored_names(self.cases)
        total = len(self.cases) * self.repeat
        self.sharding = sharding.choose(request.options, self.plan, self.cases, total)
        self._stop_requested = False
        self._unstored: RunInfo | None = None  # a new run, stored when its tests are under way
        self._start: RunStart | None = None  # on_start's, told once that run is stored
        self._store_failure: BaseException | None = None
        self._running: tuple[asyncio.AbstractEventLoop, asyncio.Task[Any]] | None = None

    def _plan(self, started: RunRequest) -> RunPlan:
        request, options = self.request, self.request.options
        try:
            return plan_run(
                request.suite,
                list(options.datasets),
                options.target,
                options.judge,
                options.judge_base_url,
                options.max_file_mb,
            )
        except ConfigError as exc:
            # no target: a resume without the --target the run started with? say that
            missing = [
                n
                for n in ENDPOINT_OPTIONS
                if getattr(started.options, n) and not getattr(options, n)
            ]
            no_target = any(problem.path == "target" for problem in exc.problems)
            if self.resume_id is None or not missing or not no_target:
                raise
            why = f"it was started with {started.endpoint_options()}, not given now"
            raise endpoints_refused(self.resume_id, why, started) from None

    def _start_run(self, target: Target) -> tuple[RunInfo, set[tuple[str, int]]]:
        """The run, stored and held by this process, and the results it has already."""
        if self.resume_id is not None:
            hold_in_this_process(self.resume_id, self.holder)
            try:
                self.store.claim_run(self.resume_id, self.holder, time.time())  # or RunLocked
                run = self.store.get_run(self.resume_id)
                assert run is not None  # resolve_run_id found it
                return run, self.store.completed_keys(run.id)
            except BaseException:
                let_go_in_this_process(self.resume_id)
                raise
        run = self._new_run(target)
        self._store_new_run(run)
        return run, set()

    def _new_run(self, target: Target) -> RunInfo:
        """A new run, not stored yet. Its suite name and config are masked now, once the
        target and the judge are made and have registered their secrets."""
        return RunInfo(
            id=uuid.uuid4().hex,
            suite_name=storable_text(self.plan.suite.name),
            status="running",
            started_at=now_iso(),
            assay_version=__version__,
            git_commit=git_commit(),
            target=target.description or None,
            config=self.plan.stored_config(),
        )

    def _store_new_run(self, run: RunInfo) -> None:
        """Store the new run, held by this process."""
        inputs = {
            "request": self.request.to_inputs(),
            "fingerprint": self.fingerprint,
            "endpoints": self.endpoints,
        }
        hold_in_this_process(run.id, self.holder)
        try:
            self.store.create_run(run, self.fingerprint, inputs, self.holder, time.time())
        except BaseException:
            let_go_in_this_process(run.id)
            raise

    def _seed(self, run: RunInfo, builder: SummaryBuilder, shown: Shown) -> None:
        """A summary (and terminal table) built from the results stored: a resumed run's
        start, or a run's end when the store replaced some results by errors."""
        positions = {
            (name, r): pos
            for (pos, _, r), name in zip(self._slots(), self._slot_names(), strict=True)
        }
        for result in self.store.iter_results(run.id):
            builder.add(result)
            shown.add(positions.get((result.test_name, result.repeat_index), 0), result)

    def _judge(self) -> tuple[ChatModel | None, ResponseCache | None]:
        """The judge model, built before anything runs so a missing key exits 2."""
        if self.plan.judge is None:
            return None, None
        from assay.models import ResponseCache, default_cache_path

        cache = (
            None
            if self.request.options.no_cache
            else ResponseCache(default_cache_path(self.store_url))
        )
        return self.plan.make_judge(cache), cache

    def _goal_runtime(self, judge: ChatModel | None, cache: ResponseCache | None) -> Any:
        """What goal tests need (their simulated user, judge and contracts), when the run
        has any; the simulator defaults to the judge's model."""
        if not any(case.type == "goal" for case in self.cases):
            return None
        from assay.simulation import ContractBook, GoalRuntime

        simulator = judge
        config = self.plan.simulator
        if config is not None and config != self.plan.judge:
            simulator = self.plan.make_simulator(config, cache)
        contracts = ContractBook(self.plan.base_dir, self.store, judge)
        return GoalRuntime(simulator, judge, contracts)

    def execute(self) -> JobOutcome:
        """The run in an event loop of its own (``asyncio.run``). Ctrl-C stops it cleanly:
        the outcome is then the interrupted run's. Not from inside a running event loop:
        await ``execute_async`` there."""
        try:
            return asyncio.run(self._execute_on_own_loop())
        except (KeyboardInterrupt, asyncio.CancelledError):
            if self.outcome is None or not self.outcome.interrupted:
                raise  # before the run was stored, or during its clean-up
            return self.outcome
        except SystemExit as exc:  # from no turn: a callback or task the user's code left
            raise RunCutShort(self._cut_short(exc)) from None

    async def _execute_on_own_loop(self) -> JobOutcome:
        """``execute_async`` on a loop the run owns: the user's code cannot stop it."""
        with loop_stop_guarded(asyncio.get_running_loop()):
            return await self.execute_async()

    def _cut_short(self, exc: SystemExit) -> str:
        """Why the run stopped when ``SystemExit`` left its event loop (asyncio lets it out
        of a callback or a task: nothing of assay's could catch it), and how to finish it.
        An exit status of its own (3): never a pass, whatever code was given."""
        why = f"the run's event loop was stopped by {describe(exc)}, raised outside any turn"
        where = "(by a callback or task the agent's or a grader's code started)"
        if self.outcome is None:
            return f"{why} {where}; nothing was stored"
        return (
            f"{why} {where}; {self.outcome.summary.total_tests} tests are stored; "
            f"run the rest with {self.outcome.resume_command}"
        )

    def cancel(self) -> None:
        """Stop the run as Ctrl-C would, from any thread: what finished is stored and the
        run is marked interrupted. Before the run starts, it will not start."""
        self._stop_requested = True
        if self._running is not None:
            loop, task = self._running
            with contextlib.suppress(RuntimeError):  # the loop closed: the run has ended
                loop.call_soon_threadsafe(task.cancel)

    async def execute_async(self) -> JobOutcome:
        """The run, in the running event loop. Cancelled, it stores what finished, marks
        the run interrupted (``self.outcome``) and raises CancelledError."""
        task = asyncio.current_task()
        assert task is not None  # a coroutine awaited in a loop runs in a task
        self._running = (asyncio.get_running_loop(), task)
        if self._stop_requested:  # cancel() came first (it reads _running after its flag)
            raise asyncio.CancelledError
        try:
            # user code (the agent's import included) cannot end the process nor the run
            with user_code_guarded(task):
                target = self.plan.make_target()
                judge, cache = self._judge()
                self._goal = self._goal_runtime(judge, cache)
                try:
                    return await self._execute(target, judge, cache)
                finally:
                    if cache is not None:
                        cache.close()
        finally:
            self._running = None

    def _store_run(self) -> None:
        """Store the run if it is not yet (``_unstored``), then tell ``on_start``; raise
        the failure if storing it failed."""
        if self._store_failure is not None:
            raise self._store_failure
        run, self._unstored = self._unstored, None
        if run is not None:
            try:
                self._store_new_run(run)
            except BaseException as exc:
                self._store_failure = exc
                raise
            assert self._start is not None  # set before the run's tests are handed out
            self.observer.started(self._start)

    def _store_run_now(self) -> None:
        """``_store_run`` from the event loop: a failure is raised where the run next needs
        the store (its next result, or its end)."""
        with contextlib.suppress(Exception):
            self._store_run()

    def _slots(self) -> Iterator[tuple[int, TestCase, int]]:
        return _slots(self.cases, self.repeat)

    def _slot_names(self) -> Iterator[str]:
        return (name for name in self.names for _ in range(self.repeat))

    async def _execute(
        self, target: Target, judge: ChatModel | None, cache: ResponseCache | None
    ) -> JobOutcome:
        # A new run on worker processes is stored once its first tests are on their way
        # (``_drive_shards``): its SQL (and a new store's schema) then costs the run nothing.
        done: set[tuple[str, int]] = set()
        if self.resume_id is None and self.sharding.sharded and self.sharding.executor == "local":
            run = self._unstored = self._new_run(target)
        else:
            run, done = self._start_run(target)
        work = [
            slot
            for slot, name in zip(self._slots(), self._slot_names(), strict=True)
            if (name, slot[2]) not in done
        ]
        builder = SummaryBuilder(self.repeat)
        shown = Shown(len(self.cases) * self.repeat)
        if done:
            self._seed(run, builder, shown)
        writer = result_writer(self.store, run.id, self.holder)
        settings = CaseSettings(
            turn_timeout_s=self.plan.suite.execution.turn_timeout_s,
            metric_timeout_s=self.plan.suite.execution.metric_timeout_s,
            judge=judge,
            run_id=run.id,
            goal=self._goal,
        )
        status = "failed"
        stopped: BaseException | None = None  # the cancellation or Ctrl-C that stopped it
        store_failed = False  # the writer's store failed: its error, with the resume command
        lost = Lost()
        try:

            def on_stored(
                position: int, result: TestResult, payload: bytes, rows: Handed | None
            ) -> None:
                writer.add(position, payload, rows)  # handed to the store before anyone sees it
                builder.add(result)
                shown.add(position, result)
                self.observer.finished(result)

            def on_result(position: int, result: TestResult) -> None:
                on_stored(position, *encode_result(result))

            def on_encoded(item: Encoded) -> None:  # from a worker, tallied there
                self._store_run()  # before its first result
                position, payload, tally, rows = item
                writer.add(position, payload, rows)  # handed to the store before anyone sees it
                builder.add_tally(tally)
                if not self.observer.wants_results and not shown.keeps(tally.passed):
                    # nobody needs the whole result: it is not parsed back
                    self.observer.finished_status(tally.test_name, tally.status)
                    return
                result = TestResult.model_validate_json(payload)
                shown.add(position, result)
                self.observer.finished(result)

            total = len(self.cases) * self.repeat
            start = RunStart(run.model_copy(), total, total - len(work), self.sharding.why)
            if self._unstored is None:
                self.observer.started(start)
            else:  # once it is stored
                self._start = start
            if self.sharding.sharded:
                cache_path = None if cache is None else str(cache.path)  # the workers' own
                lost = await self._drive_shards(target, run.id, cache_path, work, on_encoded)
            else:
                await self._drive(target, judge, work, settings, on_result)
            # tests lost with a worker have no result: the run is resumable, as interrupted
            status = "interrupted" if lost.positions else "completed"
        except (asyncio.CancelledError, KeyboardInterrupt) as exc:
            status, stopped = "interrupted", exc
        finally:
            try:
                writer.close()  # every result handed over is written before the status
                if writer.replaced:  # the store kept error results for these: count those
                    builder, shown = SummaryBuilder(self.repeat), Shown(shown.total)
                    self._seed(run, builder, shown)
            except StoreError as exc:  # the writer died, or the store failed it
                status = "failed"  # results were lost on the way to the store
                store_failed = True
                resume = self.request.resume_command(run.id, self.store_url)
                raise StoreError(
                    f"{exc}; the results written before that are stored: {resume} runs the "
                    "tests without one"
                ) from None
            except BaseException:
                status = "failed"  # results were lost on the way to the store
                raise
            finally:
                summary = builder.build()
                # a store that failed the writer (a PostgreSQL server gone) most likely fails
                # these writes too: its first error, saying how to resume, is the one raised
                # (the run, still marked running, is free to resume once this process ends)
                with contextlib.suppress(StoreError) if store_failed else contextlib.nullcontext():
                    self._store_run()  # a run that ended before it was stored, now (or its failure)
                    try:
                        if status == "completed" or status == "interrupted":
                            run.status = status  # type: ignore[assignment]
                            run.finished_at = now_iso()
                            self.store.finish_run(run.id, run.status, summary, run.finished_at)
                        else:
                            run.status = "failed"
                            self.store.set_status(run.id, "failed")
                    finally:
                        try:
                            self.store.release_run(run.id, self.holder)
                        finally:
                            let_go_in_this_process(run.id)
        self.outcome = JobOutcome(
            run,
            summary,
            shown.ordered(),
            status == "interrupted",
            self.request.resume_command(run.id, self.store_url),
        )
        if stopped is not None:
            raise stopped
        if lost.positions:
            raise WorkerFailed(
                lost_tests(lost.reasons, len(lost.positions), self.outcome.resume_command)
            )
        return self.outcome

    async def _drive_shards(
        self,
        target: Target,
        run_id: str,
        cache_path: str | None,
        work: list[tuple[int, TestCase, int]],
        on_encoded: EncodedSink,
    ) -> Lost:
        """The work on worker processes or Ray tasks; this process checks the target is
        up before they get any (a run against a dead agent fails here, once) and stores
        every result."""

        async def probe() -> None:
            await target.start()
            await target.aclose()
            # once the workers have their first tests (handed over when this returns)
            asyncio.get_running_loop().call_soon(self._store_run_now)

        return await sharding.drive(
            self.sharding, self.plan, self.cases, run_id, cache_path, work, on_encoded, probe
        )

    async def _drive(
        self,
        target: Target,
        judge: ChatModel | None,
        work: Iterable[tuple[int, TestCase, int]],
        settings: CaseSettings,
        on_result: ResultSink,
    ) -> None:
        await target.start()
        models = {id(m): m for m in (judge, getattr(self._goal, "simulator", None)) if m}
        try:
            for model in models.values():  # an unreachable model stops the run, as a target
                await model.check_reachable()
            await run_cases(work, target, settings, self.concurrency, on_result)
        finally:
            await target.aclose()
            for model in models.values():
                await model.aclose()  # inside the loop that opened its HTTP session
