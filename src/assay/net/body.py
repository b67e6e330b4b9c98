"""A reply's body, read within a size limit.

Every reader of a response goes through ``ReplyBody``: ``await body.read()`` for the whole
body, ``body.chunks()`` for a stream. Both count bytes after decompression (aiohttp
decompresses a gzip or deflate body a bounded piece at a time) and over the whole body or
stream, and raise ``ReplyTooLarge`` as soon as the count passes the limit, so a hostile or
broken server (a 2 GB body, a gzip bomb, an event stream that never ends) costs at most
the limit in memory.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable

import aiohttp
from multidict import CIMultiDictProxy
from yarl import URL

from assay.limits import DEFAULT_MAX_REPLY_MB

MB = 1_000_000
_CHUNK_BYTES = 65_536


def format_mb(limit_bytes: int) -> str:
    """``10 MB``, ``0.5 MB``: a limit as users set it (``max_reply_mb``)."""
    return f"{limit_bytes / MB:g} MB"


def reply_limit_bytes(max_reply_mb: float | None) -> int:
    """``max_reply_mb`` from a config (None: the default) in bytes."""
    return int((DEFAULT_MAX_REPLY_MB if max_reply_mb is None else max_reply_mb) * MB)


class ReplyTooLarge(Exception):
    """A reply (or a stream, over all its events) passed the size limit."""

    def __init__(self, limit_bytes: int) -> None:
        self.limit_bytes = limit_bytes
        super().__init__(f"reply larger than {format_mb(limit_bytes)}")


class ReplyBody:
    """A response and the most of its (decompressed) body that may be read."""

    def __init__(self, response: aiohttp.ClientResponse, max_bytes: int) -> None:
        self.response = response
        self.max_bytes = max_bytes
        self.received = 0

    @property
    def content_type(self) -> str:
        return self.response.content_type

    @property
    def headers(self) -> CIMultiDictProxy[str]:
        return self.response.headers

    @property
    def url(self) -> URL:
        return self.response.url

    async def chunks(self) -> AsyncIterator[bytes]:
        """The body piece by piece, as it arrives; ``ReplyTooLarge`` past the limit."""
        async for chunk in self.response.content.iter_chunked(_CHUNK_BYTES):
            self.received += len(chunk)
            if self.received > self.max_bytes:
                self.response.close()  # stop the download: the rest is never read
                raise ReplyTooLarge(self.max_bytes)
            yield chunk

    def read(self) -> Awaitable[bytes]:
        """The whole body (awaited at once); ``ReplyTooLarge`` past the limit."""
        response = self.response
        declared = response.content_length
        # (``_encoded``, written out: the declared length is the body's when not compressed)
        if (
            declared is not None
            and response.headers.get("Content-Encoding", "identity").lower() == "identity"
        ):
            if declared > self.max_bytes:
                self.response.close()
                raise ReplyTooLarge(self.max_bytes)
            # a declared, unencoded length is the body's: aiohttp reads no more than that,
            # in one call (the piece-by-piece count is for bodies whose size is not known),
            # and its coroutine is the caller's to await: no coroutine of this method's
            # between (a body cut short fails aiohttp's read)
            self.received += declared
            return self.response.read()
        return self._read_chunks()

    async def _read_chunks(self) -> bytes:
        parts = [chunk async for chunk in self.chunks()]
        return b"".join(parts)

    async def prefix(self, size: int) -> bytes:
        """At most ``size`` bytes from the start of the body (for an error's excerpt)."""
        parts: list[bytes] = []
        got = 0
        async for chunk in self.response.content.iter_chunked(min(size, _CHUNK_BYTES)):
            parts.append(chunk)
            got += len(chunk)
            if got >= size:
                break
        return b"".join(parts)[:size]
