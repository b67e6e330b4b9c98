"""``assay import holodeck``: an agent.yaml's test_cases, written in HoloDeck's own format.

The files follow justinbarias/holodeck: ``specs/032-multi-turn-test-cases/contracts/
test-case-schema.md`` (single-turn, multi-turn, object-form expected_tools with literal,
fuzzy and regex matchers, per-turn evaluations, files), ``docs/guides/evaluations.md``
(geval, rag, standard and code metrics) and ``sample/openai-agents-full/agent.yaml``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.importers.conftest import run_import

AGENT_YAML = """\
name: warehouse-concierge
description: Warehouse assistant.
model:
  provider: openai
  name: gpt-5-mini
instructions:
  inline: You are a warehouse assistant.
evaluations:
  model: {provider: ollama, name: "llama3.2:latest"}
  metrics:
    - type: geval
      name: direct-answer
      criteria: >-
        The response conveys the same outcome and the same key facts as the expected output.
      evaluation_params: [input, actual_output, expected_output]
      threshold: 0.6
    - type: rag
      metric_type: faithfulness
      threshold: 0.7
      include_reason: true
    - type: rag
      metric_type: contextual_precision
test_cases:
  - name: function tool lookup
    input: "Is SKU WIDGET-1 in stock, and what does one cost?"
    expected_tools: [get_inventory]
    ground_truth: "WIDGET-1 has 120 units in stock at $12.50 each."
    files:
      - {path: ./data/policy.txt, type: text}
      - {path: ./data/chart.png, type: image}
  - name: convfinqa-0-strict
    turns:
      - input: "what is the net cash from operating activities in 2009?"
        ground_truth: "206588"
      - input: "what is the difference between 2009 and 2008?"
        expected_tools:
          - name: "subtract"
            args:
              a: 206588
              b: { fuzzy: "181001" }
          - "lookup"
        ground_truth: "25587"
        evaluations:
          - type: standard
            metric: numeric
            absolute_tolerance: 0.5
          - type: code
            grader: "my_benchmarks.convfinqa:program_equivalence"
  - name: convfinqa-0-argcheck
    turns:
      - input: "subtract 206588 from 181001"
        retrieval_context: ["Net cash 2009: 206,588", "Net cash 2008: 181,001"]
        expected_tools:
          - name: "subtract"
            count: 1
            args:
              a: { fuzzy: "206588" }
              b: { regex: "^181001(\\\\.0+)?$" }
  - input: "hello"
    ground_truth: "hi there"
    evaluations:
      - type: standard
        metric: equality
        case_insensitive: true
      - type: standard
        metric: meteor
        threshold: 0.65
      - type: standard
        metric: groundedness
        threshold: 4
        scale: 5
