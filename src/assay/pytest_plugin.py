"""``pytest --assay-suite PATH``: an assay suite's tests as pytest items (docs/pytest.md).

Registered with the ``pytest11`` entry point, so pytest loads it in every session of anyone
who installs assay: this module adds the options and nothing else unless ``--assay-suite`` is
given. It imports only pytest and the standard library; the suite loader, the runner and the
store are imported by ``assay._pytest_suite`` when a suite is given.

Each item runs its own test, as a run of one test through ``assay.run``: ``-k`` and ``-x``
then decide which agent calls are made (a deselected or never-reached test calls nothing),
and with pytest-xdist each worker runs the tests it is given and no others.
"""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    _keep_assay_unrewritten(pluginmanager)
    group = parser.getgroup("assay", "assay: an assay suite's tests as pytest items")
    group.addoption(
        "--assay-suite",
        action="append",
        default=[],
        metavar="PATH",
        help="collect one item per test of this assay suite file (repeatable); with no "
        "other path on the command line, only the suites are collected",
    )
    group.addoption(
        "--assay-target",
        default=None,
        metavar="TARGET",
        help="the agent to test, replacing each suite's target: an http(s) URL, demo, or "
        "module:function",
    )
    group.addoption(
        "--assay-report",
        default=None,
        metavar="FILE",
        help="write the JSON report of the assay tests that ran to FILE",
    )
    group.addoption(
        "--assay-store",
        default=None,
        metavar="URL",
        help="where each test's run is stored (default: as assay run: $ASSAY_STORE, else "
        "sqlite:///.assay/assay.db)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if not config.getoption("assay_suite"):
        return
    from assay._pytest_suite import activate

    activate(config)


def _keep_assay_unrewritten(pluginmanager: pytest.PytestPluginManager) -> None:
    """pytest marks every package of a plugin's distribution for assertion rewriting, so
    without this each assay module a session imports (the runner, the store, the dashboard)
    would be parsed and rewritten, about a second per session where bytecode is not cached.
    assay's own asserts need no pytest messages. (pytest's set of marked names is private:
    if it changes, assay is rewritten again, which is slower but works the same.)"""
    marked = getattr(getattr(pluginmanager, "rewrite_hook", None), "_must_rewrite", None)
    if isinstance(marked, set):
        marked.discard("assay")
