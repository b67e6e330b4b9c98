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
from tests.fakes.clock import ManualClock
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


def test_every_caller_of_an_endpoint_shares_one_limiter_with_the_strictest_limits() -> None:
    first = limiter_for("http://a:80")  # a caller with no limits still shares the limiter
    assert (first.max_in_flight, first.requests_per_minute) == (None, None)
    assert limiter_for("http://a:80", 4, None) is first
    assert first.max_in_flight == 4  # the earlier holder is limited too
    assert limiter_for("http://b:80", 4, None) is not first
    assert limiter_for("http://a:80", 8, 120.0) is first
    assert (first.max_in_flight, first.requests_per_minute) == (4, 120.0)
    assert limiter_for("http://a:80", None, 600.0) is first  # looser: nothing changes
    assert (first.max_in_flight, first.requests_per_minute) == (4, 120.0)
    assert limiter_for("http://a:80", 2, 60.0) is first
    assert (first.max_in_flight, first.requests_per_minute) == (2, 60.0)


async def test_max_in_flight_caps_concurrency() -> None:
    limiter = EndpointLimiter(max_in_flight=2)
    inside = 0
    peak = 0
    gate = asyncio.Event()

    async def request() -> None:
        nonlocal inside, peak
        async with limiter:
            inside += 1
            peak = max(peak, inside)
            await gate.wait()
            inside -= 1

    tasks = [asyncio.create_task(request()) for _ in range(7)]
    await asyncio.sleep(0)
    gate.set()
    await asyncio.gather(*tasks)
    assert peak == 2
    assert inside == 0


async def test_a_limit_lowered_in_flight_applies_to_the_next_requests() -> None:
    limiter = limiter_for("http://c:80")
    release = asyncio.Event()
    inside = 0
    peak_after = 0

    async def request(after: bool) -> None:
        nonlocal inside, peak_after
        async with limiter:
            inside += 1
            if after:
                peak_after = max(peak_after, inside)
            await release.wait()
            inside -= 1

    early = [asyncio.create_task(request(False)) for _ in range(3)]
    await asyncio.sleep(0)
    assert limiter.in_flight() == 3  # no limit yet
    limiter_for("http://c:80", 1, None)  # a judge with max_in_flight: 1 joins
    late = [asyncio.create_task(request(True)) for _ in range(4)]
    await asyncio.sleep(0)
    assert limiter.in_flight() == 3  # the late ones wait until in-flight drops below 1
    release.set()
    await asyncio.gather(*early, *late)
    assert peak_after == 1


async def test_requests_per_minute_spaces_requests_after_the_burst() -> None:
    # 6000/min = 100/s with a burst of one second's worth (100): the 110 requests after
    # it are admitted one per 10 ms.
    clock = ManualClock()
    limiter = EndpointLimiter(requests_per_minute=6000, clock=clock)
    admitted: list[float] = []

    async def request() -> None:
        async with limiter:
            admitted.append(clock.now())

    tasks = [asyncio.create_task(request()) for _ in range(110)]
    await clock.settle()
    assert admitted == [0.0] * 100
    for k in range(1, 11):
        await clock.advance(0.01)
        assert len(admitted) == 100 + k
    await asyncio.gather(*tasks)
    assert admitted[100:] == pytest.approx([0.01 * k for k in range(1, 11)])
    assert clock.sleeps == pytest.approx([0.01 * k for k in range(1, 11)])


async def test_a_tighter_rate_applies_to_a_bucket_in_use() -> None:
    clock = ManualClock()
    limiter = limiter_for("http://d:80", None, 600.0)  # 10/s, burst 10
    limiter.clock = clock
    async with limiter:
        pass
    limiter_for("http://d:80", None, 60.0)  # 1/s, burst 1
    async with limiter:  # the bucket was cut to one token, and that one is used now
        pass
    waiter = asyncio.create_task(limiter.__aenter__())
    await clock.settle()
    assert clock.sleeps == [pytest.approx(1.0)]
    await clock.advance(1.0)
    assert waiter.done()
    await limiter.__aexit__(None, None, None)


async def test_cancelled_waiter_gives_its_slot_and_token_back() -> None:
    # 120/min = one token per 0.5 s, burst 2. After the burst a waiter reserves the next
    # token (due in 0.5 s) while holding the only slot; cancelling it must return both, so
    # the next caller gets the slot and waits 0.5 s (without the refund: 1 s; without the
    # slot: it never gets to wait for a token).
    clock = ManualClock()
    limiter = EndpointLimiter(max_in_flight=1, requests_per_minute=120, clock=clock)
    for _ in range(2):
        async with limiter:
            pass
    waiter = asyncio.create_task(limiter.__aenter__())
    await clock.settle()
    assert clock.sleeps == [0.5]
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    after = asyncio.create_task(limiter.__aenter__())
    await clock.settle()
    assert clock.sleeps == [0.5, 0.5]
    assert not after.done()
    await clock.advance(0.5)
    assert after.done()
    await limiter.__aexit__(None, None, None)
    assert limiter.in_flight() == 0


async def test_a_waiter_cancelled_before_its_slot_leaves_the_queue() -> None:
    limiter = EndpointLimiter(max_in_flight=1)
    await limiter.__aenter__()
    queued = asyncio.create_task(limiter.__aenter__())
    await asyncio.sleep(0)
    queued.cancel()
    with pytest.raises(asyncio.CancelledError):
        await queued
    await limiter.__aexit__(None, None, None)
    assert limiter.in_flight() == 0
    await asyncio.wait_for(limiter.__aenter__(), timeout=30)  # the slot is free again
    assert limiter.in_flight() == 1


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