"""


def test_an_agent_yaml_becomes_a_suite_that_loads(
    write: Callable[[str, str], Path], tmp_path: Path
) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "policy.txt").write_text("Unopened items return within 30 days.")
    run = run_import("holodeck", write("agent.yaml", AGENT_YAML))
    assert run.code == 0, run.stderr
    assert run.loaded is not None and len(run.loaded.cases) == 4
    assert run.suite is not None and run.suite["name"] == "warehouse-concierge"
    # suite-level evaluations: geval -> rubric with the fields it reads,
    # faithfulness -> groundedness
    assert run.suite["metrics"] == [
        {
            "metric": "rubric",
            "criteria": "The response conveys the same outcome and the same key facts as the "
            "expected output.",
            "name": "direct-answer",
            "fields": ["input", "response", "ground_truth"],
            "threshold": 0.6,
        },
        {"metric": "groundedness", "threshold": 0.7},
    ]
    lookup = run.test("function tool lookup")
    assert lookup["input"] == "Is SKU WIDGET-1 in stock, and what does one cost?"
    assert lookup["ground_truth"] == "WIDGET-1 has 120 units in stock at $12.50 each."
    assert lookup["expected_tools"] == ["get_inventory"]
    assert lookup["context"] == "Unopened items return within 30 days."  # a text file's content
    strict = run.test("convfinqa-0-strict")["turns"]
    assert [t["input"] for t in strict] == [
        "what is the net cash from operating activities in 2009?",
        "what is the difference between 2009 and 2008?",
    ]
    assert strict[1]["expected_tools"] == [
        {"name": "subtract", "args": {"a": 206588, "b": {"fuzzy": "181001"}}},
        "lookup",
    ]
    # HoloDeck's numeric defaults differ from assay's: written out
    assert strict[1]["metrics"] == [
        {
            "metric": "numeric",
            "absolute_tolerance": 0.5,
            "relative_tolerance": 0.0,
            "accept_percent": False,
            "accept_thousands_separators": False,
        }
    ]
    argcheck = run.test("convfinqa-0-argcheck")["turns"][0]
    assert argcheck["expected_tools"][0]["args"]["b"] == {"regex": "^181001(\\.0+)?$"}
    assert argcheck["expected_tools"][0]["count"] == 1
    assert argcheck["context"] == "Net cash 2009: 206,588\n\nNet cash 2008: 181,001"
    unnamed = run.test("test case 4")
    # equality with HoloDeck's flags; a 4 on a 1-5 scale is 0.75 on assay's 0-1
    assert unnamed["metrics"] == [
        {
            "metric": "equality",
            "case_insensitive": True,
            "strip_whitespace": False,
            "strip_punctuation": False,
        },
        {"metric": "groundedness", "threshold": 0.75},
    ]


def test_what_cannot_be_mapped_is_listed_per_item(
    write: Callable[[str, str], Path], tmp_path: Path
) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "policy.txt").write_text("policy")
    run = run_import("holodeck", write("agent.yaml", AGENT_YAML))
    lines = run.stderr.splitlines()
    assert "not mapped (8):" in lines
    expected = [
        "the agent: description: the agent's own definition: assay tests it through `target:`",
        "the agent: instructions: the agent's own definition",
        "the agent: model: the agent's own definition",
        "evaluations: model: assay has one judge per suite",
        "evaluations.metrics[2]: rag contextual_precision: assay does not see the retrieved",
        "test_cases[0] 'function tool lookup': files[1]: a file of type image",
        "test_cases[1] 'convfinqa-0-strict' turns[1] evaluations[1]: code grader: HoloDeck",
        "test_cases[3] evaluations[1]: meteor: assay has no METEOR",
    ]
    for start in expected:
        assert any(line.strip().startswith(start) for line in lines), (start, run.stderr)


def test_a_file_without_test_cases_exits_2(write: Callable[[str, str], Path]) -> None:
    run = run_import("holodeck", write("agent.yaml", "name: x\nmodel: {provider: openai}\n"))
    assert run.code == 2 and "no test_cases to import" in run.stderr
    broken = run_import("holodeck", write("broken.yaml", "test_cases: [\n"))
    assert broken.code == 2 and "invalid YAML" in broken.stderr


def test_nothing_mappable_exits_2_and_says_why(write: Callable[[str, str], Path]) -> None:
    run = run_import("holodeck", write("agent.yaml", "test_cases:\n  - name: empty\n"))
    assert run.code == 2
    assert "test_cases[0] 'empty': input: missing or empty" in run.stderr
    assert "nothing in it could be mapped" in run.stderr


def test_single_turn_fields_beside_turns_are_refused_as_holodeck_refuses_them(
    write: Callable[[str, str], Path],
) -> None:
    """test-case-schema.md §2: ``input`` or ``ground_truth`` with ``turns`` is a ConfigError
    in HoloDeck (and ``files``/``retrieval_context`` on a multi-turn case, FR-009;
    ``expected_tools`` too, and any of them even empty, in models/test_case.py), as is an
    empty ``turns``: the test is listed and not imported, never imported with those fields
    dropped unseen."""
    source = """\
