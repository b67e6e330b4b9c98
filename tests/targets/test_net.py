"""assay.net: retry delays, endpoint keys, the limiter registry and its limits."""

from __future__ import annotations

import asyncio
import socket
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from assay.net import (
    EndpointLimiter,
    RetryPolicy,
    Unreachable,
    backoff_delay,
    check_reachable,
    endpoint_key,
    is_retryable_status,
    limiter_for,
    parse_retry_after,
)
from tests.targets.agent_server import free_port


def test_retryable_statuses() -> None:
    assert [
        s for s in (200, 400, 404, 408, 429, 500, 501, 502, 503, 504) if is_retryable_status(s)
    ] == [
        429,
        500,
        502,
        503,
        504,
    ]


def test_backoff_is_exponential_with_full_jitter_and_capped() -> None:
    policy = RetryPolicy(retries=5, base_delay_s=0.5, max_delay_s=3.0)
    # the ceiling doubles per attempt: 0.5, 1, 2, then the 3 s cap
    assert [backoff_delay(policy, a, rand=lambda: 1.0) for a in range(5)] == [
        0.5,
        1.0,
        2.0,
        3.0,
        3.0,
    ]
    assert backoff_delay(policy, 2, rand=lambda: 0.25) == 0.5  # a quarter of the 2 s ceiling
    assert backoff_delay(policy, 0, rand=lambda: 0.0) == 0.0
    assert backoff_delay(policy, 10_000, rand=lambda: 1.0) == 3.0  # no overflow


def test_retry_after_wins_and_is_capped() -> None:
    policy = RetryPolicy(base_delay_s=0.5, max_delay_s=30.0)
    assert backoff_delay(policy, 0, "2", rand=lambda: 0.0) == 2.0
    assert backoff_delay(policy, 0, "1.5") == 1.5
    assert backoff_delay(policy, 0, "120") == 30.0
    # unreadable: the exponential backoff applies
    assert backoff_delay(policy, 1, "soon", rand=lambda: 1.0) == 1.0


def test_retry_after_http_date() -> None:
    now = datetime(2025, 6, 12, 10, 0, 0, tzinfo=UTC)
    later = format_datetime(now + timedelta(seconds=10), usegmt=True)
    assert later == "Thu, 12 Jun 2025 10:00:10 GMT"
    assert parse_retry_after(later, now=now) == 10.0
    assert parse_retry_after(format_datetime(now - timedelta(seconds=5), usegmt=True), now) == 0.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("") is None
    assert parse_retry_after("-3") == 0.0


def test_retry_policy_rejects_negative_numbers() -> None:
    with pytest.raises(ValueError, match="negative"):
        RetryPolicy(retries=-1)
    assert RetryPolicy(retries=0).attempts == 1


def test_endpoint_key_normalises_default_ports_and_case() -> None:
    assert endpoint_key("http://LocalHost/chat") == "http://localhost:80"
    assert endpoint_key("http://localhost:80/other?x=1") == "http://localhost:80"
    assert endpoint_key("https://api.example.com/v1") == "https://api.example.com:443"
    assert endpoint_key("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000"
    assert endpoint_key("http://[::1]:9/x") == "http://[::1]:9"


def test_limiter_registry_shares_per_endpoint() -> None:
    assert limiter_for("http://a:80", None, None) is None
    first = limiter_for("http://a:80", 4, None)
    assert first is not None
    assert limiter_for("http://a:80", 4, None) is first
    assert limiter_for("http://b:80", 4, None) is not first
    # a later caller asking for other limits gets the stricter of each
    merged = limiter_for("http://a:80", 8, 120.0)
    assert merged is not None and merged is not first
    assert (merged.max_in_flight, merged.requests_per_minute) == (4, 120.0)
    assert limiter_for("http://a:80", None, 600.0) is merged  # looser: nothing changes


async def test_max_in_flight_caps_concurrency() -> None:
    limiter = EndpointLimiter(max_in_flight=2)
    inside = 0
    peak = 0

    async def request() -> None:
        nonlocal inside, peak
        async with limiter:
            inside += 1
            peak = max(peak, inside)
            await asyncio.sleep(0.01)
            inside -= 1

    await asyncio.gather(*(request() for _ in range(7)))
    assert peak == 2
    assert inside == 0


async def test_requests_per_minute_spaces_requests_after_the_burst() -> None:
    # 6000/min = 100/s with a burst of one second's worth (100): 110 requests need at
    # least 10 more token intervals of 10 ms after the burst.
    limiter = EndpointLimiter(requests_per_minute=6000)
    loop = asyncio.get_running_loop()
    stamps: list[float] = []

    async def request() -> None:
        async with limiter:
            stamps.append(loop.time())

    start = loop.time()
    await asyncio.gather(*(request() for _ in range(110)))
    assert sum(1 for t in stamps if t - start < 0.005) == 100
    assert max(stamps) - start >= 0.095


async def test_cancelled_waiter_gives_its_slot_and_token_back() -> None:
    # 120/min = one token per 0.5 s, burst 2. After the burst a waiter reserves the next
    # token (due in 0.5 s) while holding the only slot; cancelling it must return both, so
    # the next caller gets in within about 0.5 s (without the refund: about 1 s; without
    # the slot: never).
    limiter = EndpointLimiter(max_in_flight=1, requests_per_minute=120)
    for _ in range(2):
        async with limiter:
            pass
    waiter = asyncio.create_task(limiter.__aenter__())
    await asyncio.sleep(0.01)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    await asyncio.wait_for(limiter.__aenter__(), timeout=0.8)
    await limiter.__aexit__(None, None, None)


async def test_check_reachable() -> None:
    port = free_port()
    with pytest.raises(Unreachable) as info:
        await check_reachable(f"http://127.0.0.1:{port}/chat")
    assert str(info.value) == f"cannot reach http://127.0.0.1:{port}/chat: connection refused"
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        await check_reachable(f"http://127.0.0.1:{server.getsockname()[1]}/chat")
    with pytest.raises(Unreachable, match="expected an http"):
        await check_reachable("ftp://127.0.0.1/x")
