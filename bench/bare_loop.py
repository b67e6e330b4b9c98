"""The baseline for bench_run.py: a bare aiohttp loop with no harness, N requests with C in
flight against the same mock agent. Run as its own process so its start-up counts too.

    python bench/bare_loop.py URL N CONCURRENCY
"""

from __future__ import annotations

import asyncio
import sys

import aiohttp


async def main(url: str, n: int, concurrency: int) -> None:
    items = iter(range(n))
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as client:

        async def worker() -> None:
            for i in items:
                body = {"query": f"question {i}?", "session_id": f"s{i}", "turn_id": "1"}
                async with client.post(url, json=body) as resp:
                    await resp.json()

        await asyncio.gather(*(worker() for _ in range(concurrency)))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
