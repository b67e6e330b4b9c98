"""Start-up stays light: ``import assay.cli``, ``assay --help`` and ``assay validate`` import
no package a command does not need (issue 15: SQLAlchemy, aiohttp, Jinja2, numpy, rich's
tables and progress bars, the metric libraries, the result models, the store and runner).

Each check runs in a fresh interpreter, so what another test imported does not count."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from tests.cli.conftest import RunCli

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
        "assay.cli._terminal"
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
