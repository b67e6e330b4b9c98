"""Test cases and the suite loader."""

from assay.cases.loader import LoadedSuite, load_suite, parse_suite
from assay.cases.models import GoalSpec, TestCase, Turn

__all__ = ["GoalSpec", "LoadedSuite", "TestCase", "Turn", "load_suite", "parse_suite"]
