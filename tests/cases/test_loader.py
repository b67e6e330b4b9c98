"""Suite loading: shapes, ${VAR} substitution, and one clear message per problem with the
field path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assay.cases import load_suite, parse_suite
from assay.errors import ConfigError


def problems(raw: dict[str, Any]) -> list[str]:
    with pytest.raises(ConfigError) as exc:
        parse_suite(raw, "suite.yaml")
    assert exc.value.exit_code == 2
    return [str(p) for p in exc.value.problems]


def suite(*tests: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"name": "s", "target": {"python": "m:f"}, "tests": list(tests), **extra}


def test_type_is_detected_from_the_fields() -> None:
    loaded = parse_suite(
        suite(
            {"name": "a", "input": "q"},
            {"name": "b", "turns": [{"input": "1"}, {"input": "2"}]},
            {"name": "c", "goal": "get a refund"},
        ),
        "suite.yaml",
    )
    assert [c.type for c in loaded.cases] == ["single_turn", "multi_turn", "goal"]
    assert [len(c.turns) for c in loaded.cases] == [1, 2, 0]
    assert loaded.cases[2].goal is not None and loaded.cases[2].goal.max_turns == 10


def test_mixed_shapes_are_refused() -> None:
    msgs = problems(suite({"name": "a", "input": "q", "turns": [{"input": "x"}]}))
    assert msgs == [
        "suite.yaml: tests[0]: a test has exactly one of input (single-turn), turns (scripted "
        "multi-turn) or goal (goal-driven); this one has input and turns (test 'a')"
    ]


def test_empty_turns_and_empty_input_are_refused() -> None:
    assert "turns is empty" in problems(suite({"name": "a", "turns": []}))[0]
    assert problems(suite({"name": "a", "turns": [{"input": "x"}, {"input": "  "}]})) == [
        "suite.yaml: tests[0].turns[1].input: input is empty (test 'a')"
    ]


def test_bad_regex_names_the_full_path() -> None:
    raw = suite(
        {
            "name": "a",
            "turns": [
                {"input": "x"},
                {
                    "input": "y",
                    "expected_tools": [{"name": "subtract", "args": {"b": {"regex": "4480("}}}],
                },
            ],
        }
    )
    (msg,) = problems(raw)
    assert msg.startswith("suite.yaml: tests[0].turns[1].expected_tools[0].args.b.regex: ")
    assert "invalid regular expression" in msg


def test_negative_tolerance_is_refused_with_its_path() -> None:
    (msg,) = problems(
        suite(
            {"name": "a", "input": "q"}, metrics=[{"metric": "numeric", "relative_tolerance": -0.1}]
        )
    )
    assert msg.startswith("suite.yaml: metrics[0].relative_tolerance: ")
    assert ">= 0" in msg or "greater than or equal to 0" in msg


def test_unknown_keys_are_refused_with_a_suggestion() -> None:
    (msg,) = problems(suite({"name": "a", "input": "q", "groundtruth": "x"}))
    assert (
        msg == "suite.yaml: tests[0].groundtruth: unknown key 'groundtruth'; "
        "did you mean 'ground_truth'? (test 'a')"
    )
    (msg,) = problems(
        suite({"name": "a", "input": "q"}, metrics=[{"metric": "equality", "foo": 1}])
    )
    assert msg.startswith("suite.yaml: metrics[0].foo: unknown option for metric 'equality'")
    (msg,) = problems(
        suite({"name": "a", "input": "q", "expected_tools": [{"name": "x", "cnt": 2}]})
    )
    assert msg.startswith("suite.yaml: tests[0].expected_tools[0].cnt: unknown key")


def test_unknown_metric_and_bad_count() -> None:
    msgs = problems(
        suite(
            {
                "name": "a",
                "input": "q",
                "metrics": ["equalty"],
                "expected_tools": [{"name": "x", "count": -1}],
            }
        )
    )
    assert msgs == [
        "suite.yaml: tests[0].metrics[0].metric: unknown metric 'equalty'; "
        "did you mean 'equality'? (test 'a')",
        "suite.yaml: tests[0].expected_tools[0].count: expected a whole number >= 0, got -1 "
        "(test 'a')",
    ]


def test_one_metric_twice_in_a_list_needs_a_name_for_each() -> None:
    # two results both called 'contains', averaged into one score by a conversation's roll-up
    twice = [{"metric": "contains", "value": "A"}, {"metric": "contains", "value": "Z"}]
    assert problems(suite({"name": "a", "input": "q"}, metrics=twice)) == [
        "suite.yaml: metrics[1]: metrics[0] is also called 'contains': give each a name: of "
        "its own (e.g. name: contains-2), or their results cannot be told apart"
    ]
    clash = [
        {"metric": "regex", "pattern": "A", "name": "has-a"},
        *twice[:1],
        {"metric": "contains", "value": "A", "name": "has-a"},
    ]
    turn = {"input": "1", "metrics": clash}
    assert problems(suite({"name": "a", "turns": [turn]})) == [
        "suite.yaml: tests[0].turns[0].metrics[2].name: tests[0].turns[0].metrics[0] is also "
        "called 'has-a': give each a name: of its own (e.g. name: has-a-3), or their results "
        "cannot be told apart (test 'a')"
    ]
    named = [{**twice[0], "name": "has-a"}, {**twice[1], "name": "has-z"}]
    loaded = parse_suite(suite({"name": "a", "input": "q", "metrics": named}), "suite.yaml")
    assert [m.label for m in loaded.cases[0].turns[0].metrics] == ["has-a", "has-z"]


def test_target_must_name_exactly_one_kind() -> None:
    (msg,) = problems({"name": "s", "target": {"python": "m:f", "demo": "travel"}})
    assert (
        msg
        == "suite.yaml: target: give exactly one of http, openai, python, demo (got python, demo)"
    )


def test_duplicate_test_names_are_refused() -> None:
    (msg,) = problems(suite({"name": "a", "input": "q"}, {"name": "a", "input": "r"}))
    assert "two tests are named 'a'" in msg


def test_a_test_without_a_name_is_named_by_its_place() -> None:
    # HoloDeck's test cases may leave the name out (its executor tests build
    # TestCaseModel(turns=[...]) without one); assay names them as its importer does
    loaded = parse_suite(
        suite(
            {"turns": [{"input": "a"}, {"input": "b"}]},
            {"name": "test case 3", "input": "q"},  # a given name is kept, and avoided
            {"input": "r"},
            {"goal": "get a refund"},
        ),
        "suite.yaml",
    )
    names = [c.name for c in loaded.cases]
    assert names == ["test case 1", "test case 3", "test case 3 (2)", "test case 4"]
    assert [spec.name for spec in loaded.suite.tests] == names
    # still refused: an empty name, a null one, and a test's problem names its path
    for blank in ("", "  "):
        assert problems(suite({"name": blank, "input": "q"})) == [
            "suite.yaml: tests[0].name: the test name is empty: give the test a name, or "
            "leave name out"
        ]
    assert problems(suite({"name": None, "input": "q"})) == [
        "suite.yaml: tests[0].name: Input should be a valid string (got None)"
    ]
    # a name that is not text is refused as such, beside tests without one
    assert problems(suite({"name": ["a", "b"], "input": "q"}, {"input": "r"})) == [
        "suite.yaml: tests[0].name: Input should be a valid string"
    ]
    (msg,) = problems(suite({"input": "q", "ground_truth": ""}))
    assert msg.startswith("suite.yaml: tests[0].ground_truth: ")
    assert "(test " not in msg  # no name was given to quote


def test_env_substitution_and_missing_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSAY_TEST_TOKEN", "s3cr3t-value")
    monkeypatch.delenv("ASSAY_MISSING", raising=False)
    raw = {
        "name": "s",
        "target": {
            "http": {
                "url": "http://127.0.0.1:1/chat",
                "headers": {
                    "Authorization": "Bearer ${ASSAY_TEST_TOKEN}",
                    "X-Env": "${ASSAY_MISSING:-dev}",
                },
            }
        },
        "tests": [{"name": "a", "input": "q"}],
    }
    loaded = parse_suite(raw, "suite.yaml")
    assert loaded.suite.target is not None and loaded.suite.target.http is not None
    assert loaded.suite.target.http.headers == {
        "Authorization": "Bearer s3cr3t-value",
        "X-Env": "dev",
    }
    assert loaded.secrets == {"s3cr3t-value"}
    assert "s3cr3t-value" not in str(loaded.raw)  # the stored snapshot keeps the placeholder
    raw["target"]["http"]["headers"]["X-Other"] = "${ASSAY_MISSING}"
    (msg,) = problems(raw)
    assert msg.startswith(
        "suite.yaml: target.http.headers.X-Other: environment variable ASSAY_MISSING is not set"
    )


def test_the_most_specific_metric_list_wins_and_an_empty_one_replaces_too() -> None:
    loaded = parse_suite(
        suite(
            {
                "name": "a",
                "turns": [
                    {"input": "1", "metrics": ["equality"]},
                    {"input": "2"},
                    {"input": "3", "metrics": []},
                ],
                "metrics": [{"metric": "numeric"}],
            },
            {"name": "b", "input": "q"},
            metrics=[{"metric": "numeric", "relative_tolerance": 0.1}, "equality"],
        ),
        "suite.yaml",
    )
    a, b = loaded.cases
    assert [[m.name for m in t.metrics] for t in a.turns] == [
        ["equality"],
        ["numeric"],
        [],  # metrics: [] on the turn: no metric, not the test's list
    ]
    assert [m.name for m in b.turns[0].metrics] == ["numeric", "equality"]
    # one instance per configuration: the test-level numeric is not the suite-level one
    assert a.turns[1].metrics[0] is not b.turns[0].metrics[0]


def test_yaml_errors_and_missing_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: s\ntests:\n  - name: a\n    input: [unclosed\n")
    with pytest.raises(ConfigError) as exc:
        load_suite(bad)
    assert str(exc.value).startswith(f"{bad}: line ")
    assert "invalid YAML" in str(exc.value)
    with pytest.raises(ConfigError) as missing:
        load_suite(tmp_path / "nope.yaml")
    assert str(missing.value) == f"{tmp_path / 'nope.yaml'}: file not found"


def test_numbers_in_yaml_become_strings_where_text_is_expected() -> None:
    loaded = parse_suite(suite({"name": "a", "input": "q", "ground_truth": 5120}), "suite.yaml")
    assert loaded.cases[0].turns[0].ground_truth == "5120"


def test_every_problem_is_reported_in_one_pass() -> None:
    """A typo used to stop the loader before it compiled anything, hiding a bad regex."""
    raw = suite(
        {"name": "a", "input": "q", "ground_truht": "x"},
        {
            "name": "b",
            "input": "q",
            "expected_tools": [{"name": "t", "args": {"x": {"regex": "(("}}}],
        },
        metrics=[{"metric": "numeric", "relative_tolerance": -1}],
        jugde={"provider": "openai", "model": "m"},
    )
    paths = [m.split(": ")[1] for m in problems(raw)]
    assert paths == [
        "jugde",
        "tests[0].ground_truht",
        "metrics[0].relative_tolerance",
        "tests[1].expected_tools[0].args.x.regex",
    ]


def test_a_misspelt_matcher_is_an_error_with_a_did_you_mean() -> None:
    raw = suite(
        {"name": "a", "input": "q", "expected_tools": [{"name": "t", "args": {"x": {"fuzy": "5"}}}]}
    )
    assert problems(raw) == [
        "suite.yaml: tests[0].expected_tools[0].args.x.fuzy: unknown matcher 'fuzy'; did you "
        "mean 'fuzzy'? (to compare with this mapping as it is, write {literal: ...} around it) "
        "(test 'a')"
    ]
    # a literal mapping whose keys are not like a matcher's stays a literal
    loaded = parse_suite(
        suite(
            {
                "name": "a",
                "input": "q",
                "expected_tools": [{"name": "t", "args": {"x": {"city": "Basel"}}}],
            }
        ),
        "suite.yaml",
    )
    (tool,) = loaded.cases[0].turns[0].expected_tools or ()
    assert tool.args is not None and tool.args["x"].matches({"city": "Basel"})
    literal = parse_suite(
        suite(
            {
                "name": "a",
                "input": "q",
                "expected_tools": [{"name": "t", "args": {"x": {"literal": {"fuzy": "5"}}}}],
            }
        ),
        "suite.yaml",
    )
    (tool,) = literal.cases[0].turns[0].expected_tools or ()
    assert tool.args is not None and tool.args["x"].matches({"fuzy": "5"})


def test_a_test_level_context_beside_turns_is_refused() -> None:
    msgs = problems(suite({"name": "a", "context": "docs", "turns": [{"input": "1"}]}))
    assert msgs == [
        "suite.yaml: tests[0]: context go on each turn of a multi-turn test, not on the test "
        "(move it under the turn it belongs to) (test 'a')"
    ]
    # a goal test's context is its additional context, beside its opening turns too
    parse_suite(suite({"name": "g", "goal": "x", "context": "c", "turns": [{"input": "1"}]}), "s")


def test_an_empty_test_list_is_an_error_and_no_list_is_not() -> None:
    assert problems(suite()) == [
        "suite.yaml: tests: tests is empty: add a test, or leave tests out when datasets give them"
    ]
    no_tests = parse_suite({"name": "s", "datasets": ["lab.csv"]}, "suite.yaml")
    assert no_tests.cases == []


def test_a_top_level_key_is_not_corrected_to_a_key_of_another_part() -> None:
    (msg,) = problems(suite({"name": "a", "input": "q"}, model="gpt-4o"))
    assert "did you mean 'model'" not in msg
    assert msg == (
        "suite.yaml: model: unknown key 'model' here; 'model' goes under target.openai, judge "
        "or simulator"
    )
    typo = problems(suite({"name": "a", "input": "q"}, judge={"provider": "openai", "modle": "m"}))
    assert "suite.yaml: judge.modle: unknown key 'modle'; did you mean 'model'?" in typo


def test_an_empty_ground_truth_or_tool_name_is_refused_with_its_path(tmp_path: Path) -> None:
    """HoloDeck refuses both (its test_empty_ground_truth_rejected, test_name_rejects_empty):
    an empty tool name is part of every name, so it would match any call."""
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: s\ntarget: {python: 'agent:respond'}\ntests:\n"
        "  - {name: a, input: hi, ground_truth: ''}\n"
        "  - name: b\n    turns:\n"
        "      - {input: hi, ground_truth: '  ', expected_tools: ['', {name: ' '}, lookup]}\n"
    )
    with pytest.raises(ConfigError) as caught:
        load_suite(suite)
    assert str(caught.value).splitlines() == [
        f"{suite}: tests[0].ground_truth: ground_truth is empty: leave it out when there is "
        "no expected answer (test 'a')",
        f"{suite}: tests[1].turns[0].ground_truth: ground_truth is empty: leave it out when "
        "there is no expected answer (test 'b')",
        f"{suite}: tests[1].turns[0].expected_tools[0].name: the tool's name is empty: it would "
        "match every call (test 'b')",
        f"{suite}: tests[1].turns[0].expected_tools[1].name: the tool's name is empty: it would "
        "match every call (test 'b')",
    ]


def test_a_problem_inside_a_test_names_the_test_after_its_path() -> None:
    """HoloDeck's test-case contract, §7 (its test_bad_regex_surfaces_full_field_path):
    a load-time error names the test case and the field path."""
    raw = suite(
        {
            "name": "tc1",
            "turns": [
                {"input": "x", "expected_tools": [{"name": "f", "args": {"a": {"regex": "("}}}]}
            ],
        }
    )
    (msg,) = problems(raw)
    assert msg.startswith("suite.yaml: tests[0].turns[0].expected_tools[0].args.a.regex: ")
    assert msg.endswith(" (test 'tc1')") and "invalid regular expression" in msg


def test_a_goal_test_with_impossible_limits_is_refused_at_load() -> None:
    goal = {"name": "g", "goal": "get a refund"}
    assert problems(suite({**goal, "max_turns": True})) == [
        "suite.yaml: tests[0].max_turns: Input should be a valid integer (got True) (test 'g')"
    ]
    assert problems(suite({**goal, "min_turns": True})) == [
        "suite.yaml: tests[0].min_turns: Input should be a valid integer (got True) (test 'g')"
    ]
    # no minimum in the spec (max_turns 1 to 50): one turn is a conversation to judge
    for short in ({"max_turns": 1}, {"min_turns": 1, "max_turns": 1}):
        parse_suite(suite({**goal, **short}), "s")
    assert problems(suite({**goal, "min_turns": 2, "max_turns": 1})) == [
        "suite.yaml: tests[0]: min_turns (2) exceeds max_turns (1) (test 'g')"
    ]
    parse_suite(suite({**goal, "min_turns": 1, "max_turns": 2}), "s")
    # an empty list stated in the suite is no behaviour, not "derive it"
    no_behaviour = (
        "suite.yaml: tests[0]: required and prohibited list no behaviour: list at least one, "
        "or leave both out to derive the contract from the goal (test 'g')"
    )
    assert problems(suite({**goal, "required": []})) == [no_behaviour]
    assert problems(suite({**goal, "required": [], "prohibited": []})) == [no_behaviour]
    parse_suite(suite({**goal, "required": [], "prohibited": ["Promise a refund"]}), "s")
    # a behaviour of only full stops is empty once normalised, as a blank one is
    for empty in ("  ", " . ", ". .", " . . "):
        assert problems(suite({**goal, "prohibited": ["Promise a refund", empty]})) == [
            "suite.yaml: tests[0]: prohibited has an empty behaviour (test 'g')"
        ]


def test_turn_limits_on_a_test_without_a_goal_are_refused() -> None:
    """max_turns and min_turns limit a goal test's conversation; on another test they would
    be ignored (max_turns has a default, so only a written one is refused)."""
    for test in ({"name": "t", "input": "q"}, {"name": "t", "turns": [{"input": "q"}]}):
        assert problems(suite({**test, "max_turns": 3})) == [
            "suite.yaml: tests[0]: max_turns belongs to goal-driven tests; add goal: (test 't')"
        ]
        assert problems(suite({**test, "min_turns": 2, "max_turns": 3})) == [
            "suite.yaml: tests[0]: min_turns, max_turns belong to goal-driven tests; add goal: "
            "(test 't')"
        ]
        parse_suite(suite(test), "s")


def test_a_goal_context_is_text_or_a_mapping_in_one_message() -> None:
    for given, kind, fix in (
        ([1, 2], "list", "write it as text or a mapping"),
        (True, "bool", "quote it"),
    ):
        assert problems(suite({"name": "g", "goal": "x", "context": given})) == [
            "suite.yaml: tests[0].context: context is text or a mapping (what the user "
            f"knows), not {kind}: {fix} (test 'g')"
        ]
    for given in ("text", {"order": 12}, 42):  # a number is text as written
        parse_suite(suite({"name": "g", "goal": "x", "context": given}), "s")


def test_a_context_mapping_holds_only_what_json_can(tmp_path: Path) -> None:
    """A context mapping goes to the simulated user and the metrics as JSON: a date YAML
    built (unquoted ``2024-05-01``), bytes, a set or a key that is not text is refused at
    load, where it is in the mapping named, not a crash of the run."""
    cases = [
        ("{depart: 2024-05-01}", "context.depart is a date (2024-05-01), which JSON cannot hold"),
        (
            "{trip: [{at: !!binary aGk=}]}",
            "context.trip[0].at is a bytes (b'hi'), which JSON cannot hold",
        ),
        ("{ids: !!set {a}}", "context.ids is a set ({'a'}), which JSON cannot hold"),
        ("{null: x}", "context has the key null, which is not text"),
        ("{a: {true: x}}", "context.a has the key true, which is not text"),
    ]
    path = tmp_path / "suite.yaml"
    for shape in ("goal: g", "input: q"):
        for written, found in cases:
            path.write_text(f"name: s\ntests:\n  - {{name: t, {shape}, context: {written}}}\n")
            with pytest.raises(ConfigError) as raised:
                load_suite(path)
            assert [str(p) for p in raised.value.problems] == [
                f"{path}: tests[0].context: {found} (a context mapping is sent as JSON): "
                "quote it (test 't')"
            ]
    path.write_text("name: s\ntests:\n  - {name: t, goal: g, context: {depart: '2024-05-01'}}\n")
    assert load_suite(path).cases[0].goal.context == {"depart": "2024-05-01"}  # type: ignore[union-attr]


def test_a_turn_context_is_text_in_one_message() -> None:
    for given, kind in (({"a": 1}, "dict"), ([1], "list"), (False, "bool")):
        raw = suite({"name": "t", "turns": [{"input": "q", "context": given}]})
        assert problems(raw) == [
            "suite.yaml: tests[0].turns[0].context: a turn's context is text (what its metrics "
            f"check the reply against), not {kind}: write it as text (test 't')"
        ]
