"""Read queries the dashboard needs beyond ``Store``'s: runs with their summaries, one page of a
run's results under filters, one result, and the values a run's filters can take.

Nothing here loads every result of a run: pages are fetched by ``LIMIT``/``OFFSET`` in
position order, and the few scans that must look at every test (the tag filter, the tag
list) stream a short tail of each payload, a few hundred rows at a time.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, case, exists, func, or_, select, true
from sqlalchemy.exc import SQLAlchemyError

from assay.results.models import ReportSummary, RunInfo, TestResult, pass_percent, pass_share
from assay.store._records import RunNotFound
from assay.store.models import metric_results, runs, test_results, turn_results
from assay.store.store import READ_BATCH, Store

TAIL_CHARS = 2000  # a payload's last characters: where its "tags" list is (the last field)
_TAGS_KEY = '"tags":['
_NO_TAGS = '%"tags":[]}'


@dataclass(frozen=True)
class RunRow:
    """A stored run, its running totals and (once finished) its summary."""

    info: RunInfo
    total: int
    passed: int
    failed: int
    summary: ReportSummary | None

    @property
    def pass_rate(self) -> float | None:
        """A percentage, 0-100, as the summary's ``pass_rate``."""
        return pass_percent(self.passed, self.total)

    @property
    def pass_fraction(self) -> float | None:
        """0-1, what the pages show as "80.0%"."""
        return pass_share(self.passed, self.total)

    @property
    def duration_s(self) -> float | None:
        if not self.info.finished_at:
            return None
        try:
            start = datetime.fromisoformat(self.info.started_at)
            end = datetime.fromisoformat(self.info.finished_at)
        except ValueError:
            return None
        return max(0.0, (end - start).total_seconds())


@dataclass(frozen=True)
class ResultFilter:
    """What the run page filters on; empty fields do not filter."""

    status: str = ""
    test_type: str = ""
    metric: str = ""
    metric_failed: bool = False
    tag: str = ""
    text: str = ""


@dataclass
class ResultPage:
    items: list[tuple[int, TestResult]]  # (stored id, result), in position order
    total: int  # results matching the filter
    offset: int
    limit: int


@dataclass
class Facets:
    """The values a run's filters can take."""

    test_types: list[str] = field(default_factory=list)
    metrics: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)


def _like(text: str) -> str:
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def tags_from_tail(tail: str) -> list[str] | None:
    """The top-level ``tags`` of a TestResult payload, read from its end (``tags`` is the
    model's last field, so its key is the last unescaped ``"tags":[`` of the text); None
    when the tail is too short to hold it."""
    start = tail.rfind(_TAGS_KEY)
    if start < 0 or not tail.endswith("}"):
        return None
    try:
        value = json.loads(tail[start + len(_TAGS_KEY) - 1 : -1])
    except ValueError:
        return None
    return [str(t) for t in value] if isinstance(value, list) else None


