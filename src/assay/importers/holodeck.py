"""HoloDeck: an ``agent.yaml``'s ``test_cases`` → an assay suite.

Follows HoloDeck's test-case contract (``specs/032-multi-turn-test-cases``: a test case has
``input`` or ``turns``; ``ground_truth``, ``expected_tools`` as names or ``{name, args,
count}`` with literal, ``{fuzzy}`` and ``{regex}`` argument matchers; ``files`` and
``retrieval_context``; ``evaluations`` per test case and per turn, ``evaluations.metrics``
for the agent). assay's suite grew from the same contract, so tests, turns and tool
assertions map one to one; metrics map where assay has the same measure.

A test case HoloDeck refuses when it loads the file (``models/test_case.py``: a blank
``name`` or ``ground_truth``, an expected tool with a blank name, a ``count`` that is not an
integer >= 1, a malformed ``{fuzzy}`` / ``{regex}`` matcher, ...) is listed and not
imported, never imported with another meaning.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from assay.importers.base import (
    Imported,
    Names,
    listed,
    mapping,
    read_items,
    text,
    unique_labels,
)
from assay.importers.holodeck_metrics import map_metrics

TEXT_FILE_TYPES = {"text", "csv"}  # file types whose content assay can send as context
_CASE_KEYS = {"name", "input", "ground_truth", "expected_tools", "files", "retrieval_context"}
_CASE_KEYS |= {"evaluations", "turns"}
# a multi-turn case's fields that belong on its turns (``files``, ``retrieval_context``: FR-009;
# ``expected_tools``: models/test_case.py ``_validate_single_vs_multi_turn``)
_NOT_WITH_TURNS = ("input", "ground_truth", "expected_tools", "files", "retrieval_context")
_TOOL_KEYS = {"name", "args", "count"}
_TOOLS = "tool names or {name, args, count}"
_AGENT_KEYS_MAPPED = {"name", "test_cases", "evaluations"}
_MATCHER_KEYS = {"fuzzy", "regex"}


class _Refused(Exception):
    """HoloDeck refuses the test case at load time: where in it (``turns[1].ground_truth``)
    and HoloDeck's reason."""

    def __init__(self, where: str, why: str) -> None:
        super().__init__(why)
        self.where, self.why = where, why


def import_holodeck(path: Path) -> Imported:
    why = "no test_cases to import: is this an agent.yaml?"
    raw, cases = read_items(path, "test_cases", why)
    out = Imported("holodeck", str(path), {"name": text(raw.get("name")) or path.stem})
    for key in sorted(set(raw) - _AGENT_KEYS_MAPPED):  # model, instructions, tools...
        out.skip("the agent", key, "the agent's own definition: assay tests it through `target:`")
    evaluations = mapping(raw.get("evaluations"), str(path), "evaluations", "model and metrics")
    if evaluations.get("model") is not None:
        out.skip("evaluations", "model", "assay has one judge per suite: set `judge:`")
    where = "evaluations.metrics"
    suite_metrics = map_metrics(evaluations.get("metrics"), where, where, out)
    if suite_metrics:
        out.suite["metrics"] = unique_labels(suite_metrics)
    names = Names()
    for i, case in enumerate(cases):
        if not isinstance(case, dict):
            out.skip(f"test_cases[{i}]", "the test case", "not a mapping")
            continue
        test = _case(case, f"test_cases[{i}]", path.parent, out)
        if test is not None:
            test["name"] = names.unique(text(case.get("name")) or f"test case {i + 1}")
            out.tests.append(test)
    return out


def _case(case: dict[str, Any], where: str, folder: Path, out: Imported) -> dict[str, Any] | None:
    """The test case at ``where`` (``test_cases[3]``, its field path)."""
    item = f"{where} {case['name']!r}" if text(case.get("name")) else where
    listed = len(out.unmapped), len(out.approximate)
    try:
        _refused_fields(case, "", ("name", "ground_truth"))
        return _mapped_case(case, item, where, folder, out)
    except _Refused as refused:  # what was listed of it so far goes: the test is not imported
        del out.unmapped[listed[0] :], out.approximate[listed[1] :]
        why = f"{refused.where}: {refused.why}: HoloDeck refuses the test case"
        out.skip(item, "the whole test", why)
        return None


