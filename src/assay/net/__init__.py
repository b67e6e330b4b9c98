"""Shared HTTP plumbing for everything that calls a server: targets, judges, simulated users.

- ``retry``: ``RetryPolicy``, ``is_retryable_status``, ``backoff_delay`` (full jitter,
  ``Retry-After`` honoured).
- ``limits``: ``EndpointLimiter`` and the process-wide ``limiter_for`` registry (one
  limiter per endpoint, the strictest limits anyone set); ``Clock`` for tests.
- ``body``: ``ReplyBody`` (a response read within ``max_reply_mb``, after decompression),
  ``ReplyTooLarge``.
- ``session``: ``open_client_session`` (one aiohttp session per caller), ``check_reachable``,
  ``endpoint_key``.
- ``request``: ``send_request`` (limits + timeout + size limit + retries + redirects),
  ``RequestFailed``, ``decode_json``; ``redirects`` follows redirects for it, credentials
  kept to the request's origin.
- ``sse``: ``sse_data`` (the data payloads of a server-sent event stream) and
  ``collect_stream`` (a stream folded into one reply, with time to first token).

Imported by their module path (the wire formats of the model APIs):

- ``openai_wire``: the OpenAI chat-completions format (URL, headers, body, reply, tool
  calls), for the openai target and the ``openai`` model provider.
- ``usage``: token usage in OpenAI's, Anthropic's or assay's names, as TokenUsage.
- ``reply_fields``: strict readers of a reply's fields (``MalformedReply``).
"""

from assay.limits import DEFAULT_MAX_REPLY_MB
from assay.net import _tls  # noqa: F401  (before aiohttp: its CA certificates load on first TLS use)
from assay.net.body import (
    ReplyBody,
    ReplyTooLarge,
    format_mb,
    reply_limit_bytes,
)
from assay.net.limits import Clock, EndpointLimiter, LoopClock, limiter_for, reset_limiters
from assay.net.request import RequestFailed, decode_json, excerpt, send_request
from assay.net.retry import RetryPolicy, backoff_delay, is_retryable_status, parse_retry_after
from assay.net.session import (
    Unreachable,
    check_reachable,
    endpoint_key,
    host_port,
    open_client_session,
)
from assay.net.sse import StreamedReply, collect_stream, is_event_stream, sse_data

__all__ = [
    "DEFAULT_MAX_REPLY_MB",
    "Clock",
    "EndpointLimiter",
    "LoopClock",
    "ReplyBody",
    "ReplyTooLarge",
    "RequestFailed",
    "RetryPolicy",
    "StreamedReply",
    "Unreachable",
    "backoff_delay",
    "check_reachable",
    "collect_stream",
    "decode_json",
    "endpoint_key",
    "excerpt",
    "format_mb",
    "host_port",
    "is_event_stream",
    "is_retryable_status",
    "limiter_for",
    "open_client_session",
    "parse_retry_after",
    "reply_limit_bytes",
    "reset_limiters",
    "send_request",
    "sse_data",
]
