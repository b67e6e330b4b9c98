"""aiohttp's CA certificates load on the first TLS connection, not at import
(``assay.net._tls``): an http:// run never pays for them, and an https:// one still
verifies its server against them.

Each check runs in a fresh interpreter, where ``assay.net`` is what imports aiohttp."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.targets.agent_server import free_port

# an https server in the same process, and a client that verifies it (ssl=True, the default)
_HTTPS_ROUND_TRIP = """
import asyncio, ssl, sys
from assay.net import open_client_session
import aiohttp.connector as connector
from aiohttp import web

def loaded():
    return [c.cert_store_stats()["x509_ca"]
            for c in (connector._SSL_CONTEXT_VERIFIED, connector._SSL_CONTEXT_UNVERIFIED)]

async def main(cert, key, port):
    app = web.Application()
    app.router.add_get("/", lambda request: web.Response(text="over tls"))
    runner = web.AppRunner(app)
    await runner.setup()
    server_side = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_side.load_cert_chain(cert, key)
    await web.TCPSite(runner, "127.0.0.1", port, ssl_context=server_side).start()
    print("before", loaded())
    session = open_client_session()
    try:
        async with session.get(f"http://127.0.0.1:{port}/"):
            pass
    except Exception:
        pass  # plain http to a TLS port: fails, and must not load the certificates
    print("after http", loaded())
    async with session.get(f"https://127.0.0.1:{port}/") as reply:
        print("reply", reply.status, await reply.text())
    print("after https", loaded())
    await session.close()
    await runner.cleanup()

asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
"""


def _self_signed(tmp_path: Path) -> tuple[Path, Path]:
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("needs the openssl command to make a certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
        + ["-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1"]
        + ["-addext", "subjectAltName=IP:127.0.0.1"],
        check=True,
        capture_output=True,
    )
    return cert, key


def test_certificates_load_on_the_first_tls_connection_and_verify_it(tmp_path: Path) -> None:
    cert, key = _self_signed(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", _HTTPS_ROUND_TRIP, str(cert), str(key), str(free_port())],
        # the certificate is the only one trusted: the reply arrives only if the verified
        # context loaded the default verify paths (which SSL_CERT_FILE names) before connecting
        env={**os.environ, "SSL_CERT_FILE": str(cert)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "before [0, 0]",
        "after http [0, 0]",
        "reply 200 over tls",
        "after https [1, 1]",
    ]


def test_an_untrusted_server_still_fails_verification(tmp_path: Path) -> None:
    """Deferred is not skipped: with the system's certificates (not this one) trusted, the
    self-signed server is refused."""
    cert, key = _self_signed(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "SSL_CERT_FILE"}
    done = subprocess.run(
        [sys.executable, "-c", _HTTPS_ROUND_TRIP, str(cert), str(key), str(free_port())],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0
    assert "CERTIFICATE_VERIFY_FAILED" in done.stderr
