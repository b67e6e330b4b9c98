"""The curated public API: exactly these names, each importable from ``assay``."""

import assay

EXPECTED = {
    "AssayError",
    "ConfigError",
    "DatasetError",
    "JudgeError",
    "LoadedSuite",
    "Metric",
    "MetricContext",
    "MetricOptions",
    "MetricResult",
    "Reply",
    "Report",
    "Score",
    "SessionLost",
    "StoreError",
    "Target",
    "TargetError",
    "TestCase",
    "TestResult",
    "TokenUsage",
    "ToolInvocation",
    "TurnRequest",
    "TurnResult",
    "__version__",
    "load_suite",
    "metric",
    "parse_suite",
}


def test_all_is_exactly_the_public_api() -> None:
    assert set(assay.__all__) == EXPECTED
    for name in assay.__all__:
        assert getattr(assay, name) is not None


def test_session_lost_is_a_target_error_with_exit_code_3() -> None:
    assert issubclass(assay.SessionLost, assay.TargetError)
    assert assay.TargetError.exit_code == 3 and assay.ConfigError.exit_code == 2
