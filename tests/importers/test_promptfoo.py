"""``assay import promptfoo``: a promptfooconfig.yaml's tests, in promptfoo's own format.

The config follows promptfoo/promptfoo: ``site/docs/configuration/expected-outputs/
deterministic.md`` (equals, contains, icontains, contains-any/-all, regex, starts-with,
is-json, contains-json, latency, cost; "every test type can be negated by prepending
``not-``"), ``.../similar.md``, ``.../model-graded/llm-rubric.md``, and the getting-started
example's ``prompts`` / ``providers`` / ``defaultTest`` / ``tests`` with ``vars``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.importers.conftest import run_import

CONFIG = """\
description: Translation checks
prompts:
  - 'Translate the following text to {{language}}: {{input}}'
providers:
  - openai:gpt-4o-mini
defaultTest:
  assert:
    - type: latency
      threshold: 5000
tests:
  - description: French hello
    vars:
      language: French
      input: Hello world
    assert:
      - type: equals
        value: Bonjour le monde
      - type: icontains
        value: bonjour
      - type: not-contains
        value: Hello
      - type: llm-rubric
        value: Is a faithful {{language}} translation
        threshold: 0.8
        weight: 2
      - type: cost
        threshold: 0.001
  - description: German morning
    vars:
      language: German
      input: Good morning
    assert:
      - type: starts-with
        value: Guten
      - type: contains-any
        value: [Morgen, morgen]
      - type: not-icontains-all
        value: [good, morning]
      - type: regex
        value: "Guten (Morgen|Tag)"
        metric: greeting
      - type: similar
        value: Guten Morgen
        threshold: 0.8
  - description: JSON reply
    vars:
      language: JSON
      input: '{"greeting": "hi"}'
    assert:
      - type: is-json
        value:
          type: object
          required: [greeting]
      - type: contains-json
      - type: not-regex
        value: "\\\\d+"
      - type: javascript
        value: output.length < 100
        weight: 2
"""


def test_a_promptfoo_config_becomes_a_suite_that_loads(write: Callable[[str, str], Path]) -> None:
    run = run_import("promptfoo", write("promptfooconfig.yaml", CONFIG))
    assert run.code == 0, run.stderr
    assert run.loaded is not None and len(run.loaded.cases) == 3
    assert run.suite is not None and run.suite["name"] == "Translation checks"
    assert run.suite["target"] == {
        "openai": {"base_url": "https://api.openai.com/v1", "model": "gpt-4o-mini"}
    }
    french = run.test("French hello")
    assert french["input"] == "Translate the following text to French: Hello world"
    assert french["ground_truth"] == "Bonjour le monde"
    assert french["metrics"] == [
        {"metric": "latency", "max_ms": 5000.0},  # defaultTest's, added to each test
        {"metric": "equality", "strip_whitespace": False},
        {"metric": "contains", "value": "bonjour", "mode": "all", "case_insensitive": True},
        {"metric": "not_contains", "value": "Hello", "mode": "any"},
        {"metric": "rubric", "criteria": "Is a faithful French translation", "threshold": 0.8},
        {"metric": "cost", "model": "gpt-4o-mini", "max_usd": 0.001},
    ]
    german = run.test("German morning")
    assert german["ground_truth"] == "Guten Morgen"  # similar's value
    assert german["metrics"][1:] == [
        {"metric": "regex", "pattern": "^Guten"},
        {"metric": "contains", "values": ["Morgen", "morgen"], "mode": "any"},
        # not-icontains-all: fails only when every value appears
        {
            "metric": "not_contains",
            "values": ["good", "morning"],
            "mode": "all",
            "case_insensitive": True,
        },
        {"metric": "regex", "pattern": "Guten (Morgen|Tag)", "name": "greeting"},
        {"metric": "semantic_similarity", "threshold": 0.8},
    ]
    json_reply = run.test("JSON reply")
    assert json_reply["metrics"][1:] == [
        {"metric": "json_schema", "schema": {"type": "object", "required": ["greeting"]}},
        {"metric": "json_valid", "allow_code_fence": True},
    ]


def test_what_is_not_mapped_is_listed_per_test(write: Callable[[str, str], Path]) -> None:
    run = run_import("promptfoo", write("promptfooconfig.yaml", CONFIG))
    report = run.stderr
    assert "not mapped (3):" in report
    assert "tests[0] 'French hello': llm-rubric.weight: no assay equivalent" in report
    assert "tests[2] 'JSON reply': not-regex: assay's regex metric has no negated form" in report
    assert "tests[2] 'JSON reply': javascript: no assay metric measures this" in report
    assert "mapped approximately (2):" in report
    assert "contains-json: stricter" in report
    assert "similar: needs a local embedding model" in report


def test_without_a_prompt_the_input_var_is_sent(write: Callable[[str, str], Path]) -> None:
    config = """\
