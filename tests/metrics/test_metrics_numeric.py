"""numeric: whole-string numbers, numbers in prose (extract), numbers in JSON (response_path)."""

from __future__ import annotations

from pathlib import Path

import pytest

import assay
from assay.metrics import MetricConfigError, build_metric
from assay.metrics._numbers import find_numbers, read_number
from tests.metrics._helpers import context, score


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("5,120", 5120.0),
        ("5\u202f120", 5120.0),  # narrow no-break space groups thousands
        ("5 120", 5120.0),  # a plain space too, in a whole string
        ("1,234,567.89", 1234567.89),
        ("14.14%", 0.1414),
        ("\u22123.5", -3.5),  # U+2212 MINUS SIGN
        ("\u0665\u0661\u0662\u0660", 5120.0),  # Arabic-Indic digits
        ("  42  ", 42.0),
    ],
)
def test_whole_strings(text: str, value: float) -> None:
    found = read_number(text)
    assert found is not None and found.value == pytest.approx(value)


@pytest.mark.parametrize("text", ["", "five", "1.2.3", "5,12", "nan", "inf"])
def test_not_numbers(text: str) -> None:
    assert read_number(text) is None


def test_numbers_in_prose() -> None:
    found = find_numbers("In 2021 revenue was $5,120.50 (up 14 %), versions 1.2.3 aside.")
    # 2021; 5,120.50 -> 5120.5; "14 %" -> 0.14; "1.2.3" is a version, not a number
    assert [n.value for n in found] == [2021.0, 5120.5, pytest.approx(0.14)]
    assert [n.percent for n in found] == [False, False, True]


def test_prose_does_not_group_with_plain_spaces() -> None:
    # "3 100-dollar bills" is two numbers, 3 and 100
    assert [n.value for n in find_numbers("3 100-dollar bills")] == [3.0, 100.0]


def test_exact_match_and_tolerances() -> None:
    assert score("numeric", "5,120", "5120").score == 1.0
    assert score("numeric", "5121", "5120").score == 0.0
    # |101 - 100| = 1 <= 0.01 * 100 = 1: within the relative tolerance
    assert score("numeric", "101", "100", relative_tolerance=0.01).score == 1.0
    # |0.5 - 0| = 0.5 <= 0.5: within the absolute tolerance
    assert score("numeric", "0.5", "0", absolute_tolerance=0.5).score == 1.0


def test_percent_matches_its_fraction_and_its_number() -> None:
    assert score("numeric", "14%", "0.14").score == 1.0
    assert score("numeric", "14%", "14").score == 1.0
    assert score("numeric", "0.145", "14.5%").score == 1.0
    assert score("numeric", "14%", "0.15").score == 0.0


def test_extract_takes_the_number_closest_to_the_expected() -> None:
    result = score("numeric", "In 2021 revenue was $5,120.50, up 14%.", "5120.5", extract=True)
    assert result.score == 1.0
    assert result.details is not None
    assert result.details["found"] == ["2021", "5,120.50", "14%"]
    assert result.details["actual"] == 5120.5


def test_extract_first_and_last() -> None:
    text = "In 2021 revenue was 5,120"
    first = score("numeric", text, "5120", extract="first")
    assert first.score == 0.0
    assert first.reasoning == "expected 5120, got 2021 (off by 3099)"  # 5120 - 2021 = 3099
    assert score("numeric", text, "5120", extract="last").score == 1.0


def test_extract_percent_in_prose() -> None:
    assert score("numeric", "Margin rose to 14.5 % this year", "0.145", extract=True).score == 1.0
    assert score("numeric", "Margin rose 14.5 percent", "14.5", extract=True).score == 1.0


def test_extract_without_thousands_separators_splits_the_number() -> None:
    # "5,120" reads as 5 and 120; the closest to 5120 is 120, which is off
    result = score("numeric", "5,120", "5120", extract=True, accept_thousands_separators=False)
    assert result.score == 0.0
    assert result.details is not None and result.details["found"] == ["5", "120"]


def test_unicode_digits_in_prose() -> None:
    assert score("numeric", "المجموع \u0665\u0661\u0662\u0660", "5120", extract=True).score == 1.0


def test_empty_response() -> None:
    # a number that cannot be read: 0, failed, and the metric's error says why (HoloDeck's)
    whole = score("numeric", "", "5120")
    assert (whole.score, whole.passed, whole.error) == (
        0.0,
        False,
        "the response '' is not a number",
    )
    extracted = score("numeric", "", "5120", extract=True)
    assert extracted.score == 0.0 and "contains no number" in (extracted.error or "")


def test_response_path_reads_a_json_reply() -> None:
    reply = '{"result": {"total": 5120, "label": "about 5,120 USD", "flag": true}}'
    assert score("numeric", reply, "5120", response_path="$.result.total").score == 1.0
    # a string value is read like a response: whole, or with extract
    assert score("numeric", reply, "5120", response_path="$.result.label").score == 0.0
    assert (
        score("numeric", reply, "5120", response_path="$.result.label", extract=True).score == 1.0
    )
    flag = score("numeric", reply, "1", response_path="$.result.flag")
    assert flag.score == 0.0 and flag.reasoning == "$.result.flag is true, not a number"
    missing = score("numeric", reply, "1", response_path="$.result.nope")
    assert missing.reasoning == "the JSON response has nothing at $.result.nope"
    not_json = score("numeric", "about 5120", "5120", response_path="$.total")
    assert not_json.score == 0.0 and "not valid JSON" in (not_json.reasoning or "")


