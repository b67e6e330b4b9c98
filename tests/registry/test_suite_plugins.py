"""A suite's ``plugins:``: metrics written in Python, next to the suite, used from YAML; and
every way a plugin can be wrong is a load-time error at ``plugins[i]`` (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.cases import load_suite
from assay.errors import ConfigError
from tests.cli.conftest import RunCli

AGENT = """
def respond(query, session_id):
    prices = {"Basel": "CHF 120", "Bern": "EUR 90"}
    return f"Hotel {query} costs {prices.get(query, 'nothing')}"
"""

METRICS = """
import assay


@assay.metric("mentions_chf")
def mentions_chf(ctx):
    return "CHF" in (ctx.response or "")


class WordOptions(assay.MetricOptions):
    word: str


@assay.metric("has_word")
class HasWord(assay.Metric[WordOptions]):
    def measure(self, ctx):
        return assay.Score(1.0 if self.options.word in (ctx.response or "") else 0.0)
"""

SUITE = """
name: plugins
plugins: [my_metrics]
target: {python: "agent:respond"}
metrics: [mentions_chf, {metric: has_word, word: Hotel}]
tests:
  - {name: basel, input: Basel}
  - {name: bern, input: Bern}
"""


def make_suite(folder: Path, suite: str = SUITE, **modules: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in {"agent": AGENT, "my_metrics": METRICS, **modules}.items():
        (folder / f"{name}.py").write_text(text, encoding="utf-8")
    path = folder / "suite.yaml"
    path.write_text(suite, encoding="utf-8")
    return path


def test_a_python_metric_is_used_from_yaml(assay_cli: RunCli, tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite")
    elsewhere = tmp_path / "elsewhere"  # the plugin is found next to the suite, not the cwd
    elsewhere.mkdir()
    (elsewhere / "my_metrics.py").write_text("raise SystemExit('the wrong my_metrics')\n")
    proc = assay_cli(
        "run", str(suite), "--out", "r.json", "--store", "sqlite:///s.db", cwd=elsewhere
    )
    assert proc.returncode == 1, proc.stderr  # bern's price is not in CHF
    results = json.loads((elsewhere / "r.json").read_text())["results"]
    verdicts = {
        (r["test_name"], m["metric_name"]): (m["score"], m["passed"])
        for r in results
        for m in r["metric_results"]
    }
    assert verdicts == {
        ("basel", "mentions_chf"): (1.0, True),
        ("basel", "has_word"): (1.0, True),
        ("bern", "mentions_chf"): (0.0, False),
        ("bern", "has_word"): (1.0, True),
    }


def problems(path: Path) -> list[str]:
    with pytest.raises(ConfigError) as failed:
        load_suite(path)
    return [f"{p.path}: {p.message}" for p in failed.value.problems]


def test_a_missing_module_names_plugins_and_the_metrics_it_would_have_given(
    tmp_path: Path,
) -> None:
    suite = make_suite(tmp_path, SUITE.replace("[my_metrics]", "[my_metrcs]"))
    found = problems(suite)
    assert found[0] == (
        "plugins[0]: cannot import module 'my_metrcs': ModuleNotFoundError: No module named "
        "'my_metrcs'"
    )
    assert found[1].startswith("metrics[0].metric: unknown metric 'mentions_chf'; expected one")
    assert found[1].endswith(
        "(a metric of your own is registered with @assay.metric in a module listed under plugins:)"
    )


@pytest.mark.parametrize(
    ("module", "message"),
    [
        (
            "import assay\n\n@assay.metric\ndef mentions_chf(ctx):\n    return True\n",
            "cannot import module 'my_metrics': RegistrationError: @assay.metric takes the "
            'metric\'s name: write @assay.metric("my_metric")',
        ),
        (
            "import assay\n\n@assay.metric('mentions_chf')\nclass NotAMetric:\n    pass\n",
            "cannot import module 'my_metrics': RegistrationError: @assay.metric('mentions_chf') "
            "decorates a Metric subclass or a function, not <class 'my_metrics.NotAMetric'>",
        ),
        (
            "import assay\n\n@assay.metric('equality')\ndef mine(ctx):\n    return True\n",
            "cannot import module 'my_metrics': RegistrationError: metric 'equality' is already "
            "registered (built into assay); choose another name",
        ),
        ("import sys\nsys.exit(3)\n", "cannot import module 'my_metrics': SystemExit(3)"),
        (
            "def mentions_chf(ctx):\n    return True\n",
            "module 'my_metrics' registers nothing: decorate your metric in it with "
            '@assay.metric("name")',
        ),
    ],
    ids=["bare-decorator", "not-a-metric", "taken-name", "exits", "registers-nothing"],
)
def test_a_broken_plugin_is_a_load_time_error_at_its_path(
    tmp_path: Path, module: str, message: str
) -> None:
    suite = make_suite(tmp_path, SUITE.replace("metrics: [mentions_chf, ", "metrics: ["))
    (tmp_path / "my_metrics.py").write_text(module, encoding="utf-8")
    found = problems(suite)
    assert found[0] == f"plugins[0]: {message}"


def test_a_typo_in_a_plugin_metric_gets_a_did_you_mean(tmp_path: Path) -> None:
    suite = make_suite(tmp_path, SUITE.replace("[mentions_chf,", "[mentions_chd,"))
    assert problems(suite) == [
        "metrics[0].metric: unknown metric 'mentions_chd'; did you mean 'mentions_chf'?"
    ]


def test_a_file_name_is_not_a_module_name(tmp_path: Path) -> None:
    suite = make_suite(tmp_path, SUITE.replace("[my_metrics]", "[my_metrics.py]"))
    found = problems(suite)
    assert found[0] == "plugins[0]: write the module's name, 'my_metrics', not its file name"
    # reported in the same pass: the metrics the plugin would have registered are unknown
    assert [p.split(":")[0] for p in found[1:]] == ["metrics[0].metric", "metrics[1].metric"]


def test_a_bad_plugin_exits_2_before_anything_runs(assay_cli: RunCli, tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite", my_metrics="raise RuntimeError('broken on purpose')\n")
    proc = assay_cli("run", str(suite), "--store", "sqlite:///s.db")
    assert proc.returncode == 2, proc.stdout
    assert (
        "plugins[0]: cannot import module 'my_metrics': RuntimeError: broken on purpose"
        in proc.stderr
    )
    assert "Traceback" not in proc.stderr