prompts: [file://prompts/chat.json]
providers: [anthropic:messages:claude-sonnet-4, openai:gpt-4o]
tests:
  - vars: {question: "What is 2+2?"}
    assert: [{type: contains, value: "4"}]
  - vars: {a: 1, b: 2}
  - vars: {topic: cats}
    assert:
      - {type: regex, value: "(?<name>cat)"}
      - {type: icontains, value: cat}
"""
    run = run_import("promptfoo", write("promptfooconfig.yaml", config))
    assert run.code == 0, run.stderr
    assert run.suite is not None and "target" not in run.suite  # two providers: set it yourself
    assert run.test("test 1")["input"] == "What is 2+2?"
    assert run.test("test 3")["input"] == "cats"  # the only var
    # a JavaScript-only regex is refused by Python: that metric is dropped, the test kept
    assert run.test("test 3")["metrics"] == [
        {"metric": "contains", "value": "cat", "mode": "all", "case_insensitive": True}
    ]
    assert "tests[1]: vars: no prompt to fill and no single input var" in run.stderr
    assert "metric regex: assay refused it: tests[1].metrics[0].pattern" in run.stderr
    assert "providers: anthropic:messages:claude-sonnet-4, openai:gpt-4o" in run.stderr


def test_a_config_without_tests_exits_2(write: Callable[[str, str], Path]) -> None:
    run = run_import(
        "promptfoo", write("promptfooconfig.yaml", "prompts: [hi]\ntests: tests.csv\n")
    )
    assert run.code == 2 and "no tests to import" in run.stderr


@pytest.mark.parametrize(
    ("config", "path", "expected"),
    [
        (
            "tests:\n  - vars: [1, 2]\n",
            "tests[0].vars",
            "a mapping of var names to values, got a list",
        ),
        ("tests:\n  - vars: abc\n", "tests[0].vars", "a mapping of var names to values"),
        ("tests:\n  - vars: 5\n", "tests[0].vars", "a mapping of var names to values"),
        (
            "tests:\n  - {vars: {question: x}, assert: abc}\n",
            "tests[0].assert",
            "a list of assertions ({type, value}), got the text 'abc'",
        ),
        (
            "defaultTest: {assert: 5}\ntests:\n  - vars: {question: x}\n",
            "defaultTest.assert",
            "a list of assertions ({type, value}), got the number 5",
        ),
        (
            "defaultTest: {vars: [1]}\ntests:\n  - vars: {question: x}\n",
            "defaultTest.vars",
            "a mapping",
        ),
        ("defaultTest: 5\ntests:\n  - vars: {question: x}\n", "defaultTest", "a mapping"),
    ],
)
def test_a_field_of_the_wrong_type_exits_2(
    write: Callable[[str, str], Path], config: str, path: str, expected: str
) -> None:
    """A list, text or number where promptfoo has a mapping or a list crashed the importer
    (exit 3), or was read one letter at a time (``assert: abc``)."""
    source = write("promptfooconfig.yaml", config)
    run = run_import("promptfoo", source)
    assert run.code == 2 and run.suite is None, run.stderr
    assert f"promptfooconfig.yaml: {path}: expected {expected}" in run.stderr
