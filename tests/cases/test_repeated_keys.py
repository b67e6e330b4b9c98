"""A key given twice in one mapping of a suite is refused at load time, exit 2, naming the
file, the line of the second and the key's field path. Before, PyYAML kept the last one
silently: a second ``tests:`` dropped the first block's tests and the run went green, a
second ``ground_truth:`` or ``target:`` changed what was tested."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from assay.cases import load_suite
from assay.cases._yaml import BoundedLoader
from assay.errors import ConfigError
from tests.cli.conftest import RunCli

ECHO = "def respond(query, session_id):\n    return query\n"
FIX = "and only the last would count: remove one of them"


def refused(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    (line,) = proc.stderr.splitlines()
    return line.removeprefix("error: ")


def test_a_second_tests_block_is_refused_not_run(assay_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(ECHO)
    (tmp_path / "suite.yaml").write_text(
        'name: s\ntarget: {python: "agent:respond"}\n'
        "tests:\n  - {name: fails, input: hi, ground_truth: nope}\n"
        "tests:\n  - {name: passes, input: hi, ground_truth: hi}\n"
    )
    proc = assay_cli("run", "suite.yaml", "--out", "r.json")
    assert refused(proc) == (
        f"suite.yaml: line 5, column 1: the key tests is given twice (first at line 3), {FIX}"
    )
    assert not (tmp_path / "r.json").exists()  # nothing ran
    # with the key once, the run it used to make is the failing test's
    (tmp_path / "suite.yaml").write_text(
        'name: s\ntarget: {python: "agent:respond"}\n'
        "tests:\n  - {name: fails, input: hi, ground_truth: nope}\n"
        "  - {name: passes, input: hi, ground_truth: hi}\n"
    )
    proc = assay_cli("run", "suite.yaml", "--out", "r.json")
    assert proc.returncode == 1, proc.stderr
    statuses = {
        r["test_name"]: r["status"]
        for r in json.loads((tmp_path / "r.json").read_text())["results"]
    }
    assert statuses == {"fails": "failed", "passes": "passed"}


def load_problem(tmp_path: Path, text: str) -> str:
    path = tmp_path / "suite.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_suite(path)
    (problem,) = info.value.problems
    assert problem.source == str(path)
    return f"{problem.path}: {problem.message}"


HEAD = 'name: s\ntarget: {python: "agent:respond"}\n'


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (
            HEAD + "tests:\n  - name: t\n    input: hi\n    ground_truth: x\n    ground_truth: y\n",
            "line 7, column 5: the key tests[0].ground_truth is given twice (first at line 6)",
        ),
        (
            HEAD + 'target: {python: "other:respond"}\ntests: [{name: t, input: hi}]\n',
            "line 3, column 1: the key target is given twice (first at line 2)",
        ),
        (
            HEAD + "tests:\n  - {name: a, input: hi}\n  - name: b\n    turns:\n"
            "      - {input: x, expected_tools: [{name: f, args: {n: 1, n: 2}}]}\n",
            "line 7, column 60: the key tests[1].turns[0].expected_tools[0].args.n is given "
            "twice (first at line 7)",
        ),
        (  # one key to Python: 1 and 0x1, true and yes
            HEAD + "tests: [{name: t, input: hi}]\nx: {1: a, 0x1: b}\n",
            "line 4, column 11: the key x.0x1 is given twice (first at line 4)",
        ),
        (
            HEAD + "tests: [{name: t, input: hi}]\nx: {true: a, yes: b}\n",
            "line 4, column 14: the key x.yes is given twice (first at line 4)",
        ),
        (  # quoted or not, one key
            HEAD + 'tests: [{name: t, input: hi, "input": ho}]\n',
            "line 3, column 30: the key tests[0].input is given twice (first at line 3)",
        ),
        (  # in a mapping an alias points at: said where the mapping is written
            HEAD + "defaults: &d {input: hi, input: ho}\ntests: [{<<: *d, name: t}]\n",
            "line 3, column 26: the key defaults.input is given twice (first at line 3)",
        ),
    ],
    ids=["ground_truth", "target", "nested", "int", "bool", "quoted", "anchor"],
)
def test_a_repeated_key_at_any_depth_is_refused(tmp_path: Path, text: str, where: str) -> None:
    assert load_problem(tmp_path, text) == f"{where}, {FIX}"


def test_a_merge_key_may_still_be_overridden() -> None:
    text = (
        "defaults: &d {input: hi, ground_truth: hello}\n"
        "tests:\n  - {<<: *d, name: a}\n  - {<<: *d, name: b, input: hey}\n"
    )
    assert yaml.load(text, Loader=BoundedLoader)["tests"] == [
        {"input": "hi", "ground_truth": "hello", "name": "a"},
        {"input": "hey", "ground_truth": "hello", "name": "b"},
    ]


def test_the_same_key_in_two_mappings_is_no_repeat() -> None:
    text = "a: {k: 1}\nb: {k: 2}\nc: [{k: 3}, {k: 4}]\n"
    assert yaml.load(text, Loader=BoundedLoader) == {
        "a": {"k": 1},
        "b": {"k": 2},
        "c": [{"k": 3}, {"k": 4}],
    }


def test_a_file_to_import_is_read_alike(assay_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "promptfooconfig.yaml").write_text(
        "tests:\n  - vars: {question: a}\n    vars: {question: b}\n"
    )
    proc = assay_cli("import", "promptfoo", "promptfooconfig.yaml", "-o", "out.yaml")
    assert refused(proc) == (
        "promptfooconfig.yaml: line 3, column 5: the key tests[0].vars is given twice (first at "
        f"line 2), {FIX}"
    )
