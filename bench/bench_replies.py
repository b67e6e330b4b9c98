"""Benchmark the reply size limit: peak memory of one turn against hostile replies.

A server on 127.0.0.1 (in this process) offers a 2 GB JSON body, a gzip bomb (about 2 MB on
the wire, 2 GB inflated) and an event stream that never ends; a fresh interpreter sends one
http-target turn to each and prints the turn's error, its wall time and its peak RSS
(``resource.getrusage``). The baseline is the same interpreter taking one small reply.
Issue 10 measured, before the limit: 1.5 GB RSS for the 2 GB body, 1.8 GB for the endless
stream, 4.3 GB and a MemoryError for the gzip bomb.

    .venv/bin/python bench/bench_replies.py            # about 20 s (building the bomb)
    .venv/bin/python bench/bench_replies.py --quick    # a 200 MB bomb
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from aiohttp import web

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakes.hostile import (  # noqa: E402  (the repository's test helpers)
    endless_events,
    gzip_bomb_bytes,
    json_body,
    oversized_json,
    send_chunks,
    split,
)

GB = 1_000_000_000

CLIENT = """
import asyncio, json, resource, sys, time
from assay.target_config import HttpTarget as Config
from assay.errors import TargetError
from assay.targets.base import TurnRequest
from assay.targets.http import HttpTarget

async def main(url):
    target = HttpTarget(Config(url=url))
    started = time.perf_counter()
    try:
        reply = await target.session("s").send(TurnRequest("hi", "s", "1", 0))
        outcome = f"reply of {len(reply.text or '')} characters"
    except TargetError as exc:
        outcome = str(exc).split(" from ")[0]
    await target.aclose()
    return outcome, time.perf_counter() - started

outcome, seconds = asyncio.run(main(sys.argv[1]))
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"outcome": outcome, "seconds": seconds, "peak_mib": peak}))
"""


@contextmanager
def hostile_server(bomb_bytes: int) -> Iterator[tuple[str, dict[str, int]]]:
    bomb = gzip_bomb_bytes(bomb_bytes)
    written: dict[str, int] = {"bomb_wire_bytes": len(bomb)}
    routes = {
        "/ok": (json_body({"response": "fine"}), {}),
        "/huge": (oversized_json(2 * GB), {}),
        "/bomb": (split(bomb), {"Content-Encoding": "gzip"}),
        "/endless": (endless_events(2 * GB), {"Content-Type": "text/event-stream"}),
    }

    async def handle(request: web.Request) -> web.StreamResponse:
        chunks, headers = routes[request.path]

        def counted() -> Iterator[bytes]:
            for chunk in chunks():
                written[request.path] = written.get(request.path, 0) + len(chunk)
                yield chunk

        return await send_chunks(request, counted, headers=headers)

    app = web.Application()
    for path in routes:
        app.router.add_post(path, handle)
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(app, access_log=None)
    loop.run_until_complete(runner.setup())
    site = web.TCPSite(runner, "127.0.0.1", 0)
    loop.run_until_complete(site.start())
    url = f"http://127.0.0.1:{runner.addresses[0][1]}"
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield url, written
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=5)


def one_turn(url: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", CLIENT, url], capture_output=True, text=True, timeout=600
    )
    if done.returncode != 0:
        return {"outcome": done.stderr.strip().splitlines()[-1], "seconds": 0, "peak_mib": 0}
    result: dict[str, object] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    bomb = GB // 5 if args.quick else 2 * GB
    print(f"{platform.machine()}, {platform.system()}, Python {platform.python_version()}")
    with hostile_server(bomb) as (url, written):
        rows = []
        for path, label in [
            ("/ok", "a small reply (baseline)"),
            ("/huge", "2 GB JSON body"),
            ("/bomb", f"gzip bomb: {written['bomb_wire_bytes'] / 1e6:.1f} MB -> {bomb / GB:g} GB"),
            ("/endless", "endless event stream"),
        ]:
            result = one_turn(url + path)
            rows.append((label, result, written.get(path, 0)))
    base = float(rows[0][1]["peak_mib"])  # type: ignore[arg-type]
    print("| reply | outcome | seconds | peak RSS | over baseline | written before hang-up |")
    print("|---|---|---:|---:|---:|---:|")
    for label, result, sent in rows:
        peak = float(result["peak_mib"])  # type: ignore[arg-type]
        print(
            f"| {label} | {result['outcome']} | {float(result['seconds']):.2f} "  # type: ignore[arg-type]
            f"| {peak:.0f} MiB | {peak - base:+.0f} MiB | {sent / 1e6:.0f} MB |"
        )


if __name__ == "__main__":
    main()
