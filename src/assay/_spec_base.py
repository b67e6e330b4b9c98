"""What the suite file's models share: strict and open specs, the short-form expander, the
rule for a Python module's name (``plugins:``, a tool's ``implementation``), and numbers
that remember how they were written.

YAML 1.1 reads ``12:09`` as the number 729 (base 60), ``01234`` as 668 (octal), ``1.10`` as
1.1 and ``1_000`` as 1000; a string field (``ground_truth``, ``input``) would then hold the
number's text, ``"729"``, not what the file says. So the suite's loader makes such a number
a ``WrittenInt`` or ``WrittenFloat`` (only when its text differs from the number's own):
a string field takes its text (``str()``, which pydantic's ``coerce_numbers_to_str``
calls), and every model of a suite turns any such number it keeps elsewhere (a number
field, a tool argument, a metric's option) into a plain ``int`` or ``float``, so no
subclass goes further than the suite's models.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, model_validator

MODULE_NAME = r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$"


class _Written:
    """A number that keeps the text it was written as: ``str()`` gives that text."""

    plain: ClassVar[type[int] | type[float]]  # the number's own type, for pickling
    text: str

    def __new__(cls, value: float, text: str) -> Any:
        number = super().__new__(cls, value)  # type: ignore[call-arg]  # int's or float's
        number.text = text
        return number

    def __str__(self) -> str:
        return self.text

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.plain(self), self.text)  # type: ignore[arg-type,call-overload]


class WrittenInt(_Written, int):
    """An integer written as ``0x1F`` or ``12:09``."""

    plain = int


class WrittenFloat(_Written, float):
    """A float written as ``1.10`` or ``.5``."""

    plain = float


def plain_numbers(value: Any) -> Any:
    """``value`` with every ``WrittenInt`` and ``WrittenFloat`` in it, keys included, a plain
    ``int`` or ``float``; lists and mappings are copied."""
    kind = type(value)
    if kind is WrittenInt:
        return int(value)
    if kind is WrittenFloat:
        return float(value)
    if kind is list:
        return [plain_numbers(item) for item in value]
    if kind is dict:
        return {plain_numbers(k): plain_numbers(v) for k, v in value.items()}
    return value


class _Spec(BaseModel):
    @model_validator(mode="after")
    def _plain_numbers(self) -> Any:
        """A number kept as a number (a number field, ``Any``, an option) is plain: only a
        string field takes a number's text."""
        fields = self.__dict__
        for name, value in fields.items():
            if isinstance(value, list | dict | WrittenInt | WrittenFloat):
                fields[name] = plain_numbers(value)
        if self.__pydantic_extra__:
            self.__pydantic_extra__ = plain_numbers(self.__pydantic_extra__)
        return self


class Strict(_Spec):
    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)


class Open(_Spec):
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
