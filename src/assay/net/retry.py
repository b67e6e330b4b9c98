"""Retry policy for HTTP calls: which failures to retry, and how long to wait between tries.

Waits grow exponentially with full jitter (a uniform draw between 0 and the exponential
ceiling), so many clients failing together do not retry together. A server's
``Retry-After`` (seconds or an HTTP-date) is honoured instead, capped at ``max_delay_s``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

DEFAULT_RETRIES = 3
DEFAULT_BASE_DELAY_S = 0.5
DEFAULT_MAX_DELAY_S = 30.0
RETRYABLE_STATUSES = frozenset({429, 500, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    """``retries`` more tries after the first; ``RetryPolicy(retries=0)`` never retries."""

    retries: int = DEFAULT_RETRIES
    base_delay_s: float = DEFAULT_BASE_DELAY_S
    max_delay_s: float = DEFAULT_MAX_DELAY_S

    def __post_init__(self) -> None:
        if self.retries < 0 or self.base_delay_s < 0 or self.max_delay_s < 0:
            raise ValueError(f"a retry policy's numbers cannot be negative: {self}")

    @property
    def attempts(self) -> int:
        """How many tries in all."""
        return self.retries + 1


def is_retryable_status(status: int) -> bool:
    """Rate limited (429) or a transient server failure (500, 502, 503, 504)."""
    return status in RETRYABLE_STATUSES


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds or an HTTP-date.
    ``None`` when absent or unreadable; never negative."""
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # HTTP-dates are GMT
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def backoff_delay(
    policy: RetryPolicy,
    attempt: int,
    retry_after: str | None = None,
    rand: Callable[[], float] = random.random,
) -> float:
    """Seconds to wait before retry number ``attempt + 1`` (``attempt`` = 0 after the first
    failure). ``Retry-After``, when readable, wins over the exponential backoff."""
    waited = parse_retry_after(retry_after)
    if waited is not None:
        return min(waited, policy.max_delay_s)
    ceiling = min(policy.max_delay_s, policy.base_delay_s * 2.0 ** min(max(0, attempt), 62))
    return ceiling * rand()
