"""The first schema: runs, test results, turn results, metric results, tool invocations.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TEST_FK = "assay_test_results.id"


def _test_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["test_result_id"],
        [TEST_FK],
        name=f"fk_{table}_test_result_id_assay_test_results",
        ondelete="CASCADE",
    )


def upgrade() -> None:
    op.create_table(
        "assay_runs",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("suite_name", sa.Text(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("started_at", sa.String(40), nullable=False),
        sa.Column("finished_at", sa.String(40), nullable=True),
        sa.Column("assay_version", sa.String(40), nullable=False),
        sa.Column("git_commit", sa.String(64), nullable=True),
        sa.Column("target", sa.Text(), nullable=True),
        sa.Column("suite_fingerprint", sa.String(128), nullable=True),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("inputs", sa.JSON(), nullable=False),
        sa.Column("summary", sa.Text(), nullable=True),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("passed", sa.Integer(), nullable=False),
        sa.Column("failed", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_assay_runs"),
    )
    op.create_index("ix_assay_runs_started_at", "assay_runs", ["started_at"])

    op.create_table(
        "assay_test_results",
        sa.Column("id", BIG_ID, autoincrement=True, nullable=False),
        sa.Column("run_id", sa.String(64), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("test_name", sa.Text(), nullable=False),
        sa.Column("repeat_index", sa.Integer(), nullable=False),
        sa.Column("test_type", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("passed", sa.Boolean(), nullable=False),
        sa.Column("tools_matched", sa.Boolean(), nullable=True),
        sa.Column("execution_time_ms", sa.BigInteger(), nullable=False),
        sa.Column("total_tokens", sa.BigInteger(), nullable=True),
        sa.Column("error_count", sa.Integer(), nullable=False),
        sa.Column("timestamp", sa.String(40), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_assay_test_results"),
        sa.ForeignKeyConstraint(
            ["run_id"],
            ["assay_runs.id"],
            name="fk_assay_test_results_run_id_assay_runs",
            ondelete="CASCADE",
        ),
        sa.UniqueConstraint(
            "run_id",
            "test_name",
            "repeat_index",
            name="uq_assay_test_results_run_id_test_name_repeat_index",
        ),
    )
    op.create_index(
        "ix_assay_test_results_run_id_position", "assay_test_results", ["run_id", "position"]
    )

    op.create_table(
        "assay_turn_results",
        sa.Column("test_result_id", BIG_ID, nullable=False),
        sa.Column("turn_index", sa.Integer(), nullable=False),
        sa.Column("input", sa.Text(), nullable=False),
        sa.Column("response", sa.Text(), nullable=True),
        sa.Column("ground_truth", sa.Text(), nullable=True),
        sa.Column("passed", sa.Boolean(), nullable=False),
        sa.Column("skipped", sa.Boolean(), nullable=False),
        sa.Column("tools_matched", sa.Boolean(), nullable=True),
        sa.Column("execution_time_ms", sa.BigInteger(), nullable=False),
        sa.Column("total_tokens", sa.BigInteger(), nullable=True),
        sa.Column("errors", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("test_result_id", "turn_index", name="pk_assay_turn_results"),
        _test_fk("assay_turn_results"),
    )

    op.create_table(
        "assay_metric_results",
        sa.Column("test_result_id", BIG_ID, nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("turn_index", sa.Integer(), nullable=True),
        sa.Column("metric_name", sa.Text(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("dimension", sa.Text(), nullable=True),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("threshold", sa.Float(), nullable=True),
        sa.Column("passed", sa.Boolean(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("model_used", sa.Text(), nullable=True),
        sa.Column("reasoning", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("test_result_id", "seq", name="pk_assay_metric_results"),
        _test_fk("assay_metric_results"),
    )
    op.create_index("ix_assay_metric_results_metric_name", "assay_metric_results", ["metric_name"])

    op.create_table(
        "assay_tool_invocations",
        sa.Column("test_result_id", BIG_ID, nullable=False),
        sa.Column("turn_index", sa.Integer(), nullable=False),
        sa.Column("call_index", sa.Integer(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("args", sa.JSON(), nullable=False),
        sa.Column("bytes", sa.BigInteger(), nullable=True),
        sa.Column("duration_ms", sa.Float(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint(
            "test_result_id", "turn_index", "call_index", name="pk_assay_tool_invocations"
        ),
        _test_fk("assay_tool_invocations"),
    )
    op.create_index("ix_assay_tool_invocations_name", "assay_tool_invocations", ["name"])


def downgrade() -> None:
    op.drop_table("assay_tool_invocations")
    op.drop_table("assay_metric_results")
    op.drop_table("assay_turn_results")
    op.drop_table("assay_test_results")
    op.drop_table("assay_runs")
