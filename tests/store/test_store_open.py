"""Opening a store: migrations to head (idempotent, concurrent), URLs, and clear errors."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Connection, inspect, text

from assay.errors import StoreError
from assay.store import DEFAULT_STORE_URL, open_store
from assay.store._engine import (
    HEAD_REVISION,
    VERSION_TABLE,
    create_store_engine,
    mask_url,
    migrate,
    resolve_url,
)
from assay.store.models import metadata
from tests.store.conftest import run_info, single

TABLES = {
    "assay_runs",
    "assay_test_results",
    "assay_turn_results",
    "assay_metric_results",
    "assay_tool_invocations",
    "assay_contracts",
    VERSION_TABLE,
}


def _differences(conn: Connection) -> list[Any]:
    context = MigrationContext.configure(conn, opts={"compare_type": True})
    return [d for d in compare_metadata(context, metadata) if VERSION_TABLE not in str(d)]


def test_a_new_store_gets_exactly_the_models_tables_at_head(store_url: str) -> None:
    with open_store(store_url) as store, store._engine.connect() as conn:
        assert set(inspect(conn).get_table_names()) == TABLES
        assert _differences(conn) == []
        versions = conn.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalars().all()
    assert versions == [HEAD_REVISION]


def test_the_migration_scripts_build_the_same_schema(store_url: str) -> None:
    engine = create_store_engine(resolve_url(store_url))
    try:
        migrate(engine, use_scripts=True)
        with engine.connect() as conn:
            assert set(inspect(conn).get_table_names()) == TABLES
            assert _differences(conn) == []
    finally:
        engine.dispose()


def test_opening_again_keeps_the_data_and_migrates_nothing(store_url: str) -> None:
    with open_store(store_url) as store:
        store.create_run(run_info("run-keep-1"))
        store.add_results("run-keep-1", [(0, single("a"))])
    with open_store(store_url) as store, store._engine.connect() as conn:
        assert store.completed_keys("run-keep-1") == {("a", 0)}
        versions = conn.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalars().all()
    assert versions == [HEAD_REVISION]


def test_processes_opening_a_new_store_at_once_all_succeed(store_url: str) -> None:
    # every process imports first, then all open the store at the same instant
    code = (
        "import sys, time; from assay.store import open_store; import assay.store._engine\n"
        "time.sleep(max(0.0, float(sys.argv[2]) - time.time()))\n"
        "s = open_store(sys.argv[1]); print(len(s.list_runs())); s.close()"
    )
    start_at = str(time.time() + 3)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, store_url, start_at],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    outcomes = [p.communicate(timeout=120) for p in procs]
    assert [(p.returncode, out.strip()) for p, (out, _) in zip(procs, outcomes, strict=True)] == [
        (0, "0")
    ] * 4, [err for _, err in outcomes]


def test_a_new_store_waits_for_a_writer_before_switching_to_wal(tmp_path: Path) -> None:
    # Switching a file to WAL fails at once, without SQLite's busy wait, while another
    # connection writes to it: opening must wait for the writer like any other operation.
    path = tmp_path / "busy.db"
    writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    writer.execute("CREATE TABLE other_app (x INTEGER)")
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO other_app VALUES (1)")
    release = threading.Timer(0.5, writer.execute, ["COMMIT"])
    release.start()
    try:
        with open_store(f"sqlite:///{path}") as store, store._engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    finally:
        release.join()
        writer.close()


def test_the_default_store_is_a_sqlite_file_under_dot_assay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ASSAY_STORE", raising=False)
    assert DEFAULT_STORE_URL == "sqlite:///.assay/assay.db"
    with open_store() as store:
        assert store.url == DEFAULT_STORE_URL
        assert store.list_runs() == []
        assert not (tmp_path / ".assay").exists()  # nothing is created until a run is
        store.create_run(run_info("run-default-1"))
    assert (tmp_path / ".assay" / "assay.db").is_file()


def test_assay_store_in_the_environment_replaces_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ASSAY_STORE", f"sqlite:///{tmp_path / 'team.db'}")
    with open_store() as store:
        store.create_run(run_info("run-env-1"))
    assert (tmp_path / "team.db").is_file() and not (tmp_path / ".assay").exists()


def test_an_unreachable_server_is_a_store_error_with_the_password_masked() -> None:
    url = "postgresql+psycopg://alice:s3cret-pw@127.0.0.1:1/assay"
    with pytest.raises(StoreError) as caught:
        open_store(url)
    message = str(caught.value)
    assert message.startswith("cannot open the store postgresql+psycopg://alice:***@127.0.0.1:1/")
    assert "s3cret-pw" not in message and "refused" in message.lower()
    assert caught.value.exit_code == 3


def test_a_password_in_the_store_url_s_query_is_masked_like_one_in_its_user_info(
    pg_url: str,
) -> None:
    """libpq takes ``?password=`` as well as ``user:password@``: neither is shown."""
    secret = "qu3ry-s3cret-pw"
    with pytest.raises(StoreError) as caught:
        open_store(f"postgresql+psycopg://alice@127.0.0.1:1/assay?password={secret}")
    message = str(caught.value)
    assert message.startswith("cannot open the store postgresql+psycopg://alice@127.0.0.1:1/")
    assert "?password=***: " in message and secret not in message
    with open_store(f"{pg_url}&password={secret}&sslpassword={secret}") as store:
        shown = store.url  # what `assay runs` prints
    assert secret not in shown
    assert "&password=***" in shown and "&sslpassword=***" in shown


def test_a_one_letter_password_is_masked_where_it_stands_alone_not_inside_words() -> None:
    with pytest.raises(StoreError) as caught:
        open_store("postgresql+psycopg://u:p@127.0.0.1:1/db")
    message = str(caught.value)
    assert "port 1 failed" in message and "***ort" not in message
    assert message.startswith("cannot open the store postgresql+psycopg://u:***@127.0.0.1:1/")


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("mysql://bob:hunter2@db/assay", "the 'mysql' database is not supported"),
        ("not a url at all", "not a database URL"),
        ("sqlite://relative.db", "a SQLite URL names a file, not a host ('relative.db')"),
    ],
)
def test_an_unsupported_url_says_which_urls_work(url: str, expected: str) -> None:
    with pytest.raises(StoreError) as caught:
        open_store(url)
    assert expected in str(caught.value) and "sqlite:///PATH" in str(caught.value)
    assert "hunter2" not in str(caught.value)
    assert caught.value.exit_code == 2  # an invalid option (SPEC §1), not a store that failed


def test_a_store_that_cannot_be_created_is_a_store_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(StoreError, match="cannot open the store sqlite:///"):
        open_store(f"sqlite:///{blocker / 'assay.db'}")


def test_a_store_from_a_newer_assay_is_refused_with_advice(sqlite_url: str) -> None:
    with open_store(sqlite_url) as store, store._writable().begin() as conn:
        conn.execute(text(f"UPDATE {VERSION_TABLE} SET version_num = '9999'"))
    with pytest.raises(StoreError, match="newer assay"):
        open_store(sqlite_url)


def test_postgresql_urls_without_a_driver_use_psycopg(pg_url: str) -> None:
    plain = pg_url.replace("postgresql+psycopg://", "postgresql://")
    with open_store(plain) as store:
        assert store.url.startswith("postgresql+psycopg://")
        assert store.list_runs() == []


def test_mask_url_hides_passwords_even_in_unparseable_urls() -> None:
    assert mask_url("postgresql+psycopg://u:pw@h/db") == "postgresql+psycopg://u:***@h/db"
    assert "pw" not in mask_url("weird://u:pw@h:notaport/db")
    assert (
        mask_url("weird://h:notaport/db?password=pw&x=1")
        == "weird://h:notaport/db?password=***&x=1"
    )


def test_head_revision_constant_matches_the_migration_scripts() -> None:
    from alembic.script import ScriptDirectory

    from assay.store._engine import HEAD_REVISION, _alembic_config

    assert ScriptDirectory.from_config(_alembic_config()).get_current_head() == HEAD_REVISION


def test_a_new_sqlite_store_is_opened_at_its_first_use(tmp_path: Path) -> None:
    """``assay run``'s store: a new plain SQLite file is checked without SQLAlchemy and
    opened when first used; nothing is created until the first write."""
    from assay.store._deferred import open_store_later

    url = f"sqlite:///{tmp_path / 'new' / 'assay.db'}"
    code = (
        "import sys\nfrom assay.store._deferred import open_store_later\n"
        f"store = open_store_later({url!r})\n"
        "print('deferred', type(store).__name__, 'sqlalchemy' in sys.modules)\n"
        "print('runs', store.list_runs(), 'sqlalchemy' in sys.modules)\nstore.close()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "deferred _Deferred False" in done.stdout
    assert "runs [] True" in done.stdout
    assert not (tmp_path / "new").exists()
    store = open_store_later(url)
    writer = store.reopen()  # the result writer's own, opened where it is used
    store.create_run(run_info("run-1"))
    assert [r.id for r in writer.list_runs()] == ["run-1"]
    writer.close()
    store.close()
    opened = open_store_later(url)  # the file exists now: opened at once
    assert type(opened).__name__ == "Store" and [r.id for r in opened.list_runs()] == ["run-1"]
    opened.close()


@pytest.mark.parametrize(
    "url",
    ["sqlite:///{blocker}/assay.db", "sqlite:///{newer}", "mysql://u:hunter2@h/db", "nonsense"],
)
def test_a_store_opened_later_fails_now_as_open_store_does(tmp_path: Path, url: str) -> None:
    from assay.store._deferred import open_store_later

    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    newer = tmp_path / "newer.db"
    with open_store(f"sqlite:///{newer}") as store, store._writable().begin() as conn:
        conn.execute(text(f"UPDATE {VERSION_TABLE} SET version_num = '9999'"))
    given = url.format(blocker=blocker, newer=newer)
    with pytest.raises(StoreError) as now:
        open_store(given)
    with pytest.raises(StoreError) as later:
        open_store_later(given)
    assert str(later.value) == str(now.value)


def _indexes(conn: Connection) -> set[str]:
    found = inspect(conn)
    return {
        index["name"] or ""
        for table in ("assay_metric_results", "assay_tool_invocations")
        for index in found.get_indexes(table)
    }


def test_a_store_with_the_name_indexes_is_upgraded_and_keeps_its_results(
    store_url: str,
) -> None:
    """0004 drops the metric-name and tool-name indexes (no query needs them); a store made
    at 0003 is upgraded on open, its results kept, and the downgrade puts them back."""
    from alembic import command

    from assay.store._engine import _alembic_config

    named = {"ix_assay_metric_results_metric_name", "ix_assay_tool_invocations_name"}
    engine = create_store_engine(resolve_url(store_url))
    config = _alembic_config()
    try:
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.upgrade(config, "0003")
        with engine.connect() as conn:
            assert named <= _indexes(conn)
    finally:
        engine.dispose()
    with open_store(store_url) as store:
        store.create_run(run_info("run-old"))
        store.add_results("run-old", [(0, single("a"))])
    with open_store(store_url) as store, store._engine.connect() as conn:
        assert store.completed_keys("run-old") == {("a", 0)}
        assert _indexes(conn) & named == set()
        assert _differences(conn) == []
        versions = conn.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalars().all()
    assert versions == [HEAD_REVISION] == ["0004"]
    engine = create_store_engine(resolve_url(store_url))
    try:
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.downgrade(config, "0003")
        with engine.connect() as conn:
            assert named <= _indexes(conn)
            count = conn.execute(text("SELECT count(*) FROM assay_metric_results")).scalar()
            assert count == 1
    finally:
        engine.dispose()