test_cases:
  - name: both
    input: x
    ground_truth: g
    turns: [{input: y}]
  - name: case-level files
    files: [{path: ./a.txt, type: text}]
    turns: [{input: y}]
  - name: case-level tools
    expected_tools: [lookup]
    turns: [{input: y}]
  - name: empty files
    files: []
    turns: [{input: y}]
  - name: no turns
    input: x
    turns: []
  - name: fine
    turns: [{input: y, ground_truth: "1"}]
"""
    run = run_import("holodeck", write("agent.yaml", source))
    assert run.code == 0, run.stderr
    assert run.suite is not None and [t["name"] for t in run.suite["tests"]] == ["fine"]
    assert run.test("fine")["turns"] == [{"input": "y", "ground_truth": "1"}]
    lines = [line.strip() for line in run.stderr.splitlines()]
    assert (
        "test_cases[0] 'both': the whole test: input and ground_truth beside turns: HoloDeck"
        " refuses the test case (put them on its turns)" in lines
    )
    assert any(
        line.startswith("test_cases[1] 'case-level files': the whole test: files") for line in lines
    )
    # models/test_case.py _validate_single_vs_multi_turn: expected_tools too, and `is not None`
    assert (
        "test_cases[2] 'case-level tools': the whole test: expected_tools beside turns: HoloDeck"
        " refuses the test case (put them on its turns)" in lines
    )
    assert any(
        line.startswith("test_cases[3] 'empty files': the whole test: files") for line in lines
    )
    assert (
        "test_cases[4] 'no turns': the whole test: turns: turns must be a non-empty list if"
        " provided: HoloDeck refuses the test case" in lines
    )


@pytest.mark.parametrize(
    ("case", "path", "expected"),
    [
        ("input: x\n    expected_tools: lookup", "test_cases[0].expected_tools", "a list of tool"),
        (
            "input: x\n    retrieval_context: Paris is the capital",
            "test_cases[0].retrieval_context",
            "a list of texts, got the text 'Paris is the capital'",
        ),
        ("input: x\n    retrieval_context: 5", "test_cases[0].retrieval_context", "a list"),
        ("input: x\n    files: 5", "test_cases[0].files", "a list of file entries"),
        ("input: x\n    evaluations: 5", "test_cases[0].evaluations", "a list of metrics"),
        ("turns: x", "test_cases[0].turns", "a list of turns, got the text 'x'"),
        (
            "turns: [{input: x, expected_tools: {a: 1}}]",
            "test_cases[0].turns[0].expected_tools",
            "a list of tool names or {name, args, count}, got a mapping",
        ),
    ],
)
def test_a_field_of_the_wrong_type_exits_2(
    write: Callable[[str, str], Path], case: str, path: str, expected: str
) -> None:
    """HoloDeck's model has lists here and refuses anything else: a string was read one letter
    at a time ([l, o, o, k, u, p]), a number crashed the importer (exit 3)."""
    source = write("agent.yaml", f"test_cases:\n  - name: a\n    {case}\n")
    run = run_import("holodeck", source)
    assert run.code == 2 and run.suite is None, run.stderr
    assert f"agent.yaml: {path}: expected {expected}" in run.stderr


@pytest.mark.parametrize(
    ("evaluations", "path", "expected"),
    [
        ("5", "evaluations", "a mapping of model and metrics"),
        ("{metrics: 5}", "evaluations.metrics", "a list of metrics"),
    ],
)
def test_agent_evaluations_of_the_wrong_type_exit_2(
    write: Callable[[str, str], Path], evaluations: str, path: str, expected: str
) -> None:
    source = write("agent.yaml", f"evaluations: {evaluations}\ntest_cases:\n  - input: x\n")
    run = run_import("holodeck", source)
    assert run.code == 2, run.stderr
    assert f"agent.yaml: {path}: expected {expected}, got the number 5" in run.stderr


def _imported_args(write: Callable[[str, str], Path], args: str) -> dict[str, object]:
    source = (
        "test_cases:\n  - name: a\n    input: x\n"
        f"    expected_tools:\n      - name: t\n        args: {args}\n"
    )
    run = run_import("holodeck", write("agent.yaml", source))
    assert run.code == 0, run.stderr
    (tool,) = run.test("a")["expected_tools"]
    args_written: dict[str, object] = tool["args"]
    return args_written


@pytest.mark.parametrize(
    ("written", "holodeck_value", "passes", "fails"),
    [
        # models/test_case.py::_coerce_arg_matcher: a mapping without fuzzy/regex is a literal
        ("{contains: foo}", {"contains": "foo"}, {"contains": "foo"}, "a foo b"),
        ("{any: true}", {"any": True}, {"any": True}, "anything"),
        ("{literal: 5}", {"literal": 5}, {"literal": 5}, 5),
        ("{fuzy: x}", {"fuzy": "x"}, {"fuzy": "x"}, "x"),
        ("{one_of: [1, 2]}", {"one_of": [1, 2]}, {"one_of": [1, 2]}, 1),
        ("{mode: fast}", {"mode": "fast"}, {"mode": "fast"}, {"mode": "FAST"}),
        ("{}", {}, {}, None),
    ],
)
def test_a_mapping_that_is_not_a_fuzzy_or_regex_matcher_is_a_literal_as_in_holodeck(
    write: Callable[[str, str], Path],
    written: str,
    holodeck_value: object,
    passes: object,
    fails: object,
) -> None:
    """assay's own matchers (contains, any, literal, one_of) and its misspelt-matcher refusal
    must not read a HoloDeck literal: the verdict on a call is HoloDeck's."""
    from assay.metrics.tools.matchers import parse_matcher

    args = _imported_args(write, f"{{a: {written}}}")
    assert args == {"a": {"literal": holodeck_value}}
    matcher = parse_matcher(args["a"])
    assert matcher.matches(passes)
    assert not matcher.matches(fails)


