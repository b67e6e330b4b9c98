"""Build the Target a suite's ``target:`` block (or ``--target``) describes."""

from __future__ import annotations

from pathlib import Path

from assay.config import TargetConfig
from assay.errors import ConfigError, Problem
from assay.targets.base import Target


def parse_target_option(value: str) -> TargetConfig:
    """``--target``: an http(s) URL or ``module:function``."""
    if value.startswith(("http://", "https://")):
        return TargetConfig.model_validate({"http": {"url": value}})
    if value == "demo" or value == "demo:travel":
        return TargetConfig(demo="travel")
    if value.count(":") == 1 and all(value.split(":")):
        return TargetConfig(python=value)
    raise ConfigError(
        [
            Problem(
                "options", "--target", f"expected an http(s) URL or module:function, got {value!r}"
            )
        ]
    )


def make_target(config: TargetConfig, base_dir: Path | None = None) -> Target:
    search = (base_dir,) if base_dir else ()
    if config.python is not None:
        from assay.targets.python import PythonTarget

        return PythonTarget(config.python, search)
    raise ConfigError(
        [Problem("suite", "target", f"the {config.kind} target is not available in this build")]
    )
