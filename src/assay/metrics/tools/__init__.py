"""Tool-use checks: argument matchers, per-turn assertions."""

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
