"""Registry tests register metrics and import plugin modules from their tmp_path: each test
gets the registry, ``sys.path`` and the modules it imported from its tmp_path back as they
were, so no test sees another's metrics or another's plugin of the same name."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from assay.metrics import METRICS
from tests.cli.conftest import assay_cli  # noqa: F401  (the CLI as a user runs it)


@pytest.fixture(autouse=True)
def restore_registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    list(METRICS)  # every built-in registered (the judge tier loads on demand) before the copy
    entries = dict(METRICS._entries)
    path = list(sys.path)
    scratch = str(tmp_path_factory.getbasetemp())
    yield
    METRICS._entries.clear()
    METRICS._entries.update(entries)
    sys.path[:] = path
    for name, module in list(sys.modules.items()):
        if str(getattr(module, "__file__", None) or "").startswith(scratch):
            del sys.modules[name]
