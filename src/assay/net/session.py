"""The HTTP client session: one ``aiohttp.ClientSession`` per target or model, opened when
it starts and closed when it stops, and a TCP check that an endpoint is there at all.

aiohttp is the client on every hot path (about 0.13 ms of CPU per request here, against
about 6 ms for httpx). The connector has no pool limit, so hundreds of requests can be in
flight; per-endpoint limits are ``assay.net.limits``' job.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Mapping
from urllib.parse import urlsplit

import aiohttp

from assay.secrets import REDACTOR

DNS_CACHE_TTL_S = 300
CONNECT_CHECK_TIMEOUT_S = 5.0
_DEFAULT_PORTS = {"http": 80, "https": 443}


class Unreachable(Exception):
    """Nothing accepts TCP connections at an endpoint. ``str()`` is a message for users."""


def open_client_session(headers: Mapping[str, str] | None = None) -> aiohttp.ClientSession:
    """A client session for one caller; call it with the event loop running (in ``start``)
    and ``await session.close()`` when done."""
    connector = aiohttp.TCPConnector(limit=0, ttl_dns_cache=DNS_CACHE_TTL_S)
    return aiohttp.ClientSession(connector=connector, headers=dict(headers or {}))


def host_port(url: str) -> tuple[str, int]:
    """The host and port a URL connects to (the scheme's default port when none is given)."""
    parts = urlsplit(url)
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        raise ValueError(f"expected an http:// or https:// URL with a host, got {url!r}")
    return parts.hostname, parts.port or _DEFAULT_PORTS[parts.scheme]


def endpoint_key(url: str) -> str:
    """``scheme://host:port`` of a URL, the key of its limits (``assay.net.limiter_for``)."""
    try:
        host, port = host_port(url)
    except ValueError:
        return url
    host = f"[{host}]" if ":" in host else host.lower()
    return f"{urlsplit(url).scheme}://{host}:{port}"


async def check_reachable(url: str, timeout_s: float = CONNECT_CHECK_TIMEOUT_S) -> None:
    """Open and close one TCP connection to the URL's host and port; raise ``Unreachable``
    (``cannot reach URL: connection refused``) when that fails."""
    try:
        host, port = host_port(url)
    except ValueError as exc:
        raise Unreachable(REDACTOR(f"cannot reach {url}: {exc}")) from None
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout_s)
    except TimeoutError:
        reason = f"no answer within {timeout_s:g} s"
    except ConnectionRefusedError:
        reason = "connection refused"
    except socket.gaierror:
        reason = f"cannot resolve host {host!r}"
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
    else:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
        return
    raise Unreachable(REDACTOR(f"cannot reach {url}: {reason}"))
