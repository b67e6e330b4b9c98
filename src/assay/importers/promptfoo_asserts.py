"""promptfoo assertions → assay metrics, for the types assay measures the same way.

- equals → `equality` (exact: strip_whitespace false), the value as the ground truth;
- contains, icontains, contains-all/-any, icontains-all/-any → `contains` (value or
  values, mode, case_insensitive); their `not-` forms → `not_contains` (mode any or all);
- regex → `regex` (search); starts-with → `regex` anchored at the start, value escaped;
- is-json → `json_valid` (`json_schema` with a schema); contains-json → the same with
  allow_code_fence (stricter: JSON in prose fails);
- similar (threshold, default 0.75) → `semantic_similarity`, the value as the ground truth;
- llm-rubric → `rubric` with the value as its criteria;
- latency and cost (threshold) → `latency` (max_ms) and `cost` (max_usd, the provider's
  model, when assay has its price).

Other ``not-`` forms have no assay option that negates the metric: they are not mapped, and
say so, rather than guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from assay.importers.base import text
from assay.pricing import PRICES, find_price

SIMILAR_THRESHOLD = 0.75  # promptfoo's default for `similar`
_CONTAINS = {"contains": "all", "contains-all": "all", "contains-any": "any"}
_NOT_CONTAINS = {"contains": "any", "contains-any": "any", "contains-all": "all"}


@dataclass
class Mapped:
    """An assertion as an assay metric, and the ground truth it needs (equals, similar)."""

    metric: dict[str, Any] | None
    ground_truth: str | None = None
    note: str | None = None  # mapped, but not exactly: said in the report
    why_not: str | None = None  # not mapped: why


def map_assertion(spec: dict[str, Any], model: str | None) -> Mapped:
    kind = str(spec.get("type", ""))
    negated = kind.startswith("not-")
    base = kind[4:] if negated else kind
    value = spec.get("value")
    insensitive = base.startswith("icontains")
    plain_base = base[1:] if insensitive else base
    if plain_base in _CONTAINS:
        return _contains(plain_base, value, insensitive, negated)
    if negated:
        return Mapped(None, why_not=f"assay's {base} metric has no negated form")
    if base == "equals":
        if text(value) is None:
            return Mapped(None, why_not="only text values map (a JSON value does not)")
        return Mapped({"metric": "equality", "strip_whitespace": False}, ground_truth=text(value))
    if base in ("regex", "starts-with"):
        if text(value) is None:
            return Mapped(None, why_not="no pattern")
        pattern = str(value) if base == "regex" else "^" + re.escape(str(value))
        return Mapped({"metric": "regex", "pattern": pattern})
    if base in ("is-json", "contains-json"):
        return _json(base, value)
    if base == "similar":
        return _similar(spec, value)
    if base == "llm-rubric":
        if text(value) is None:
            return Mapped(None, why_not="no rubric text")
        return Mapped({"metric": "rubric", "criteria": str(value)} | _threshold(spec))
    if base in ("latency", "cost"):
        return _budget(base, spec.get("threshold"), model)
    return Mapped(None, why_not="no assay metric measures this")


def _contains(base: str, value: Any, insensitive: bool, negated: bool) -> Mapped:
    values = value if isinstance(value, list) else [value]
    words = [text(v) for v in values]
    if not words or any(w is None for w in words):
        return Mapped(None, why_not="no text value to look for")
    metric: dict[str, Any] = {"metric": "not_contains" if negated else "contains"}
    metric |= {"value": words[0]} if len(words) == 1 else {"values": words}
    metric["mode"] = (_NOT_CONTAINS if negated else _CONTAINS)[base]
    if insensitive:
        metric["case_insensitive"] = True
    return Mapped(metric)


def _json(base: str, schema: Any) -> Mapped:
    if schema is not None and not isinstance(schema, dict):
        return Mapped(None, why_not="only an inline JSON Schema maps (not a file:// reference)")
    metric: dict[str, Any] = {"metric": "json_schema", "schema": schema} if schema else {}
    metric = metric or {"metric": "json_valid"}
    if base == "is-json":
        return Mapped(metric)
    note = "stricter: assay accepts a reply that is JSON or one fenced block, not JSON in prose"
    return Mapped(metric | {"allow_code_fence": True}, note=note)


def _similar(spec: dict[str, Any], value: Any) -> Mapped:
    if text(value) is None:
        return Mapped(None, why_not="only a single text value maps")
    threshold = _threshold(spec) or {"threshold": SIMILAR_THRESHOLD}
    note = "needs a local embedding model (see docs/metrics.md#semantic_similarity)"
    return Mapped({"metric": "semantic_similarity"} | threshold, ground_truth=str(value), note=note)


def _budget(base: str, threshold: Any, model: str | None) -> Mapped:
    if not isinstance(threshold, (int, float)) or isinstance(threshold, bool) or threshold <= 0:
        return Mapped(None, why_not="no threshold: assay measures budgets, not bare figures")
    if base == "latency":
        return Mapped({"metric": "latency", "max_ms": float(threshold)})
    if model is None or find_price(model, PRICES) is None:
        why = f"assay has no price for {model!r}" if model else "no single provider model"
        return Mapped(None, why_not=f"{why}: add {{metric: cost, model, prices}} yourself")
    return Mapped({"metric": "cost", "model": model, "max_usd": float(threshold)})


def _threshold(spec: dict[str, Any]) -> dict[str, float]:
    value = spec.get("threshold")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1:
        return {"threshold": float(value)}
    return {}
