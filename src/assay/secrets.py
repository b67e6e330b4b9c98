"""Keep secrets out of reports, the store, logs, the judge cache and error messages.

One rule decides what is secret:

- a value substituted from the environment (``${VAR}``) anywhere in a suite;
- an API key read for a target or a model;
- the value of a header, body field or var whose name says it holds a credential
  (``is_secret_name``: ``Authorization``, ``X-Auth``, ``api_key``, ``access_token``,
  ``password``, ... but not ``token_usage`` or ``api_key_env``, which name other things);
- the password (or a lone user name, often a token) of a URL: ``http://user:password@host``;
- the value of a URL's query parameter whose whole name is one a credential goes by
  (``is_secret_param``: ``?api_key=``, ``?password=``, ``?access_token=``, ``?sig=``, ...;
  not ``?page_token=`` or ``?sort_key=``).

Known secrets are registered with ``REDACTOR``, which masks each one in any text in every
form it takes once encoded (as is, JSON-escaped, URL-encoded, HTML-escaped), and masks the
user info and credential query values of any URL. ``redact_value`` masks the strings of a
JSON tree before it is serialised; ``redact_config`` masks a config snapshot by the same
rule.
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import parse_qsl, quote, quote_plus, unquote, unquote_plus, urlsplit

from assay._env_vars import REFERENCE
from assay.errors import ConfigError, Problem

MASK = "***"
MIN_SECRET_LENGTH = 4  # shorter values would mask ordinary words

# A name is a credential's when one of its words is one of these ...
_CREDENTIAL_WORDS = frozenset(
    {
        "auth",
        "authorization",
        "apikey",
        "key",
        "token",
        "secret",
        "password",
        "passwd",
        "pwd",
        "passphrase",
        "cookie",
        "credential",
        "credentials",
        "signature",
    }
)
# ... unless its last word says it names something else: a count, a variable, a place.
_NOT_THE_VALUE = frozenset(
    {"usage", "env", "var", "count", "counts", "limit", "type", "name", "url", "path", "id"}
)
_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_PLACEHOLDER = re.compile(rf"^[^$]*({REFERENCE}[^$]*)+$")
# Both patterns run on agents' replies, so each is linear in the text: a scheme has at most
# 32 characters (unbounded, "a.a.a.a..." retried it from every letter: quadratic), a URL
# at most 2,048 before its query and no other URL's "://" (else "x://x://x://..." scanned
# on from each); the query is taken whole and its trailing punctuation given back in
# ``_mask_query`` (a lazy query and a lookahead retried every length).
# scheme://userinfo@ ; the user info ends at the first "@" before the host
_URL_USERINFO = re.compile(
    r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]{0,31}://)(?P<info>[^/?#@\s\"'<>]+)@"
)
# scheme://...?query ; the query ends at the fragment or where the URL does in the text
_URL_QUERY = re.compile(
    r"(?P<head>\b[A-Za-z][A-Za-z0-9+.-]{0,31}://(?:[^?#\s\"'<>:]|:(?!//)){0,2048}\?)"
    r"(?P<query>[^#\s\"'<>]*)"
)
_SENTENCE_END = ".,;:!?)]"  # ends a sentence or a clause, not the URL: ``see URL?key=k: ...``
# The query parameters that carry a credential, matched whole (case aside). Not the header
# rule (a credential word anywhere in the name): ordinary URLs hold ``page_token``,
# ``sort_key``, ``partition_key`` or ``authMode``, whose values are no secret and, once
# registered from a target's URL, would be masked in every text.
_QUERY_CREDENTIALS = frozenset(
    {
        *("api_key", "apikey", "api-key", "x-api-key", "key", "code"),  # code: Azure Functions
        *("access_token", "token", "refresh_token", "id_token", "session_token"),
        *("private_token", "auth", "secret", "client_secret"),
        *("password", "passwd", "pwd", "sslpassword"),  # sslpassword: libpq's key password
        *("sig", "signature", "x-amz-signature", "x-amz-credential", "x-amz-security-token"),
    }
)
_WHOLE_REFERENCE = re.compile(rf"^{REFERENCE}$")


def is_secret_name(name: str) -> bool:
    """Whether a header, field or variable of this name holds a credential."""
    words = [w.lower() for w in _WORDS.findall(str(name))]
    if not words or words[-1] in _NOT_THE_VALUE:
        return False
    return any(w in _CREDENTIAL_WORDS for w in words)


def is_secret_param(name: str) -> bool:
    """Whether a URL query parameter of this (encoded) name holds a credential."""
    return unquote_plus(name).lower() in _QUERY_CREDENTIALS


def _mask_query(match: re.Match[str]) -> str:
    query = match["query"].rstrip(_SENTENCE_END)
    pairs = []
    for pair in query.split("&"):
        name, equals, value = pair.partition("=")
        # a ${VAR} as written (in a config snapshot) names a variable and holds no secret
        if equals and value and is_secret_param(name) and not _WHOLE_REFERENCE.match(value):
            pair = f"{name}={MASK}"
        pairs.append(pair)
    return match["head"] + "&".join(pairs) + match["query"][len(query) :]


def mask_url_query(text: str) -> str:
    """``text`` with the value of every credential query parameter of every URL in it masked
    (``https://host/chat?api_key=***&lang=en``)."""
    if "://" not in text or "?" not in text:
        return text
    return _URL_QUERY.sub(_mask_query, text)


def _mask_userinfo(match: re.Match[str]) -> str:
    user, colon, _ = match["info"].partition(":")
    return f"{match['scheme']}{user}:{MASK}@" if colon else f"{match['scheme']}{MASK}@"


def mask_url_credentials(text: str) -> str:
    """``text`` with the password of every URL in it masked (``http://user:***@host``),
    or the whole user info when there is no password (``https://***@host``), and the
    values of credential query parameters (``mask_url_query``)."""
    if "://" not in text:
        return text
    if "@" in text:
        text = _URL_USERINFO.sub(_mask_userinfo, text)
    return mask_url_query(text)


def url_secrets(url: str) -> list[str]:
    """The secrets in a URL: in its user info, the password, as written and decoded, and
    the ``user:password`` pair as a Basic ``Authorization`` header carries it (base64); the
    values of its credential query parameters, as written and decoded."""
    try:
        parts = urlsplit(url)
        user, password = parts.username, parts.password
    except ValueError:
        return []
    found = _query_secrets(parts.query)
    if password is None:
        return [user, unquote(user), *found] if user else found
    pair = f"{unquote(user or '')}:{unquote(password)}"
    return [password, unquote(password), base64.b64encode(pair.encode()).decode(), *found]


def _query_secrets(query: str) -> list[str]:
    found = []
    for pair in query.split("&"):
        name, _, value = pair.partition("=")
        if value and is_secret_param(name):
            found += [value, *(v for _, v in parse_qsl(pair))]
    return found


def encoded_forms(secret: str) -> set[str]:
    """The forms a secret takes once written somewhere: as is, inside a JSON string (both
    with and without ``ensure_ascii``), URL-encoded (``%20`` and ``+`` for a space), and
    HTML-escaped."""
    return {
        secret,
        json.dumps(secret, ensure_ascii=False)[1:-1],
        json.dumps(secret)[1:-1],
        quote(secret, safe=""),
        quote(secret),
        quote_plus(secret),
        html.escape(secret),
        html.escape(secret, quote=False),
    }


class Redactor:
    """``redactor(text)`` masks every known secret in ``text``; ``add`` registers more."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self.secrets: set[str] = set()
        self._ordered: list[str] = []
        self.add(*secrets)

    def add(self, *secrets: str) -> None:
        for secret in secrets:
            if secret and len(secret) >= MIN_SECRET_LENGTH:
                self.secrets.update(encoded_forms(secret))
        # longest first, so a secret that contains another is masked whole
        self._ordered = sorted(self.secrets, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        """``text`` with every known secret masked (the same object when none occurs)."""
        for secret in self._ordered:
            if secret in text:
                text = text.replace(secret, MASK)
        return mask_url_credentials(text)


# Process-wide: every secret assay learns is registered here, and every error message and
# stored text passes through it.
REDACTOR = Redactor()


def redact_value(value: Any, redactor: Redactor = REDACTOR) -> Any:
    """``value`` (a JSON tree) with every string in it passed through ``redactor``."""
    if isinstance(value, str):
        return redactor(value)
    if isinstance(value, dict):
        return {k: redact_value(v, redactor) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(v, redactor) for v in value]
    return value


def redact_config(value: Any) -> Any:
    """A copy of a config tree with secrets masked: values under a credential name
    (``${VAR}`` placeholders stay: they name a variable and hold no secret), known secrets
    and URL passwords anywhere."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            secret_scalar = isinstance(item, str | int | float) and not isinstance(item, bool)
            if (
                is_secret_name(str(key))
                and secret_scalar
                and not (isinstance(item, str) and _PLACEHOLDER.match(item))
            ):
                out[key] = MASK
            else:
                out[key] = redact_config(item)
        return out
    if isinstance(value, list):
        return [redact_config(v) for v in value]
    return REDACTOR(value) if isinstance(value, str) else value


def is_own_host(url: str | None, provider_url: str) -> bool:
    """Whether ``url`` (None: the provider's default) is the provider's own API over HTTPS,
    the only place a key from the provider's default variable may be sent."""
    if url is None:
        return True
    try:
        mine, theirs = urlsplit(url), urlsplit(provider_url)
        return (
            mine.scheme == "https"
            and mine.hostname == theirs.hostname
            and mine.port
            in (
                None,
                443,
            )
        )
    except ValueError:
        return False


def key_from_env(env: str, source: str, path: str, whose: str, hint: str = "") -> str:
    """The API key in the environment variable ``env``, registered with ``REDACTOR``; unset
    or empty, a ConfigError at ``path`` in ``source`` (the field that names the variable):
    a request without its key would only be refused, test after test."""
    key = os.environ.get(env) or None
    if key is None:
        message = f"the environment variable {env} is not set: export it with {whose}{hint}"
        raise ConfigError([Problem(source, path, message)])
    REDACTOR.add(key)
    return key
