"""Installed packages register metrics through the ``assay.plugins`` entry point group.

Each test installs packages the way pip leaves them (a package folder and its
``.dist-info`` with ``entry_points.txt``) in a folder of its own on ``PYTHONPATH``, and runs
assay in a subprocess, so ``importlib.metadata`` finds them as it finds any installed
distribution. A plugin writes a line to a marker file each time it is imported: it must not
be imported by ``import assay`` or ``--help``, and at most once per process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import RunCli

PLUGIN = """
import os

import assay

with open(os.environ["FANCY_MARKER"], "a") as marker:
    marker.write("imported\\n")


@assay.metric("fancy")
def fancy(ctx):
    return "fancy" in (ctx.response or "")
"""


def install(site: Path, dist: str, version: str, entry_points: str, **modules: str) -> None:
    """A distribution as pip installs it: its modules and a .dist-info folder."""
    info = site / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(f"[assay.plugins]\n{entry_points}\n")
    for name, text in modules.items():
        (site / name).mkdir()
        (site / name / "__init__.py").write_text(text, encoding="utf-8")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    site = tmp_path / "site"
    install(site, "assay-fancy", "1.0", "fancy = assay_fancy", assay_fancy=PLUGIN)
    install(site, "assay-broken", "0.1", "broken = assay_broken_gone")
    return {"PYTHONPATH": str(site), "FANCY_MARKER": str(tmp_path / "marker")}


def imports(tmp_path: Path) -> int:
    marker = tmp_path / "marker"
    return len(marker.read_text().splitlines()) if marker.exists() else 0


SUITE = """
name: installed
target: {python: "agent:respond"}
metrics: [fancy, {metric: fancy, name: fancy-again}]
tests: [{name: t, input: fancy hotels}]
"""


def write_suite(
    tmp_path: Path, metrics: str = "[fancy, {metric: fancy, name: fancy-again}]"
) -> Path:
    (tmp_path / "agent.py").write_text("def respond(query, session_id):\n    return query\n")
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE.replace("[fancy, {metric: fancy, name: fancy-again}]", metrics))
    return suite


def test_nothing_is_loaded_by_import_assay_or_help(
    assay_cli: RunCli, tmp_path: Path, env: dict[str, str]
) -> None:
    probe = "import assay, sys; print('assay_fancy' in sys.modules)"
    proc = subprocess.run(
        [sys.executable, "-c", probe],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    assert proc.stdout.strip() == "False"
    for args in (["--help"], ["run", "--help"], ["report", "--help"]):
        assert assay_cli(*args, env=env).returncode == 0
    assert imports(tmp_path) == 0


def test_an_installed_metric_is_used_from_yaml_and_loaded_once(
    assay_cli: RunCli, tmp_path: Path, env: dict[str, str]
) -> None:
    suite = write_suite(tmp_path)
    proc = assay_cli("run", str(suite), "--out", "r.json", "--store", "sqlite:///s.db", env=env)
    assert proc.returncode == 0, proc.stderr
    result = json.loads((tmp_path / "r.json").read_text())["results"][0]
    scores = {m["metric_name"]: (m["score"], m["passed"]) for m in result["metric_results"]}
    assert scores == {"fancy": (1.0, True), "fancy-again": (1.0, True)}
    assert imports(tmp_path) == 1


def test_a_broken_installed_plugin_is_named_when_a_metric_is_unknown(
    assay_cli: RunCli, tmp_path: Path, env: dict[str, str]
) -> None:
    suite = write_suite(tmp_path, metrics="[fancyy]")
    proc = assay_cli("run", str(suite), "--store", "sqlite:///s.db", env=env)
    assert proc.returncode == 2
    assert "metrics[0].metric: unknown metric 'fancyy'; did you mean 'fancy'?" in proc.stderr
    assert (
        "the installed plugin broken = assay_broken_gone (assay-broken) failed to load: "
        "ModuleNotFoundError: No module named 'assay_broken_gone'" in proc.stderr
    )


def test_a_suite_of_builtins_never_imports_an_installed_plugin(
    assay_cli: RunCli, tmp_path: Path, env: dict[str, str]
) -> None:
    suite = write_suite(tmp_path, metrics="[{metric: contains, value: hotels}]")
    proc = assay_cli("run", str(suite), "--store", "sqlite:///s.db", env=env)
    assert proc.returncode == 0, proc.stderr
    assert imports(tmp_path) == 0  # a broken plugin cannot break a suite that does not use it


def test_the_suite_schema_lists_installed_metrics(
    assay_cli: RunCli, tmp_path: Path, env: dict[str, str]
) -> None:
    proc = assay_cli("schema", "suite", env=env)
    assert proc.returncode == 0, proc.stderr
    spec = json.loads(proc.stdout)["$defs"]["MetricSpec"]
    assert "fancy" in spec["oneOf"][0]["enum"]
    assert any(b.get("title") == "fancy" for b in spec["oneOf"][1:])
    assert "warning: the installed plugin broken = assay_broken_gone" in proc.stderr
