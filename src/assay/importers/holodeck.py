"""HoloDeck: an ``agent.yaml``'s ``test_cases`` → an assay suite.

Follows HoloDeck's test-case contract (``specs/032-multi-turn-test-cases``: a test case has
``input`` or ``turns``; ``ground_truth``, ``expected_tools`` as names or ``{name, args,
count}`` with literal, ``{fuzzy}`` and ``{regex}`` argument matchers; ``files`` and
``retrieval_context``; ``evaluations`` per test case and per turn, ``evaluations.metrics``
for the agent). assay's suite grew from the same contract, so tests, turns and tool
assertions map one to one; metrics map where assay has the same measure.
"""

from __future__ import annotations

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
# a multi-turn case's fields that belong on its turns (``files``, ``retrieval_context``: FR-009)
_NOT_WITH_TURNS = ("input", "ground_truth", "files", "retrieval_context")
_TOOL_KEYS = {"name", "args", "count"}
_TOOLS = "tool names or {name, args, count}"
_AGENT_KEYS_MAPPED = {"name", "test_cases", "evaluations"}


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
    item = f"{where} {case['name']!r}" if case.get("name") else where
    for key in sorted(set(case) - _CASE_KEYS):
        out.skip(item, key, "not a HoloDeck test-case field assay knows")
    test: dict[str, Any] = {"name": ""}
    turns = listed(case.get("turns"), out.source, f"{where}.turns", "turns")
    if turns:
        # test-case-schema.md §2: HoloDeck refuses these beside turns (a ConfigError)
        clashing = [k for k in _NOT_WITH_TURNS if case.get(k) not in (None, "", [], {})]
        if clashing:
            why = f"{' and '.join(clashing)} beside turns: HoloDeck refuses the test case"
            out.skip(item, "the whole test", f"{why} (put them on its turns)")
            return None
        if case.get("expected_tools"):
            out.skip(item, "expected_tools", "beside turns: put it on the turn it checks")
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
    turn: dict[str, Any] = {"input": text(step["input"])}
    if text(step.get("ground_truth")) is not None:
        turn["ground_truth"] = text(step["ground_truth"])
    context = _context(step, item, path, folder, out)
    if context:
        turn["context"] = context
    expected = listed(step.get("expected_tools"), out.source, f"{path}.expected_tools", _TOOLS)
    tools = _tools(expected, item, out)
    if tools:
        turn["expected_tools"] = tools
    if own_metrics:
        evaluations = step.get("evaluations")
        metrics = map_metrics(evaluations, f"{item} evaluations", f"{path}.evaluations", out)
        if metrics:
            turn["metrics"] = unique_labels(metrics)
    return turn


def _tools(tools: list[Any], item: str, out: Imported) -> list[Any]:
    mapped: list[Any] = []
    for k, tool in enumerate(tools):
        if isinstance(tool, str):
            mapped.append(tool)
        elif isinstance(tool, dict) and isinstance(tool.get("name"), str):
            for key in sorted(set(tool) - _TOOL_KEYS):
                out.skip(item, f"expected_tools[{k}].{key}", "not an expected-tool field")
            mapped.append({key: tool[key] for key in ("name", "args", "count") if key in tool})
        else:
            out.skip(item, f"expected_tools[{k}]", "neither a tool name nor {name, args, count}")
    return mapped


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
