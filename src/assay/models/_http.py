"""One JSON POST to a model API, through ``assay.net.send_request`` (per-endpoint limits,
retries with backoff on 429/5xx and connection errors, ``Retry-After`` honoured).

A model call is idempotent, so unlike a target's turn a timed-out call is retried too.
Every failure (a reply over ``max_reply_mb``, one that is not a JSON object, ...) becomes a
``JudgeError`` whose text names no header and is redacted.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import aiohttp

from assay.errors import JudgeError
from assay.net import (
    EndpointLimiter,
    ReplyBody,
    RequestFailed,
    RetryPolicy,
    backoff_delay,
    decode_json,
    send_request,
)
from assay.secrets import REDACTOR

log = logging.getLogger("assay.models")


async def post_json(
    session: aiohttp.ClientSession,
    url: str,
    headers: dict[str, str],
    body: dict[str, Any],
    *,
    who: str,
    timeout_s: float,
    max_reply_bytes: int,
    policy: RetryPolicy,
    limiter: EndpointLimiter | None,
) -> dict[str, Any]:
    """POST ``body`` to ``url``; ``who`` names the model in messages (``openai:gpt-4o``)."""
    payload = json.dumps(body, ensure_ascii=False).encode()
    for attempt in range(policy.attempts):
        # later tries get only what is left of the policy, so tries stay bounded
        remaining = RetryPolicy(policy.retries - attempt, policy.base_delay_s, policy.max_delay_s)
        try:
            data = await send_request(
                session,
                "POST",
                url,
                read=_read_json,
                policy=remaining,
                limiter=limiter,
                timeout_s=timeout_s,
                max_reply_bytes=max_reply_bytes,
                headers=headers,
                data=payload,
            )
            return data
        except RequestFailed as exc:
            if exc.kind != "timeout" or attempt + 1 >= policy.attempts:
                hint = " (check the API key and api_key_env)" if exc.status in (401, 403) else ""
                raise JudgeError(REDACTOR(f"{who}: {exc}{hint}")) from None
            delay = backoff_delay(policy, attempt)
            log.warning("%s: %s (timeout_s); retrying in %.2f s", who, REDACTOR(exc.message), delay)
            await asyncio.sleep(delay)
    raise AssertionError("unreachable")  # pragma: no cover


async def _read_json(body: ReplyBody, sent: float) -> dict[str, Any]:
    data = decode_json(await body.read(), str(body.url))
    if not isinstance(data, dict):
        kind = {list: "an array", str: "a string", bool: "a boolean"}.get(type(data), "a number")
        kind = "null" if data is None else kind
        raise RequestFailed(f"the reply from {body.url} is {kind}, not a JSON object", "reply")
    return data
