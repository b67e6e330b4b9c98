"""Build metric instances from what users write: one instance per configuration."""

from __future__ import annotations

import difflib
from typing import Any

from pydantic import ValidationError

from assay.metrics.base import METRICS, Metric


class MetricConfigError(ValueError):
    """A bad metric spec; ``problems`` are (sub-path, message) pairs."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = problems
        super().__init__("; ".join(f"{p}: {m}" if p else m for p, m in problems))


def build_metric(name: str, options: dict[str, Any]) -> Metric:
    cls = METRICS.get(name)
    if cls is None:
        hint = difflib.get_close_matches(name, METRICS, n=1)
        known = ", ".join(sorted(METRICS))
        msg = f"unknown metric {name!r}" + (
            f"; did you mean {hint[0]!r}?" if hint else f" (known metrics: {known})"
        )
        raise MetricConfigError([("metric", msg)])
    try:
        parsed = cls.Options.model_validate(options)
    except ValidationError as exc:
        problems = []
        for err in exc.errors(include_url=False):
            sub = ".".join(str(p) for p in err["loc"])
            if err["type"] == "extra_forbidden":
                allowed = ", ".join(sorted(cls.Options.model_fields)) or "none"
                msg = f"unknown option for metric {name!r} (options: {allowed})"
            else:
                msg = str(err["msg"]).removeprefix("Value error, ")
                if "input" in err and not isinstance(err["input"], dict):
                    msg += f" (got {err['input']!r})"
            problems.append((sub, msg))
        raise MetricConfigError(problems) from None
    return cls(parsed)


def known_metrics() -> list[str]:
    return sorted(METRICS)
