"""Who may use the dashboard, and what a browser may do with it.

- With a token (required off 127.0.0.1), every page and API call needs it: API clients send
  ``Authorization: Bearer TOKEN``; a browser signs in once on ``/login`` and gets an
  HttpOnly, SameSite=Strict cookie holding an HMAC of the token (not the token itself).
- Without one (on 127.0.0.1 only), a request must name a loopback host (a DNS-rebinding
  page cannot reach the dashboard) and a form post must come from the dashboard's own
  pages (Origin checked), so another site open in the browser cannot start runs.
- Every response forbids scripts, styles and images from anywhere but the dashboard
  itself, and framing: a reply that slipped past escaping still could not run.
"""

from __future__ import annotations

import hashlib
import hmac
from http.cookies import SimpleCookie
from urllib.parse import urlsplit

from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from assay.web.settings import is_loopback

COOKIE = "assay_session"
OPEN_PATHS = ("/static/", "/login")  # served without a token (the sign-in page needs them)
SECURITY_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        b"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),  # no-referrer would make form posts Origin: null
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
]
_UNSAFE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


def session_value(token: str) -> str:
    """What the sign-in cookie holds: proof of the token, not the token."""
    return hmac.new(token.encode(), b"assay-dashboard-session", hashlib.sha256).hexdigest()


def token_matches(token: str, given: str) -> bool:
    return hmac.compare_digest(token.encode(), given.encode())


def safe_next(target: str | None) -> str:
    """Where to go after signing in: a path of this dashboard, never another site."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target


class Guard:
    """ASGI middleware enforcing the rules above."""

    def __init__(self, app: ASGIApp, token: str | None, host: str) -> None:
        self.app = app
        self.token = token
        self.session = session_value(token) if token else None
        self.loopback_only = token is None and is_loopback(host)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + SECURITY_HEADERS
            await send(message)

        refused = self._refusal(scope)
        if refused is not None:
            await refused(scope, receive, secured)
            return
        await self.app(scope, receive, secured)

    def _refusal(self, scope: Scope) -> Response | None:
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        if self.loopback_only and not is_loopback(urlsplit(f"//{host}").hostname or ""):
            return PlainTextResponse(
                "this dashboard answers only at 127.0.0.1 or localhost", status_code=421
            )
        if scope["method"] in _UNSAFE_METHODS and not _same_origin(headers, host):
            return PlainTextResponse(
                "refused: the form was sent from another site", status_code=403
            )
        path: str = scope["path"]
        if self.token is None or path.startswith(OPEN_PATHS) or self._signed_in(headers):
            return None
        if path.startswith("/api/"):
            return JSONResponse(
                {"detail": "a token is required: send Authorization: Bearer TOKEN"},
                status_code=401,
                headers={"www-authenticate": "Bearer"},
            )
        query = scope.get("query_string", b"").decode("latin-1")
        back = path + (f"?{query}" if query else "")
        return RedirectResponse(f"/login?{_encode_next(back)}", status_code=303)

    def _signed_in(self, headers: dict[str, str]) -> bool:
        assert self.token is not None and self.session is not None
        scheme, _, given = headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and given and token_matches(self.token, given.strip()):
            return True
        cookie = SimpleCookie()
        try:
            cookie.load(headers.get("cookie", ""))
        except Exception:  # a malformed cookie header is simply no sign-in
            return False
        morsel = cookie.get(COOKIE)
        return morsel is not None and hmac.compare_digest(morsel.value, self.session)


def _encode_next(path: str) -> str:
    from urllib.parse import urlencode

    return urlencode({"next": path})


def _same_origin(headers: dict[str, str], host: str) -> bool:
    """A browser's form post names the page it came from (Origin, else Referer); API clients
    send neither, and are let through to the token check."""
    source = headers.get("origin") or headers.get("referer")
    if not source:
        return True
    if source == "null":
        return False
    return urlsplit(source).netloc == host
