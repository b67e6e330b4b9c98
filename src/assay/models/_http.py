"""One JSON POST to a model API: each try one ``assay.net.send_request`` (per-endpoint
limits, a timeout, a bounded reply), retried here in one loop with backoff on 429/5xx and
connection errors (``Retry-After`` honoured).

A model call is idempotent, so unlike a target's turn a timed-out call is retried too (at
temperature 0 only once: the identical request tends to run away again), as is one whose
reply was cut short. Every failure (a reply over ``max_reply_mb``, one that is not a JSON
object, ...) becomes a ``JudgeError`` whose text names no header and is redacted.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import aiohttp

from assay.errors import JudgeError
from assay.net import (
    Clock,
    EndpointLimiter,
    ReplyBody,
    RequestFailed,
    RetryPolicy,
    backoff_delay,
    decode_json,
    is_retryable_status,
    send_request,
)
from assay.net.limits import LOOP_CLOCK
from assay.net.reply_fields import json_kind
from assay.secrets import REDACTOR

log = logging.getLogger("assay.models")


class ModelCallFailed(JudgeError):
    """A model call that failed for good; ``status`` and ``detail`` (the error text, with
    the body's excerpt) let the caller tell a rejected request format from other failures."""

    def __init__(self, message: str, status: int | None, detail: str) -> None:
        super().__init__(message)
        self.status = status
        self.detail = detail


_V1_HINT = " (base_url usually ends in /v1, e.g. http://127.0.0.1:8080/v1)"


def _hint(exc: RequestFailed, url: str) -> str:
    if exc.status in (401, 403):
        return " (check the API key and api_key_env)"
    if exc.status == 404 and "/v1/" not in url:
        return _V1_HINT
    return ""


def _retryable(exc: RequestFailed) -> bool:
    if exc.kind == "status":
        return exc.status is not None and is_retryable_status(exc.status)
    return exc.kind in ("connect", "cut", "timeout")  # a model call is idempotent


_ONE_TRY = RetryPolicy(0)  # send_request tries once: post_json retries, weighing each failure


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
    timeout_retries: int | None = None,
    final: Callable[[RequestFailed], bool] | None = None,
    clock: Clock = LOOP_CLOCK,
) -> dict[str, Any]:
    """POST ``body`` to ``url``; ``who`` names the model in messages (``openai:gpt-4o``).

    Retries 429/5xx and connection failures by ``policy``; a timeout at most
    ``timeout_retries`` times (the policy's count when None): the same request at
    temperature 0 is likely to run away again. ``final(exc)`` True stops retrying a
    failure at once (a server rejecting the structured-output format, say). The waits
    between tries are ``clock.sleep``s."""
    payload = json.dumps(body, ensure_ascii=False).encode()
    timeouts_left = policy.retries if timeout_retries is None else timeout_retries
    tries = 0
    while True:
        try:
            data: dict[str, Any] = await send_request(
                session,
                "POST",
                url,
                read=_read_json,
                policy=_ONE_TRY,
                limiter=limiter,
                timeout_s=timeout_s,
                max_reply_bytes=max_reply_bytes,
                headers=headers,
                data=payload,
            )
            return data
        except RequestFailed as exc:
            failure = exc
        tries += 1
        timeout = failure.kind == "timeout"
        if (
            tries == policy.attempts
            or not _retryable(failure)
            or (timeout and timeouts_left <= 0)
            or (final is not None and final(failure))
        ):
            gave_up = f" (gave up after {tries} tries)" if tries > 1 else ""
            message = REDACTOR(f"{who}: {failure.message}{gave_up}{_hint(failure, url)}")
            raise ModelCallFailed(message, failure.status, failure.message) from None
        if timeout:
            timeouts_left -= 1
        delay = backoff_delay(policy, tries - 1, failure.retry_after)
        why = " (a timeout: timeout_s)" if timeout else ""
        log.warning("%s: %s%s; retrying in %.2f s", who, REDACTOR(failure.message), why, delay)
        await clock.sleep(delay)


async def _read_json(body: ReplyBody, sent: float) -> dict[str, Any]:
    data = decode_json(await body.read(), str(body.url))
    if not isinstance(data, dict):
        kind = json_kind(data)
        raise RequestFailed(f"the reply from {body.url} is {kind}, not a JSON object", "reply")
    return data
