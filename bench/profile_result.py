"""What a single-turn test costs after its reply is decoded, phase by phase, under callgrind.

One process per (phase, size): it compiles a one-row dataset test (``Question``, ``Answer``:
the equality metric) and then, SIZE times, decodes ``mock_agent.py``'s reply and takes it
as far as PHASE goes:

- ``decode``: the reply decoded (``json.loads``, ``reply_from_payload``): the baseline;
- ``result``: + ``run_case`` on a target that hands the reply back at once (the turn's
  request and deadline, its fields, the metric scored, the TestResult);
- ``json``: + ``encode_result`` (``storable_payload``: the storable proof and the JSON; and
  the rows handed over with it, ``proved_rows``, in a tree that proves them);
- ``tally``: + the summary's tally (``Tally.of``, ``SummaryBuilder.add_tally``) and what a
  quiet run's ``on_stored`` does with the result besides (``Shown.add``, the observer).

Each phase's slope (instructions at BIG minus at SMALL, over BIG - SMALL) less the one
before it is that step's cost per test; ``decode`` itself is not this file's business.

    .venv/bin/python bench/profile_result.py                      # this checkout's src
    .venv/bin/python bench/profile_result.py --src /tmp/base/src  # another tree
    .venv/bin/python bench/profile_result.py --against /tmp/base/src

``PYTHONHASHSEED=0``, the trees byte-compiled; a phase run alone (``--run PHASE N``) prints
a check of its last result (its JSON), so two trees can be compared for identical output.
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

PHASES = ("decode", "result", "json", "tally")
REPLY = (
    '{"response": "42", "tool_invocations": [{"name": "lookup", "args": {"q": "x"}, '
    '"result": 42}], "token_usage": {"prompt_tokens": 12, "completion_tokens": 1, '
    '"total_tokens": 13}}'
)


def run(n: int) -> None:  # in the measured process
    import asyncio
    import functools
    import json

    from assay.cases.from_dataset import dataset_cases
    from assay.config import Suite
    from assay.results.rollup import SummaryBuilder, Tally
    from assay.runner import conversation
    from assay.runner.observer import Observer
    from assay.runner.outcome import Shown
    from assay.runner.writer import encode_result
    from assay.targets.base import AgentSession, Reply, Target, TurnRequest, reply_from_payload

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "d.csv"
        path.write_text("Question,Answer\nquestion 1?,42\n")
        (case,) = dataset_cases(path, Suite(name="bench"), "d.csv")
    settings = conversation.CaseSettings(run_id="r" * 32)
    builder, shown, observer = SummaryBuilder(), Shown(10_000), Observer()
    loads, run_case = json.loads, conversation.run_case
    decoded: list[Any] = []

    class Session(AgentSession):  # the reply decoded in the phase, handed over at once
        async def send(self, request: TurnRequest) -> Reply:
            return decoded[0]

    class Bench(Target):
        def session(self, session_id: str) -> AgentSession:
            return Session()

    target = Bench()

    def step(stage: int) -> Any:
        def one(text: Any, _: int) -> Any:
            decoded[:] = [reply_from_payload(loads(REPLY))]
            if stage < 1:
                return text
            coro = run_case(case, target, settings)  # driven by hand: it never waits
            try:
                coro.send(None)
            except StopIteration as done:
                result = done.value
            assert result.status == "passed", result.errors
            if stage < 2:
                return text
            made = encode_result(result)  # (a tree that proves rows: and its rows)
            stored, text = made[0], made[1]
            if stage < 3:
                return text
            builder.add_tally(Tally.of(stored))
            shown.add(0, stored)
            observer.finished(stored)
            return text

        return one

    async def phases() -> str:  # in a task, as a run's tests are (their deadlines need one)
        text = ""
        for stage in range(len(PHASES)):
            one = step(stage)
            for i in range(50):  # warm: caches, the first calls' one-off work
                one(text, i)
            # measured: only functools.reduce's calls are collected, each dumped on its own
            text = functools.reduce(one, range(n), text)
        return text

    text = asyncio.run(phases())
    print(text.decode() if isinstance(text, bytes) else text)  # bytes, or str in a tree before


def instructions(src: str, n: int) -> list[int]:
    """Each phase's instructions over n tests."""
    return reduce_totals(__file__, src, n)[-len(PHASES) :]  # the last reduce calls


def slopes(src: str, n: int) -> dict[str, float]:
    subprocess.run([sys.executable, "-m", "compileall", "-q", src], check=True)
    return {phase: total / n for phase, total in zip(PHASES, instructions(src, n), strict=True)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", default=str(HERE.parent / "src"))
    parser.add_argument("--against", help="another source tree, measured the same way")
    parser.add_argument("--n", type=int, default=1000, help="tests per phase")
    parser.add_argument("--run", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        run(args.run)
        return
    trees = [args.src] if args.against is None else [args.against, args.src]
    found = [slopes(src, args.n) for src in trees]
    print(f"{'step':<10}" + "".join(f"{src[-28:]:>30}" for src in trees))
    before: list[float] = [0.0] * len(trees)
    for phase in PHASES:
        cells = [f[phase] - b for f, b in zip(found, before, strict=True)]
        print(f"{phase:<10}" + "".join(f"{c / 1000:>29.1f}k" for c in cells))
        before = [f[phase] for f in found]
    mine = [f["tally"] - f["decode"] for f in found]
    print(f"{'after decode':<10}" + "".join(f"{c / 1000:>27.1f}k" for c in mine))


if __name__ == "__main__":
    main()
