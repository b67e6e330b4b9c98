"""Evaluation contracts in the store: one row per contract hash (``assay_contracts``).

The reviewable copy a team reads and edits is a YAML file next to the suite (see
``assay.simulation.contracts``); the store keeps every derived contract so that a run from
another checkout, or after the file was deleted, derives nothing again. A contract is
stored with every known secret masked (``assay.simulation.contract.masked``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from assay.store._engine import write_connection
from assay.store.models import contracts
from assay.store.store import Store


def get_contract(store: Store, digest: str, version: int) -> dict[str, Any] | None:
    """The stored contract with this hash and contract version, or None."""
    query = select(contracts.c.contract).where(
        contracts.c.hash == digest, contracts.c.contract_version == version
    )
    try:
        with store._engine.connect() as conn:
            row = conn.execute(query).first()
    except SQLAlchemyError as exc:
        raise store._failure(exc) from exc
    value = None if row is None else row[0]
    return value if isinstance(value, dict) else None


def put_contract(
    store: Store, digest: str, version: int, contract: dict[str, Any], derived_by: str | None
) -> None:
    """Store a contract; one already stored under the hash (another process derived it at
    the same time) is kept."""
    row = {
        "hash": digest,
        "contract_version": version,
        "contract": contract,
        "derived_by": derived_by,
        "created_at": datetime.now(UTC).isoformat(timespec="milliseconds"),
    }
    try:
        with write_connection(store._writable()) as conn, conn.begin():
            conn.execute(insert(contracts), row)
    except IntegrityError:
        return
    except SQLAlchemyError as exc:
        raise store._failure(exc) from exc


def replace_contract(store: Store, digest: str, version: int, contract: dict[str, Any]) -> None:
    """Replace the stored contract's text (one an earlier assay kept with a secret in clear,
    now masked); who derived it, and when, stay."""
    query = (
        update(contracts)
        .where(contracts.c.hash == digest, contracts.c.contract_version == version)
        .values(contract=contract)
    )
    try:
        with write_connection(store._writable()) as conn, conn.begin():
            conn.execute(query)
    except SQLAlchemyError as exc:
        raise store._failure(exc) from exc
