"""The message of a run whose worker died with tests in flight: counted in words as the
rest of assay counts ("1 test has no result", not "1 tests have no result")."""

from __future__ import annotations

import pytest

from assay.runner.job import lost_tests


@pytest.mark.parametrize(("count", "words"), [(1, "1 test has"), (3, "3 tests have")])
def test_the_lost_tests_are_counted_in_words(count: int, words: str) -> None:
    message = lost_tests(["worker 2 stopped unexpectedly"], count, "assay run --resume 0123")
    assert message == (
        f"worker 2 stopped unexpectedly: {words} no result (the other results are stored); "
        "run them with assay run --resume 0123"
    )
    assert lost_tests([], count, "x").startswith(f"every worker stopped: {words} no result")
