"""One HTTP call with per-endpoint limits, a timeout and retries.

    reply = await send_request(
        client, "POST", url, read=read_json, policy=RetryPolicy(), limiter=limiter,
        timeout_s=30, max_reply_bytes=10_000_000, data=body,
        headers={"Content-Type": "application/json"},
    )

``read`` gets a ``ReplyBody``, which reads at most ``max_reply_bytes`` after decompression
(over a whole stream); a longer reply fails the request (``reply larger than 10 MB``), as
does one that is not JSON, not UTF-8 or nested too deeply for ``decode_json``.
Connection failures before a reply's status and 429/500/502/503/504 are retried
(``Retry-After`` honoured); other error statuses, timeouts and a connection lost once a
reply has begun are not (the server may have done the work: sending it again repeats it). Whatever
stops it raises ``RequestFailed``, whose message names the status, the URL and a short
excerpt of the body, never the request headers, and is passed through ``REDACTOR``.
What ``read`` raises (a malformed reply, say) passes through unchanged. Redirects are
followed by ``assay.net.redirects``, which keeps credentials to the request's origin.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal, TypeVar

import aiohttp
import pydantic_core
from yarl import URL

from assay._words import clipped
from assay.net.body import ReplyBody, ReplyTooLarge, reply_limit_bytes
from assay.net.deadlines import turn_deadline
from assay.net.limits import EndpointLimiter
from assay.net.redirects import REDIRECT_STATUSES, RedirectFailed, follow_redirects
from assay.net.retry import RetryPolicy, backoff_delay, is_retryable_status
from assay.secrets import REDACTOR

T = TypeVar("T")
Reader = Callable[[ReplyBody, float], Awaitable[T]]  # (body, t_sent)
# "cut": the connection was lost once a reply had begun (its status came)
FailureKind = Literal["status", "connect", "cut", "timeout", "request", "reply"]

EXCERPT_CHARS = 200
_EXCERPT_BYTES = 16_384


class RequestFailed(Exception):
    """A request that failed for good. ``status`` is the HTTP status for ``kind="status"``."""

    def __init__(
        self,
        message: str,
        kind: FailureKind,
        status: int | None = None,
        retry_after: str | None = None,
        attempts: int = 1,
    ) -> None:
        self.message = REDACTOR(message)
        self.kind = kind
        self.status = status
        self.retry_after = retry_after
        self.attempts = attempts
        super().__init__(self.message)

    def __str__(self) -> str:
        tries = f" (gave up after {self.attempts} tries)" if self.attempts > 1 else ""
        return self.message + tries


def excerpt(raw: bytes | str, limit: int = EXCERPT_CHARS) -> str:
    """A short one-line excerpt of a body, for error messages."""
    raw = raw[: limit * 8]  # enough for the excerpt: a 10 MB body is not decoded whole
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    text = " ".join(text.split())
    if not text:
        return "(empty body)"
    return clipped(text, limit)


_decode_text = json.JSONDecoder().decode  # what json.loads uses for text, without options
_NOT_UTF8_FIRST = frozenset(b"\x00\xef\xfe\xff")  # a NUL or the start of a byte-order mark


def loads(raw: bytes) -> Any:
    """``json.loads(raw)``, the same value or exception, with less work for the usual body:
    when ``json.detect_encoding`` would say UTF-8 (its first byte neither NUL nor a byte-order
    mark's, its second not NUL), the body is parsed by pydantic-core's JSON parser (in Rust,
    about half the instructions of ``json``'s scanner and its whitespace regexes). That parser
    accepts a subset of what ``json.loads`` accepts, and makes the same values of it;
    whatever it refuses (a lone surrogate, nesting or an integer past its limits, bad JSON)
    is parsed again by ``json`` as before, which returns or raises what it always did. Its
    integers may have up to 4,300 digits whatever ``sys.set_int_max_str_digits`` says: under
    a lower limit only a body too short to hold a longer integer is given to it."""
    if _FROM_JSON_CHECKED and raw and raw[0] not in _NOT_UTF8_FIRST and (len(raw) < 2 or raw[1]):
        limit = sys.get_int_max_str_digits()
        if 0 < limit < _FROM_JSON_DIGITS and len(raw) > limit:
            return _decode_text(raw.decode("utf-8", "surrogatepass"))
        try:
            return _from_json(raw)
        except ValueError:
            return _decode_text(raw.decode("utf-8", "surrogatepass"))
    return json.loads(raw)


_from_json = pydantic_core.from_json
_FROM_JSON_DIGITS = 4_300  # the most digits pydantic-core reads in an integer (Python's default)
_FROM_JSON_SINCE = (2, 50)  # the pydantic-core whose parser was compared with json's


def from_json_checked(version: str) -> bool:
    """Whether a pydantic-core of this version has the parser compared with ``json.loads``
    (tests/targets/test_reply_path.py and a fuzz of 200,000 documents, on 2.50); with an
    older one (pyproject admits pydantic 2.7 and its pydantic-core), ``loads`` is
    ``json.loads``: the same values, by another parser."""
    parts = version.split(".")
    try:
        return (int(parts[0]), int(parts[1])) >= _FROM_JSON_SINCE
    except (IndexError, ValueError):
        return False


_FROM_JSON_CHECKED = from_json_checked(pydantic_core.__version__)


def decode_json(raw: bytes, url: str) -> Any:
    """A reply body as JSON, or ``RequestFailed`` naming what is wrong with it."""
    try:
        return loads(raw)
    except UnicodeDecodeError:
        problem = "it is not UTF-8 text"
    except ValueError as exc:
        problem = str(exc)
        if "int_max_str_digits" in problem:  # Python's guard against quadratic int parsing
            problem = f"a number in it has over {sys.get_int_max_str_digits()} digits"
    except RecursionError:
        problem = "it is nested too deeply"
    raise RequestFailed(
        f"the reply from {url} is not valid JSON ({problem}): {excerpt(raw)}", "reply"
    )


def _describe(exc: aiohttp.ClientError) -> str:
    cause = getattr(exc, "os_error", None) or exc.__cause__
    if isinstance(cause, ConnectionRefusedError) or "refused" in str(exc).lower():
        return "connection refused"
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return "the server closed the connection"
    if isinstance(cause, OSError) and cause.strerror:
        return cause.strerror
    return str(exc) or type(exc).__name__


# The whole exchange's timeout is a deadline on the loop's shared heap (``turn_deadline``):
# aiohttp's own (``ClientTimeout(total=...)``) arms and cancels a timer of the loop's and
# enters a timer context twice on every request, a tenth of a request's CPU.
_NO_CLIENT_TIMEOUT = aiohttp.ClientTimeout(total=None, connect=None, sock_read=None)


_NO_DEADLINE = contextlib.nullcontext()  # a stream's waits have their own (idle) timeouts


@functools.lru_cache(maxsize=64)
def _idle_timeout(timeout_s: float) -> aiohttp.ClientTimeout:
    """A stream's timeout (each wait for data): made once (it is immutable), not per call."""
    return aiohttp.ClientTimeout(total=None, sock_connect=timeout_s, sock_read=timeout_s)


async def send_request(
    client: aiohttp.ClientSession,
    method: str,
    url: str,
    *,
    read: Reader[T],
    policy: RetryPolicy,
    limiter: EndpointLimiter | None = None,
    timeout_s: float = 30.0,
    max_reply_bytes: int | None = None,
    idle_timeout: bool = False,
    headers: Mapping[str, str] | None = None,
    data: bytes | None = None,
    params: Mapping[str, str] | None = None,
    request_url: URL | None = None,
) -> T:
    """Send until ``read`` returns for a 2xx/3xx reply, or raise ``RequestFailed``.

    ``timeout_s`` bounds the whole exchange, or with ``idle_timeout`` (streams) each wait
    for data. ``read`` gets the body (``ReplyBody``: at most ``max_reply_bytes``, 10 MB by
    default) and the ``time.perf_counter()`` at which the request went out, for
    time-to-first-token. ``request_url``: ``url`` parsed once by the caller (the request
    goes there; messages name ``url``).
    """
    limit = reply_limit_bytes(None) if max_reply_bytes is None else max_reply_bytes
    timeout = _idle_timeout(timeout_s) if idle_timeout else _NO_CLIENT_TIMEOUT
    target: str | URL = url if request_url is None else request_url
    failure: RequestFailed | None = None
    response: aiohttp.ClientResponse | None = None
    for attempt in range(policy.attempts):
        response = None  # the reply, once its status has come (not a redirect's)
        try:
            # the slots a slot was taken from: released to them, not looked up again
            slots = None if limiter is None else limiter.enter_nowait() or await limiter.acquire()
            try:
                with _NO_DEADLINE if idle_timeout else turn_deadline(timeout_s):
                    sent = time.perf_counter()
                    async with client.request(
                        method,
                        target,
                        timeout=timeout,
                        headers=headers,
                        data=data,
                        params=params,
                        allow_redirects=False,  # followed below, credentials kept to the origin
                    ) as first:
                        response = (
                            first
                            if first.status not in REDIRECT_STATUSES  # all a reply that is not pays
                            else await follow_redirects(
                                client,
                                first,
                                url,
                                method,
                                headers=headers,
                                data=data,
                                timeout=timeout,
                            )
                        )
                        try:
                            body = ReplyBody(response, limit)
                            if response.status < 400:
                                return await read(body, sent)
                            shown = excerpt(await body.prefix(_EXCERPT_BYTES))
                            failure = RequestFailed(
                                f"HTTP {response.status} from {url}: {shown}",
                                "status",
                                response.status,
                                response.headers.get("Retry-After"),
                            )
                            if not is_retryable_status(response.status):
                                raise failure
                        finally:
                            if response is not first:  # the end of redirects: released here
                                response.release()
                                await response.wait_for_close()
            finally:
                if slots is not None:
                    slots.release()
        except TimeoutError:
            raise RequestFailed(f"no reply from {url} within {timeout_s:g} s", "timeout") from None
        except ReplyTooLarge as exc:
            raise RequestFailed(
                f"{exc} from {url} (max_reply_mb sets the limit)", "reply"
            ) from None
        except RedirectFailed as exc:
            raise RequestFailed(f"request to {url} failed: {exc}", "request") from None
        except aiohttp.ClientConnectorError as exc:  # never connected
            failure = RequestFailed(f"cannot reach {url}: {_describe(exc)}", "connect")
        except (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError) as exc:
            if response is not None:  # the agent has the request: sending it again repeats it
                raise RequestFailed(
                    f"lost the connection to {url} after it began to reply "
                    f"(HTTP {response.status}): {_describe(exc)}",
                    "cut",
                ) from None
            failure = RequestFailed(f"lost the connection to {url}: {_describe(exc)}", "connect")
        except aiohttp.ClientError as exc:  # an invalid URL, ...
            raise RequestFailed(f"request to {url} failed: {_describe(exc)}", "request") from None
        if attempt + 1 < policy.attempts:
            await asyncio.sleep(backoff_delay(policy, attempt, failure.retry_after))
    assert failure is not None
    failure.attempts = policy.attempts
    raise failure
