"""Keep secrets out of reports, the store, logs and error messages.

Two guards: ``redact_config`` masks values under secret-looking keys in a config snapshot,
and ``Redactor`` scrubs known secret values (those substituted from the environment, API
keys read for models) from any text before it is written anywhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

MASK = "***"
_SECRET_KEY = re.compile(
    r"(authorization|api[-_]?key|token|secret|password|passwd|cookie|credential)", re.I
)
_PLACEHOLDER = re.compile(r"^[^$]*(\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}[^$]*)+$")
_MIN_SECRET_LENGTH = 4  # shorter values would mask ordinary words


def redact_config(value: Any) -> Any:
    """A copy of a config tree with secret-looking values masked; ``${VAR}`` placeholders
    stay, since they name a variable and hold no secret."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if (
                _SECRET_KEY.search(str(key))
                and isinstance(item, str)
                and not _PLACEHOLDER.match(item)
            ):
                out[key] = MASK
            else:
                out[key] = redact_config(item)
        return out
    if isinstance(value, list):
        return [redact_config(v) for v in value]
    return value


class Redactor:
    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self.secrets: set[str] = set()
        self._ordered: list[str] = []
        self.add(*secrets)

    def add(self, *secrets: str) -> None:
        self.secrets.update(s for s in secrets if s and len(s) >= _MIN_SECRET_LENGTH)
        # longest first, so a secret that contains another is masked whole
        self._ordered = sorted(self.secrets, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        """``text`` with every known secret masked (the same object when none occurs)."""
        for secret in self._ordered:
            if secret in text:
                text = text.replace(secret, MASK)
        return text


# Process-wide: every secret assay learns is registered here, and every error message and
# stored text passes through it.
REDACTOR = Redactor()
