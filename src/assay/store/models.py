"""The store's tables, as SQLAlchemy 2 declarative models.

Every table name starts with ``assay_`` so a team database can hold other applications'
tables beside them. One stored test result is:

- ``assay_test_results``: one row per TestResult (keyed by run, test name and repeat), its
  headline fields for queries, and ``payload``: the whole TestResult as JSON, which is what
  the store reads back, so a round trip is lossless;
- ``assay_turn_results``: one row per turn (a single-turn test has one, turn 0);
- ``assay_metric_results``: one row per metric result; ``turn_index`` is NULL for the
  test-level (rolled-up) result and set for a turn's own result;
- ``assay_tool_invocations``: one row per tool call, by turn and call index (the call's
  ``result`` lives in the payload only).

The Alembic migrations in ``migrations/versions`` create exactly these tables; a test
checks that the two agree.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# A 64-bit key on PostgreSQL; SQLite only auto-increments a column declared INTEGER.
BigId = BigInteger().with_variant(Integer(), "sqlite")

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map = {dict[str, Any]: JSON, list[str]: JSON}


class RunRow(Base):
    __tablename__ = "assay_runs"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    suite_name: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16))
    started_at: Mapped[str] = mapped_column(String(40), index=True)
    finished_at: Mapped[str | None] = mapped_column(String(40))
    assay_version: Mapped[str] = mapped_column(String(40))
    git_commit: Mapped[str | None] = mapped_column(String(64))
    target: Mapped[str | None] = mapped_column(Text)
    suite_fingerprint: Mapped[str | None] = mapped_column(String(128))
    config: Mapped[dict[str, Any]] = mapped_column(JSON)
    inputs: Mapped[dict[str, Any]] = mapped_column(JSON)
    summary: Mapped[str | None] = mapped_column(Text)  # ReportSummary JSON, once finished
    total: Mapped[int] = mapped_column(Integer, default=0)
    passed: Mapped[int] = mapped_column(Integer, default=0)
    failed: Mapped[int] = mapped_column(Integer, default=0)


class TestResultRow(Base):
    __tablename__ = "assay_test_results"
    __table_args__ = (
        UniqueConstraint("run_id", "test_name", "repeat_index"),
        Index(None, "run_id", "position"),
    )
    __test__ = False  # not a pytest class

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    run_id: Mapped[str] = mapped_column(ForeignKey("assay_runs.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    test_name: Mapped[str] = mapped_column(Text)
    repeat_index: Mapped[int] = mapped_column(Integer)
    test_type: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))
    passed: Mapped[bool] = mapped_column(Boolean)
    tools_matched: Mapped[bool | None] = mapped_column(Boolean)
    execution_time_ms: Mapped[int] = mapped_column(BigInteger)
    total_tokens: Mapped[int | None] = mapped_column(BigInteger)
    error_count: Mapped[int] = mapped_column(Integer)
    timestamp: Mapped[str] = mapped_column(String(40))
    payload: Mapped[str] = mapped_column(Text)  # the whole TestResult, as JSON


_TEST_FK = "assay_test_results.id"


class TurnResultRow(Base):
    __tablename__ = "assay_turn_results"

    test_result_id: Mapped[int] = mapped_column(
        BigId, ForeignKey(_TEST_FK, ondelete="CASCADE"), primary_key=True
    )
    turn_index: Mapped[int] = mapped_column(Integer, primary_key=True)
    input: Mapped[str] = mapped_column(Text)
    response: Mapped[str | None] = mapped_column(Text)
    ground_truth: Mapped[str | None] = mapped_column(Text)
    passed: Mapped[bool] = mapped_column(Boolean)
    skipped: Mapped[bool] = mapped_column(Boolean)
    tools_matched: Mapped[bool | None] = mapped_column(Boolean)
    execution_time_ms: Mapped[int] = mapped_column(BigInteger)
    total_tokens: Mapped[int | None] = mapped_column(BigInteger)
    errors: Mapped[list[str]] = mapped_column(JSON)


class MetricResultRow(Base):
    __tablename__ = "assay_metric_results"

    test_result_id: Mapped[int] = mapped_column(
        BigId, ForeignKey(_TEST_FK, ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    turn_index: Mapped[int | None] = mapped_column(Integer)  # NULL: the test-level result
    metric_name: Mapped[str] = mapped_column(Text, index=True)
    kind: Mapped[str] = mapped_column(String(16))
    dimension: Mapped[str | None] = mapped_column(Text)
    score: Mapped[float | None] = mapped_column(Float)
    threshold: Mapped[float | None] = mapped_column(Float)
    passed: Mapped[bool | None] = mapped_column(Boolean)
    error: Mapped[str | None] = mapped_column(Text)
    model_used: Mapped[str | None] = mapped_column(Text)
    reasoning: Mapped[str | None] = mapped_column(Text)


class ToolInvocationRow(Base):
    __tablename__ = "assay_tool_invocations"

    test_result_id: Mapped[int] = mapped_column(
        BigId, ForeignKey(_TEST_FK, ondelete="CASCADE"), primary_key=True
    )
    turn_index: Mapped[int] = mapped_column(Integer, primary_key=True)
    call_index: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(Text, index=True)
    args: Mapped[dict[str, Any]] = mapped_column(JSON)
    bytes: Mapped[int | None] = mapped_column(BigInteger)
    duration_ms: Mapped[float | None] = mapped_column(Float)
    error: Mapped[str | None] = mapped_column(Text)


metadata = Base.metadata
runs: Table = metadata.tables[RunRow.__tablename__]
test_results: Table = metadata.tables[TestResultRow.__tablename__]
turn_results: Table = metadata.tables[TurnResultRow.__tablename__]
metric_results: Table = metadata.tables[MetricResultRow.__tablename__]
tool_invocations: Table = metadata.tables[ToolInvocationRow.__tablename__]
