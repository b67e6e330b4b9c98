"""promptfoo: a ``promptfooconfig.yaml``'s ``tests`` → an assay suite.

Each test's ``vars`` fill the config's prompt (``{{ var }}`` placeholders, the first prompt
when there are several) to make the test's input; without a prompt assay can render, a var
named input, query, question, prompt or message (or a test's only var) is the input. Each
``assert`` (and ``defaultTest.assert``, which promptfoo adds to every test) becomes a metric
where assay has one (``assay.importers.promptfoo_asserts``); the rest is listed as not
mapped. One provider ``openai:MODEL`` becomes an ``openai`` target.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from assay.importers.base import (
    Imported,
    Names,
    Unmapped,
    listed,
    mapping,
    plain,
    read_items,
    text,
    unique_labels,
)
from assay.importers.promptfoo_asserts import map_assertion
from assay.net.openai_wire import OPENAI_BASE_URL

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_]\w*)\s*\}\}")
_INPUT_VARS = ("input", "query", "question", "prompt", "message", "user_input")
_TEST_KEYS = {"description", "vars", "assert"}
_VARS = "var names to values"
_ASSERTS = "assertions ({type, value})"


def import_promptfoo(path: Path) -> Imported:
    why = "no tests to import (a list under `tests:`; tests in other files are not read)"
    raw, tests = read_items(path, "tests", why)
    out = Imported(
        "promptfoo",
        str(path),
        {"name": plain(text(raw.get("description")) or "") or path.parent.name or "promptfoo"},
    )
    model = _provider(raw.get("providers"), out)
    template = _prompt(raw.get("prompts"), path.parent, out)
    source = str(path)
    found = raw.get("defaultTest")
    if isinstance(found, str):
        out.skip("defaultTest", "defaultTest", "a file reference: not read")
        found = None
    default = mapping(found, source, "defaultTest", "test fields (vars, assert)")
    default_vars = mapping(default.get("vars"), source, "defaultTest.vars", _VARS)
    default_asserts = listed(default.get("assert"), source, "defaultTest.assert", _ASSERTS)
    names = Names()
    for i, test in enumerate(tests):
        item = f"tests[{i}]"
        if not isinstance(test, dict):
            out.skip(item, "the test", "a file reference or not a mapping: not read")
            continue
        variables = default_vars | mapping(test.get("vars"), source, f"{item}.vars", _VARS)
        asserts = listed(test.get("assert"), source, f"{item}.assert", _ASSERTS)
        if text(test.get("description")):
            item += f" {test['description']!r}"
        mapped = _test(test, [*default_asserts, *asserts], variables, template, model, item, out)
        if mapped is not None:
            mapped["name"] = names.unique(text(test.get("description")) or f"test {i + 1}")
            out.tests.append(mapped)
    return out


def _provider(providers: Any, out: Imported) -> str | None:
    """The model of a single ``openai:`` provider (which becomes the target), else None."""
    listed = providers if isinstance(providers, list) else [providers] if providers else []
    ids = [
        p if isinstance(p, str) else p.get("id") if isinstance(p, dict) else None for p in listed
    ]
    if len(ids) == 1 and isinstance(ids[0], str) and ids[0].startswith("openai:"):
        model = ids[0].split(":")[-1]
        out.suite["target"] = {"openai": {"base_url": OPENAI_BASE_URL, "model": model}}
        return model
    if ids:
        why = "assay tests one agent: set `target:` (see docs/targets.md)"
        out.skip("providers", ", ".join(str(i) for i in ids), why)
    return None


def _prompt(prompts: Any, folder: Path, out: Imported) -> str | None:
    listed = prompts if isinstance(prompts, list) else [prompts] if prompts else []
    if len(listed) > 1:
        out.skip(
            "prompts",
            f"prompts 2 to {len(listed)}",
            "assay sends one input per test: the first prompt is used",
        )
    first = listed[0] if listed else None
    if isinstance(first, dict):
        first = first.get("raw") or first.get("id")
    if not isinstance(first, str):
        return None
    if first.startswith("file://"):
        local = folder / first.removeprefix("file://")
        if local.suffix not in (".txt", ".md") or not local.is_file():
            out.skip("prompts", first, "only a .txt or .md prompt file is read")
            return None
        first = local.read_text(encoding="utf-8")
    if "{%" in first or "{{" in _PLACEHOLDER.sub("", first):
        out.skip("prompts", "the prompt", "uses Nunjucks beyond {{ var }}: the vars are the input")
        return None
    return first


def _render(template: str, variables: dict[str, Any]) -> str | None:
    missing = [n for n in _PLACEHOLDER.findall(template) if text(variables.get(n)) is None]
    if missing:
        return None
    return _PLACEHOLDER.sub(lambda m: str(text(variables[m.group(1)])), template)


def _input(template: str | None, variables: dict[str, Any], item: str, out: Imported) -> str | None:
    if template is not None:
        rendered = _render(template, variables)
        if rendered is not None:
            return rendered
        out.skip(item, "vars", "the prompt needs a var this test lacks (or a list or file var)")
        return None
    named = [n for n in _INPUT_VARS if text(variables.get(n)) is not None]
    only = [n for n, v in variables.items() if text(v) is not None]
    chosen = named[0] if named else only[0] if len(only) == 1 else None
    if chosen is None:
        out.skip(item, "vars", "no prompt to fill and no single input var: nothing to send")
        return None
    return text(variables[chosen])


def _test(
    test: dict[str, Any],
    asserts: list[Any],
    variables: dict[str, Any],
    template: str | None,
    model: str | None,
    item: str,
    out: Imported,
) -> dict[str, Any] | None:
    for key in sorted(set(test) - _TEST_KEYS):
        out.skip(item, key, "no assay equivalent")
    query = _input(template, variables, item, out)
    if query is None:
        return None
    mapped: dict[str, Any] = {"name": "", "input": query}
    metrics: list[dict[str, Any]] = []
    for k, spec in enumerate(asserts):
        label = str(spec.get("type")) if isinstance(spec, dict) else f"assert[{k}]"
        if not isinstance(spec, dict):
            out.skip(item, label, "not an assertion mapping")
            continue
        spec = {**spec, "value": _fill(spec.get("value"), variables)}
        result = map_assertion(spec, model)
        if result.metric is None:
            out.skip(item, label, result.why_not or "not mapped")
            continue
        if result.ground_truth is not None:
            if mapped.get("ground_truth", result.ground_truth) != result.ground_truth:
                out.skip(item, label, "a second expected text: assay has one ground truth a turn")
                continue
            mapped["ground_truth"] = result.ground_truth
        if result.note:
            out.approximate.append(Unmapped(item, label, result.note))
        if text(spec.get("metric")):
            result.metric["name"] = plain(str(spec["metric"]))
        for extra in sorted(set(spec) - {"type", "value", "threshold", "metric"}):
            out.skip(item, f"{label}.{extra}", "no assay equivalent")
        metrics.append(result.metric)
    if metrics:
        mapped["metrics"] = unique_labels(metrics)
    return mapped


def _fill(value: Any, variables: dict[str, Any]) -> Any:
    """``{{ var }}`` in an assertion's text value, filled from the test's vars."""
    if isinstance(value, str):
        return _render(value, variables) or value
    if isinstance(value, list):
        return [_fill(v, variables) for v in value]
    return value
