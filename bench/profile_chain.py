"""A single-turn test's own chain under callgrind, without the network: ``run_case`` on the
real http target (``--target URL``'s, built by ``make_target``) whose aiohttp client is
replaced by one that answers every request at once with ``mock_agent.py``'s reply.

What it counts per test: the conversation, the turn's deadline, rendering the request,
``send_request`` (its limiter, deadline, retries loop), ``ReplyBody``, decoding the reply,
the metric and the TestResult: everything of assay's in a turn but aiohttp's own work and
the event loop's (which the fake client skips: its request and its body each wait for one
pass of the loop, ``asyncio.sleep(0)``, so every coroutine of the chain is resumed as in a
real turn) and the hand-over and summary after it. Nothing waits on anything outside the
process, so the count is the same from run to run (``bench/profile_turn.py`` moves by a few
thousand instructions per turn with how the event loop's passes fall), which makes it the
tool for changes of a thousand or two.

    .venv/bin/python bench/profile_chain.py --against /tmp/base/src   # per test, both trees

``PYTHONHASHSEED=0``, byte-compiled trees; N tests in one task are collected (inside a
``functools.reduce`` call, callgrind's toggle) after 50 unmeasured ones. ``--run N`` (in
the measured process) prints the last result's JSON without its times, so two trees can be
checked for the same output.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _callgrind import reduce_totals  # noqa: E402
from mock_agent import REPLY  # noqa: E402

URL = "http://127.0.0.1:9/chat"


def run(n: int) -> None:  # in the measured process
    import asyncio
    import functools

    from multidict import CIMultiDict, CIMultiDictProxy

    from assay.cases.from_dataset import dataset_cases
    from assay.config import Suite
    from assay.runner import conversation
    from assay.targets.factory import make_target, parse_target_option

    body = REPLY.encode()
    headers = CIMultiDictProxy(CIMultiDict({"Content-Type": "application/json"}))

    class Response:  # what send_request, ReplyBody and the http reader read of aiohttp's
        status = 200
        content_type = "application/json"
        content_length = len(body)

        def __init__(self) -> None:
            self.headers = headers

        async def read(self) -> bytes:
            await asyncio.sleep(0)  # the body: one pass of the loop
            return body

    class Exchange:
        def __init__(self, **kwargs: Any) -> None:
            self.sent = kwargs

        async def __aenter__(self) -> Response:
            await asyncio.sleep(0)  # the request out, the reply's head in: one pass
            return Response()

        async def __aexit__(self, *exc: object) -> None:
            return None

    class Client:
        closed = False

        def request(self, method: str, url: Any, **kwargs: Any) -> Exchange:
            return Exchange(method=method, url=url, **kwargs)

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "d.csv"
        path.write_text("Question,Answer\n" + "".join(f"question {i}?,42\n" for i in range(3)))
        cases = dataset_cases(path, Suite(name="bench"), "d.csv")
    target: Any = make_target(parse_target_option(URL))
    target._client = Client()
    settings = conversation.CaseSettings(run_id="r" * 32)
    run_case = conversation.run_case

    async def tests(count: int) -> Any:  # in a task, as a run's tests are
        result = None
        for i in range(count):
            result = await run_case(cases[i % 3], target, settings)
            assert result.status == "passed", result.errors
        return result

    loop = asyncio.new_event_loop()
    loop.run_until_complete(tests(50))  # warm, not collected (toggle below)
    result = functools.reduce(lambda last, _: loop.run_until_complete(tests(n)), range(1), None)
    loop.close()
    print(result.model_dump_json(exclude={"timestamp", "execution_time_ms", "metric_results"}))
    print([m.model_dump(exclude={"evaluation_time_ms"}) for m in result.metric_results])


def instructions(src: str, n: int) -> int:
    return reduce_totals(__file__, src, n)[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", default=str(HERE.parent / "src"))
    parser.add_argument("--against", help="another source tree, measured the same way")
    parser.add_argument("--n", type=int, default=500, help="tests measured")
    parser.add_argument("--run", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        run(args.run)
        return
    trees = [args.src] if args.against is None else [args.against, args.src]
    found = []
    for src in trees:
        subprocess.run([sys.executable, "-m", "compileall", "-q", src], check=True)
        found.append(instructions(src, args.n) / args.n)
        print(f"{src}: {found[-1]:,.0f} instructions per test")
    if len(found) == 2:
        print(f"difference: {found[1] - found[0]:+,.0f}")


if __name__ == "__main__":
    main()
