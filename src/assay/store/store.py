"""The result store: runs and their test results in SQLite (the default) or PostgreSQL.

``open_store(url)`` opens (and migrates) a store; a SQLite file that does not exist yet is
created, folder and all, by the first write, so a command that fails before it writes (an
invalid suite, a mistyped ``--store`` path given to ``assay runs``) leaves nothing behind.
``Store`` writes a run as it goes
(``create_run``, ``add_results`` in batches, ``finish_run``) and reads runs back
(``list_runs``, ``iter_results``, ``load_report``, ``completed_keys`` for resume). Every
database failure surfaces as ``StoreError`` (exit code 3) naming the store, password masked.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic_core import to_jsonable_python
from sqlalchemy import URL, Engine, insert, make_url, select, update
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from assay.errors import ConfigError, Problem, StoreError
from assay.results.models import Report, ReportSummary, RunInfo, TestResult
from assay.results.rollup import summarize
from assay.store._bulk import BatchWriter
from assay.store._engine import (
    create_store_engine,
    mask_url,
    migrate,
    resolve_url,
    sqlite_file,
    sqlite_in_memory,
)
from assay.store._engine import write_connection as _write
from assay.store._failures import db_errors as _db_errors
from assay.store._failures import reason as _reason
from assay.store._failures import retry_disconnect as _retry_disconnect
from assay.store._lock import RELEASED, RunHolder, claim, held_by, pid_alive
from assay.store._records import (
    RUN_STATUSES,
    MetricOutcome,
    RunNotFound,
    RunRecord,
    RunStatus,
    TestOutcome,
)
from assay.store._rows import (
    METRIC_COLUMNS,
    TEST_COLUMNS,
    TOOL_COLUMNS,
    TURN_COLUMNS,
    Encoded,
    Prepared,
    Row,
    prepare,
)
from assay.store.models import metric_results, runs, test_results, tool_invocations, turn_results

if TYPE_CHECKING:
    from assay.store.compare import RunDiff

MIN_PREFIX = 6  # shortest run id prefix accepted in place of a full id
READ_BATCH = 500  # results fetched per round trip while streaming


def _prepared(result: TestResult | Encoded | Prepared) -> Prepared:
    if isinstance(result, Prepared):
        return result
    if isinstance(result, Encoded):
        return prepare(result.payload, result.result)
    return prepare(result.model_dump_json(), result)


def _insert(writer: BatchWriter, run_id: str, fresh: list[tuple[int, Prepared]]) -> None:
    ids = writer.reserve_ids(len(fresh))
    if writer.postgresql:
        _copy(writer, run_id, ids, fresh)
    else:
        _insert_values(writer, run_id, ids, fresh)
    writer.add_counts(run_id, len(fresh), sum(result.passed for _, result in fresh))


# no RETURNING needed: the ids are known
_TABLES = (
    (test_results.name, TEST_COLUMNS),
    (turn_results.name, TURN_COLUMNS),
    (metric_results.name, METRIC_COLUMNS),
    (tool_invocations.name, TOOL_COLUMNS),
)


def _insert_values(
    writer: BatchWriter, run_id: str, ids: list[int], fresh: list[tuple[int, Prepared]]
) -> None:
    """SQLite: each table's values in one flat list, in row order, as its multi-row
    INSERTs bind them (no row tuple made with its leading values, then taken apart)."""
    tests: list[Any] = []
    turns: list[Any] = []
    metrics: list[Any] = []
    tools: list[Any] = []
    for test_id, (position, result) in zip(ids, fresh, strict=True):
        tests += (test_id, run_id, position)
        tests += result.test
        for row in result.turns:
            turns.append(test_id)
            turns += row
        for row in result.metrics:
            metrics.append(test_id)
            metrics += row
        for row in result.tools:
            tools.append(test_id)
            tools += row
    for (table, columns), values in zip(_TABLES, (tests, turns, metrics, tools), strict=True):
        if values:
            writer.insert_values(table, columns, values)


def _copy(
    writer: BatchWriter, run_id: str, ids: list[int], fresh: list[tuple[int, Prepared]]
) -> None:
    """PostgreSQL: each table's rows, for COPY."""
    rows: list[Row] = []
    turns: list[Row] = []
    metrics: list[Row] = []
    tools: list[Row] = []
    for test_id, (position, result) in zip(ids, fresh, strict=True):
        rows.append((test_id, run_id, position, *result.test))
        turns += [(test_id, *row) for row in result.turns]
        if result.metrics:
            metrics += [(test_id, *row) for row in result.metrics]
        if result.tools:
            tools += [(test_id, *row) for row in result.tools]
    for (table, columns), batch in zip(_TABLES, (rows, turns, metrics, tools), strict=True):
        if batch:
            writer.insert(table, columns, batch)


