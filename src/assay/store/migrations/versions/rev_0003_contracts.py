"""Evaluation contracts of goal-driven tests, keyed by the hash of their authored fields.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "assay_contracts",
        sa.Column("hash", sa.String(64), nullable=False),
        sa.Column("contract_version", sa.Integer(), nullable=False),
        sa.Column("contract", sa.JSON(), nullable=False),
        sa.Column("derived_by", sa.Text(), nullable=True),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.PrimaryKeyConstraint("hash", name="pk_assay_contracts"),
    )


def downgrade() -> None:
    op.drop_table("assay_contracts")
