"""Writing a batch of results fast, the way each database does it best: ids reserved up
front, COPY on PostgreSQL, multi-row INSERTs on SQLite (values common to a batch's rows
written in or bound once), and "already stored?" probes that cost the same however large
the run is.

Statements are plain SQL text with the rows as prepared tuples (see ``BatchWriter``):
compiled SQLAlchemy statements cost about 70 us each to run, and their per-row parameter
processing was most of the result writer's CPU."""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable, Iterable
from itertools import chain
from typing import Any

from sqlalchemy import Connection

from assay.store._rows import Row
from assay.store.models import runs, test_results

KEY_LOOKUP_CHUNK = 500  # test names per "already stored?" query on SQLite
# Rows per INSERT on SQLite: a power of two up to this (so a batch runs a few statements,
# of a few shapes, all in the driver's statement cache), under 999 values each (the oldest
# SQLite's limit). One statement of many rows costs about 15 % less than as many rows
# through executemany (each row there is a step of its own: driver, mutex, VDBE halt).
ROWS_PER_INSERT = 64
# A column whose values in a batch are all None (or all True, or all False) is written into
# the statement (NULL, 1, 0) instead of bound: binding each costs the driver an adaptation
# lookup (about 1.1k instructions a value). A column whose values in a batch of at least
# ONCE_MIN_ROWS rows are all one str (the run's id, always; often the test type, a metric's
# name, "[]") is bound once per statement, every row naming that parameter (``?NNN``):
# SQLite copies each bound text (about 800 instructions a value). Each table keeps to a few
# such shapes of statement: with the plain one, at 7 sizes (64, 32, ... 1 rows) and 4
# tables, 112 statements with literals only, 196 with those binding once, and the batch's
# others, within the driver's statement cache (``_engine``: 256).
PLAIN_SHAPES = 3  # with literals only: as many as before any column was bound once
ONCE_SHAPES = 3  # with columns bound once (and literals)
ONCE_MIN_ROWS = 8
ONCE = "="  # the mark of a column bound once per statement (a literal is SQL text)
_LITERAL = {None: "NULL", True: "1", False: "0"}
_shapes: dict[str, set[tuple[str | None, ...]]] = {}
_once_shapes: dict[str, set[tuple[str | None, ...]]] = {}

# Written with "?" (SQLite's placeholder); PostgreSQL's driver takes "%s" (see ``_sql``).
_LOCK_RUN = f"SELECT id FROM {runs.name} WHERE id = ?"
_ADD_COUNTS = (
    f"UPDATE {runs.name} SET total = total + ?, passed = passed + ?, failed = failed + ? "
    "WHERE id = ?"
)
_TOP_ID = f"SELECT coalesce(max(id), 0) FROM {test_results.name}"
_NEXT_IDS = (
    f"SELECT nextval(pg_get_serial_sequence('{test_results.name}', 'id')) "
    "FROM generate_series(1, ?)"
)
_KEYS = (
    f"SELECT test_name, repeat_index FROM {test_results.name} WHERE run_id = ? AND test_name IN "
)
# Probe the unique index key by key: with a plain IN list PostgreSQL's generic plan scans
# the whole run, which made 100,000-result runs quadratic.
_PG_KEY_PROBE = (
    "SELECT t.test_name, t.repeat_index "
    "FROM unnest(CAST(? AS text[]), CAST(? AS integer[])) AS k(name, repeat) "
    f"JOIN {test_results.name} AS t ON t.run_id = ? "
    "AND t.test_name = k.name AND t.repeat_index = k.repeat"
)


def bind_plainly() -> None:
    """Have SQLite's driver bind True/False and None without its adaptation lookup (about
    13 of a single-turn result's 45 values; each lookup raises and clears an AttributeError
    inside the driver, about 30 % of its CPU per row): adapters registered that return the
    value itself (``bool``: the driver binds a bool as the int it is, 1 or 0, adapted or
    not; ``int`` instead cost about 370 instructions more per value), so what is stored is
    unchanged. The registry is the whole process's, so only a process that runs nothing but
    assay's code calls this (the forked result writer)."""
    import sqlite3

    sqlite3.register_adapter(bool, bool)
    nothing: dict[None, None] = {}
    sqlite3.register_adapter(type(None), nothing.get)  # None, in C


@functools.cache
def _sql(statement: str, postgresql: bool) -> str:
    return statement.replace("?", "%s") if postgresql else statement


def _quoted(names: tuple[str, ...]) -> str:
    return ", ".join(f'"{name}"' for name in names)  # standard SQL: SQLite and PostgreSQL