class Queries:
    """The dashboard's reads over one open store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def _rows(self, query: Select[Any]) -> list[Any]:
        try:
            with self.store._engine.connect() as conn:
                return list(conn.execute(query))
        except SQLAlchemyError as exc:
            raise self.store._failure(exc) from exc

    # -- runs ----------------------------------------------------------------------------

    @staticmethod
    def _run_row(row: Any) -> RunRow:
        info = RunInfo.model_validate({name: getattr(row, name) for name in RunInfo.model_fields})
        summary = ReportSummary.model_validate_json(row.summary) if row.summary else None
        return RunRow(info, row.total, row.passed, row.failed, summary)

    def list_runs(self, limit: int, offset: int = 0, suite: str = "") -> tuple[list[RunRow], int]:
        """A page of runs, latest first, and how many there are (of ``suite``, if given)."""
        where = runs.c.suite_name == suite if suite else true()
        query = (
            select(runs)
            .where(where)
            .order_by(runs.c.started_at.desc(), runs.c.id.desc())
            .limit(limit)
            .offset(offset)
        )
        count = self._rows(select(func.count()).select_from(runs).where(where))[0][0]
        return [self._run_row(r) for r in self._rows(query)], int(count)

    def suites(self) -> list[str]:
        return [
            r[0]
            for r in self._rows(select(runs.c.suite_name).distinct().order_by(runs.c.suite_name))
        ]

    def history(self, suite: str, limit: int) -> list[RunRow]:
        """The latest ``limit`` runs of ``suite`` that have a summary, oldest first."""
        query = (
            select(runs)
            .where(runs.c.suite_name == suite, runs.c.summary.is_not(None))
            .order_by(runs.c.started_at.desc(), runs.c.id.desc())
            .limit(limit)
        )
        return [self._run_row(r) for r in reversed(self._rows(query))]

    def run(self, ref: str) -> RunRow:
        """The run ``ref`` names (id or unique prefix); raises RunNotFound."""
        run_id = self.store.resolve_run_id(ref)
        found = self._rows(select(runs).where(runs.c.id == run_id))
        if not found:
            raise RunNotFound(ref, self.store.url)
        return self._run_row(found[0])

    # -- results -------------------------------------------------------------------------

    def _conditions(self, run_id: str, flt: ResultFilter) -> list[ColumnElement[bool]]:
        t = test_results.c
        conditions: list[ColumnElement[bool]] = [t.run_id == run_id]
        if flt.status:
            conditions.append(t.status == flt.status)
        if flt.test_type:
            conditions.append(t.test_type == flt.test_type)
        if flt.metric:
            m = metric_results.c
            metric = [m.test_result_id == t.id, m.metric_name == flt.metric]
            if flt.metric_failed:
                metric.append(m.passed.is_(False))
            conditions.append(exists(select(1).where(*metric)))
        if flt.text:
            pattern = _like(flt.text)
            turn = turn_results.c
            in_turn = or_(
                turn.input.ilike(pattern, escape="\\"),
                turn.response.ilike(pattern, escape="\\"),
                turn.ground_truth.ilike(pattern, escape="\\"),
            )
            conditions.append(
                or_(
                    t.test_name.ilike(pattern, escape="\\"),
                    exists(select(1).where(turn.test_result_id == t.id, in_turn)),
                )
            )
        if flt.tag:
            conditions.append(t.payload.not_like(_NO_TAGS))
        return conditions

    @staticmethod
    def _ordered(query: Select[Any]) -> Select[Any]:
        t = test_results.c
        return query.order_by(t.position, t.repeat_index, t.id)

    def results(self, run_id: str, flt: ResultFilter, offset: int, limit: int) -> ResultPage:
        """One page of the run's results that match ``flt``, in position order."""
        conditions = self._conditions(run_id, flt)
        if flt.tag:
            ids, total = self._tagged_page(conditions, flt.tag, offset, limit)
            return ResultPage(self._payloads(ids), total, offset, limit)
        count = select(func.count()).select_from(test_results).where(*conditions)
        total = int(self._rows(count)[0][0])
        page = self._ordered(select(test_results.c.id).where(*conditions))
        ids = [r[0] for r in self._rows(page.limit(limit).offset(offset))]
        return ResultPage(self._payloads(ids), total, offset, limit)

    def _payloads(self, ids: list[int]) -> list[tuple[int, TestResult]]:
        if not ids:
            return []
        query = select(test_results.c.id, test_results.c.payload).where(test_results.c.id.in_(ids))
        found = {r.id: TestResult.model_validate_json(r.payload) for r in self._rows(query)}
        return [(i, found[i]) for i in ids if i in found]

    def _tails(self, conditions: list[ColumnElement[bool]]) -> Iterator[tuple[int, list[str]]]:
        """(id, tags) of every matching result, in position order, streamed."""
        payload = test_results.c.payload
        length = func.length(payload)
        start = case((length > TAIL_CHARS, length - (TAIL_CHARS - 1)), else_=1)
        query = self._ordered(
            select(test_results.c.id, func.substr(payload, start)).where(*conditions)
        )
        try:
            with self.store._engine.connect() as conn:
                rows = conn.execution_options(yield_per=READ_BATCH).execute(query)
                for test_id, tail in rows:
                    tags = tags_from_tail(tail)
                    if tags is None:  # a tags list longer than the tail: read it whole
                        tags = self._payloads([test_id])[0][1].tags
                    yield test_id, tags
        except SQLAlchemyError as exc:
            raise self.store._failure(exc) from exc

    def _tagged_page(
        self, conditions: list[ColumnElement[bool]], tag: str, offset: int, limit: int
    ) -> tuple[list[int], int]:
        ids: list[int] = []
        total = 0
        for test_id, tags in self._tails(conditions):
            if tag in tags:
                if offset <= total < offset + limit:
                    ids.append(test_id)
                total += 1
        return ids, total

    def result(self, run_id: str, test_id: int) -> TestResult | None:
        query = select(test_results.c.payload).where(
            test_results.c.run_id == run_id, test_results.c.id == test_id
        )
        found = self._rows(query)
        return TestResult.model_validate_json(found[0][0]) if found else None

    def result_id(self, run_id: str, test_name: str, repeat_index: int) -> int | None:
        t = test_results.c
        query = select(t.id).where(
            t.run_id == run_id, t.test_name == test_name, t.repeat_index == repeat_index
        )
        found = self._rows(query)
        return int(found[0][0]) if found else None

    def facets(self, run_id: str) -> Facets:
        """The test types, metrics and tags that occur in the run."""
        t = test_results.c
        types = self._rows(select(t.test_type).where(t.run_id == run_id).distinct())
        m = metric_results.c
        metrics = self._rows(
            select(m.metric_name)
            .join(test_results, t.id == m.test_result_id)
            .where(t.run_id == run_id)
            .distinct()
        )
        tags: set[str] = set()
        for _, found in self._tails([t.run_id == run_id, t.payload.not_like(_NO_TAGS)]):
            tags.update(found)
        return Facets(
            test_types=sorted(r[0] for r in types),
            metrics=sorted(r[0] for r in metrics),
            tags=sorted(tags),
        )