def _check_status(status: str) -> None:
    if status not in RUN_STATUSES:
        raise ValueError(f"unknown run status {status!r}; expected one of {RUN_STATUSES}")


class Store:
    """One open store. Thread-safe for separate calls; use one per process."""

    def __init__(self, engine: Engine | None, url: URL) -> None:
        """``engine`` None: a SQLite file not created yet (see ``_writable``)."""
        self._live = engine
        self._empty: Engine | None = None
        self._url = url
        self._password = url.password if isinstance(url.password, str) else None
        self.url = mask_url(url)  # safe to print

    @property
    def in_memory(self) -> bool:
        """An in-memory SQLite store: only this Store's connection sees it (``reopen``
        would open another, empty one), and it is gone when the Store is closed."""
        return sqlite_in_memory(self._url)

    @property
    def _engine(self) -> Engine:
        """The engine to read with. Before the store's file exists, an empty in-memory
        store stands in for it (every read finds nothing) and nothing is created; once
        another process has created the file, it is opened."""
        if self._live is None:
            file = sqlite_file(self._url)
            if file is None or file.exists():
                self._live = _opened(self._url)
            else:
                if self._empty is None:
                    self._empty = _opened(make_url("sqlite://"))
                return self._empty
        return self._live

    def _writable(self) -> Engine:
        """The engine to write with: the store's file and folder are created now if they
        do not exist yet."""
        if self._live is None:
            self._live = _opened(self._url)
        return self._live

    def _failure(self, exc: BaseException) -> StoreError:
        return StoreError(f"the store {self.url} failed: {_reason(exc, self._password)}")

    # -- writing -------------------------------------------------------------------------

    @_db_errors
    def create_run(
        self,
        run: RunInfo,
        suite_fingerprint: str | None = None,
        inputs: dict[str, Any] | None = None,
        holder: RunHolder | None = None,
        now: float = 0.0,
    ) -> None:
        """Store a new run. ``run.config`` must already be redacted; ``inputs`` is what a
        resume needs (suite path, dataset paths, options) and must be JSON-able. With a
        ``holder`` (and the time ``now``), the run is held by it until ``release_run``."""
        row = run.model_dump(include=set(RunInfo.model_fields) - {"config"})
        row.update(
            config=to_jsonable_python(run.config),
            inputs=to_jsonable_python(inputs or {}),
            suite_fingerprint=suite_fingerprint,
            summary=None,
            total=0,
            passed=0,
            failed=0,
            **(holder.columns(now) if holder else RELEASED),
        )
        try:
            with _write(self._writable()) as conn, conn.begin():
                conn.execute(insert(runs), row)
        except IntegrityError:
            raise StoreError(f"a run with id {run.id!r} is already stored in {self.url}") from None

    @_db_errors
    @_retry_disconnect
    def add_results(
        self, run_id: str, results: Sequence[tuple[int, TestResult | Encoded | Prepared]]
    ) -> None:
        """Store ``(position, result)`` pairs in one transaction; a result is a TestResult,
        or its JSON already made (``Encoded``: stored as it is), or its rows already made
        (``Prepared``: what the run's writer hands over). A result whose (test_name,
        repeat_index) is already stored for this run is skipped, so writing a result twice
        (a resume, a retry) stores it once; a connection lost on the way is replaced and
        the batch written again, once."""
        batch: dict[tuple[str, int], tuple[int, TestResult | Encoded | Prepared]] = {}
        for position, result in results:
            if isinstance(result, Prepared):
                key = (result.test_name, result.repeat_index)
            else:
                model = result.result if isinstance(result, Encoded) else result
                key = (model.test_name, model.repeat_index)
            batch.setdefault(key, (position, result))
        if not batch:
            return
        with _write(self._writable()) as conn, conn.begin():
            writer = BatchWriter(conn)
            if not writer.lock_run(run_id):
                raise RunNotFound(run_id, self.url)
            fresh = [(position, _prepared(result)) for position, result in batch.values()]
            # SQLite: none stored yet, as a run's writer finds, so no probe first unless the
            # database refuses one (BatchWriter.all_new); PostgreSQL always asks
            if not writer.postgresql and writer.all_new(lambda: _insert(writer, run_id, fresh)):
                return
            stored = writer.stored_keys(run_id, batch)
            fresh = [item for key, item in zip(batch, fresh, strict=True) if key not in stored]
            if fresh:
                _insert(writer, run_id, fresh)

    @_db_errors
    @_retry_disconnect
    def finish_run(
        self, run_id: str, status: RunStatus, summary: ReportSummary, finished_at: str
    ) -> None:
        _check_status(status)
        self._update_run(
            run_id, status=status, summary=summary.model_dump_json(), finished_at=finished_at
        )

    @_db_errors
    @_retry_disconnect
    def claim_run(
        self,
        run_id: str,
        holder: RunHolder,
        now: float,
        alive: Callable[[int], bool] = pid_alive,
    ) -> None:
        """Hold the run for ``holder`` and mark it running again (a resume), unless another
        live process holds it: RunLocked (see ``_lock``). ``now``: seconds since the epoch."""
        with _write(self._engine) as conn, conn.begin():
            if not claim(conn, run_id, holder, now, alive):
                raise RunNotFound(run_id, self.url)
            conn.execute(
                update(runs)
                .where(runs.c.id == run_id)
                .values(status="running", summary=None, finished_at=None)
            )

    @_db_errors
    @_retry_disconnect
    def heartbeat(self, run_id: str, holder: RunHolder, now: float) -> bool:
        """Say ``holder`` still runs the run; False if it no longer holds it."""
        with _write(self._engine) as conn, conn.begin():
            done = conn.execute(
                update(runs).where(held_by(run_id, holder)).values(heartbeat_at=now)
            )
            return bool(done.rowcount)

    @_db_errors
    @_retry_disconnect
    def release_run(self, run_id: str, holder: RunHolder) -> None:
        """Let go of the run, if ``holder`` still holds it."""
        with _write(self._engine) as conn, conn.begin():
            conn.execute(update(runs).where(held_by(run_id, holder)).values(**RELEASED))

    @_db_errors
    @_retry_disconnect
    def set_status(self, run_id: str, status: RunStatus) -> None:
        """Set a run's status. Setting ``running`` (a resume) clears its finish time and
        summary until ``finish_run`` is called again."""
        _check_status(status)
        if status == "running":
            self._update_run(run_id, status=status, summary=None, finished_at=None)
        else:
            self._update_run(run_id, status=status)

    def _update_run(self, run_id: str, **values: Any) -> None:
        with _write(self._writable()) as conn, conn.begin():
            done = conn.execute(update(runs).where(runs.c.id == run_id).values(**values))
            if done.rowcount == 0:
                raise RunNotFound(run_id, self.url)

    # -- reading -------------------------------------------------------------------------

    @staticmethod
    def _run_row(run_id: str) -> Any:
        return select(runs).where(runs.c.id == run_id)

    @_db_errors
    def resolve_run_id(self, ref: str) -> str:
        """The full id of the run ``ref`` names: its id, or a unique prefix of at least
        six characters. Raises RunNotFound, or ConfigError when the prefix is ambiguous."""
        with self._engine.connect() as conn:
            if conn.execute(select(runs.c.id).where(runs.c.id == ref)).first() is not None:
                return ref
            if len(ref) < MIN_PREFIX:
                raise RunNotFound(ref, self.url, too_short=MIN_PREFIX)
            pattern = ref.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            query = select(runs.c.id).where(runs.c.id.like(pattern, escape="\\")).limit(6)
            matches: list[str] = list(conn.execute(query).scalars())
        if not matches:
            raise RunNotFound(ref, self.url)
        if len(matches) > 1:
            shown = ", ".join(matches[:5]) + (", ..." if len(matches) > 5 else "")
            raise ConfigError(
                [
                    Problem(
                        "options",
                        "RUN_ID",
                        f"{ref!r} is ambiguous: it starts the ids of several runs ({shown}); "
                        "give more of the id",
                    )
                ]
            )
        return matches[0]

    @_db_errors
    def get_run(self, run_id: str) -> RunInfo | None:
        """The run with this id (or unique id prefix), or None."""
        try:
            return self._run_info(self._row(self.resolve_run_id(run_id)))
        except RunNotFound:
            return None

    def _row(self, run_id: str) -> Any:
        with self._engine.connect() as conn:
            row = conn.execute(self._run_row(run_id)).first()
        if row is None:
            raise RunNotFound(run_id, self.url)
        return row

    @staticmethod
    def _run_info(row: Any) -> RunInfo:
        return RunInfo.model_validate({name: getattr(row, name) for name in RunInfo.model_fields})

    @_db_errors
    def run_inputs(self, run_id: str) -> dict[str, Any]:
        """What the run was started with, for resuming it (``inputs`` of ``create_run``)."""
        inputs: dict[str, Any] = self._row(self.resolve_run_id(run_id)).inputs or {}
        return inputs

    @_db_errors
    def completed_keys(self, run_id: str) -> set[tuple[str, int]]:
        """(test_name, repeat_index) of every result stored for the run."""
        query = select(test_results.c.test_name, test_results.c.repeat_index).where(
            test_results.c.run_id == run_id
        )
        with self._engine.connect() as conn:
            return {(name, repeat) for name, repeat in conn.execute(query)}

    @_db_errors
    def list_runs(self, limit: int = 50) -> list[RunRecord]:
        """The latest runs first."""
        columns = [runs.c[name] for name in RunRecord.__dataclass_fields__]
        query = select(*columns).order_by(runs.c.started_at.desc(), runs.c.id.desc())
        with self._engine.connect() as conn:
            return [RunRecord(**row._mapping) for row in conn.execute(query.limit(limit))]

    def iter_results(self, run_id: str) -> Iterator[TestResult]:
        """The run's results in position order, streamed a few hundred at a time."""
        query = (
            select(test_results.c.payload)
            .where(test_results.c.run_id == run_id)
            .order_by(test_results.c.position, test_results.c.repeat_index, test_results.c.id)
        )
        try:
            with self._engine.connect() as conn:
                rows = conn.execution_options(yield_per=READ_BATCH).execute(query)
                for payload in rows.scalars():
                    yield TestResult.model_validate_json(payload)
        except SQLAlchemyError as exc:
            raise self._failure(exc) from exc

    @_db_errors
    def load_report(self, run_id: str) -> Report:
        """The stored run as a Report. A run that has not finished gets a summary computed
        from the results stored so far."""
        row = self._row(self.resolve_run_id(run_id))
        results = list(self.iter_results(row.id))
        if row.summary is not None:
            summary = ReportSummary.model_validate_json(row.summary)
        else:
            summary = summarize(results)
        return Report(run=self._run_info(row), results=results, summary=summary)

    @_db_errors
    def outcomes(self, run_id: str) -> list[TestOutcome]:
        """Each stored test's status and its test-level metric scores, in position order:
        what comparing two runs needs, read from the normalised tables."""
        tests = (
            select(
                test_results.c.id,
                test_results.c.test_name,
                test_results.c.repeat_index,
                test_results.c.status,
                test_results.c.passed,
            )
            .where(test_results.c.run_id == run_id)
            .order_by(test_results.c.position, test_results.c.repeat_index, test_results.c.id)
        )
        metrics = (
            select(
                metric_results.c.test_result_id,
                metric_results.c.metric_name,
                metric_results.c.score,
                metric_results.c.passed,
            )
            .join(test_results, test_results.c.id == metric_results.c.test_result_id)
            .where(test_results.c.run_id == run_id, metric_results.c.turn_index.is_(None))
            .order_by(metric_results.c.test_result_id, metric_results.c.seq)
        )
        with self._engine.connect() as conn:
            found = {
                row.id: TestOutcome(row.test_name, row.repeat_index, row.status, row.passed)
                for row in conn.execute(tests)
            }
            for test_id, name, score, passed in conn.execute(metrics):
                found[test_id].metrics.setdefault(name, MetricOutcome(score, passed))
            # only the tests that sent files are read whole (compact JSON: no spaces)
            with_files = select(test_results.c.id, test_results.c.payload).where(
                test_results.c.run_id == run_id,
                test_results.c.payload.contains('"processed_files":[{', autoescape=True),
            )
            for test_id, payload in conn.execute(with_files):
                sent = TestResult.model_validate_json(payload).processed_files
                files = tuple((f.path, f.sha256) for f in sent)
                found[test_id] = dataclasses.replace(found[test_id], files=files)
        return list(found.values())

    def compare_runs(self, run_a: str, run_b: str) -> RunDiff:
        """Run B compared with run A (ids or unique prefixes), test by test and metric by
        metric; see ``assay.store.compare`` (imported here: a run never compares)."""
        from assay.store.compare import diff_outcomes

        a, b = self.resolve_run_id(run_a), self.resolve_run_id(run_b)
        return diff_outcomes(a, self.outcomes(a), b, self.outcomes(b))

    def reopen(self) -> Store:
        """A new Store on the same database with connections of its own (for another
        process: connections must never cross a fork)."""
        return open_store(self._url.render_as_string(hide_password=False))

    def close(self) -> None:
        for engine in (self._live, self._empty):
            if engine is not None:
                engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def open_store(url: str | None = None) -> Store:
    """Open the store at ``url`` (default: $ASSAY_STORE, else ``sqlite:///.assay/assay.db``)
    and migrate its schema to the current version; a SQLite file that does not exist yet is
    created by the first write. Raises StoreError when it cannot."""
    parsed = resolve_url(url)
    file = sqlite_file(parsed)
    if file is not None and not file.exists():
        _check_creatable(file, parsed)
        return Store(None, parsed)
    return Store(_opened(parsed), parsed)


def _check_creatable(file: Path, parsed: URL) -> None:
    """Say now, not at the first write, when the file could not be created there."""
    existing = next((p for p in file.absolute().parents if p.exists()), None)
    if existing is None:
        return
    if not existing.is_dir():
        why = f"{str(existing)!r} is a file, not a folder"
    elif not os.access(existing, os.W_OK | os.X_OK):
        why = f"the folder {str(existing)!r} is not writable"
    else:
        return
    raise StoreError(f"cannot open the store {mask_url(parsed)}: {why}")


def _opened(parsed: URL) -> Engine:
    password = parsed.password if isinstance(parsed.password, str) else None
    engine: Engine | None = None
    try:
        engine = create_store_engine(parsed)
        migrate(engine)
    except StoreError:
        if engine is not None:
            engine.dispose()
        raise
    except Exception as exc:  # a driver, OS or migration failure: say which store and why
        if engine is not None:
            engine.dispose()
        reason = _reason(exc, password)
        raise StoreError(f"cannot open the store {mask_url(parsed)}: {reason}") from exc
    return engine
