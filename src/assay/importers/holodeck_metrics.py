"""HoloDeck evaluation metrics → assay metrics, where assay measures the same thing.

- `standard` equality and numeric → `equality` and `numeric` with the same options
  (HoloDeck's defaults written out: they differ from assay's);
- `standard` bleu, rouge, f1_score → `bleu`, `rouge`, `token_f1`;
- `standard` groundedness, relevance, coherence, fluency → assay's judge metrics of the
  same names;
- `geval` (name, criteria, evaluation_steps, evaluation_params) → `rubric`;
- `rag` faithfulness, answer_relevancy → `groundedness`, `relevance`.

Not mapped, with the reason: `meteor`, `safety`, the other `rag` metrics (assay does not see
retrieved chunks), `code` graders (HoloDeck's grader context differs from assay's
``MetricContext``), per-metric `model` overrides, `strict_mode`, disabled metrics.
"""

from __future__ import annotations

from typing import Any

from assay.importers.base import Imported, listed, text

_SAME_JUDGE = {"groundedness", "relevance", "coherence", "fluency"}
_NLP = {"bleu": "bleu", "rouge": "rouge", "f1_score": "token_f1"}
_RAG = {"faithfulness": "groundedness", "answer_relevancy": "relevance"}
_PARAMS = {
    "input": "input",
    "actual_output": "response",
    "expected_output": "ground_truth",
    "context": "context",
    "retrieval_context": "context",
}
_EQUALITY = ("case_insensitive", "strip_whitespace", "strip_punctuation")
_NUMERIC = {
    "absolute_tolerance": 1e-6,
    "relative_tolerance": 0.0,
    "accept_percent": False,
    "accept_thousands_separators": False,
}


def map_metrics(specs: Any, where: str, path: str, out: Imported) -> list[dict[str, Any]]:
    """``specs``, the metric list at ``path`` (``test_cases[0].evaluations``); ``where``
    names it in what is not mapped. Not a list: bad input (ConfigError)."""
    mapped = []
    for i, spec in enumerate(listed(specs, out.source, path, "metrics")):
        item = f"{where}[{i}]"
        if not isinstance(spec, dict):
            out.skip(item, "metric", "not a mapping")
            continue
        if spec.get("enabled") is False:
            out.skip(item, _label(spec), "disabled in HoloDeck (enabled: false)")
            continue
        metric = _metric(spec, item, f"{path}[{i}]", out)
        if metric is None:
            continue
        if spec.get("model") is not None:
            out.skip(item, "model", "assay has one judge per suite: set `judge:`")
        threshold = _threshold(spec, item, out)
        if threshold is not None:
            metric["threshold"] = threshold
        mapped.append(metric)
    return mapped


def _label(spec: dict[str, Any]) -> str:
    return str(spec.get("metric") or spec.get("metric_type") or spec.get("name") or "metric")


def _metric(spec: dict[str, Any], item: str, path: str, out: Imported) -> dict[str, Any] | None:
    kind = spec.get("type", "standard")
    if kind == "standard":
        return _standard(spec, item, out)
    if kind == "geval":
        return _geval(spec, item, path, out)
    if kind == "rag":
        name = _RAG.get(str(spec.get("metric_type")))
        if name is None:
            why = "assay does not see the retrieved chunks this RAG metric scores"
            out.skip(item, f"rag {spec.get('metric_type')}", why)
            return None
        return {"metric": name}
    if kind == "code":
        why = (
            "HoloDeck graders take another context than assay's MetricContext: port "
            f"{spec.get('grader')} and add {{type: code, grader: module:function}}"
        )
        out.skip(item, "code grader", why)
        return None
    out.skip(item, f"type {kind}", "not a HoloDeck metric type assay knows")
    return None


def _standard(spec: dict[str, Any], item: str, out: Imported) -> dict[str, Any] | None:
    name = str(spec.get("metric"))
    if name == "equality":
        return {"metric": "equality"} | {k: bool(spec.get(k, False)) for k in _EQUALITY}
    if name == "numeric":
        return {"metric": "numeric"} | {k: spec.get(k, d) for k, d in _NUMERIC.items()}
    if name in _NLP:
        return {"metric": _NLP[name]}
    if name in _SAME_JUDGE:
        return {"metric": name}
    why = {
        "meteor": "assay has no METEOR; bleu, rouge or token_f1 are the nearest",
        "safety": "assay's judged safety metrics are harmful_content, refusal, jailbreak_success",
    }.get(name, "assay has no metric of that name")
    out.skip(item, name, why)
    return None


def _geval(spec: dict[str, Any], item: str, path: str, out: Imported) -> dict[str, Any] | None:
    criteria = text(spec.get("criteria"))
    if criteria is None:
        out.skip(item, "geval", "no criteria")
        return None
    rubric: dict[str, Any] = {"metric": "rubric", "criteria": criteria}
    if text(spec.get("name")):
        rubric["name"] = text(spec.get("name"))
    given = listed(spec.get("evaluation_steps"), out.source, f"{path}.evaluation_steps", "steps")
    steps = [str(s) for s in given]
    if steps:
        rubric["evaluation_steps"] = steps
    where = f"{path}.evaluation_params"
    params = listed(spec.get("evaluation_params"), out.source, where, "names") or ["actual_output"]
    fields = list(dict.fromkeys(_PARAMS[p] for p in params if p in _PARAMS))
    if "response" not in fields:
        fields.insert(0, "response")
    rubric["fields"] = fields
    if spec.get("strict_mode"):
        out.skip(item, "strict_mode", "assay's rubric scores on a scale; set a threshold instead")
    return rubric


def _threshold(spec: dict[str, Any], item: str, out: Imported) -> float | None:
    """HoloDeck's threshold on assay's 0-1 scale: as is when within 0-1; on a judge's
    1-to-``scale`` scale mapped as assay maps judge scores, (t - 1) / (scale - 1)."""
    value = spec.get("threshold")
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if 0 <= value <= 1:
        return float(value)
    scale = spec.get("scale")
    if isinstance(scale, int) and scale > 1 and 1 <= value <= scale:
        return (value - 1) / (scale - 1)
    out.skip(item, "threshold", f"{value} is not on a 0-1 scale and no `scale` says which")
    return None
