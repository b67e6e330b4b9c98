"""A real travel-agent server on 127.0.0.1 for the demo tests."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Iterator

import aiohttp
import pytest

from assay.demo import serve_in_background

_ids = itertools.count(1)


@pytest.fixture(scope="module")
def agent_url() -> Iterator[str]:
    with serve_in_background() as url:
        yield url


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


@pytest.fixture
def session_id(request: pytest.FixtureRequest) -> str:
    """A session id no other test uses (the server is shared by a module's tests)."""
    return f"{request.node.name}-{next(_ids)}"
