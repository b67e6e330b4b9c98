"""A floor for issue 15's CPU target: the bare aiohttp loop (bare_loop.py) plus the least a
tool that keeps every result must do. Per reply: a result dict, one ``json.dumps`` of it;
batches (every 50 ms) handed over a pipe to a forked writer process that inserts a test row
(with the JSON payload) and a turn row per result into SQLite, one commit per batch. No
metrics, no checks, no models: what assay's harness costs beyond this is its own work.

    python bench/floor_loop.py URL N CONCURRENCY DB
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import sqlite3
import sys
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

import aiohttp

Row = tuple[Any, ...]


def write(pipe: Connection, db: str) -> None:
    con = sqlite3.connect(db)
    con.execute("create table tests(id, name, status, passed, ms, ts, payload)")
    con.execute("create table turns(test_id, idx, input, response, passed, ms)")
    while batch := pipe.recv_bytes():
        rows = json.loads(batch)
        with con:
            con.executemany("insert into tests values (?,?,?,?,?,?,?)", [r[:7] for r in rows])
            turns = [(r[0], r[7], r[8], r[3], r[4]) for r in rows]
            con.executemany("insert into turns values (?,0,?,?,?,?)", turns)
    con.close()


async def run(url: str, n: int, concurrency: int, send: Callable[[bytes], None]) -> None:
    items = iter(range(n))
    batch: list[Row] = []
    last = time.monotonic()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as client:

        async def worker() -> None:
            nonlocal batch, last
            for i in items:
                body = {"query": f"question {i}?", "session_id": f"s{i}", "turn_id": "1"}
                t0 = time.perf_counter()
                async with client.post(url, json=body) as resp:
                    data = await resp.json()
                ms = (time.perf_counter() - t0) * 1000
                text = data.get("response") if isinstance(data, dict) else None
                passed = text == "42"
                status = "passed" if passed else "failed"
                stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
                result = {
                    "test_name": f"row {i}",
                    "status": status,
                    "passed": passed,
                    "test_input": body["query"],
                    "agent_response": text,
                    "execution_time_ms": ms,
                    "timestamp": stamp,
                }
                payload = json.dumps(result)
                row = (i, f"row {i}", status, passed, ms, stamp, payload, body["query"], text)
                batch.append(row)
                if time.monotonic() - last > 0.05:
                    send(json.dumps(batch).encode())
                    batch, last = [], time.monotonic()

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    if batch:
        send(json.dumps(batch).encode())


def main() -> None:
    url, n, concurrency, db = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    if os.path.exists(db):
        os.remove(db)
    reader, writer = multiprocessing.Pipe(duplex=False)
    pid = os.fork()
    if pid == 0:
        writer.close()
        write(reader, db)
        os._exit(0)
    reader.close()
    asyncio.run(run(url, n, concurrency, writer.send_bytes))
    writer.send_bytes(b"")
    os.waitpid(pid, 0)


if __name__ == "__main__":
    main()
