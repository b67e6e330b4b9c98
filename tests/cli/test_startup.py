"""Start-up stays light: ``import assay.cli``, ``assay --help`` and ``assay validate`` import
no package a command does not need (issue 15: SQLAlchemy, aiohttp, Jinja2, numpy, rich's
tables and progress bars, the metric libraries, the result models, the store and runner),
and ``assay run`` of a plain CSV against an http:// agent loads only what that run uses:
no judge metrics or model clients, no report renderers, no PostgreSQL driver, no CA
certificates.

Each check runs in a fresh interpreter, so what another test imported does not count."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer.main

from tests.cli.conftest import RunCli
from tests.targets.agent_server import agent_server

# what no command line start-up may import
HEAVY = (
    "sqlalchemy",
    "aiohttp",
    "jinja2",
    "numpy",
    "rapidfuzz",
    "sacrebleu",
    "jsonpath_ng",
    "fastapi",
)
# rich's heavy parts: typer draws `--help` with them, nothing else needs them at start-up
RICH_HEAVY = (
    "rich.table",
    "rich.progress",
    "rich.markdown",
    "rich.syntax",
    "rich.traceback",
)
# assay's own heavy parts, and pydantic models the bare CLI has no use for
UNNEEDED_BY_CLI = (
    "pydantic",
    "assay.config",
    "assay.results.models",
    "assay.cases",
    "assay.metrics",
    "assay.store",
    "assay.runner",
    "assay.reporters",
    "assay.datasets",
    "assay.web",
)
# what a plain CSV + http:// run needs none of, and what would load it
ONLY_FOR_SOME_RUNS = (
    "assay.metrics.judge",  # a suite naming a judge metric
    "assay.metrics.safety",  # ... or one of these
    "assay.metrics.similarity",
    "assay.metrics.rouge",
    "assay.metrics.semantic",
    "assay.models.base",  # a judge or simulated user: the model clients
    "assay.models.openai",
    "assay.models.anthropic",
    "assay.models.factory",
    "assay.reporters.html",  # --out / --format
    "assay.reporters.junit",
    "assay.reporters.json_report",
    "jinja2",
    "sqlalchemy.dialects.postgresql",  # a postgresql:// store
    "psycopg",
    "sqlalchemy.orm",  # nothing in a run
    "alembic",
    "assay.gate",  # --fail-under / --baseline
    "rich.progress",  # a progress bar, on a terminal
    "rich.table",  # the results table: not with --quiet
    "assay.store.compare",  # --baseline, assay diff: not the store a run writes
    "assay.store.estimates",
    "assay.store.bootstrap",
)
# what a plain run imports only once its requests are under way (or not at all)
AFTER_THE_FIRST_REQUEST = (
    "assay.cli._gate",  # --fail-under / --baseline, and the job summary after the run
    "assay.cli.summary",  # the totals line and table, after the run
    "assay.reporters",
    "assay.store.compare",  # assay diff's records
    "assay.store.estimates",
)
COMMANDS = (
    "run",
    "validate",
    "report",
    "runs",
    "diff",
    "serve",
    "init",
    "import",
    "schema",
    "demo",
    "agent",
    "judge",
)


def _modules_after(code: str, cwd: Path) -> tuple[list[str], str]:
    """The modules loaded once ``code`` ran in a fresh interpreter, and what it printed."""
    script = f"{code}\nimport json, sys\nprint('MODULES=' + json.dumps(sorted(sys.modules)))\n"
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    printed, _, modules = done.stdout.rpartition("MODULES=")
    return json.loads(modules), printed


def _loaded(modules: list[str], names: tuple[str, ...]) -> list[str]:
    return [n for n in names if any(m == n or m.startswith(n + ".") for m in modules)]


def test_importing_the_cli_loads_no_command_and_nothing_heavy(tmp_path: Path) -> None:
    modules, _ = _modules_after("import assay.cli", tmp_path)
    assert "assay.cli.app" in modules  # the check sees what it should
    assert _loaded(modules, HEAVY + RICH_HEAVY + UNNEEDED_BY_CLI) == []
    assert [m for m in modules if m.startswith("assay.cli.") and m != "assay.cli.app"] == [
        "assay.cli._gc",
        "assay.cli._terminal",
    ]


def test_help_lists_every_command_without_importing_heavy_packages(tmp_path: Path) -> None:
    code = (
        "import sys\nfrom assay.cli import main\nsys.argv = ['assay', '--help']\n"
        "try:\n    main()\nexcept SystemExit as exc:\n    assert exc.code == 0, exc.code\n"
    )
    modules, printed = _modules_after(code, tmp_path)
    listed = [found[1] for line in printed.splitlines() if (found := re.match(r"│ (\S+) ", line))]
    assert [name for name in listed if name in COMMANDS] == list(COMMANDS)
    assert "Run a suite and report per-turn results." in printed
    assert "Check judge metrics against human labels." in printed
    assert _loaded(modules, HEAVY) == []
    # listed from COMMAND_HELP: no command's module, nor the options' models
    assert [m for m in modules if m.startswith("assay.cli.")] == [
        "assay.cli._gc",
        "assay.cli._terminal",
        "assay.cli.app",
    ]
    assert _loaded(modules, ("pydantic", "assay.run_options", "assay.config")) == []


def test_the_help_listed_is_each_commands_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """``COMMAND_HELP`` is what each command's module registers, and ``assay --help``
    lists the commands as it would with every module imported."""
    from typer.testing import CliRunner

    from assay.cli.app import COMMAND_HELP, COMMAND_MODULES, app

    runner = CliRunner()
    env = {"COLUMNS": "200", "NO_COLOR": "1"}
    listed = runner.invoke(app, ["--help"], env=env)
    assert listed.exit_code == 0
    root: Any = typer.main.get_command(app)
    ctx = root.context_class(root)
    assert list(COMMAND_HELP) == list(COMMAND_MODULES)
    for name, text in COMMAND_HELP.items():
        assert root.get_command(ctx, name).help == text, name
    # without COMMAND_HELP, the group lists the real commands
    monkeypatch.setattr(sys.modules["assay.cli.app"], "COMMAND_HELP", {})
    real = runner.invoke(app, ["--help"], env=env)
    assert real.output == listed.output
    assert "Check a dataset file and print its shape" in real.output


def test_validate_imports_neither_the_store_nor_the_http_client(tmp_path: Path) -> None:
    data = tmp_path / "data.csv"
    data.write_text("Question,Answer\nwhat is 6 x 7?,42\nand 2 + 2?,4\n", encoding="utf-8")
    code = (
        "import sys\nfrom assay.cli import main\n"
        f"sys.argv = ['assay', 'validate', {str(data)!r}]\n"
        "try:\n    main()\nexcept SystemExit as exc:\n    assert exc.code == 0, exc.code\n"
    )
    modules, printed = _modules_after(code, tmp_path)
    assert "SINGLE-TURN" in printed and "2 rows" in printed
    assert _loaded(modules, ("sqlalchemy", "aiohttp", "jinja2", "numpy", "assay.store")) == []


def test_each_command_still_runs_from_its_own_module(assay_cli: RunCli) -> None:
    """Looked up lazily, a command is the one its module registers: its own help, options
    and exit codes (a group's sub-commands too)."""
    for args, expected in (
        (("run", "--help"), "--concurrency"),
        (("judge", "check", "--help"), "--metric"),
        (("agent", "travel", "--help"), "--port"),
        (("import", "--help"), "holodeck"),
    ):
        done = assay_cli(*args)
        assert done.returncode == 0, done.stderr
        assert expected in done.stdout
    unknown = assay_cli("nonsense")
    assert unknown.returncode == 2
    assert "No such command" in unknown.stderr


def test_the_names_in_the_help_are_the_registered_ones() -> None:
    """The report formats and schema names the help shows without importing them."""
    from assay.cli.report import FORMAT_NAMES
    from assay.cli.schema import SCHEMA_NAMES
    from assay.reporters import FORMATS
    from assay.results.schema import SCHEMA_MODELS

    assert sorted(FORMAT_NAMES.split("|")) == list(FORMATS)
    assert tuple(SCHEMA_MODELS) == SCHEMA_NAMES


def test_a_plain_csv_run_over_http_loads_only_what_it_uses(tmp_path: Path) -> None:
    data = tmp_path / "data.csv"
    data.write_text("Question,Answer\nwhat is 6 x 7?,42\n", encoding="utf-8")
    with agent_server() as server:
        argv = ["assay", "run", "--dataset", str(data), "--target", server.chat_url]
        argv += ["--store", f"sqlite:///{tmp_path / 'runs.db'}", "--workers", "1", "--quiet"]
        code = (
            f"import sys\nfrom assay.cli import main\nsys.argv = {argv!r}\n"
            "try:\n    main()\nexcept SystemExit as exc:\n    assert exc.code in (0, 1), exc.code\n"
            "import aiohttp.connector as c\n"
            "contexts = (c._SSL_CONTEXT_VERIFIED, c._SSL_CONTEXT_UNVERIFIED)\n"
            "print('CA', [context.cert_store_stats()['x509_ca'] for context in contexts])\n"
        )
        modules, printed = _modules_after(code, tmp_path)
        assert len(server.bodies()) == 1  # the run did run
    assert "1 test:" in printed
    assert "assay.metrics.comparison" in modules and "assay.store" in modules  # equality
    assert _loaded(modules, ONLY_FOR_SOME_RUNS) == []
    assert "CA [0, 0]" in printed  # aiohttp's TLS contexts never loaded the certificates


def test_a_judge_metric_loads_the_judge_tier_when_named(tmp_path: Path) -> None:
    """The registry imports the deterministic metrics for a deterministic name, and the
    judge metrics only for a name no deterministic metric has."""
    code = (
        "from assay.metrics import METRICS, build_metric\n"
        "import sys\n"
        "build_metric('equality', {})\n"
        "print('after equality', 'assay.metrics.judge' in sys.modules)\n"
        "print('correctness is', METRICS.get('correctness').__module__)\n"
    )
    modules, printed = _modules_after(code, tmp_path)
    assert "after equality False" in printed
    assert "correctness is assay.metrics.judge.quality" in printed
    assert "assay.metrics.judge" in modules


def test_the_version_is_known_without_importlib_metadata(tmp_path: Path) -> None:
    """``assay.version`` is the one place the version is written: the installed metadata
    (built from it) agrees, and learning it imports nothing of ``importlib.metadata``."""
    from importlib.metadata import version

    from assay.version import __version__

    assert __version__ == version("assay")
    modules, printed = _modules_after(
        "import assay.cli\nfrom assay.version import __version__\nprint(__version__)", tmp_path
    )
    assert printed.strip() == version("assay")
    assert _loaded(modules, ("importlib.metadata", "email", "zipfile")) == []


def test_the_collector_is_paused_only_around_imports(tmp_path: Path) -> None:
    """Importing the CLI (a test, a tool) leaves the collector on, its thresholds as they
    were, and freezes nothing; the ``assay`` command's own process freezes what its imports
    made and runs with the collector on, its young passes less often; a collector disabled
    by the caller stays disabled."""
    import gc

    from assay.cli._gc import YOUNG_THRESHOLD, collector_paused

    code = (
        "import gc\nimport assay.cli\n"
        "print('after import', gc.isenabled(), gc.get_freeze_count(), gc.get_threshold())\n"
        "import sys\nsys.argv = ['assay', 'schema', 'nonsense']\n"
        "try:\n    assay.cli.main()\nexcept SystemExit:\n    pass\n"
        "print('after main', gc.isenabled(), gc.get_freeze_count() > 10000, gc.get_threshold())\n"
    )
    _, printed = _modules_after(code, tmp_path)
    assert "after import True 0 (700, 10, 10)" in printed
    assert f"after main True True ({YOUNG_THRESHOLD}, 10, 10)" in printed
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_run_path_up_to_its_first_request_imports_no_sqlalchemy(tmp_path: Path) -> None:
    """What a run imports before its first request (the job, its writer, a worker's shard,
    the progress and gate of the CLI) leaves SQLAlchemy to whoever opens the store; the
    store's names still resolve, and then load it."""
    modules, printed = _modules_after(
        "import sys\nimport assay.runner.job, assay.runner.writer, assay.runner.shard\n"
        "import assay.runner.select, assay.cli._progress, assay.api, assay.store._lock\n"
        "print('before', 'sqlalchemy' in sys.modules)\n"
        "from assay.store import Store, open_store\n"
        "print('after', 'sqlalchemy' in sys.modules, Store.__name__, open_store.__module__)\n",
        tmp_path,
    )
    assert "assay.store._records" in modules  # the check sees what it should
    assert "before False" in printed
    assert "after True Store assay.store.store" in printed


def test_a_run_on_workers_sends_its_first_requests_before_sqlalchemy_loads(
    tmp_path: Path,
) -> None:
    """A new store is opened at its first use: a run on worker processes stores itself once
    the workers have their first tests, so they were forked without SQLAlchemy."""
    data = tmp_path / "data.csv"
    data.write_text("Question,Answer\nwhat is 6 x 7?,42\nand 2 + 2?,4\n", encoding="utf-8")
    told = tmp_path / "requests.log"  # each request, from the worker that sends it
    with agent_server() as server:
        argv = ["assay", "run", "--dataset", str(data), "--target", server.chat_url]
        argv += ["--store", f"sqlite:///{tmp_path / 'runs.db'}", "--workers", "2", "--quiet"]
        code = (
            "import sys\nimport aiohttp.client\n"
            "request = aiohttp.client.ClientSession._request\n"
            "async def told(self, *args, **kwargs):\n"
            f"    with open({str(told)!r}, 'a') as log:\n"
            "        print('REQUEST', 'sqlalchemy' in sys.modules, file=log)\n"
            f"        print('LATER', [m for m in {AFTER_THE_FIRST_REQUEST!r} if m in sys.modules],"
            " file=log)\n"
            "    return await request(self, *args, **kwargs)\n"
            "aiohttp.client.ClientSession._request = told\n"
            f"from assay.cli import main\nsys.argv = {argv!r}\n"
            "try:\n    main()\nexcept SystemExit as exc:\n    assert exc.code in (0, 1), exc.code\n"
        )
        modules, printed = _modules_after(code, tmp_path)
        assert len(server.bodies()) == 2
    assert "2 tests:" in printed
    assert told.read_text().splitlines() == ["REQUEST False", "LATER []"] * 2
    assert "sqlalchemy" in modules  # the run was stored, after


def _parsed(command: Any, args: list[str]) -> dict[str, Any]:
    parent = command.context_class(command, info_name="assay")
    return dict(command.make_context("run", list(args), parent=parent).params)


def test_options_are_coerced_as_typer_does_building_only_what_a_value_needs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """typer builds a pydantic TypeAdapter per parameter to coerce its value; ``assay run``'s
    are built only for the options given (``_CoercedWhenGiven``), and every value comes out
    as typer's own coercion makes it, for options given or not."""
    import typer._coercion

    from assay.cli.app import _CoercedWhenGiven, _registered

    built: list[str] = []
    real = typer._coercion.build_runtime_param
    monkeypatch.setattr(
        sys.modules["assay.cli.app"],
        "_build_runtime_param",
        lambda descriptor: built.append(str(descriptor.annotation)) or real(descriptor),
    )
    import assay.cli.run  # noqa: F401  (registers the command)

    args_list = [
        ["--dataset", "a.csv", "--target", "http://x", "--concurrency", "100", "--quiet"],
        ["s.yaml", "--dataset", "a.csv", "--dataset", "b.csv", "--tag", "t", "--retries", "0"],
        ["--turn-timeout-s", "2.5", "--out", "r.html", "--format", "html", "-k", "a and b"],
        [],
    ]
    for args in args_list:
        built.clear()
        lazy = _registered("run")["run"]
        assert all(
            isinstance(p._runtime_param, _CoercedWhenGiven)
            for p in lazy.params
            if hasattr(p, "_runtime_param")
        )
        got = _parsed(lazy, args)
        given = sum(a.startswith("-") and a not in ("--quiet",) for a in args)
        assert len(built) <= given + 1  # the suite argument, when given
        plain = _registered("run")["run"]
        for param in plain.params:  # typer's own coercion for every parameter
            param._runtime_param = None
        expected = _parsed(plain, args)
        assert got == expected
        assert [type(v) for v in got.values()] == [type(v) for v in expected.values()]
    assert _parsed(_registered("run")["run"], [])["datasets"] == []


def test_a_bad_option_value_is_refused_as_typer_refuses_it(assay_cli: RunCli) -> None:
    for args, said in (
        (("--concurrency", "abc"), "Invalid value for '--concurrency'"),
        (("--concurrency", "0"), "Invalid value for '--concurrency'"),
        (("--turn-timeout-s", "soon"), "Invalid value for '--turn-timeout-s'"),
    ):
        done = assay_cli("run", "--dataset", "nothing.csv", *args)
        assert done.returncode == 2, (args, done.stderr)
        assert said in done.stderr


def test_what_coercing_an_option_imports_is_frozen_with_the_command(tmp_path: Path) -> None:
    """typer's coercion of an option given imports pydantic's adapters while the options are
    parsed, after the command's modules were imported and frozen; it is imported with them
    (``LazyCommands.get_command``), or the collector walks its objects for the rest of the
    process (at exit too)."""
    data = tmp_path / "data.csv"
    data.write_text("Question,Answer\nwhat is 6 x 7?,42\n", encoding="utf-8")
    code = (
        "import gc, sys\nfrom assay.cli import main\n"
        f"sys.argv = ['assay', 'validate', {str(data)!r}]\n"
        "try:\n    main()\nexcept SystemExit as exc:\n    assert exc.code == 0, exc.code\n"
        "print('TRACKED', len(gc.get_objects()), gc.get_freeze_count())\n"
    )
    modules, printed = _modules_after(code, tmp_path)
    assert "typer._adapters" in modules
    [line] = [line for line in printed.splitlines() if line.startswith("TRACKED")]
    tracked, frozen = map(int, line.split()[1:])
    assert tracked < frozen / 4, (tracked, frozen)  # 12,406 of 20,777 when it was not