def test_fuzzy_and_regex_matchers_and_plain_literals_are_kept_as_written(
    write: Callable[[str, str], Path],
) -> None:
    args = _imported_args(
        write, '{a: {fuzzy: "5,120"}, b: {regex: "a+"}, c: 3, d: [1, {fuzzy: 2}]}'
    )
    assert args == {"a": {"fuzzy": "5,120"}, "b": {"regex": "a+"}, "c": 3, "d": [1, {"fuzzy": 2}]}


@pytest.mark.parametrize(
    ("case", "where", "why"),
    [
        (
            "input: x\n    expected_tools: [{name: cancel, count: 0}]",
            "expected_tools[0].count",
            "count must be an integer >= 1, got 0",
        ),
        (
            "input: x\n    expected_tools: [{name: cancel, count: 1.5}]",
            "expected_tools[0].count",
            "count must be an integer >= 1, got 1.5",
        ),
        (
            "input: x\n    expected_tools: [{name: cancel, count: '2'}]",
            "expected_tools[0].count",
            "count must be an integer >= 1, got '2'",
        ),
        (
            "input: x\n    expected_tools: [{name: t, args: {a: {fuzzy: 5}}}]",
            "expected_tools[0].args.a.fuzzy",
            "fuzzy pattern must be a string, got int",
        ),
        (
            "input: x\n    expected_tools: [{name: t, args: {a: {regex: 5}}}]",
            "expected_tools[0].args.a.regex",
            "regex pattern must be a string, got int",
        ),
        (
            "input: x\n    expected_tools: [{name: t, args: {a: {regex: '('}}}]",
            "expected_tools[0].args.a.regex",
            "cannot compile regex: missing ), unterminated subpattern at position 0",
        ),
        (
            "input: x\n    expected_tools: [{name: t, args: {a: {fuzzy: '1', regex: '1'}}}]",
            "expected_tools[0].args.a",
            "matcher dict must have exactly one of 'fuzzy' or 'regex', not both",
        ),
        (
            "input: x\n    expected_tools: [{name: t, args: {a: {fuzzy: '1', mode: x}}}]",
            "expected_tools[0].args.a",
            "matcher dict has unknown keys: ['mode']",
        ),
        (
            "input: x\n    expected_tools: [{name: t, args: [1]}]",
            "expected_tools[0].args",
            "args must be a mapping",
        ),
        (
            "input: x\n    expected_tools: [{name: ' '}]",
            "expected_tools[0].name",
            "name must be a non-empty string",
        ),
        (
            "input: x\n    expected_tools: [{name: t, counts: 2}]",
            "expected_tools[0]",
            "unknown keys on ExpectedTool: ['counts']",
        ),
        (
            "input: x\n    expected_tools: [5]",
            "expected_tools[0]",
            "expected_tools entries must be str or object, got int",
        ),
        ("input: x\n    ground_truth: '  '", "ground_truth", "ground_truth must be non-empty"),
        (
            "turns:\n      - {input: a}\n      - {input: b, ground_truth: ''}",
            "turns[1].ground_truth",
            "ground_truth must be non-empty if provided",
        ),
        (
            "turns:\n      - {input: a, expected_tools: [{name: t, count: 0}]}",
            "turns[0].expected_tools[0].count",
            "count must be an integer >= 1, got 0",
        ),
    ],
)
def test_a_test_case_holodeck_refuses_is_listed_and_not_imported(
    write: Callable[[str, str], Path], case: str, where: str, why: str
) -> None:
    """models/test_case.py refuses these when it loads the file (``_build_expected_tool``,
    ``_coerce_arg_matcher``, the test-case and turn validators): count 0 is not "must not be
    called", as it is in assay, and a blank ground truth is not dropped."""
    source = (
        "test_cases:\n  - name: refused\n"
        f"    {case}\n"
        "    evaluations: [{type: standard, metric: meteor}]\n"
        "  - name: fine\n    input: y\n"
    )
    run = run_import("holodeck", write("agent.yaml", source))
    assert run.code == 0, run.stderr
    assert run.suite is not None and [t["name"] for t in run.suite["tests"]] == ["fine"]
    lines = [line.strip() for line in run.stderr.splitlines()]
    start = f"test_cases[0] 'refused': the whole test: {where}: {why}"
    assert [line for line in lines if line.startswith("test_cases[0]")] == [
        line for line in lines if line.startswith(start)
    ], run.stderr  # the refusal alone: not also the meteor metric of a test not imported
    assert any(line.startswith(start) for line in lines), run.stderr


@pytest.mark.parametrize("name", ['""', "'   '"])
def test_a_blank_name_is_refused_not_numbered(write: Callable[[str, str], Path], name: str) -> None:
    source = f"test_cases:\n  - name: {name}\n    input: x\n  - input: y\n"
    run = run_import("holodeck", write("agent.yaml", source))
    assert run.code == 0, run.stderr
    assert run.suite is not None and [t["name"] for t in run.suite["tests"]] == ["test case 2"]
    assert (
        "test_cases[0]: the whole test: name: name must be non-empty if provided: HoloDeck"
        " refuses the test case"
    ) in run.stderr


def test_a_count_holodeck_accepts_is_kept(write: Callable[[str, str], Path]) -> None:
    """HoloDeck's check is ``isinstance(count, int) and count >= 1``: true passes it (as 1)."""
    source = (
        "test_cases:\n  - name: a\n    input: x\n"
        "    expected_tools: [{name: t, count: 2}, {name: u, count: true}, v]\n"
    )
    run = run_import("holodeck", write("agent.yaml", source))
    assert run.code == 0, run.stderr
    assert run.test("a")["expected_tools"] == [
        {"name": "t", "count": 2},
        {"name": "u", "count": 1},
        "v",
    ]