def _mapped_case(
    case: dict[str, Any], item: str, where: str, folder: Path, out: Imported
) -> dict[str, Any] | None:
    for key in sorted(set(case) - _CASE_KEYS):
        out.skip(item, key, "not a HoloDeck test-case field assay knows")
    test: dict[str, Any] = {"name": ""}
    turns = listed(case.get("turns"), out.source, f"{where}.turns", "turns")
    if not turns and case.get("turns") is not None:
        raise _Refused("turns", "turns must be a non-empty list if provided")
    if turns:
        # test-case-schema.md §2 and models/test_case.py: HoloDeck refuses these beside turns
        # (a ConfigError), even empty
        clashing = [k for k in _NOT_WITH_TURNS if case.get(k) is not None]
        if clashing:
            why = f"{' and '.join(clashing)} beside turns: HoloDeck refuses the test case"
            out.skip(item, "the whole test", f"{why} (put them on its turns)")
            return None
        mapped = [
            _turn(turn, f"{item} turns[{k}]", f"{where}.turns[{k}]", folder, out, own_metrics=True)
            for k, turn in enumerate(turns)
        ]
        if any(t is None for t in mapped):
            out.skip(item, "the whole test", "a turn could not be mapped (see above)")
            return None
        test["turns"] = mapped
    else:
        single = _turn(case, item, where, folder, out, own_metrics=False)
        if single is None:
            return None
        test.update(single)
    evaluations = case.get("evaluations")
    metrics = map_metrics(evaluations, f"{item} evaluations", f"{where}.evaluations", out)
    if metrics:
        test["metrics"] = unique_labels(metrics)
    return test


def _turn(
    step: Any, item: str, path: str, folder: Path, out: Imported, own_metrics: bool
) -> dict[str, Any] | None:
    """A turn (or a single-turn case's fields) at ``path``; ``own_metrics``: its
    ``evaluations`` are the turn's metric list (a case's are the test's, mapped by the
    caller). A field of the wrong type is bad input: HoloDeck refuses it too (a string
    where its model has a list: ``expected_tools``, ``retrieval_context``, ``files``)."""
    if not isinstance(step, dict) or text(step.get("input")) is None:
        out.skip(item, "input", "missing or empty: assay needs something to send")
        return None
    within = path.partition(".")[2]  # where in the test case: "turns[1]", or "" for its own
    _refused_fields(step, within, ("ground_truth",))
    turn: dict[str, Any] = {"input": text(step["input"])}
    if text(step.get("ground_truth")) is not None:
        turn["ground_truth"] = text(step["ground_truth"])
    context = _context(step, item, path, folder, out)
    if context:
        turn["context"] = context
    expected = listed(step.get("expected_tools"), out.source, f"{path}.expected_tools", _TOOLS)
    tools = _tools(expected, within)
    if tools:
        turn["expected_tools"] = tools
    if own_metrics:
        evaluations = step.get("evaluations")
        metrics = map_metrics(evaluations, f"{item} evaluations", f"{path}.evaluations", out)
        if metrics:
            turn["metrics"] = unique_labels(metrics)
    return turn


def _refused_fields(step: dict[str, Any], where: str, keys: tuple[str, ...]) -> None:
    """HoloDeck's test-case and turn validators: a test case's ``name`` and a
    ``ground_truth`` may be absent or null, never blank."""
    at = f"{where}." if where else ""
    for key in keys:
        value = step.get(key)
        if isinstance(value, str) and not value.strip():
            raise _Refused(f"{at}{key}", f"{key} must be non-empty if provided")


