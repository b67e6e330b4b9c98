"""A file that cannot be attached stops ``assay run`` and ``assay validate`` before anything
runs: exit 2, one message naming the file, the field path or row, the test, the turn and the
path as written, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from tests.cli.conftest import RunCli
from tests.files.samples import write_samples


def _suite(folder: Path, tests: list[dict[str, Any]], **extra: Any) -> None:
    suite = {"name": "bad-files", "target": {"python": "nowhere:agent"}, **extra, "tests": tests}
    (folder / "suite.yaml").write_text(yaml.safe_dump(suite, sort_keys=False))


def _run(assay_cli: RunCli, folder: Path, *options: str) -> tuple[int, str]:
    done = assay_cli("run", "suite.yaml", "--store", f"sqlite:///{folder / 'runs.db'}", *options)
    assert "Traceback" not in done.stderr
    return done.returncode, done.stdout + done.stderr


def test_a_missing_file_names_the_test_the_turn_and_the_path(
    tmp_path: Path, assay_cli: RunCli
) -> None:
    write_samples(tmp_path / "docs")
    turns = [
        {"input": "a", "files": ["docs/policy.md"]},
        {"input": "b", "files": ["docs/nope.pdf"]},
    ]
    _suite(tmp_path, [{"name": "dialogue", "turns": turns}])
    code, output = _run(assay_cli, tmp_path)
    assert code == 2, output
    assert (
        "suite.yaml: tests[0].turns[1].files[0]: test 'dialogue', turn 1: docs/nope.pdf: file "
        f"not found (looked for {tmp_path / 'docs' / 'nope.pdf'})"
    ) in " ".join(output.split())


def test_an_unreadable_pdf_and_a_file_over_the_limit_are_both_reported(
    tmp_path: Path, assay_cli: RunCli
) -> None:
    samples = write_samples(tmp_path / "docs")
    (tmp_path / "docs" / "broken.pdf").write_bytes(b"%PDF-1.4\nthis is not a PDF body")
    size = samples["png"].stat().st_size
    tests = [
        {"name": "broken", "input": "read", "files": ["docs/broken.pdf"]},
        {"name": "big", "input": "look", "files": ["docs/screenshot.png"]},
    ]
    limit = (size - 1) / 1024 / 1024  # one byte too small for the PNG
    _suite(tmp_path, tests, execution={"max_file_mb": limit})
    code, output = _run(assay_cli, tmp_path)
    flat = " ".join(output.split())
    assert code == 2, output
    assert "tests[0].files[0]: test 'broken': docs/broken.pdf: cannot read it as a PDF" in flat
    assert (
        f"tests[1].files[0]: test 'big': docs/screenshot.png: the file is {size} bytes, over "
        f"the limit of {size - 1} bytes"
    ) in flat
    assert "raise execution.max_file_mb (--max-file-mb)" in flat
    # the option wins over the suite's execution: the PNG fits, the broken PDF is still refused
    code, output = _run(assay_cli, tmp_path, "--max-file-mb", "1")
    assert code == 2 and "docs/broken.pdf" in output and "screenshot.png" not in output


def test_a_files_key_on_a_multi_turn_test_says_where_it_goes(
    tmp_path: Path, assay_cli: RunCli
) -> None:
    _suite(tmp_path, [{"name": "t", "turns": [{"input": "a"}], "files": ["x.md"]}])
    code, output = _run(assay_cli, tmp_path)
    assert code == 2
    assert "files go on each turn of a multi-turn test" in " ".join(output.split())


def test_validate_reads_a_datasets_files_and_names_the_row(
    tmp_path: Path, assay_cli: RunCli
) -> None:
    write_samples(tmp_path / "docs")
    data = tmp_path / "rows.csv"
    data.write_text(
        "Question,files\nfine,docs/policy.md;docs/contract.pdf\nmissing,docs/policy.md; gone.png\n"
    )
    done = assay_cli("validate", str(data))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    flat = " ".join((done.stdout + done.stderr).split())
    assert "row 3, column files: gone.png: file not found" in flat
    assert "row 2" not in flat
    done = assay_cli("validate", str(data), "--json")
    assert done.returncode == 2 and "gone.png" in json.loads(done.stdout)["errors"][0]["message"]

    data.write_text("Question,files\nfine,docs/policy.md;docs/contract.pdf\n")
    done = assay_cli("validate", str(data))
    assert done.returncode == 0 and done.stdout.startswith("SINGLE-TURN — 1 rows\n")
    assert "files → files" in done.stdout  # the column is used, not ignored


def test_a_resume_refuses_a_changed_attached_file(
    tmp_path: Path, agent_module: str, assay_cli: RunCli
) -> None:
    samples = write_samples(tmp_path / "docs")
    tests = [{"name": f"t{i}", "input": "read", "files": ["docs/policy.md"]} for i in range(2)]
    suite = {"name": "resume", "target": {"python": f"{agent_module}:respond"}, "tests": tests}
    (tmp_path / "suite.yaml").write_text(yaml.safe_dump(suite))
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    first = assay_cli("run", "suite.yaml", "--store", store, "--limit", "1")
    assert first.returncode in (0, 1), first.stderr
    [run] = json.loads(assay_cli("runs", "--store", store, "--json").stdout)
    samples["md"].write_text("# another policy\n", encoding="utf-8")
    resumed = assay_cli("run", "--resume", run["id"], "--store", store)
    assert resumed.returncode == 2, resumed.stdout + resumed.stderr
    assert "attached files changed since run" in " ".join(resumed.stderr.split())


def test_a_diff_sets_apart_a_test_whose_file_changed(
    tmp_path: Path, agent_module: str, assay_cli: RunCli
) -> None:
    samples = write_samples(tmp_path / "docs")
    tests = [
        {"name": "reads-policy", "input": "read", "files": ["docs/policy.md"]},
        {"name": "no-files", "input": "hi"},
    ]
    suite = {
        "name": "diff",
        "target": {"python": f"{agent_module}:respond"},
        "metrics": [{"metric": "contains", "value": "40 EUR"}],
        "tests": tests,
    }
    (tmp_path / "suite.yaml").write_text(yaml.safe_dump(suite))
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    assert assay_cli("run", "suite.yaml", "--store", store).returncode == 1  # no-files fails
    samples["md"].write_text("# Policy\n\nMeals: 45 EUR a day.\n", encoding="utf-8")
    assert assay_cli("run", "suite.yaml", "--store", store).returncode == 1  # both fail now
    runs = json.loads(assay_cli("runs", "--store", store, "--json").stdout)
    b, a = (r["id"] for r in runs)  # newest first
    diff = json.loads(assay_cli("diff", a, b, "--store", store, "--json").stdout)
    assert diff["files_changed"] == [{"test_name": "reads-policy", "repeat_index": 0}]
    assert diff["regressions"] == []  # its failure is the file's, not the agent's
    assert diff["unchanged"] == 1
    assert "1 with changed files set apart" in diff["summary"]
