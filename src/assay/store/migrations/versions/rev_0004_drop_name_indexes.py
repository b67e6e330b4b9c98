"""Drop the indexes on a metric result's name and a tool call's name: no query of assay's
needs them, every stored result paid for them (about 7k instructions per result on SQLite),
and SQLite's planner took the metric-name one for the dashboard's metric filter, probing
every stored result of that metric for each test of the run (the test id's primary key
probe is what it takes without it).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_assay_metric_results_metric_name", table_name="assay_metric_results")
    op.drop_index("ix_assay_tool_invocations_name", table_name="assay_tool_invocations")


def downgrade() -> None:
    op.create_index("ix_assay_tool_invocations_name", "assay_tool_invocations", ["name"])
    op.create_index("ix_assay_metric_results_metric_name", "assay_metric_results", ["metric_name"])
