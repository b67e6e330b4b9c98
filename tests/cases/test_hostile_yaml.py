"""Crafted suite files through the real CLI: ``assay run`` refuses each at load time, exit 2,
with one line naming the file and the line (or the field path) and what to do; never a
hang, unbounded memory or a traceback. Before, a 500-byte "billion laughs" suite grew
without limit, even in a key nothing reads."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from assay.cases import _yaml
from assay.cases._yaml import BoundedLoader
from tests.cli.conftest import RunCli

HEAD = 'name: s\ntarget: {python: "agent:respond"}\ntests: [{name: t, input: hi}]\n'
# nine of each: a = 10 values, b = 1 + 9 x 10 = 91, c = 820, d = 7,381, e = 66,430,
# f = 597,871, g = 5,380,840: g is the first past 1,000,000
LAUGHS = (
    HEAD
    + "unused:\n"
    + "".join(
        f"  {name}: &{name} [{', '.join([item] * 9)}]\n"
        for name, item in zip("abcdefghi", ["x", *("*" + c for c in "abcdefgh")], strict=True)
    )
)
NAMES = "names and ids are plain text, so remove it"


def refused(proc: subprocess.CompletedProcess[str]) -> str:
    """The one line of a refusal (exit 2, no traceback)."""
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: ")
    return lines[0].removeprefix("error: ")


def run(assay_cli: RunCli, tmp_path: Path, text: str, **env: str) -> str:
    (tmp_path / "suite.yaml").write_text(text, encoding="utf-8")
    return refused(assay_cli("run", "suite.yaml", env=env))


def test_billion_laughs_in_an_unused_key_is_refused(assay_cli: RunCli, tmp_path: Path) -> None:
    assert len(LAUGHS.encode()) < 600
    assert run(assay_cli, tmp_path, LAUGHS) == (
        "suite.yaml: line 11, column 6: with its aliases (*name) expanded, this value holds "
        "more than 1,000,000 values; no suite needs that many: use fewer aliases"
    )


def test_an_alias_inside_its_own_anchor_is_refused(assay_cli: RunCli, tmp_path: Path) -> None:
    assert run(assay_cli, tmp_path, HEAD + "loop: &a [1, *a]\n") == (
        "suite.yaml: line 4, column 14: the alias *a is inside its own anchor &a, which makes "
        "an endless value: remove the alias"
    )


def test_deep_nesting_is_refused(assay_cli: RunCli, tmp_path: Path) -> None:
    # the document's mapping is level 1, so the 100th "[" (column 3 + 100) is level 101
    deep = HEAD + "x: " + "[" * 5000 + "]" * 5000 + "\n"
    assert run(assay_cli, tmp_path, deep) == (
        "suite.yaml: line 4, column 103: nested more than 100 levels deep: flatten it"
    )


def test_an_integer_of_5000_digits_is_refused(assay_cli: RunCli, tmp_path: Path) -> None:
    text = 'name: s\ntarget: {python: "agent:respond"}\ntests:\n  - name: t\n    input: hi\n'
    text += "    ground_truth: " + "7" * 5000 + "\n"
    assert run(assay_cli, tmp_path, text) == (
        "suite.yaml: line 6, column 19: a number with more than 4,300 digits: write it as "
        "text, in quotes"
    )


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("2024-13-45", "not a valid timestamp (month must be in 1..12)"),
        ("!!timestamp someday", "not a valid timestamp"),
        ("!!int zz", "not a valid int (invalid literal for int() with base 10: 'zz')"),
    ],
    ids=["no-such-date", "tagged-timestamp", "tagged-int"],
)
def test_a_value_yaml_cannot_build_is_one_line(
    assay_cli: RunCli, tmp_path: Path, value: str, problem: str
) -> None:
    assert run(assay_cli, tmp_path, f"{HEAD}when: {value}\n") == (
        f"suite.yaml: line 4, column 7: {problem}: quote it to keep it as text"
    )


def test_a_raw_control_character_is_one_line(assay_cli: RunCli, tmp_path: Path) -> None:
    text = HEAD.replace("input: hi", "input: h\x01i")
    assert run(assay_cli, tmp_path, text) == (
        "suite.yaml: line 3, column 27: invalid YAML: the control character U+0001 is not "
        "allowed in a YAML file; remove it (in a double-quoted string it can be written as an "
        'escape, such as "\\t")'
    )


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (
            ("name: t,", r'name: "t\0",'),
            "tests[0].name: the test name contains NUL (U+0000) at character 2",
        ),
        (
            ("name: s", r'name: "s\e[2J"'),
            "name: the suite name contains ESC (U+001B) at character 2",
        ),
        (
            ("input: hi", r'input: hi, tags: ["a\tb"]'),
            "tests[0].tags[0]: the tag contains a tab (U+0009) at character 2",
        ),
        (
            ("input: hi", r'input: hi, expected_tools: ["get\0weather"]'),
            "tests[0].expected_tools[0].name: the tool name contains NUL (U+0000) at character 4",
        ),
        (
            ("input: hi", r'input: hi, metrics: [{metric: equality, name: "eq\x85"}]'),
            "tests[0].metrics[0].name: the metric name contains a control character (U+0085) at "
            "character 3",
        ),
    ],
    ids=["test", "suite", "tag", "tool", "metric"],
)
def test_a_control_character_in_a_name_is_refused(
    assay_cli: RunCli, tmp_path: Path, change: tuple[str, str], where: str
) -> None:
    line = run(assay_cli, tmp_path, HEAD.replace(*change, 1))
    # a problem inside test t is followed by its name; not when the name is at fault
    named = where.startswith("tests[0].") and not where.startswith("tests[0].name")
    assert line == f"suite.yaml: {where}: {NAMES}" + (" (test 't')" if named else "")


def test_a_name_from_the_environment_is_checked_and_not_shown(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    text = HEAD.replace("name: t,", 'name: "${TEST_NAME}",')
    assert run(assay_cli, tmp_path, text, TEST_NAME="first\nsecret-part") == (
        f"suite.yaml: tests[0].name: the test name contains a line break (U+000A) at "
        f"character 6: {NAMES}"
    )


def test_a_nul_in_an_input_is_test_data(assay_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text("def respond(query, session_id):\n    return query\n")
    text = HEAD.replace("input: hi", r'input: "a\0b", ground_truth: "a\0b"')
    (tmp_path / "suite.yaml").write_text(text)
    proc = assay_cli("run", "suite.yaml", "--out", "r.json")
    assert proc.returncode == 0, proc.stderr  # the agent got "a\0b" and equality compared it
    (result,) = json.loads((tmp_path / "r.json").read_text())["results"]
    # no store holds NUL (PostgreSQL refuses it): the stored text says where it was
    assert result["test_input"] == result["agent_response"] == "a\ufffdb"
    assert any("NUL" in w for w in result["warnings"]), result["warnings"]


# --- the loader's limits, in process -----------------------------------------------------


def load(text: str) -> object:
    return yaml.load(text, Loader=BoundedLoader)


def limit_problem(text: str) -> str:
    with pytest.raises(yaml.MarkedYAMLError) as info:
        load(text)
    return f"line {info.value.problem_mark.line + 1}: {info.value.problem}"


def test_aliases_and_merge_keys_still_load(tmp_path: Path) -> None:
    text = (
        'name: s\ntarget: {python: "agent:respond"}\n'
        "defaults: &defaults {input: hi, ground_truth: hello}\n"
        "tests:\n  - {<<: *defaults, name: a}\n  - {<<: *defaults, name: b, input: hey}\n"
    )
    assert load(text)["tests"] == [
        {"input": "hi", "ground_truth": "hello", "name": "a"},
        {"input": "hey", "ground_truth": "hello", "name": "b"},
    ]


def test_a_hundred_levels_load_and_a_hundred_and_one_do_not() -> None:
    assert load("[" * 100 + "]" * 100) is not None
    assert (
        limit_problem("[" * 101 + "]" * 101)
        == "line 1: nested more than 100 levels deep: flatten it"
    )
    # block mappings: line n holds the first key of mapping n
    block = ["  " * i + "k:" for i in range(101)]
    assert load("\n".join([*block[:100], "  " * 100 + "v"])) is not None
    assert limit_problem("\n".join([*block, "  " * 101 + "v"])) == (
        "line 101: nested more than 100 levels deep: flatten it"
    )


def test_values_are_counted_with_aliases_expanded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_yaml, "MAX_VALUES", 10)
    assert load("[1, 2, 3, 4, 5, 6, 7, 8, 9]") == list(range(1, 10))  # 10 values: the list too
    assert limit_problem("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]").startswith("line 1: with its aliases")
    # a: 3 values, b: 1 + 3 + 3; with the mapping and its two keys, 13
    assert limit_problem("a: &a [1, 2]\nb: [*a, *a]\n").startswith("line 1: with its aliases")
    monkeypatch.setattr(_yaml, "MAX_VALUES", 13)
    assert load("a: &a [1, 2]\nb: [*a, *a]\n") == {"a": [1, 2], "b": [[1, 2], [1, 2]]}


def test_a_base_60_integer_cannot_dodge_the_digit_limit() -> None:
    # YAML 1.1 reads 1:0:0 as 3600; 2,500 places of base 60 are 4,446 digits
    assert load("x: 1:0:0") == {"x": 3600}
    assert limit_problem("x: 1" + ":0" * 2500) == (
        "line 1: a number with more than 4,300 digits: write it as text, in quotes"
    )