@functools.cache
def _insert(
    table: str,
    columns: tuple[str, ...],
    postgresql: bool,
    rows: int = 1,
    literals: tuple[str | None, ...] | None = None,
) -> str:
    """The statement that inserts ``rows`` rows at once (COPY: any number of rows); on
    SQLite, a column with a literal (``literals``: see ``_literals``) takes it in every row,
    not a value, and a column marked ONCE takes one parameter, after every row's."""
    if postgresql:
        return f'COPY "{table}" ({_quoted(columns)}) FROM STDIN'
    head = f'INSERT INTO "{table}" ({_quoted(columns)}) VALUES '
    if not literals:
        one = f"({', '.join(['?'] * len(columns))})"
        return head + ", ".join([one] * rows)
    if ONCE not in literals:
        one = f"({', '.join(literal or '?' for literal in literals)})"
        return head + ", ".join([one] * rows)
    per_row = literals.count(None)
    once = {j: rows * per_row + k for k, j in enumerate(_once(literals), start=1)}
    made = []
    for row in range(rows):
        marks, number = [], row * per_row
        for j, literal in enumerate(literals):
            if literal is None:
                number += 1
                marks.append(f"?{number}")
            else:
                marks.append(f"?{once[j]}" if literal == ONCE else literal)
        made.append(f"({', '.join(marks)})")
    return head + ", ".join(made)


@functools.cache
def _once(literals: tuple[str | None, ...]) -> tuple[int, ...]:
    """The columns a shape binds once (marked ONCE)."""
    return tuple(j for j, literal in enumerate(literals) if literal == ONCE)


def _literals(table: str, width: int, values: list[Any]) -> tuple[str | None, ...] | None:
    """The columns whose every value in ``values`` (rows of ``width`` values, one after the
    other) is None, or every one True, or every one False, as the literal each gets; and,
    in a batch of ONCE_MIN_ROWS rows or more, those whose every value is one str (equal to
    the first, which is a str), marked ONCE. A shape with columns bound once is one of the
    table's ONCE_SHAPES; past them (or with nothing left to bind row by row), the shape
    without them, one of its PLAIN_SHAPES (so the literals are what they would be without
    binding once). None when there is nothing to write in, or nothing left to bind, or no
    room. (``count`` compares by equality, so 1 and 1.0 count as True: a column whose first
    value is a bool is one of TestResult's bool fields, which holds only bools and None; a
    value equal to a str is a str, of the same text.)"""
    rows = len(values) // width
    found: list[str | None] = [None] * width
    once = rows >= ONCE_MIN_ROWS
    for j, first in enumerate(values[:width]):
        if first is None or first is True or first is False:
            if values[j::width].count(first) == rows:
                found[j] = _LITERAL[first]
        elif once and type(first) is str and values[j::width].count(first) == rows:
            found[j] = ONCE
    if once and ONCE in found:
        shape = tuple(found)
        seen = _once_shapes.setdefault(table, set())
        if None in shape and (shape in seen or len(seen) < ONCE_SHAPES):
            seen.add(shape)
            return shape
        found = [None if mark == ONCE else mark for mark in found]
    if not any(found) or all(found):  # nothing to write in, or nothing left to bind
        return None
    shape = tuple(found)
    seen = _shapes.setdefault(table, set())
    if shape not in seen:
        if len(seen) >= PLAIN_SHAPES:
            return None
        seen.add(shape)
    return shape