def test_response_path_list_index() -> None:
    reply = '{"rows": [{"v": 1}, {"v": 2.5}]}'
    assert score("numeric", reply, "2.5", response_path="$.rows[1].v").score == 1.0


def test_bad_options_name_their_field() -> None:
    with pytest.raises(MetricConfigError) as bad_path:
        build_metric("numeric", {"response_path": "$.[("})
    assert bad_path.value.problems[0][0] == "response_path"
    with pytest.raises(MetricConfigError) as bad_extract:
        build_metric("numeric", {"extract": "middle"})
    assert bad_extract.value.problems[0][0].startswith("extract")


def test_a_ground_truth_that_is_no_number_leaves_the_metric_not_run() -> None:
    """SPEC §5: a metric without its input is absent, not scored 0; a suite applying numeric
    to every test (SPEC §2's example) has text answers too."""
    for truth in ("five", "Paris", "  "):
        missing = build_metric("numeric", {}).missing_input(context("5", truth))
        assert missing == f"the ground truth {truth!r} is not a number"
    # a ground truth with a digit that does not read is scored, failed: a typo fails its test
    typo = score("numeric", "5120", "5,12O")
    assert (typo.score, typo.passed) == (0.0, False)
    assert typo.error == "the ground truth '5,12O' is not a number"
    # a number written in a form an option turns off is still scored, failed (HoloDeck)
    assert (
        build_metric("numeric", {"accept_percent": False}).missing_input(context("0.14", "14%"))
        is None
    )
    percent = score("numeric", "0.14", "14%", accept_percent=False)
    assert (percent.score, percent.passed) == (0.0, False)
    assert percent.error == "the ground truth '14%' is a percentage, and accept_percent is false"


def test_the_spec_example_suite_passes_its_text_test_with_numeric_on_every_test(
    tmp_path: Path,
) -> None:
    (tmp_path / "spec_agent.py").write_text(
        "def respond(query, session_id):\n    return 'Paris' if 'France' in query else '5120'\n"
    )
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: s\ntarget: {python: 'spec_agent:respond'}\n"
        "metrics: [equality, {metric: numeric, relative_tolerance: 0.01}]\n"
        "tests:\n"
        "  - {name: capital, input: 'What is the capital of France?', ground_truth: Paris}\n"
        "  - {name: revenue, input: 'Revenue in 2021?', ground_truth: '5120'}\n"
    )
    report = assay.run(suite, store=f"sqlite:///{tmp_path / 'a.db'}")
    capital, revenue = report.results
    assert capital.passed and capital.status == "passed"
    assert [m.metric_name for m in capital.metric_results] == ["equality"]
    assert capital.metrics_not_run == {"numeric": "the ground truth 'Paris' is not a number"}
    assert revenue.passed and [m.metric_name for m in revenue.metric_results] == [
        "equality",
        "numeric",
    ]


def test_an_option_that_is_off_is_named_in_the_error() -> None:
    percent = score("numeric", "14%", "0.14", accept_percent=False)
    assert percent.error == "the response '14%' is a percentage, and accept_percent is false"
    grouped = score("numeric", "5,120", "5120", accept_thousands_separators=False)
    assert grouped.error == (
        "the response '5,120' groups its thousands, and accept_thousands_separators is false"
    )


def test_a_non_numeric_answer_fails_the_test_and_does_not_error_it() -> None:
    # the metric's error is not an error of the agent's: the test is failed, not errored
    from assay.results.models import TurnResult
    from assay.results.rollup import single_turn_result

    metric = score("numeric", "about five", "5")
    turn = TurnResult(
        turn_index=0,
        input="q",
        response="about five",
        passed=False,
        execution_time_ms=1,
        metric_results=[metric],
    )
    result = single_turn_result("t", turn, "2026-01-01T00:00:00+00:00")
    assert (result.status, result.errors) == ("failed", [])


@pytest.mark.parametrize(
    ("text", "thousands", "value"),
    [("1_000", True, 1000.0), ("1_000", False, None), ("10_00", True, None), ("1_0", False, None)],
)
def test_an_underscore_is_a_thousands_separator_or_nothing(
    text: str, thousands: bool, value: float | None
) -> None:
    # Python's float() reads any "1_0" as 10; a person writes "_" only between thousands
    found = read_number(text, thousands=thousands)
    assert (None if found is None else found.value) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("5\u00a0120", 5120.0),  # a no-break space groups thousands
        ("\u22125120", -5120.0),  # U+2212 minus
        ("5,1,2,0", None),  # commas between single digits: not a number anywhere
        ("5,120", 5120.0),
        ("3,5", None),  # a decimal comma is not read as 3.5
    ],
)
def test_the_numeric_metric_and_the_approx_matcher_read_numbers_alike(
    text: str, value: float | None
) -> None:
    """One number reader: the numeric metric and approx agree on what a string is. (The
    fuzzy matcher reads numbers as HoloDeck's does: tests/tools/test_matcher_contract.py.)"""
    from assay.metrics.tools import parse_matcher

    expected = "5120" if value is None else str(value)
    numeric = score("numeric", text, expected).score == 1.0
    approx = parse_matcher({"approx": 5120 if value is None else value}).matches(text)
    assert numeric is approx is (value is not None)
