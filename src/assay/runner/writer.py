"""Write finished results to the store from a thread, in batches, so the event loop that
drives the agents never waits on the database."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence

from assay.errors import AssayError, StoreError
from assay.results.models import TestResult

Batch = Sequence[tuple[int, TestResult]]

BATCH_SIZE = 256
MAX_DELAY_S = 0.25  # a result waits at most this long before it is written
_STOP = object()


class BackgroundWriter:
    """``add`` queues a result; a thread writes batches of up to BATCH_SIZE, at least every
    MAX_DELAY_S. A write failure stops the writer and is raised by the next ``add`` or by
    ``close``, so a run never carries on while its results are being lost."""

    def __init__(
        self,
        write: Callable[[Batch], None],
        batch_size: int = BATCH_SIZE,
        max_delay_s: float = MAX_DELAY_S,
    ) -> None:
        self._write = write
        self._batch_size = batch_size
        self._max_delay_s = max_delay_s
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self.error: AssayError | None = None
        self.written = 0
        self._thread = threading.Thread(target=self._loop, name="assay-writer", daemon=True)
        self._thread.start()

    def add(self, position: int, result: TestResult) -> None:
        if self.error is not None:
            raise self.error
        self._queue.put((position, result))

    def close(self) -> None:
        """Write everything queued, stop the thread, and raise a write failure if any."""
        self._queue.put(_STOP)
        self._thread.join()
        if self.error is not None:
            raise self.error

    def _flush(self, batch: list[tuple[int, TestResult]]) -> None:
        if not batch or self.error is not None:
            return
        try:
            self._write(batch)
            self.written += len(batch)
        except AssayError as exc:
            self.error = exc
        except Exception as exc:  # anything else from the driver is still a store failure
            self.error = StoreError(f"writing results failed: {type(exc).__name__}: {exc}")
        batch.clear()

    def _loop(self) -> None:
        batch: list[tuple[int, TestResult]] = []
        deadline = 0.0
        while True:
            timeout = max(0.0, deadline - time.monotonic()) if batch else None
            try:
                item = self._queue.get(timeout=timeout)
            except queue.Empty:
                self._flush(batch)
                continue
            if item is _STOP:
                self._flush(batch)
                return
            if not batch:
                deadline = time.monotonic() + self._max_delay_s
            batch.append(item)  # type: ignore[arg-type]
            if len(batch) >= self._batch_size:
                self._flush(batch)
