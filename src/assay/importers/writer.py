"""The YAML an importer writes: a comment header saying where the tests came from and what
to do next, then the suite, with multi-line text as literal blocks so it reads as written."""

from __future__ import annotations

from typing import Any

import yaml

from assay._spec_base import WrittenFloat, WrittenInt
from assay.importers.base import Imported, plain


class _Dumper(yaml.SafeDumper):
    """Block style for multi-line strings; everything else as PyYAML writes it."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def _written(dumper: yaml.SafeDumper, value: WrittenInt | WrittenFloat) -> yaml.ScalarNode:
    """A number read from the source file as it was written there (``12:09``, ``1.10``):
    read back, it is the same number, and a string field takes the same text."""
    kind = "int" if isinstance(value, int) else "float"
    return dumper.represent_scalar(f"tag:yaml.org,2002:{kind}", value.text)


_Dumper.add_representer(str, _str)
_Dumper.add_representer(WrittenInt, _written)
_Dumper.add_representer(WrittenFloat, _written)


def suite_yaml(imported: Imported) -> str:
    """The suite file's text: the header, then the suite (keys in the order given)."""
    count = len(imported.tests)
    header = [
        f"Imported by `assay import {imported.kind}` from {imported.source}: {count} "
        + ("test." if count == 1 else "tests."),
        *imported.notes,
    ]
    if "target" not in imported.suite:
        header.append(
            "No target yet: add `target:` (http, openai or python; see docs/targets.md), "
            "or run with --target URL_OR_MODULE:FUNC."
        )
    if imported.unmapped:
        count = len(imported.unmapped)
        header.append(
            f"{count} {'thing' if count == 1 else 'things'} could not be mapped: "
            "`assay import` listed them."
        )
    comments = "".join(f"# {plain(line, 10_000)}\n" for line in header)  # one line each
    body: Any = yaml.dump(
        imported.suite, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100
    )
    return comments + str(body)
