"""Redirects, followed by assay rather than by aiohttp, so that no credential leaves the origin
(scheme, host and port) a request was sent to.

aiohttp, following a redirect to another origin, drops ``Authorization`` and ``Cookie`` only:
an Anthropic ``x-api-key``, an Azure ``api-key`` or a suite's own credential header went
along. Here every hop once the chain has left the first origin is sent without any header
assay holds secret: one whose name says it carries a credential (``is_secret_name``) or whose
value holds a known secret (``REDACTOR`` masks something in it), the client session's own
headers included; nor is a URL's user and password sent there. A hop within the origin (a
path that moved, ``/chat`` to ``/chat/``) keeps them all, as before. So does the one upgrade
requests and curl treat as safe: ``http://host`` (port 80) to ``https://host`` (port 443),
the same host over TLS, which then is the origin: a later hop back to http leaves it, and
an https request redirected to http never keeps them.

As aiohttp does: 303 (and 301 or 302 after a POST) turn the request into a GET without a
body, 307 and 308 keep both; a redirect without ``Location`` is the reply; the tenth
redirect in a row fails the request (``too many redirects``).
"""

from __future__ import annotations

from collections.abc import Mapping

import aiohttp
from yarl import URL

from assay.secrets import REDACTOR, is_secret_name

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
MAX_REDIRECTS = 10  # aiohttp's limit, which assay's requests had while aiohttp followed them
_HTTP_SCHEMES = frozenset({"http", "https"})


class RedirectFailed(Exception):
    """A redirect that cannot be followed; ``str()`` says why, for ``RequestFailed``."""


def is_credential(name: str, value: str) -> bool:
    """Whether a header carries a credential: by its name, or a known secret in its value."""
    return is_secret_name(name) or REDACTOR(value) != value


async def _without_credentials(
    request: aiohttp.ClientRequest, handler: aiohttp.ClientHandlerType
) -> aiohttp.ClientResponse:
    """A request's credential headers removed as it leaves: aiohttp has merged the session's
    own headers into it by then, which a request's headers cannot take away."""
    for name in {n for n, v in request.headers.items() if is_credential(n, v)}:
        del request.headers[name]
    return await handler(request)


_LEAVING_THE_ORIGIN = (_without_credentials,)


Origin = tuple[str, str | None, int | None]


def _origin(url: URL) -> Origin:
    return url.scheme, url.host, url.port  # (the scheme's port when none is written)


def is_upgrade(origin: Origin, to: Origin) -> bool:
    """Whether ``to`` is ``origin`` moved to TLS: http on port 80 to https on port 443, the
    same host (what requests' ``should_strip_auth`` keeps credentials for)."""
    return origin[0] == "http" and origin[2] == 80 and to == ("https", origin[1], 443)


class Chain:
    """Where a chain of redirects is: still at the origin the request was sent to (moved to
    TLS, perhaps), or gone from it, for good."""

    def __init__(self, first: URL) -> None:
        self.origin = _origin(first)
        self.left = False

    def step(self, to: URL) -> bool:
        """Follow a redirect to ``to``; whether the chain has left the origin."""
        there = _origin(to)
        if not self.left and there != self.origin:
            if is_upgrade(self.origin, there):
                self.origin = there  # the same host over TLS: from now on, the origin
            else:
                self.left = True
        return self.left


def _next_url(current: URL, location: str) -> URL:
    """Where a ``Location`` points, from ``current``; ``RedirectFailed`` if not http(s)."""
    try:
        found = URL(location)
        if not found.scheme or (found.scheme == current.scheme and not found.raw_host):
            found = current.join(found)  # relative ("/v2/chat", "//host/x", "http:x")
    except (ValueError, TypeError):
        found = None
    if found is None or found.scheme not in _HTTP_SCHEMES or not found.raw_host:
        raise RedirectFailed(f"it redirected to {location!r}, not an http(s) URL")
    return found


async def follow_redirects(
    client: aiohttp.ClientSession,
    response: aiohttp.ClientResponse,
    url: str,
    method: str,
    *,
    headers: Mapping[str, str] | None,
    data: bytes | None,
    timeout: aiohttp.ClientTimeout,
) -> aiohttp.ClientResponse:
    """The reply at the end of the redirects that ``response`` (a redirect, its status in
    ``REDIRECT_STATUSES``) starts; each redirect on the way is released. ``url``: the
    request's as configured (its user and password, if any, are Basic auth within the
    origin); ``RedirectFailed`` for a redirect that cannot be followed."""
    chain = Chain(response.url)
    # a user and password in the URL: the Basic auth aiohttp made of them, within the origin
    auth = aiohttp.BasicAuth.from_url(URL(url)) if "@" in url else None
    within = headers if auth is None else {**(headers or {}), "Authorization": auth.encode()}
    redirects = 1
    while True:
        location = response.headers.get("Location") or response.headers.get("URI")
        if location is None:  # nowhere to go: the redirect is the reply
            return response
        response.release()
        next_url = _next_url(response.url, location)
        if redirects == MAX_REDIRECTS:
            raise RedirectFailed(f"too many redirects, the last to {next_url}")
        if (response.status == 303 and method != "HEAD") or (
            response.status in (301, 302) and method == "POST"
        ):
            method, data = "GET", None
        left = chain.step(next_url)  # left the origin: credentials stay behind from then on
        response = await client.request(
            method,
            next_url,
            timeout=timeout,
            headers=headers if left or next_url.user else within,
            data=data,
            allow_redirects=False,
            middlewares=_LEAVING_THE_ORIGIN if left else None,
        )
        if response.status not in REDIRECT_STATUSES:
            return response
        redirects += 1
