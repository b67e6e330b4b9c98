"""``assay schema suite`` and the loader agree: every suite the docs and the examples show is
valid under the schema, and suites broken in the ways users break them are refused by
both (a property checked over every shipped suite and every mutation below)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from assay.cases import parse_suite
from assay.errors import ConfigError
from assay.results.schema import json_schema
from tests.cli.conftest import RunCli, assay_cli  # noqa: F401  (a fixture)
from tests.test_docs import suite_blocks

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((REPO / "examples").glob("*/suite.yaml"))
# mappings whose keys are the user's (argument names, headers, a JSON Schema, a tool's
# parameters or canned result...), not fields
FREE_FORM = {
    "args",
    "body",
    "headers",
    "vars",
    "prices",
    "schema",
    "context",
    "response",
    "parameters",
    "result",
}

Suite = dict[str, Any]


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = json_schema("suite")
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.fixture(autouse=True)
def _docs_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAVEL_API_KEY", "set-by-the-schema-test")


def shipped() -> list[tuple[str, Suite]]:
    found = [(str(p.relative_to(REPO)), yaml.safe_load(p.read_text())) for p in EXAMPLES]
    found += [(where, yaml.safe_load(block)) for where, block in suite_blocks()]
    return found


EXTRA: list[tuple[str, Suite]] = [
    (
        "numbers where the loader reads strings",
        {"name": "n", "tests": [{"name": "t", "input": 42, "ground_truth": 640}]},
    ),
    (
        "${VAR} where a number goes",
        {
            "name": "v",
            "execution": {"concurrency": "${ASSAY_SCHEMA_TEST_UNSET:-4}"},
            "metrics": [{"metric": "fuzzy", "threshold": "${ASSAY_SCHEMA_TEST_UNSET:-0.8}"}],
            "tests": [{"name": "t", "input": "q"}],
        },
    ),
    (
        "a code grader written with type",
        {
            "name": "c",
            "metrics": [{"type": "code", "grader": "tests.metrics.hostile_graders:passes"}],
            "tests": [{"name": "t", "input": "q"}],
        },
    ),
]


def loads(suite: Suite) -> bool:
    try:
        parse_suite(copy.deepcopy(suite), "suite.yaml")
    except ConfigError:
        return False
    return True


def test_every_shipped_suite_is_valid_under_the_schema(
    validator: jsonschema.Draft202012Validator,
) -> None:
    suites = shipped() + EXTRA
    assert len(EXAMPLES) >= 2 and len(suites) >= 10
    for where, suite in suites:
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(suite)]
        assert not errors, f"{where}: {errors[:3]}"
        assert loads(suite), where


# -- the mutations: each returns the broken copies of a valid suite --------------------


def nodes(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every dict and list in the suite with its path, skipping the user's free-form maps."""
    yield path, value
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, child in items:
        if isinstance(child, dict | list) and key not in FREE_FORM:
            yield from nodes(child, (*path, key))


def at(suite: Suite, path: tuple[Any, ...]) -> Any:
    for key in path:
        suite = suite[key]
    return suite


def variants(suite: Suite, change: Callable[[Any], bool]) -> list[Suite]:
    """One copy per node that ``change`` edits in place (it returns False to skip)."""
    out = []
    for path, _ in list(nodes(suite)):
        broken = copy.deepcopy(suite)
        if change(at(broken, path)):
            out.append(broken)
    return out


def unknown_key(node: Any) -> bool:
    if not isinstance(node, dict):
        return False
    node["bogus_key"] = 1
    return True


def required_key_dropped(node: Any) -> bool:
    for key in ("name", "input", "metric"):  # suite/tool names, a turn's input, a metric
        if isinstance(node, dict) and key in node and not ("metric" in node and key == "name"):
            # a test's name may be left out (it is named by its place): not a break
            if key == "name" and any(shape in node for shape in ("input", "turns", "goal")):
                continue
            del node[key]
            return True
    return False


def metric_name_typo(node: Any) -> bool:
    if isinstance(node, dict) and isinstance(node.get("metric"), str):
        node["metric"] += "x"
        return True
    return False


def bare_metric_typo(node: Any) -> bool:
    metrics = node.get("metrics") if isinstance(node, dict) else None
    if isinstance(metrics, list) and metrics and isinstance(metrics[0], str):
        metrics[0] = metrics[0][:-1]  # equality -> equalit
        return True
    return False


def needs_options_written_bare(node: Any) -> bool:
    if isinstance(node, dict) and isinstance(node.get("metrics"), list):
        node["metrics"] = ["regex"]  # needs a pattern
        return True
    return False


def negative_count(node: Any) -> bool:
    if isinstance(node, dict) and isinstance(node.get("expected_tools"), list):
        node["expected_tools"] = [{"name": "lookup", "count": -1}]
        return True
    return False


def two_test_types(node: Any) -> bool:
    if isinstance(node, dict) and "input" in node and "tests" not in node and "name" in node:
        node["turns"] = [{"input": "and then?"}]
        return True
    return False


def out_of_range(node: Any) -> bool:
    if isinstance(node, dict) and "tests" in node:
        node["execution"] = {"concurrency": 0}
        return True
    return False


def string_for_a_list(node: Any) -> bool:
    if isinstance(node, dict) and "tests" in node:
        node["plugins"] = "my_metrics"
        return True
    return False


MUTATIONS = [
    unknown_key,
    required_key_dropped,
    metric_name_typo,
    bare_metric_typo,
    needs_options_written_bare,
    negative_count,
    two_test_types,
    out_of_range,
    string_for_a_list,
]


@pytest.mark.parametrize("mutate", MUTATIONS, ids=lambda m: m.__name__)
def test_a_broken_suite_is_refused_by_both_the_loader_and_the_schema(
    mutate: Callable[[Any], bool], validator: jsonschema.Draft202012Validator
) -> None:
    tried = 0
    for where, suite in shipped():
        for broken in variants(suite, mutate):
            tried += 1
            accepted_by = [
                name
                for name, accepts in (
                    ("the loader", loads(broken)),
                    ("the schema", validator.is_valid(broken)),
                )
                if accepts
            ]
            assert not accepted_by, f"{where}, {mutate.__name__}: accepted by {accepted_by}"
    assert tried >= 2  # the mutation applies to the shipped suites


def test_the_cli_prints_the_schema_and_knows_a_plugin_metric(
    assay_cli: RunCli,  # noqa: F811  (the fixture imported above)
    tmp_path: Path,
) -> None:
    printed = assay_cli("schema", "suite")
    assert printed.returncode == 0, printed.stderr
    assert json.loads(printed.stdout) == json_schema("suite")
    (tmp_path / "my_metrics.py").write_text(
        "import assay\n\n@assay.metric('mentions_chf')\ndef m(ctx):\n    return True\n"
    )
    with_plugin = assay_cli("schema", "suite", "--plugin", "my_metrics", cwd=tmp_path)
    assert with_plugin.returncode == 0, with_plugin.stderr
    schema = json.loads(with_plugin.stdout)
    suite = {"name": "s", "metrics": ["mentions_chf"], "tests": [{"name": "t", "input": "q"}]}
    assert jsonschema.Draft202012Validator(schema).is_valid(suite)
    assert not jsonschema.Draft202012Validator(json.loads(printed.stdout)).is_valid(suite)
    missing = assay_cli("schema", "suite", "--plugin", "no_such_plugin", cwd=tmp_path)
    assert missing.returncode == 2
    assert "--plugin: cannot import module 'no_such_plugin'" in missing.stderr