def _tools(tools: list[Any], where: str) -> list[Any]:
    """The expected tools as HoloDeck's ``_build_expected_tool`` reads them: a name, or
    ``{name, args, count}``; anything it refuses refuses the test case (_Refused)."""
    at = f"{where}.expected_tools" if where else "expected_tools"
    mapped: list[Any] = []
    for k, tool in enumerate(tools):
        path = f"{at}[{k}]"
        if isinstance(tool, str):
            mapped.append(tool)
            continue
        if not isinstance(tool, dict):
            kind = type(tool).__name__
            raise _Refused(path, f"expected_tools entries must be str or object, got {kind}")
        name, count, args = tool.get("name"), tool.get("count", 1), tool.get("args")
        if not isinstance(name, str) or not name.strip():
            raise _Refused(f"{path}.name", "name must be a non-empty string")
        if not isinstance(count, int) or count < 1:  # bool is an int in HoloDeck's check too
            raise _Refused(f"{path}.count", f"count must be an integer >= 1, got {count!r}")
        if args is not None and not isinstance(args, dict):
            raise _Refused(f"{path}.args", "args must be a mapping")
        matchers = {
            key: _matcher(value, f"{path}.args.{key}") for key, value in (args or {}).items()
        }
        extra = sorted(str(key) for key in set(tool) - _TOOL_KEYS)
        if extra:
            raise _Refused(path, f"unknown keys on ExpectedTool: {extra}")
        spec: dict[str, Any] = {"name": name}
        if args is not None:
            spec["args"] = matchers
        if "count" in tool:
            spec["count"] = int(count)
        mapped.append(spec)
    return mapped


def _matcher(value: Any, path: str) -> Any:
    """An argument matcher as HoloDeck's ``_coerce_arg_matcher`` reads it: a mapping with
    exactly one key, ``fuzzy`` or ``regex`` (a string), is that matcher; a mapping with one
    of them and anything else is refused; every other mapping is a literal, compared by
    equality, so it is written ``{literal: ...}`` (assay would read ``{contains: x}`` or
    ``{any: true}`` as its own matchers, and refuse ``{fuzy: x}`` as a misspelt one)."""
    if not isinstance(value, dict):
        return value  # a scalar or a list: a literal in both
    kinds = sorted(_MATCHER_KEYS & set(value))
    if not kinds:
        return {"literal": value}
    if len(kinds) > 1:
        raise _Refused(path, "matcher dict must have exactly one of 'fuzzy' or 'regex', not both")
    others = sorted(str(key) for key in set(value) - _MATCHER_KEYS)
    if others:
        raise _Refused(path, f"matcher dict has unknown keys: {others}")
    kind = kinds[0]
    pattern = value[kind]
    if not isinstance(pattern, str):
        why = f"{kind} pattern must be a string, got {type(pattern).__name__}"
        raise _Refused(f"{path}.{kind}", why)
    if kind == "regex":
        try:
            re.compile(pattern)
        except re.error as exc:
            raise _Refused(f"{path}.regex", f"cannot compile regex: {exc}") from None
    return {kind: pattern}


def _context(step: dict[str, Any], item: str, path: str, folder: Path, out: Imported) -> str | None:
    """``retrieval_context`` and the text of ``files`` (text and CSV files on disk), as the
    turn's context: assay sends text, not images or documents."""
    chunks = listed(step.get("retrieval_context"), out.source, f"{path}.retrieval_context", "texts")
    parts = [str(c) for c in chunks if text(c) is not None]
    files = listed(step.get("files"), out.source, f"{path}.files", "file entries ({path, type})")
    for k, file in enumerate(files):
        where = f"files[{k}]"
        if not isinstance(file, dict):
            out.skip(item, where, "not a file entry")
            continue
        kind, local = file.get("type"), file.get("path")
        if kind not in TEXT_FILE_TYPES or not isinstance(local, str):
            what = f"a file of type {kind}" if kind else "a file"
            source = "a URL" if file.get("url") else "not a text file"
            why = f"{what} ({source}): assay sends text only; describe it in the context"
            out.skip(item, where, why)
            continue
        try:
            parts.append((folder / local).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            out.skip(item, where, f"cannot read {local}: {exc}")
    return "\n\n".join(parts) or None
