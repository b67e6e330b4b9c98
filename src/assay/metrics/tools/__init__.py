"""Tool-use checks: argument matchers, per-turn assertions, trajectory metrics."""

from assay.metrics.tools import value_matchers  # noqa: F401  (registers approx, any, ...)
from assay.metrics.tools.assertions import ExpectedTool, ToolCheck, check_expected_tools
from assay.metrics.tools.matchers import (
    LiteralMatcher,
    Matcher,
    MatcherError,
    literal_equal,
    parse_matcher,
    register_matcher,
)

__all__ = [
    "ExpectedTool",
    "Matcher",
    "LiteralMatcher",
    "MatcherError",
    "ToolCheck",
    "check_expected_tools",
    "literal_equal",
    "parse_matcher",
    "register_matcher",
]
