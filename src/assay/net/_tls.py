"""aiohttp without its CA certificates until a connection needs TLS.

``aiohttp.connector`` builds its two default TLS contexts when it is imported, and each
loads the system's CA certificates (``set_default_verify_paths``: about 0.1 s of CPU for
the two), which a run against an http:// agent never uses. Imported before aiohttp (by
``assay.net``), this module lets aiohttp build those contexts without the certificates and
loads them into the same two contexts the first time a connection asks for TLS: the contexts
then are what aiohttp would have built. Should aiohttp's internals differ from what this
expects, the certificates are loaded at once, as aiohttp does.
"""

from __future__ import annotations

import ssl
import sys
import threading
from typing import Any

_lock = threading.Lock()
_unloaded: list[ssl.SSLContext] = []  # the contexts aiohttp built without their certificates
_load_default_verify_paths = ssl.SSLContext.set_default_verify_paths


def load_certificates() -> None:
    """Load the CA certificates into aiohttp's default contexts, once."""
    with _lock:
        while _unloaded:
            _load_default_verify_paths(_unloaded.pop())


def _import_aiohttp_without_certificates() -> None:
    if "aiohttp.connector" in sys.modules:
        return  # imported already (certificates and all): nothing to defer
    importing = threading.get_ident()

    def defer(context: ssl.SSLContext) -> None:
        if threading.get_ident() == importing:
            _unloaded.append(context)
        else:  # another thread's context, made meanwhile: as usual
            _load_default_verify_paths(context)

    ssl.SSLContext.set_default_verify_paths = defer  # type: ignore[method-assign,assignment]
    try:
        import aiohttp.connector
    finally:
        ssl.SSLContext.set_default_verify_paths = _load_default_verify_paths  # type: ignore[method-assign]
    connector: Any = aiohttp.connector.TCPConnector
    contexts = {
        id(getattr(aiohttp.connector, name, None))
        for name in ("_SSL_CONTEXT_VERIFIED", "_SSL_CONTEXT_UNVERIFIED")
    }
    choose = getattr(connector, "_get_ssl_context", None)
    if choose is None or contexts != {id(c) for c in _unloaded}:
        load_certificates()  # not the aiohttp this was written for: no deferring
        return

    def get_ssl_context(self: Any, req: Any, *args: Any, **kwargs: Any) -> Any:
        if _unloaded and req.is_ssl():
            load_certificates()
        return choose(self, req, *args, **kwargs)

    connector._get_ssl_context = get_ssl_context


_import_aiohttp_without_certificates()
