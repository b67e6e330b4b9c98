"""The import graph of ``src/assay`` has no circle.

Every import counts, at module level or inside a function (a function-level import is a
circle that waits for its first call), except those under ``if TYPE_CHECKING:``, which
never run. ``from a.b import c`` is an edge to the module ``a.b.c`` when there is one, else
to ``a.b``; a package's ``__init__`` is a module of its own.
"""

from __future__ import annotations

from pathlib import Path

from tests.architecture.import_graph import cycles, edges, modules


def test_the_import_graph_of_src_assay_has_no_cycle() -> None:
    known = modules()
    graph = edges(known)
    assert cycles(graph) == []


def test_the_graph_sees_function_level_imports_and_skips_type_checking_ones() -> None:
    known = modules()
    graph = edges(known)
    assert len(known) > 100 and sum(map(len, graph.values())) > 300
    # open_table imports each reader inside the function, on first use
    assert "assay.datasets._read_csv" in graph["assay.datasets.readers"]
    # create_app imports the routes inside the function
    assert "assay.web.routes_api" in graph["assay.web.app"]
    # assay.metrics.base imports the judge protocol only under TYPE_CHECKING
    base = known["assay.metrics.base"].read_text(encoding="utf-8")
    assert "from assay.models.protocol import JudgeModel" in base
    assert "assay.models.protocol" not in graph["assay.metrics.base"]


def test_a_circle_is_found(tmp_path: Path) -> None:
    """The finder itself: a three-module circle and a self-contained module."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"x": {"y"}, "y": set()}) == []
