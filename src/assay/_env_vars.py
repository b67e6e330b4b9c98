"""``${VAR}`` and ``${VAR:-default}``: values from the environment, as a shell reads them.

The one home of the rule, used by the suite loader (every string of a suite) and the http
target (header values of a target built in code):

- ``${VAR}`` is VAR's value; an empty value stays empty; an unset VAR is a problem.
- ``${VAR:-default}`` is VAR's value when VAR is set and not empty, else ``default`` (the
  shell's ``:-``: an empty VAR takes the default too).

What a reference gives is text: an expansion keeps its ``pieces`` apart (the text as written,
and each value), so a template over the text never reads a value as template
(``assay.targets._templates``): a secret holding ``{{`` is sent as it is.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# the text of one reference, for patterns elsewhere (the suite schema, secret detection)
REFERENCE = r"\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}"
_REFERENCE = re.compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?::-(?P<default>[^}]*))?\}")
# a text as pieces, in order: (text, True) for what a reference gave, (text, False) as written
Pieces = tuple[tuple[str, bool], ...]


@dataclass
class Expansion:
    """A string with its references replaced; ``missing`` names the unset variables that
    had no default, ``values`` holds what came from the environment (secrets), ``pieces``
    the text as written and what each reference gave, apart (``"".join`` of them: ``text``)."""

    text: str
    missing: list[str] = field(default_factory=list)
    values: set[str] = field(default_factory=set)
    pieces: Pieces = ()


def expand(text: str, environ: Mapping[str, str] | None = None) -> Expansion:
    """Replace every ``${VAR}`` and ``${VAR:-default}`` in ``text``."""
    env = os.environ if environ is None else environ
    result = Expansion(text, pieces=((text, False),))
    if "${" not in text:
        return result
    pieces: list[tuple[str, bool]] = []
    end = 0
    for match in _REFERENCE.finditer(text):
        pieces.append((text[end : match.start()], False))
        end = match.end()
        name, default = match["name"], match["default"]
        value = env.get(name)
        if default is not None and not value:  # unset or empty, as the shell's :- reads it
            value = default
        elif value is None:
            result.missing.append(name)
            value = ""
        elif value:
            result.values.add(value)
        pieces.append((value, True))
    pieces.append((text[end:], False))
    # empty pieces dropped, and the written text on either side of an empty value joined:
    # "{${EMPTY}{ input }}" is one written "{{ input }}", as the text reads
    kept: list[tuple[str, bool]] = []
    for piece, given in pieces:
        if not piece:
            continue
        if kept and not given and not kept[-1][1]:
            kept[-1] = (kept[-1][0] + piece, False)
        else:
            kept.append((piece, given))
    result.pieces = tuple(kept)
    result.text = "".join(piece for piece, _ in result.pieces)
    return result


def pieces_of(value: Any) -> Any:
    """A tree's strings as their ``pieces`` (``expand``), in the tree's shape (a dict's keys
    as text, None for what is not text): what its ``${VAR}``s gave, kept apart."""
    if isinstance(value, str):
        return expand(value).pieces
    if isinstance(value, dict):
        return {str(k): pieces_of(v) for k, v in value.items()}
    if isinstance(value, list):
        return [pieces_of(v) for v in value]
    return None


def given_pieces(pieces: Any, value: str) -> Pieces | None:
    """``pieces`` when they are ``value``'s (from ``pieces_of``) and hold something a
    reference gave; else None (the value is read as it is)."""
    if (
        isinstance(pieces, tuple)
        and any(given for _, given in pieces)
        and "".join(text for text, _ in pieces) == value
    ):
        return pieces
    return None


def missing_message(name: str) -> str:
    return f"environment variable {name} is not set; export it, or write ${{{name}:-default}}"
