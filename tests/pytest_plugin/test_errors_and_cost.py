"""Bad input stops pytest with assay's message and pytest's exit code, never a traceback;
without ``--assay-suite`` the plugin, loaded in every pytest session, imports nothing heavy,
collects nothing, and keeps pytest from rewriting assay's own modules."""

from __future__ import annotations

import re
from pathlib import Path

from tests.pytest_plugin.conftest import RunPytest, python_suite

EXIT_INTERRUPTED = 2  # pytest: errors during collection
EXIT_USAGE = 4  # pytest: a bad command line


def test_a_suite_with_problems_is_a_collection_error_naming_each(
    run_pytest: RunPytest, tmp_path: Path
) -> None:
    python_suite(tmp_path)
    (tmp_path / "bad.yaml").write_text(
        "name: bad\ntarget: {python: 'agent:respond'}\ntests:\n"
        "  - {name: a, input: x, metrics: [equalty]}\n  - {name: b}\n"
    )
    result = run_pytest("--assay-suite", "suite.yaml", "--assay-suite", "bad.yaml")
    assert result.returncode == EXIT_INTERRUPTED, result.out
    assert "ERROR collecting bad.yaml" in result.out
    assert "bad.yaml: tests[0].metrics[0].metric: unknown metric 'equalty'" in result.out
    assert "bad.yaml: tests[1]: a test has exactly one of input" in result.out
    assert "Interrupted: 1 error during collection" in result.out
    assert "Traceback" not in result.out and "loader.py" not in result.out
    assert not (tmp_path / "asked.log").exists()  # nothing ran


def test_a_file_that_is_not_yaml_is_a_collection_error(
    run_pytest: RunPytest, tmp_path: Path
) -> None:
    (tmp_path / "broken.yaml").write_text("name: [unclosed\n")
    result = run_pytest("--assay-suite", "broken.yaml")
    assert result.returncode == EXIT_INTERRUPTED
    assert "ERROR collecting broken.yaml" in result.out
    assert "assay: broken.yaml: line 2, column 1: invalid YAML" in result.out
    assert "Traceback" not in result.out


def test_a_missing_suite_or_a_bad_option_is_a_usage_error(
    run_pytest: RunPytest, tmp_path: Path
) -> None:
    missing = run_pytest("--assay-suite", "nowhere.yaml", "--assay-report", "r.json")
    assert missing.returncode == EXIT_USAGE
    assert "file or directory not found: nowhere.yaml" in missing.out
    assert not (tmp_path / "r.json").exists()  # nothing ran: no report
    python_suite(tmp_path)
    target = run_pytest("--assay-suite", "suite.yaml", "--assay-target", "no target")
    assert target.returncode == EXIT_USAGE
    assert "--assay-target: expected an http(s) URL, demo, or module:function" in target.out
    (tmp_path / "folder").mkdir()
    report = run_pytest("--assay-suite", "suite.yaml", "--assay-report", "folder")
    assert report.returncode == EXIT_USAGE
    assert "--assay-report: 'folder' is a folder; give a file name" in report.out
    assert "Traceback" not in missing.out + target.out + report.out
    assert not (tmp_path / "asked.log").exists()


LIGHT = """
import sys

HEAVY = ("assay.cases", "assay.runner", "assay.store", "sqlalchemy", "aiohttp", "pydantic",
         "rich", "yaml", "typer", "numpy")


def test_nothing_heavy_is_imported():
    assert "assay.pytest_plugin" in sys.modules  # loaded by its entry point
    assert [name for name in HEAVY if name in sys.modules] == []


def test_assay_is_not_rewritten_by_pytest():
    import assay.cases

    assert type(assay.cases.__loader__).__name__ != "AssertionRewritingHook"
    assert type(sys.modules["test_light"].__loader__).__name__ == "AssertionRewritingHook"
"""


def test_without_a_suite_the_plugin_is_loaded_and_costs_nothing(
    run_pytest: RunPytest, tmp_path: Path
) -> None:
    python_suite(tmp_path)  # a suite in the folder is not collected unless asked for
    (tmp_path / "test_light.py").write_text(LIGHT)
    result = run_pytest()
    assert result.returncode == 0, result.out
    assert re.search(r"^plugins:.* assay-", result.out, re.M)  # loaded by its entry point
    assert result.items == {
        "test_light.py::test_nothing_heavy_is_imported": "PASSED",
        "test_light.py::test_assay_is_not_rewritten_by_pytest": "PASSED",
    }


def test_a_grader_that_calls_os_exit_on_import_is_a_collection_error(
    run_pytest: RunPytest, tmp_path: Path
) -> None:
    python_suite(tmp_path)
    (tmp_path / "quitter.py").write_text("import os\nos._exit(0)\n")
    (tmp_path / "bad.yaml").write_text(
        "name: bad\ntarget: {python: 'agent:respond'}\n"
        "metrics: [{type: code, grader: 'quitter:grade'}]\ntests: [{name: a, input: x}]\n"
    )
    result = run_pytest("--assay-suite", "bad.yaml")
    assert result.returncode == EXIT_INTERRUPTED, result.out  # before: 0, nothing collected
    assert (
        "bad.yaml: metrics[0].grader: cannot import module 'quitter': os._exit(0) (it would have "
        "ended the run)" in result.out
    )
