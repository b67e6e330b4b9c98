"""A number written unquoted in a string field of a suite keeps its text exactly: YAML 1.1
reads ``12:30`` as 750 (base 60), ``01234`` as 668 (octal), ``1.10`` as 1.1, and the string
field used to get that number's text (``input: 12:30`` sent "750"). Number fields, tool
arguments and options still get numbers, plain ``int`` and ``float``."""

from __future__ import annotations

import copy
import json
import pickle
from pathlib import Path
from typing import Any

import pytest
import yaml

from assay._spec_base import WrittenFloat, WrittenInt
from assay.cases import LoadedSuite, load_suite
from assay.cases._yaml import BoundedLoader
from assay.errors import ConfigError
from tests.cli.conftest import RunCli

HEAD = 'name: s\ntarget: {python: "agent:respond"}\n'
AS_WRITTEN = ["12:09", "01234", "1.10", "1_000", "0x1F", ".5", "+3", "-0", "1.0e+3", ".inf"]
AS_WRITTEN += ["0b101", "190:20:30", "7", "2.5", "1e3"]  # the last three: no change needed


def test_run_sends_the_input_as_written(assay_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(
        "def respond(query, session_id):\n    return 'at ' + query\n"
    )
    (tmp_path / "suite.yaml").write_text(
        HEAD + "tests:\n  - name: time\n    input: 12:30\n    ground_truth: at 12:30\n"
    )
    proc = assay_cli("run", "suite.yaml", "--out", "r.json")
    assert proc.returncode == 0, proc.stdout + proc.stderr  # before: "at 750", failed
    assert "1 test: 1 passed" in proc.stderr + proc.stdout
    (result,) = json.loads((tmp_path / "r.json").read_text())["results"]
    assert (result["test_input"], result["agent_response"]) == ("12:30", "at 12:30")


def load(tmp_path: Path, text: str) -> LoadedSuite:
    path = tmp_path / "suite.yaml"
    path.write_text(HEAD + text)
    return load_suite(path)


@pytest.mark.parametrize("written", AS_WRITTEN)
def test_every_string_field_keeps_the_text(tmp_path: Path, written: str) -> None:
    loaded = load(
        tmp_path,
        f"description: {written}\ntests:\n"
        f"  - {{name: {written}, input: {written}, ground_truth: {written}, "
        f"context: {written}, tags: [{written}]}}\n"
        f"  - name: turns\n    turns: [{{input: {written}, ground_truth: {written}}}]\n"
        f"  - {{name: goal, goal: {written}, required: [{written}]}}\n",
    )
    one, turns, goal = loaded.suite.tests
    assert loaded.suite.description == written
    values = [one.name, one.input, one.ground_truth, one.context, *one.tags]
    assert turns.turns is not None
    values += [turns.turns[0].input, turns.turns[0].ground_truth, goal.goal, *(goal.required or [])]
    assert values == [written] * len(values)
    assert all(type(v) is str for v in values)
    assert loaded.cases[0].turns[0].input == written


def test_number_fields_get_plain_numbers_as_yaml_1_1_reads_them(tmp_path: Path) -> None:
    loaded = load(
        tmp_path,
        "execution: {concurrency: 0x2, turn_timeout_s: 1:30, repeat: 01, max_file_mb: 1.50}\n"
        "judge: {provider: openai, model: m, temperature: .5, max_tokens: 1_000}\n"
        "tests: [{name: g, goal: x, max_turns: 010}]\n",
    )
    execution, judge = loaded.suite.execution, loaded.suite.judge
    assert judge is not None
    numbers = [execution.concurrency, execution.turn_timeout_s, execution.repeat]
    numbers += [execution.max_file_mb, judge.temperature, judge.max_tokens]
    numbers.append(loaded.suite.tests[0].max_turns)
    assert numbers == [2, 90.0, 1, 1.5, 0.5, 1000, 8]  # base 60 and octal, as before
    assert [type(n) for n in numbers] == [int, float, int, float, float, int, int]


def exact(value: Any) -> Any:
    """``value`` with every number as (type name, value): a subclass would show."""
    if isinstance(value, dict):
        return {exact(k): exact(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [exact(v) for v in value]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return (type(value).__name__, value)
    return value


def test_arguments_options_and_free_form_values_stay_plain_numbers(tmp_path: Path) -> None:
    loaded = load(
        tmp_path,
        "metrics: [{metric: numeric, relative_tolerance: 0.10}]\n"
        "tests:\n"
        "  - name: t\n    input: hi\n    ground_truth: '1'\n"
        "    context: {at: 12:09, n: [0x1F, 1.10]}\n"
        "    expected_tools: [{name: f, args: {a: 206588, b: 0x1F, c: 1.10}}]\n",
    )
    (test,) = loaded.suite.tests
    assert exact(test.context) == {"at": ("int", 729), "n": [("int", 31), ("float", 1.1)]}
    assert test.expected_tools is not None
    assert exact(test.expected_tools[0].options) == {
        "args": {"a": ("int", 206588), "b": ("int", 31), "c": ("float", 1.1)}
    }
    assert exact(loaded.suite.metrics[0].options) == {"relative_tolerance": ("float", 0.1)}
    matchers = loaded.cases[0].turns[0].expected_tools[0].args
    assert exact({k: m.as_json() for k, m in matchers.items()}) == exact(
        test.expected_tools[0].options["args"]
    )
    # the copy a run stores holds numbers, as before
    assert exact(loaded.raw["tests"][0]["context"]) == exact(test.context)
    assert exact(loaded.raw["tests"][0]["ground_truth"]) == "1"


def test_target_values_stay_plain_numbers(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(
        "name: s\ntarget:\n  http:\n    url: http://localhost:1/{{ vars.port }}\n"
        "    headers: {X-Time: 12:30}\n    vars: {port: 0x50}\n    body: {n: 1.10}\n"
        "tests: [{name: t, input: hi}]\n"
    )
    target = load_suite(path).suite.target
    assert target is not None and target.http is not None
    assert target.http.headers == {"X-Time": "12:30"}  # a string field: as written
    assert exact([target.http.vars, target.http.body]) == [
        {"port": ("int", 80)},
        {"n": ("float", 1.1)},
    ]


@pytest.mark.parametrize(
    ("value", "got"), [("yes", "True"), ("2024-01-02", "datetime.date(2024, 1, 2)")]
)
def test_booleans_and_dates_in_a_string_field_are_still_refused(
    tmp_path: Path, value: str, got: str
) -> None:
    with pytest.raises(ConfigError) as info:
        load(tmp_path, f"tests: [{{name: t, input: hi, ground_truth: {value}}}]\n")
    assert [str(p) for p in info.value.problems] == [
        f"{tmp_path / 'suite.yaml'}: tests[0].ground_truth: Input should be a valid string "
        f"(got {got}) (test 't')"
    ]


def test_only_a_number_written_otherwise_is_a_written_number() -> None:
    loaded = yaml.load("[7, 2.5, -3, 1.0, 0x1F, 1.10]", Loader=BoundedLoader)
    assert [type(v) for v in loaded] == [int, float, int, float, WrittenInt, WrittenFloat]
    written = loaded[4]
    assert (written, str(written), f"{written}", repr(written)) == (31, "0x1F", "0x1F", "31")
    assert json.dumps(loaded) == "[7, 2.5, -3, 1.0, 31, 1.1]"
    for copied in (copy.deepcopy(written), pickle.loads(pickle.dumps(written))):
        assert (type(copied), copied, str(copied)) == (WrittenInt, 31, "0x1F")
    assert str(pickle.loads(pickle.dumps(loaded[5]))) == "1.10"


def test_an_import_writes_the_number_as_the_source_wrote_it(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    (tmp_path / "promptfooconfig.yaml").write_text(
        "prompts: ['At {{time}}?']\n"
        "tests:\n  - vars: {time: 12:30}\n    assert: [{type: equals, value: 01234}]\n"
    )
    proc = assay_cli("import", "promptfoo", "promptfooconfig.yaml", "-o", "suite.yaml")
    assert proc.returncode == 0, proc.stderr
    (test,) = yaml.safe_load((tmp_path / "suite.yaml").read_text())["tests"]
    assert (test["input"], test["ground_truth"]) == ("At 12:30?", "01234")
