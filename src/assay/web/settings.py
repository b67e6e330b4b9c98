"""What one dashboard serves: its store, where uploads and suites live, who may use it."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from pathlib import Path

from assay.errors import AssayError, ConfigError, Problem

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8484
TOKEN_ENV = "ASSAY_TOKEN"
MIN_TOKEN_CHARS = 16
MAX_UPLOAD_BYTES = 50 * 1024 * 1024
PAGE_SIZE = 50  # tests per page of a run; runs per page of the list


class ServeError(AssayError):
    """The dashboard cannot start (the address is taken, say): exit code 3."""

    exit_code = 3


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_token(host: str, token: str | None) -> str | None:
    """The token to require, or None on a loopback address without one. Raises ConfigError
    when another address has no token, or a token is too short to protect anything."""
    token = token or None
    if token is None and not is_loopback(host):
        raise ConfigError(
            [
                Problem(
                    "options",
                    "--host",
                    f"serving on {host} lets other machines in: give a token with --token or "
                    f"${TOKEN_ENV} (e.g. python -c 'import secrets; "
                    "print(secrets.token_urlsafe(24))'), or serve on 127.0.0.1",
                )
            ]
        )
    if token is not None and len(token) < MIN_TOKEN_CHARS:
        raise ConfigError(
            [
                Problem(
                    "options",
                    "--token",
                    f"the token is too short to protect the dashboard: use at least "
                    f"{MIN_TOKEN_CHARS} random characters",
                )
            ]
        )
    return token


def store_folder(store_url: str | None) -> Path:
    """The folder beside a SQLite store file (``.assay`` for the default one); for
    PostgreSQL or an in-memory store, ``.assay`` in the current folder."""
    from assay.store._engine import is_sqlite, resolve_url  # SQLAlchemy: not for `--help`

    url = resolve_url(store_url)
    database = url.database or ""
    if is_sqlite(url) and database and database != ":memory:" and "mode=memory" not in database:
        return Path(database.removeprefix("file:").split("?")[0]).expanduser().resolve().parent
    return Path(".assay").resolve()


@dataclass(frozen=True)
class Settings:
    store_url: str | None = None
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    token: str | None = None
    root: Path = field(default_factory=lambda: Path.cwd().resolve())  # suite files under it
    uploads: Path | None = None  # default: uploads/ in the store's folder
    max_upload_bytes: int = MAX_UPLOAD_BYTES
    page_size: int = PAGE_SIZE

    @property
    def uploads_dir(self) -> Path:
        return self.uploads or store_folder(self.store_url) / "uploads"
