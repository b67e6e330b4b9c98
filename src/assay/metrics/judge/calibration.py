"""Checking a judge metric against human labels (``assay judge check``).

A labelled file (CSV, XLSX or JSONL) has the columns ``question``, ``response``,
``reference`` (optional), ``context`` (optional) and ``label``: ``pass``/``fail``,
``1``/``0``, ``true``/``false``, ``yes``/``no``, or any number. The metric scores every row;
binary labels are compared with the metric's pass verdicts (accuracy, Cohen's kappa),
numeric labels with its scores (Spearman).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from assay.datasets.columns import LABELLED_ALIASES
from assay.datasets.readers import Table, fail, open_table
from assay.errors import DatasetError, Problem
from assay.metrics.base import Metric, MetricContext
from assay.metrics.judge.agreement import Confusion, spearman
from assay.results.models import MetricResult

if TYPE_CHECKING:
    from assay.models.protocol import JudgeModel

LabelKind = Literal["binary", "numeric"]

COLUMNS = {
    role: tuple(name.casefold() for name in names) for role, names in LABELLED_ALIASES.items()
}
REQUIRED = ("question", "response", "label")
_TRUE = {"pass", "passed", "true", "yes", "y", "1", "1.0"}
_FALSE = {"fail", "failed", "false", "no", "n", "0", "0.0"}


@dataclass(frozen=True)
class LabelledRow:
    number: int  # the row (or line) number as the user sees it
    question: str
    response: str
    reference: str | None
    context: str | None
    label: str


@dataclass(frozen=True)
class LabelledFile:
    source: str
    rows: list[LabelledRow]
    kind: LabelKind
    columns: dict[str, str]  # role -> the header used

    def label_value(self, row: LabelledRow) -> float:
        text = row.label.strip().casefold()
        if self.kind == "binary":
            return 1.0 if text in _TRUE else 0.0
        return float(text)


def _map_columns(table: Table) -> dict[str, int]:
    found: dict[str, int] = {}
    for index, name in enumerate(table.header):
        key = name.strip().casefold()
        for role, aliases in COLUMNS.items():
            if key in aliases and role not in found:
                found[role] = index
    missing = [role for role in REQUIRED if role not in found]
    if missing:
        raise fail(
            table.source,
            f"no {' or '.join(missing)} column: a labelled file needs question, response and "
            f"label columns (reference and context are optional); found: "
            + (", ".join(table.header) or "no columns"),
        )
    return found


def _label_kind(rows: Sequence[LabelledRow], source: str, unit: str) -> LabelKind:
    if all(r.label.strip().casefold() in _TRUE | _FALSE for r in rows):
        return "binary"
    problems = []
    for row in rows:
        try:
            number = float(row.label)
        except ValueError:
            number = math.nan
        if not math.isfinite(number):
            problems.append(
                Problem(
                    source,
                    f"{unit} {row.number}, column label",
                    f"{row.label!r} is neither pass/fail (1/0) nor a number; "
                    "the labels must be all pass/fail or all numbers",
                )
            )
    if problems:
        raise DatasetError(problems[:20])
    return "numeric"


def load_labelled(path: Path, source: str | None = None) -> LabelledFile:
    source = source or str(path)
    rows: list[LabelledRow] = []
    with open_table(path, source) as table:
        cols = _map_columns(table)

        def cell(cells: list[str], role: str) -> str | None:
            index = cols.get(role)
            if index is None or index >= len(cells):
                return None
            return cells[index].strip() or None

        for number, cells in table.rows:
            if not any(c.strip() for c in cells):
                continue
            label = cell(cells, "label")
            if label is None:
                raise fail(source, "no label: every row needs one", table.where(number, "label"))
            rows.append(
                LabelledRow(
                    number,
                    cell(cells, "question") or "",
                    cell(cells, "response") or "",
                    cell(cells, "reference"),
                    cell(cells, "context"),
                    label,
                )
            )
        unit = table.unit
        columns = {role: table.header[i] for role, i in cols.items()}
    if not rows:
        raise fail(source, "no labelled rows: the file is empty")
    return LabelledFile(source, rows, _label_kind(rows, source, unit), columns)


@dataclass
class Scored:
    row: LabelledRow
    result: MetricResult | None = None
    not_run: str | None = None


async def score_rows(
    metric: Metric, judge: JudgeModel, rows: Sequence[LabelledRow], concurrency: int = 8
) -> list[Scored]:
    """The metric on every row, ``concurrency`` at a time; rows keep their order."""
    gate = asyncio.Semaphore(concurrency)

    async def one(row: LabelledRow) -> Scored:
        ctx = MetricContext(
            input=row.question,
            response=row.response,
            ground_truth=row.reference,
            context=row.context,
            judge=judge,
        )
        reason = metric.missing_input(ctx)
        if reason is not None:
            return Scored(row, not_run=reason)
        async with gate:
            return Scored(row, await metric.evaluate(ctx))

    return list(await asyncio.gather(*(one(r) for r in rows)))


@dataclass
class AgreementReport:
    file: LabelledFile
    metric: str
    judge: str
    threshold: float | None
    scored: list[Scored] = field(default_factory=list)

    @property
    def usable(self) -> list[Scored]:
        return [s for s in self.scored if s.result is not None and s.result.score is not None]

    @property
    def confusion(self) -> Confusion | None:
        if self.file.kind != "binary":
            return None
        usable = self.usable
        judged = [bool(s.result.passed) for s in usable if s.result is not None]
        labels = [self.file.label_value(s.row) == 1.0 for s in usable]
        return Confusion.of(judged, labels)

    @property
    def spearman(self) -> float | None:
        usable = self.usable
        scores = [s.result.score for s in usable if s.result and s.result.score is not None]
        return spearman(scores, [self.file.label_value(s.row) for s in usable])

    def to_dict(self) -> dict[str, Any]:
        confusion = self.confusion
        errors = [
            {"row": s.row.number, "error": s.result.error}
            for s in self.scored
            if s.result is not None and s.result.score is None
        ]
        return {
            "file": self.file.source,
            "metric": self.metric,
            "judge": self.judge,
            "threshold": self.threshold,
            "labels": self.file.kind,
            "columns": self.file.columns,
            "rows": len(self.scored),
            "scored": len(self.usable),
            "errors": errors,
            "not_run": [
                {"row": s.row.number, "reason": s.not_run} for s in self.scored if s.not_run
            ],
            "accuracy": confusion.accuracy if confusion else None,
            "kappa": confusion.kappa if confusion else None,
            "confusion": confusion.to_dict() if confusion else None,
            "spearman": self.spearman if self.file.kind == "numeric" else None,
            "results": [
                {
                    "row": s.row.number,
                    "label": s.row.label,
                    "score": s.result.score if s.result else None,
                    "passed": s.result.passed if s.result else None,
                    "reasoning": s.result.reasoning if s.result else None,
                }
                for s in self.scored
            ],
        }

    def lines(self) -> list[str]:
        data = self.to_dict()
        out = [
            f"{self.metric} judged by {self.judge} on {self.file.source}: {data['rows']} rows, "
            f"{data['scored']} scored, {len(data['errors'])} errors, "
            f"{len(data['not_run'])} not run"
        ]
        confusion = self.confusion
        if not self.usable:  # agreement over no rows is not "undefined": nothing was scored
            first = (data["errors"] or data["not_run"] or [{}])[0]
            why = first.get("error") or first.get("reason")
            out.append(
                "nothing was scored, so there is no agreement to report"
                + (f"; the first row's problem: {why}" if why else "")
            )
        elif confusion is not None:
            kappa = confusion.kappa
            accuracy = confusion.accuracy
            agree = confusion.both_pass + confusion.both_fail
            out.append(
                f"labels pass/fail; the metric passes at score >= {self.threshold}: "
                + (
                    f"accuracy {accuracy:.3f} ({agree}/{confusion.total}), "
                    if accuracy is not None
                    else ""
                )
                + (
                    f"Cohen's kappa {kappa:.3f}"
                    if kappa is not None
                    else "Cohen's kappa undefined (judge and labels all of one class)"
                )
            )
            out.append(
                f"judge pass / label pass {confusion.both_pass}, judge pass / label fail "
                f"{confusion.judge_only}, judge fail / label pass {confusion.label_only}, "
                f"judge fail / label fail {confusion.both_fail}"
            )
        else:
            rho = self.spearman
            out.append(
                "labels numeric: "
                + (f"Spearman {rho:.3f}" if rho is not None else "Spearman undefined")
                + f" over {data['scored']} rows"
            )
        out += [f"row {e['row']}: error: {e['error']}" for e in data["errors"][:10]]
        out += [f"row {n['row']}: not run: {n['reason']}" for n in data["not_run"][:10]]
        return out
