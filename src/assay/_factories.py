"""Default factories for pydantic fields: a new empty list, a new empty dict.

``Field(default_factory=list)`` gives the same defaults, but pydantic asks for each
factory's signature while it builds the model (does it take the validated data?), and
``inspect.signature`` of a builtin type parses the type's text signature (``list``'s, with
tokenize's patterns compiled the first time) or fails after looking (``dict``): about 23 M
instructions of every ``assay run``'s start-up over the models a run builds. A function's
signature is read from its code."""

from __future__ import annotations

from typing import Any


def empty_list() -> list[Any]:
    return []


def empty_dict() -> dict[Any, Any]:
    return {}
