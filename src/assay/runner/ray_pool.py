"""The driver's side of ``assay run --executor ray``: the run's tests as Ray tasks, one shard
each, results streamed back to the driver, which stores them (the cluster never needs the
store).

Ray is started here when this process has not started it: a local Ray for the run when no
address is given, else the cluster at ``--ray-address`` (``ray://HOST:10001`` or ``auto``),
with the suite's folder as the job's working directory, so a Python agent, tool or grader
next to the suite imports on every node. (Ray ships a folder only when it starts: a caller
that started Ray itself passes ``runtime_env={"working_dir": ...}`` to ``ray.init``.)

Each task runs its shard (every N-th test) in an event loop of its own, its share of the
concurrency and of each endpoint limit at once, and yields results as they finish (a Ray
streaming generator). A task that dies loses the results it had not yet sent: they get no
result and ``--resume`` runs them.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from assay.errors import TargetError, first_line
from assay.runner.pool import EncodedSink, Lost
from assay.runner.shard import Encoded, ShardSpec, Slot, run_slots
from assay.runner.spread import cap, split

# not shipped to the cluster: the store, caches, environments; datasets are already read
SHIP_EXCLUDES = [".assay", ".git", ".venv", "venv", "node_modules", "__pycache__"]
SHIP_EXCLUDES += ["*.csv", "*.xlsx", "*.jsonl", "*.db"]
_END = object()


def _shard_results(
    spec: ShardSpec, cases: list[Any], slots: list[Slot], shipped: bool
) -> Iterator[list[Encoded]]:
    """A Ray task: run the shard in a loop of its own (a thread) and yield what finished,
    a batch at a time. ``cases``: the run's tests, put in Ray's object store once."""
    spec = replace(spec, cases=cases)
    if shipped:  # the suite's folder is this task's working directory
        spec = replace(spec, plan=replace(spec.plan, base_dir=Path.cwd()))
    finished: queue.SimpleQueue[Any] = queue.SimpleQueue()

    def main() -> None:
        try:
            asyncio.run(run_slots(spec, slots, finished.put))
            finished.put(_END)
        except BaseException as exc:  # raised in the task, so the driver sees it
            finished.put(exc)

    threading.Thread(target=main, name="assay-shard", daemon=True).start()
    while True:
        batch = [finished.get()]
        while not finished.empty():
            batch.append(finished.get())
        ended = batch[-1] is _END or isinstance(batch[-1], BaseException)
        results = [item for item in batch if isinstance(item, tuple)]
        if results:
            yield results
        if ended:
            if isinstance(batch[-1], BaseException):
                raise batch[-1]
            return


class RayPool:
    def __init__(
        self, spec: ShardSpec, tasks: int | None, address: str | None, on_encoded: EncodedSink
    ) -> None:
        self.spec = spec
        self.tasks = tasks
        self.address = address
        self.on_encoded = on_encoded

    def _connect(self) -> tuple[Any, bool]:
        import ray

        if ray.is_initialized():
            return ray, False
        folder = str(self.spec.plan.base_dir.resolve())
        try:
            ray.init(
                address=self.address,
                runtime_env={"working_dir": folder, "excludes": SHIP_EXCLUDES},
                include_dashboard=False,
                logging_level=logging.WARNING,
                log_to_driver=False,
            )
        except Exception as exc:
            where = self.address or "a local Ray"
            # exit 3 (could not execute), as for an unreachable target; Ray's own message
            # names its --address flag, which is assay's --ray-address
            text = str(exc).replace("--address", "--ray-address")
            raise TargetError(f"could not start Ray ({where}): {text}") from None
        return ray, True

    async def run(self, slots: list[Slot]) -> Lost:
        ray, shipped = self._connect()
        count = self.tasks or max(1, int(ray.cluster_resources().get("CPU", 1)))
        count = cap(count, self.spec.plan, len(slots))
        cases = ray.put(self.spec.cases)  # once, however many tasks read them
        task = ray.remote(num_returns="streaming", max_retries=0)(_shard_results)
        lost = Lost()
        generators = []
        for i, worker in enumerate(split(replace(self.spec, cases=[]), count)):
            shard = slots[i::count]
            generators.append((task.remote(worker, cases, shard, shipped), shard, i))

        async def consume(generator: Any, shard: list[Slot], index: int) -> None:
            waiting = {slot[0] for slot in shard}
            try:
                async for ref in generator:
                    for item in await ref:
                        waiting.discard(item[0])
                        self.on_encoded(item)
            except ray.exceptions.RayError as exc:
                lost.positions += sorted(waiting)
                why = first_line(exc)
                lost.reasons.append(f"Ray task {index + 1} of {count} failed: {why}")

        try:
            await asyncio.gather(*(consume(*g) for g in generators))
        except BaseException:
            for generator, _, _ in generators:
                ray.cancel(generator, force=True)
            raise
        finally:
            if shipped:
                ray.shutdown()
        return lost
