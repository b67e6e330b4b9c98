"""Alembic's environment for assay's store. Migrations run only through
``assay.store.open_store``, which passes its open connection (already inside a transaction
holding the migration lock) as ``config.attributes["connection"]``."""

from __future__ import annotations

from alembic import context

from assay.store._engine import VERSION_TABLE
from assay.store.models import metadata

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("assay's store migrations run through assay.store.open_store(url)")

context.configure(
    connection=connection,
    target_metadata=metadata,
    version_table=VERSION_TABLE,
    render_as_batch=True,
)
with context.begin_transaction():
    context.run_migrations()
