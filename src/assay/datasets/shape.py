"""The shape a run will use, as ``assay validate`` and the dashboard report it (SPEC §3)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Kind = Literal["MULTI-TURN", "SINGLE-TURN"]

DASH = "\N{EM DASH}"


@dataclass(frozen=True)
class ShapeReport:
    """A dataset file's shape: kind, counts, the columns used and what to look at.

    ``column_map`` maps each recognised field (``question``, ``answer``, ``context``,
    ``expected_tool_calls``, ``session_id``, ``turn_id``) to the column as written in the
    file, in file order. ``conversations`` counts conversations of one too.
    """

    source: str
    kind: Kind
    rows: int
    conversations: int
    column_map: dict[str, str]
    warnings: list[str] = field(default_factory=list)
    ignored_columns: list[str] = field(default_factory=list)

    @property
    def is_multi_turn(self) -> bool:
        return self.kind == "MULTI-TURN"

    def shape_line(self) -> str:
        """``MULTI-TURN — 9 rows, 2 conversations (grouped by session_id)`` or
        ``SINGLE-TURN — 5 rows``: SPEC §3's two forms to the letter, plural for every count
        (``1 rows``), so a line is always matched by the form it is one of."""
        line = f"{self.kind} {DASH} {self.rows} rows"
        if self.is_multi_turn:
            line += f", {self.conversations} conversations (grouped by session_id)"
        return line

    def columns_line(self) -> str:
        """``columns: Question → question, Answer → answer``."""
        pairs = ", ".join(
            f"{written} \N{RIGHTWARDS ARROW} {c}" for c, written in self.column_map.items()
        )
        return f"columns: {pairs}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.source,
            "shape": self.shape_line(),
            "kind": self.kind,
            "rows": self.rows,
            "conversations": self.conversations,
            "columns": dict(self.column_map),
            "ignored_columns": list(self.ignored_columns),
            "warnings": list(self.warnings),
            "errors": [],
        }
