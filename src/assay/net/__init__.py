"""Shared HTTP plumbing for everything that calls a server: targets, judges, simulated users.

- ``retry``: ``RetryPolicy``, ``is_retryable_status``, ``backoff_delay`` (full jitter,
  ``Retry-After`` honoured).
- ``limits``: ``EndpointLimiter`` and the process-wide ``limiter_for`` registry.
- ``session``: ``open_client_session`` (one aiohttp session per caller), ``check_reachable``,
  ``endpoint_key``.
- ``request``: ``send_request`` (limits + timeout + retries) and ``RequestFailed``.
- ``sse``: ``sse_data``, the data payloads of a server-sent event stream.
"""

from assay.net.limits import EndpointLimiter, limiter_for, reset_limiters
from assay.net.request import RequestFailed, excerpt, send_request
from assay.net.retry import RetryPolicy, backoff_delay, is_retryable_status, parse_retry_after
from assay.net.session import (
    Unreachable,
    check_reachable,
    endpoint_key,
    host_port,
    open_client_session,
)
from assay.net.sse import is_event_stream, sse_data

__all__ = [
    "EndpointLimiter",
    "RequestFailed",
    "RetryPolicy",
    "Unreachable",
    "backoff_delay",
    "check_reachable",
    "endpoint_key",
    "excerpt",
    "host_port",
    "is_event_stream",
    "is_retryable_status",
    "limiter_for",
    "open_client_session",
    "parse_retry_after",
    "reset_limiters",
    "send_request",
    "sse_data",
]
