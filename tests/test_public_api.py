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
    "RunOptions",
    "RunStart",
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
    "run",
    "run_async",
}


def test_all_is_exactly_the_public_api() -> None:
    assert set(assay.__all__) == EXPECTED
    for name in assay.__all__:
        assert getattr(assay, name) is not None
    assert set(assay.__all__) <= set(dir(assay))  # the lazily imported names too


def test_a_lazy_name_is_the_object_of_its_home_module() -> None:
    from assay.api import run
    from assay.cases import load_suite
    from assay.run_options import RunOptions

    assert (assay.run, assay.load_suite, assay.RunOptions) == (run, load_suite, RunOptions)
    try:
        assay.no_such_name  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("an unknown name must raise AttributeError")


def test_session_lost_is_a_target_error_with_exit_code_3() -> None:
    assert issubclass(assay.SessionLost, assay.TargetError)
    assert assay.TargetError.exit_code == 3 and assay.ConfigError.exit_code == 2