class BatchWriter:
    """One batch's statements, in ``conn``'s transaction: on SQLite, on the driver's own
    cursor (a statement through SQLAlchemy costs about 25 us more, and a batch runs eight);
    on PostgreSQL through SQLAlchemy, whose error handling tells a lost connection (written
    again on a new one) from a refused batch."""

    def __init__(self, conn: Connection) -> None:
        self.postgresql = conn.dialect.name == "postgresql"
        self._conn = conn
        self._cursor: Any = None
        if not self.postgresql:
            driver: Any = conn.connection.driver_connection
            self._cursor = driver.cursor()

    def _run(self, statement: str, params: tuple[Any, ...] = ()) -> Any:
        if self._cursor is None:
            return self._conn.exec_driver_sql(_sql(statement, True), params)
        return self._cursor.execute(statement, params)

    def lock_run(self, run_id: str) -> bool:
        """Whether the run is stored. Locks its row on PostgreSQL, so concurrent writers of
        one run take turns (SQLite's BEGIN IMMEDIATE already serialises every writer)."""
        statement = _LOCK_RUN + (" FOR UPDATE" if self.postgresql else "")
        return self._run(statement, (run_id,)).fetchone() is not None

    def stored_keys(self, run_id: str, keys: Iterable[tuple[str, int]]) -> set[tuple[str, int]]:
        """Which of ``keys`` the run already has, at a cost independent of the run's size."""
        wanted = sorted(keys)
        if self.postgresql:
            names, repeats = [n for n, _ in wanted], [r for _, r in wanted]
            probe = self._run(_PG_KEY_PROBE, (names, repeats, run_id))
            return {(name, repeat) for name, repeat in probe}
        found: set[tuple[str, int]] = set()
        names = sorted({name for name, _ in wanted})
        for start in range(0, len(names), KEY_LOOKUP_CHUNK):
            chunk = names[start : start + KEY_LOOKUP_CHUNK]
            query = f"{_KEYS}({', '.join('?' * len(chunk))})"
            found.update((n, r) for n, r in self._run(query, (run_id, *chunk)))
        return found

    def all_new(self, insert: Callable[[], None]) -> bool:
        """SQLite: run ``insert`` (the whole batch) as if none of its results were stored
        yet, in a savepoint: True when none was; False, with nothing of it kept, when the
        database refused it (the unique key of a result already stored, or another
        constraint), and the batch is written again after asking which are stored
        (``stored_keys``), as PostgreSQL always does. A run's writer writes each result
        once, so the question, about 7k instructions per result, is rarely needed."""
        self._cursor.execute("SAVEPOINT assay_batch")
        try:
            insert()
        except sqlite3.IntegrityError:
            self._cursor.execute("ROLLBACK TO assay_batch")
            self._cursor.execute("RELEASE assay_batch")
            return False
        self._cursor.execute("RELEASE assay_batch")
        return True

    def reserve_ids(self, count: int) -> list[int]:
        """Ids for ``count`` new test results, taken before inserting them, so that their
        turn, metric and tool rows can be built without reading the ids back."""
        if self.postgresql:
            return [row[0] for row in self._run(_NEXT_IDS, (count,))]
        # SQLite: this transaction holds the write lock (BEGIN IMMEDIATE), so max(id) is ours.
        top = int(self._run(_TOP_ID).fetchone()[0])
        return list(range(top + 1, top + 1 + count))

    def insert(self, table: str, columns: tuple[str, ...], rows: list[Row]) -> None:
        """Insert many rows (tuples of ``columns``' values, JSON columns as their text) at
        once: multi-row INSERTs on SQLite, COPY on PostgreSQL (several times faster there than
        even a pipelined executemany)."""
        if self._cursor is not None:
            self.insert_values(table, columns, list(chain.from_iterable(rows)))
            return
        statement = _insert(table, columns, self.postgresql)
        import psycopg  # only PostgreSQL stores need the driver's COPY

        driver = self._conn.connection.driver_connection
        assert isinstance(driver, psycopg.Connection)
        with driver.cursor() as cursor, cursor.copy(statement) as copy:
            for row in rows:
                copy.write_row(row)

    def insert_values(self, table: str, columns: tuple[str, ...], values: list[Any]) -> None:
        """SQLite: insert rows given as one flat list of their values, row after row, in
        multi-row INSERTs (64, 32, ... rows a statement); a column that is all None, all
        True or all False is written into the statements, and one that is all one str
        bound once per statement (``_literals``). A column of bools (True and False, no
        None) in a batch of ONCE_MIN_ROWS rows or more is bound as their ints, 1 and 0: the
        driver binds a bool as the int it is, after an adaptation lookup (about 1k
        instructions a value, ``bind_plainly``'s adapter or none)."""
        width = len(columns)
        literals = _literals(table, width, values)
        once: list[Any] = []
        if literals is not None:  # the bound columns' values, a column at a time
            rows = len(values) // width
            many = rows >= ONCE_MIN_ROWS  # else nothing bound once, and a few bools as they are
            if many:
                once = [values[j] for j in _once(literals)]
            bound = [j for j, literal in enumerate(literals) if literal is None]
            kept: list[Any] = [None] * (rows * len(bound))
            for slot, j in enumerate(bound):
                column = values[j::width]
                if (
                    many
                    and type(column[0]) is bool
                    and column.count(True) + column.count(False) == rows
                ):
                    column = list(map(int, column))  # bound as the driver binds a bool
                kept[slot :: len(bound)] = column
            values, width = kept, len(bound)
        chunk = ROWS_PER_INSERT
        while chunk * width + len(once) > 999:
            chunk //= 2
        start, end = 0, len(values)
        while start < end:
            while end - start < chunk * width:
                chunk //= 2
            statement = _insert(table, columns, False, chunk, literals)
            params = values[start : start + chunk * width]
            if once:
                params += once
            self._cursor.execute(statement, params)
            start += chunk * width

    def add_counts(self, run_id: str, added: int, passed: int) -> None:
        self._run(_ADD_COUNTS, (added, passed, added - passed, run_id))
