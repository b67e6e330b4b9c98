"""Which tests a run runs: ``-k EXPR`` (``assay.runner.keywords``), ``--tag TAG`` and
``--only-failed RUN_ID`` (docs/ci.md).

The three combine with *and*: a test runs when it matches ``-k``, has one of the ``--tag``
tags (compared without case) and, with ``--only-failed``, failed or errored in that run. A
selection that leaves no test is bad input: a green run that tested nothing proves nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from assay.cases.models import TestCase
from assay.errors import ConfigError, Problem
from assay.runner.keywords import KeywordError, keyword_matcher
from assay.runner.request import IN_MEMORY, RunRequest
from assay.runner.storable import storable_text
from assay.store import RunNotFound

if TYPE_CHECKING:
    from assay.store import Store

# what --only-failed re-runs: a test with nothing checked (not_run) would not change
RERUN_STATUSES = ("failed", "error")


def select_cases(
    cases: Iterable[TestCase],
    keyword: str | None = None,
    tags: Iterable[str] = (),
    names: set[str] | None = None,
    names_from: str = "",
) -> list[TestCase]:
    """The cases the selection picks, in order. ``names``: stored test names (``--only-failed``
    gives the failed and errored ones of ``names_from``, a run id). Raises ConfigError when
    ``keyword`` cannot be read or nothing is selected."""
    cases, tags = list(cases), list(tags)
    wanted_tags = {tag.casefold() for tag in tags}
    matcher = None
    if keyword is not None:
        try:
            matcher = keyword_matcher(keyword)
        except KeywordError as exc:
            raise ConfigError(
                [Problem("options", "-k", f"cannot read {keyword!r}: {exc}")]
            ) from None
    chosen = [
        case
        for case in cases
        if (matcher is None or matcher(case.name.casefold()))
        and (not wanted_tags or wanted_tags & {tag.casefold() for tag in case.tags})
        and (names is None or storable_text(case.name) in names)
    ]
    if chosen or not cases:
        return chosen
    raise ConfigError(
        [
            Problem(
                "options",
                _flags(keyword, tags, names_from),
                _nothing(len(cases), keyword, tags, names, names_from),
            )
        ]
    )


def _flags(keyword: str | None, tags: list[str], names_from: str) -> str:
    given = ["-k"] if keyword is not None else []
    given += ["--tag"] if tags else []
    given += ["--only-failed"] if names_from else []
    return " ".join(given)


def _nothing(
    total: int, keyword: str | None, tags: list[str], names: set[str] | None, names_from: str
) -> str:
    parts = [f"-k {keyword!r}"] if keyword is not None else []
    parts += [f"--tag {tag!r}" for tag in tags]
    if names_from:
        parts.append(f"--only-failed {names_from[:12]}")
    why = f"no test matches {' '.join(parts)} (of {total} tests)"
    if names is not None and not names:
        why = f"run {names_from[:12]} has no failed or errored test, so there is nothing to re-run"
    elif names is not None and keyword is None and not tags:
        why += ": its failed tests are no longer in the suite"
    return (
        why + "; a run that tests nothing proves nothing. Check the names (`assay run` lists "
        "them in its table) and tags, or drop the selection"
    )


def failed_tests(store: Store, ref: str) -> tuple[str, set[str]]:
    """``--only-failed RUN_ID``: the run's full id and the stored names of its tests that
    failed or errored (on any repetition)."""
    run_id = rerun_id(store, ref)
    names = {o.test_name for o in store.outcomes(run_id) if o.status in RERUN_STATUSES}
    return run_id, names


def rerun_id(store: Store, ref: str) -> str:
    """The full id of the run ``--only-failed`` names (its id or a prefix). An unknown id is
    bad input naming the option."""
    try:
        return store.resolve_run_id(ref)
    except RunNotFound as exc:
        problem = exc.problems[0]
        raise ConfigError([Problem("options", "--only-failed", problem.message)]) from None


def rerun_request(request: RunRequest, store: Store, run_id: str) -> RunRequest:
    """``--only-failed`` with no suite and no dataset: the suite and datasets of the run
    being re-run (with the options given now)."""
    if request.suite is not None or request.options.datasets:
        return request
    stored = store.run_inputs(run_id).get("request") or {}
    if stored.get(IN_MEMORY):
        raise ConfigError(
            [
                Problem(
                    "options",
                    "--only-failed",
                    f"run {run_id[:12]} ran a suite given to assay.run as an object, which is "
                    "not stored: pass the same suite again",
                )
            ]
        )
    started = RunRequest.from_inputs(stored)
    options = request.options.model_copy(update={"datasets": started.options.datasets})
    return RunRequest(started.suite, options)
