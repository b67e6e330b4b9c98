"""Writing many rows fast, the way each database does it best: ids reserved up front,
COPY on PostgreSQL, executemany on SQLite, and "already stored?" probes that cost the same
however large the run is."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from sqlalchemy import JSON, Connection, Table, bindparam, func, insert, select, text

from assay.store.models import test_results

KEY_LOOKUP_CHUNK = 500  # test names per "already stored?" query on SQLite

_PG_KEY_PROBE = text(
    "SELECT t.test_name, t.repeat_index "
    "FROM unnest(CAST(:names AS text[]), CAST(:repeats AS integer[])) AS k(name, repeat) "
    f"JOIN {test_results.name} AS t ON t.run_id = :run_id "
    "AND t.test_name = k.name AND t.repeat_index = k.repeat"
)


# Built once, not per batch (see store.py)
_TOP_ID = select(func.coalesce(func.max(test_results.c.id), 0))
_KEYS = select(test_results.c.test_name, test_results.c.repeat_index).where(
    test_results.c.run_id == bindparam("run_id"),
    test_results.c.test_name.in_(bindparam("names", expanding=True)),
)


@functools.cache
def _insert(table: Table) -> Any:
    return insert(table)


def bulk_insert(conn: Connection, table: Table, rows: list[dict[str, Any]]) -> None:
    """Insert many rows at once: an executemany on SQLite, COPY on PostgreSQL (several
    times faster there than even a pipelined executemany). Runs in ``conn``'s transaction."""
    if conn.dialect.name != "postgresql":
        conn.execute(_insert(table), rows)
        return
    import psycopg  # only PostgreSQL stores need the driver's COPY
    from psycopg.types.json import Json

    names = [column.name for column in table.columns]
    as_json = {column.name for column in table.columns if isinstance(column.type, JSON)}
    quote = conn.dialect.identifier_preparer
    statement = (
        f"COPY {quote.format_table(table)} ({', '.join(quote.quote(n) for n in names)}) FROM STDIN"
    )
    driver = conn.connection.driver_connection
    assert isinstance(driver, psycopg.Connection)
    with driver.cursor() as cursor, cursor.copy(statement) as copy:
        for row in rows:
            copy.write_row([Json(row[n]) if n in as_json else row.get(n) for n in names])


def reserve_ids(conn: Connection, count: int) -> list[int]:
    """Ids for ``count`` new test results, taken before inserting them, so that their turn,
    metric and tool rows can be built without reading the ids back."""
    if conn.dialect.name == "postgresql":
        query = text(
            "SELECT nextval(pg_get_serial_sequence(:table, 'id')) FROM generate_series(1, :n)"
        )
        return list(conn.execute(query, {"table": test_results.name, "n": count}).scalars())
    # SQLite: this transaction holds the write lock (BEGIN IMMEDIATE), so max(id) is ours.
    top = conn.execute(_TOP_ID).scalar_one()
    return list(range(top + 1, top + 1 + count))


def stored_keys(
    conn: Connection, run_id: str, keys: Iterable[tuple[str, int]]
) -> set[tuple[str, int]]:
    """Which of ``keys`` the run already has, at a cost independent of the run's size."""
    wanted = sorted(keys)
    if conn.dialect.name == "postgresql":
        # Probe the unique index key by key: with a plain IN list PostgreSQL's generic
        # plan scans the whole run, which made 100,000-result runs quadratic.
        probe = conn.execute(
            _PG_KEY_PROBE,
            {
                "run_id": run_id,
                "names": [n for n, _ in wanted],
                "repeats": [r for _, r in wanted],
            },
        )
        return {(name, repeat) for name, repeat in probe}
    found: set[tuple[str, int]] = set()
    names = sorted({name for name, _ in wanted})
    for start in range(0, len(names), KEY_LOOKUP_CHUNK):
        chunk = {"run_id": run_id, "names": names[start : start + KEY_LOOKUP_CHUNK]}
        found.update((name, repeat) for name, repeat in conn.execute(_KEYS, chunk))
    return found
