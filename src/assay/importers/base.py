"""What every importer produces: an assay suite (as the mapping its YAML holds), what could
not be mapped (per item, with why), and notes for the top of the file.

``Imported.checked`` loads the suite with assay's own loader (``assay.parse_suite``) and drops
any test assay refuses (a JavaScript regex Python cannot compile, a control character in a
name), reporting it: an importer never writes a suite that does not load.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay._words import clipped, unused_name
from assay.cases._yaml import read_yaml
from assay.cases.loader import parse_suite
from assay.errors import ConfigError, Problem

_PATH = re.compile(r"^(tests|metrics)\[(\d+)\]")
_TEST_METRIC = re.compile(r"^tests\[(\d+)\](?:\.turns\[(\d+)\])?\.metrics\[(\d+)\]")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")  # not allowed in names
NAME_LIMIT = 80


def read_items(path: Path, key: str, why: str) -> tuple[dict[str, Any], list[Any]]:
    """The YAML mapping in ``path`` and its list under ``key``; ConfigError ``why`` when the
    file holds no such non-empty list."""
    raw = read_yaml(path)
    items = raw.get(key) if isinstance(raw, dict) else None
    if not isinstance(items, list) or not items:
        raise ConfigError([Problem(str(path), key, why)])
    assert isinstance(raw, dict)
    return raw, items


def listed(value: Any, source: str, path: str, expected: str) -> list[Any]:
    """``value``, a list (absent: empty); any other type is bad input naming ``path``: its
    items would be read one letter, or one key, at a time."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise wrong_type(source, path, f"a list of {expected}", value)
    return value


def mapping(value: Any, source: str, path: str, expected: str) -> dict[str, Any]:
    """``value``, a mapping (absent: empty); any other type is bad input naming ``path``."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise wrong_type(source, path, f"a mapping of {expected}", value)
    return value


def wrong_type(source: str, path: str, expected: str, value: Any) -> ConfigError:
    """A field of the wrong type in the file being imported (exit 2): where, and what was
    expected; the suite is not written."""
    return ConfigError([Problem(source, path, f"expected {expected}, got {_shown(value)}")])


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return f"the text {clipped(value, 40)!r}"
    if isinstance(value, int | float):
        return f"the number {value}"
    return "a mapping" if isinstance(value, dict) else f"a {type(value).__name__}"


@dataclass(frozen=True)
class Unmapped:
    """Something in the source that the suite does not carry: where, what, and why."""

    item: str  # "test_cases[2] 'refund'", "row 5", "defaultTest"
    what: str  # the field or assertion
    why: str


@dataclass
class Imported:
    kind: str
    source: str
    suite: dict[str, Any]
    unmapped: list[Unmapped] = field(default_factory=list)
    approximate: list[Unmapped] = field(default_factory=list)  # mapped, not exactly
    notes: list[str] = field(default_factory=list)

    @property
    def tests(self) -> list[dict[str, Any]]:
        tests: list[dict[str, Any]] = self.suite.setdefault("tests", [])
        return tests

    def skip(self, item: str, what: str, why: str) -> None:
        self.unmapped.append(Unmapped(item, what, why))

    def checked(self) -> Imported:
        """This suite with every test assay refuses dropped (and reported), so it loads."""
        for _ in range(len(self.tests) + 2):
            if not self.tests:  # nothing left to load: the caller says so
                return self
            try:
                parse_suite(self.suite, self.source)
                return self
            except ConfigError as exc:
                if not self._drop(exc.problems):
                    raise
        raise ConfigError(self.source)  # unreachable: each round drops something

    def _drop(self, problems: list[Problem]) -> bool:
        """Drop what the problems point at: a test's metric, else the test (or a suite-level
        metric); False when a problem points elsewhere (an importer bug: let it show)."""
        metrics: dict[tuple[int, int | None, int], str] = {}
        whole: dict[tuple[str, int], str] = {}
        for problem in problems:
            why = f"assay refused it: {problem.path}: {problem.message}"
            if found := _TEST_METRIC.match(problem.path):
                test, turn, metric = found.groups()
                key = (int(test), int(turn) if turn else None, int(metric))
                metrics.setdefault(key, why)
            elif found := _PATH.match(problem.path):
                whole.setdefault((found.group(1), int(found.group(2))), why)
            else:
                return False
        in_order = sorted(metrics.items(), key=lambda m: (m[0][0], m[0][1] or -1, m[0][2]))
        for (test, turn, index), why in reversed(in_order):  # last first: indexes stay valid
            if ("tests", test) in whole:
                continue
            owner = self.tests[test] if turn is None else self.tests[test]["turns"][turn]
            spec = owner["metrics"].pop(index)
            if not owner["metrics"]:
                del owner["metrics"]
            label = spec if isinstance(spec, str) else spec.get("name") or spec.get("metric")
            self.skip(f"test {self.tests[test].get('name')!r}", f"metric {label}", why)
        for (where, index), why in sorted(whole.items(), reverse=True):
            entry = self.suite[where].pop(index)
            name = entry.get("name") or entry.get("metric")
            label = f"test {name!r}" if where == "tests" else f"suite metric {name!r}"
            self.skip(label, "the whole test" if where == "tests" else "the metric", why)
        if not self.suite.get("metrics"):
            self.suite.pop("metrics", None)
        return True


class Names:
    """Unique, plain-text test names: a name already taken gets `` (2)``, `` (3)``, ..."""

    def __init__(self) -> None:
        self.taken: set[str] = set()

    def unique(self, wanted: str) -> str:
        name = unused_name(plain(wanted) or "test", self.taken)
        self.taken.add(name)
        return name


def plain(text: str, limit: int = NAME_LIMIT) -> str:
    """``text`` on one line without control characters, cut to about ``limit`` characters."""
    flat = " ".join(_CONTROL.sub(" ", text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def unique_labels(metrics: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Give a metric that repeats a label in one list a ``name`` of its own (``contains-2``):
    results are reported by label."""
    seen: dict[str, int] = {}
    for spec in metrics:
        label = str(spec.get("name") or spec["metric"])
        seen[label] = seen.get(label, 0) + 1
        if seen[label] > 1:
            spec["name"] = f"{label}-{seen[label]}"
    return metrics


def text(value: Any) -> str | None:
    """A source value as text: strings as they are, numbers written out, blanks None."""
    if value is None or isinstance(value, (dict, list)):
        return None
    if isinstance(value, bool):
        return str(value).lower()
    out = value if isinstance(value, str) else str(value)
    return out if out.strip() else None
