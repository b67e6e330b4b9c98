"""Code graders that misbehave as user code can, imported by ``module:callable``."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from typing import Any

release = threading.Event()  # set by the tests when they are done with a hanging grader


def exits(ctx: Any) -> bool:
    sys.exit(0)


def os_exits_on_b(ctx: Any) -> bool:
    if ctx.response == "b":
        os._exit(0)
    return True


async def cancels_itself_on_b(ctx: Any) -> bool:
    if ctx.response == "b":
        task = asyncio.current_task()
        assert task is not None
        task.cancel()
        await asyncio.sleep(0)
    return True


def interrupts(ctx: Any) -> bool:
    raise KeyboardInterrupt


def hangs(ctx: Any) -> bool:
    """Blocks its thread until the test releases it: a grader stuck for good."""
    release.wait()
    return True


class Unending:
    """An object whose text is the grader's code, stuck until the test releases it."""

    def __str__(self) -> str:
        release.wait()
        return "late"


def hangs_in_its_reason(ctx: Any) -> dict[str, Any]:
    return {"score": 1.0, "reason": Unending()}


def hangs_in_its_details(ctx: Any) -> dict[str, Any]:
    return {"score": 1.0, "details": {"seen": Unending()}}


async def hangs_async(ctx: Any) -> bool:
    await asyncio.Event().wait()
    return True


def passes(ctx: Any) -> bool:
    return True
