"""What the suite file's models share: strict and open specs, the short-form expander, and
the rule for a Python module's name (``plugins:``, a tool's ``implementation``)."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict

MODULE_NAME = r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)


class Open(BaseModel):
    """A spec whose unknown keys are options, checked later by their owner."""

    model_config = ConfigDict(extra="allow", coerce_numbers_to_str=True)


def shorthand(key: str) -> Any:
    """Accept ``"x"`` as a short form of ``{key: "x"}``."""

    def expand(value: Any) -> Any:
        return {key: value} if isinstance(value, str) else value

    return expand


def module_name(name: str) -> str:
    if name.endswith(".py"):
        raise ValueError(f"write the module's name, {name[:-3]!r}, not its file name")
    if not re.match(MODULE_NAME, name):
        raise ValueError(
            f"expected a module name such as my_metrics (for my_metrics.py next to the "
            f"suite), got {name!r}"
        )
    return name
