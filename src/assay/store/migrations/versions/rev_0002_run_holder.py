"""Who runs a run: holder host, pid and heartbeat on assay_runs, so a second resume of a
run still running is refused (see assay.store._lock).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("assay_runs", sa.Column("holder_host", sa.String(255), nullable=True))
    op.add_column("assay_runs", sa.Column("holder_pid", sa.Integer(), nullable=True))
    op.add_column("assay_runs", sa.Column("heartbeat_at", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("assay_runs") as batch:
        batch.drop_column("heartbeat_at")
        batch.drop_column("holder_pid")
        batch.drop_column("holder_host")
