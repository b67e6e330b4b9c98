"""Every command that writes a file checks where before doing the work, and a place no file
can be written is bad input: exit 2, one line naming the option, the path and why; never
"a bug in assay" (exit 3). ``assay run --out``, ``assay report --out``, ``assay import -o``
and ``assay init DIR`` share the one check (``assay.cli._out``)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli.conftest import RunCli

TOO_LONG = "a" * 300  # longer than a file name may be (255 bytes on Linux and macOS)
PROMPTFOO = (
    "prompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    assert: [{type: equals, value: hello}]\n"
)


def refused(proc: subprocess.CompletedProcess[str], line: str) -> None:
    """Exit 2 with exactly ``line`` on standard error, and nothing that looks like a crash."""
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip() == line
    assert "Traceback" not in proc.stderr


@pytest.fixture
def run_id(assay_cli: RunCli, tmp_path: Path) -> str:
    """A stored run of a one-test suite (the agent echoes)."""
    (tmp_path / "agent.py").write_text("def respond(query, session_id):\n    return query\n")
    (tmp_path / "suite.yaml").write_text(
        "name: s\ntarget: {python: 'agent:respond'}\n"
        "tests:\n  - {name: a, input: hi, ground_truth: hi}\n"
    )
    assert assay_cli("run", "suite.yaml").returncode == 0
    (run,) = json.loads(assay_cli("runs", "--json").stdout)
    return str(run["id"])


def test_report_out_below_a_file_is_refused_as_run_out_is(
    assay_cli: RunCli, tmp_path: Path, run_id: str
) -> None:
    (tmp_path / "ro").touch()
    line = (
        f"error: options: --out: cannot write a report to 'ro/x.json': '{tmp_path / 'ro'}' "
        "is a file"
    )
    refused(assay_cli("report", run_id, "--out", "ro/x.json"), line)
    refused(assay_cli("run", "suite.yaml", "--out", "ro/x.json"), line)  # the same words
    assert len(json.loads(assay_cli("runs", "--json").stdout)) == 1  # that run did not run


def test_an_out_extension_contradicting_its_format_is_refused(
    assay_cli: RunCli, tmp_path: Path, run_id: str
) -> None:
    line = (
        "error: options: --format: --out 'r.json' names a json report by its extension, but "
        "its --format is html: drop the --format, or give the --out an extension .html or .htm "
        "(or one that names no format)"
    )
    refused(assay_cli("report", run_id, "--format", "html", "--out", "r.json"), line)
    refused(assay_cli("run", "suite.yaml", "--out", "r.json", "--format", "html"), line)
    assert not (tmp_path / "r.json").exists()
    assert len(json.loads(assay_cli("runs", "--json").stdout)) == 1  # that run did not run
    # an extension that names no format takes the --format
    assert assay_cli("report", run_id, "--format", "html", "--out", "r.txt").returncode == 0
    assert (tmp_path / "r.txt").read_text().startswith("<!DOCTYPE html>")


def test_report_out_checked_before_the_run_is_looked_up(assay_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "adir").mkdir()
    line = "error: options: --out: cannot write a report to 'adir': 'adir' is a folder"
    refused(assay_cli("report", "no-such-run", "--out", "adir", "--format", "json"), line)
    # without --format too: the folder is named, not the missing extension
    refused(assay_cli("report", "no-such-run", "--out", "adir"), line)


def test_a_name_too_long_is_refused_not_a_crash(
    assay_cli: RunCli, tmp_path: Path, run_id: str
) -> None:
    out = f"{TOO_LONG}/r.json"
    line = f"error: options: --out: cannot write a report to '{out}': File name too long"
    refused(assay_cli("report", run_id, "--out", out), line)
    refused(assay_cli("run", "suite.yaml", "--out", out), line)
    assert len(json.loads(assay_cli("runs", "--json").stdout)) == 1


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_report_refused_on_writing_is_bad_out_not_a_bug(assay_cli: RunCli, run_id: str) -> None:
    proc = assay_cli("report", run_id, "--out", "/dev/full", "--format", "json")
    line = "error: options: --out: cannot write a report to '/dev/full': No space left on device"
    refused(proc, line)


def test_report_out_makes_missing_folders(assay_cli: RunCli, tmp_path: Path, run_id: str) -> None:
    proc = assay_cli("report", run_id, "--out", "new/deeper/r.json")
    assert proc.returncode == 0, proc.stderr
    written = json.loads((tmp_path / "new" / "deeper" / "r.json").read_text())
    assert written["run"]["id"] == run_id


def test_import_out_is_checked_before_the_file_is_read(assay_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "ro").touch()
    line = (
        f"error: options: --out: cannot write the suite to 'ro/s.yaml': '{tmp_path / 'ro'}' "
        "is a file"
    )
    refused(assay_cli("import", "promptfoo", "missing.yaml", "-o", "ro/s.yaml"), line)
    (tmp_path / "adir").mkdir()
    line = "error: options: --out: cannot write the suite to 'adir': 'adir' is a folder"
    # a folder is refused as such, --force or not (it used to say: pass --force)
    refused(assay_cli("import", "promptfoo", "missing.yaml", "-o", "adir"), line)
    refused(assay_cli("import", "promptfoo", "missing.yaml", "-o", "adir", "--force"), line)


def test_import_out_makes_missing_folders(assay_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "promptfooconfig.yaml").write_text(PROMPTFOO)
    proc = assay_cli("import", "promptfoo", "promptfooconfig.yaml", "-o", "suites/s.yaml")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "suites" / "s.yaml").read_text().startswith("# Imported by")


def test_init_below_a_file_is_refused(assay_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "ro").touch()
    line = (
        "error: options: DIR: cannot write a starter file to 'ro/bot/suite.yaml': "
        f"'{tmp_path / 'ro'}' is a file"
    )
    refused(assay_cli("init", "ro/bot"), line)


def test_init_refuses_a_folder_where_a_starter_file_goes_even_forced(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    (tmp_path / "bot" / ".github").mkdir(parents=True)
    (tmp_path / "bot" / ".github" / "workflows").touch()  # a file where a folder goes
    line = (
        "error: options: DIR: cannot write a starter file to 'bot/.github/workflows/assay.yml': "
        f"'{tmp_path / 'bot' / '.github' / 'workflows'}' is a file"
    )
    refused(assay_cli("init", "bot", "--force"), line)
    assert not (tmp_path / "bot" / "suite.yaml").exists()  # nothing was written
    (tmp_path / "bot" / ".github" / "workflows").unlink()
    (tmp_path / "bot" / "suite.yaml").mkdir()
    line = (
        "error: options: DIR: cannot write a starter file to 'bot/suite.yaml': "
        "'bot/suite.yaml' is a folder"
    )
    refused(assay_cli("init", "bot", "--force"), line)


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc (Linux)")
@pytest.mark.parametrize(
    ("out", "why"),
    [
        ("/proc/assay-report.json", "No such file or directory"),  # /proc takes no new file
        ("/proc/no-such-folder/r.json", "No such file or directory (making a folder in '/proc')"),
    ],
)
def test_run_out_the_system_refuses_is_found_before_any_test_runs(
    assay_cli: RunCli, tmp_path: Path, out: str, why: str
) -> None:
    # only writing finds these (root may write anywhere else): it used to be found after
    # every test had run, exit 3
    (tmp_path / "agent.py").write_text("def respond(query, session_id):\n    return query\n")
    (tmp_path / "data.csv").write_text("Question,Answer\nhi,hi\n")
    proc = assay_cli("run", "--dataset", "data.csv", "--target", "agent:respond", "--out", out)
    line = (
        f"error: options: --out: cannot write a report to '{out}': {why}: give a path you can "
        "write to"
    )
    refused(proc, line)
    assert json.loads(assay_cli("runs", "--json").stdout) == []  # nothing ran
    assert proc.stdout == ""


def test_the_check_leaves_nothing_behind_and_no_report_truncated(tmp_path: Path) -> None:
    from assay.cli._out import unwritable

    old = tmp_path / "old.json"
    old.write_text("the last report")
    before = old.stat()
    assert unwritable(old) is None
    assert old.read_text() == "the last report"  # not truncated before the run
    assert old.stat().st_mtime_ns == before.st_mtime_ns
    assert unwritable(tmp_path / "new.json") is None
    assert unwritable(tmp_path / "a" / "b" / "new.json") is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.json"]  # nothing made, or left


@pytest.mark.skipif(not Path("/dev/null").exists(), reason="needs /dev/null")
def test_a_device_is_left_to_the_writing(tmp_path: Path) -> None:
    from assay.cli._out import unwritable

    assert unwritable(Path("/dev/null")) is None
