"""The store's tables, as SQLAlchemy Core tables (the store needs no ORM: plain tables keep
the start-up of every ``assay run`` lighter).

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
    Column,
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

# A 64-bit key on PostgreSQL; SQLite only auto-increments a column declared INTEGER.
BigId = BigInteger().with_variant(Integer(), "sqlite")

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = MetaData(naming_convention=NAMING)


def _required(name: str, *args: Any, **kw: Any) -> Column[Any]:
    return Column(name, *args, nullable=False, **kw)


def _optional(name: str, *args: Any, **kw: Any) -> Column[Any]:
    return Column(name, *args, nullable=True, **kw)


def _test_fk() -> Column[Any]:
    return Column(
        "test_result_id",
        BigId,
        ForeignKey("assay_test_results.id", ondelete="CASCADE"),
        primary_key=True,
    )


runs = Table(
    "assay_runs",
    metadata,
    Column("id", String(64), primary_key=True),
    _required("suite_name", Text),
    _required("status", String(16)),
    _required("started_at", String(40), index=True),
    _optional("finished_at", String(40)),
    _required("assay_version", String(40)),
    _optional("git_commit", String(64)),
    _optional("target", Text),
    _optional("suite_fingerprint", String(128)),
    _required("config", JSON),
    _required("inputs", JSON),
    _optional("summary", Text),  # ReportSummary JSON, once finished
    _required("total", Integer, default=0),
    _required("passed", Integer, default=0),
    _required("failed", Integer, default=0),
    # who runs it now (see _lock): set while a process writes its results
    _optional("holder_host", String(255)),
    _optional("holder_pid", Integer),
    _optional("heartbeat_at", Float),  # seconds since the epoch
)

test_results = Table(
    "assay_test_results",
    metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    _required("run_id", String(64), ForeignKey("assay_runs.id", ondelete="CASCADE")),
    _required("position", Integer),
    _required("test_name", Text),
    _required("repeat_index", Integer),
    _required("test_type", String(16)),
    _required("status", String(16)),
    _required("passed", Boolean),
    _optional("tools_matched", Boolean),
    _required("execution_time_ms", BigInteger),
    _optional("total_tokens", BigInteger),
    _required("error_count", Integer),
    _required("timestamp", String(40)),
    _required("payload", Text),  # the whole TestResult, as JSON
    UniqueConstraint("run_id", "test_name", "repeat_index"),
    Index(None, "run_id", "position"),
)

turn_results = Table(
    "assay_turn_results",
    metadata,
    _test_fk(),
    Column("turn_index", Integer, primary_key=True),
    _required("input", Text),
    _optional("response", Text),
    _optional("ground_truth", Text),
    _required("passed", Boolean),
    _required("skipped", Boolean),
    _optional("tools_matched", Boolean),
    _required("execution_time_ms", BigInteger),
    _optional("total_tokens", BigInteger),
    _required("errors", JSON),
)

metric_results = Table(
    "assay_metric_results",
    metadata,
    _test_fk(),
    Column("seq", Integer, primary_key=True),
    _optional("turn_index", Integer),  # NULL: the test-level result
    _required("metric_name", Text),
    _required("kind", String(16)),
    _optional("dimension", Text),
    _optional("score", Float),
    _optional("threshold", Float),
    _optional("passed", Boolean),
    _optional("error", Text),
    _optional("model_used", Text),
    _optional("reasoning", Text),
)

tool_invocations = Table(
    "assay_tool_invocations",
    metadata,
    _test_fk(),
    Column("turn_index", Integer, primary_key=True),
    Column("call_index", Integer, primary_key=True),
    _required("name", Text),
    _required("args", JSON),
    _optional("bytes", BigInteger),
    _optional("duration_ms", Float),
    _optional("error", Text),
)

# Evaluation contracts of goal-driven tests, by the SHA-256 of their authored fields and the
# contract version (see assay.simulation): derived once, reused by every later run.
contracts = Table(
    "assay_contracts",
    metadata,
    Column("hash", String(64), primary_key=True),
    _required("contract_version", Integer),
    _required("contract", JSON),  # the contract itself, as the reviewable file has it
    _optional("derived_by", Text),  # provider:model
    _required("created_at", String(40)),
)
