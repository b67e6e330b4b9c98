"""``assay judge check FILE --metric NAME --judge PROVIDER:MODEL``: how well a judge metric
agrees with human labels, before you trust it in a suite."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from assay.cli._terminal import visible
from assay.cli.app import app, out_console, user_errors
from assay.errors import ConfigError, Problem

if TYPE_CHECKING:
    from assay.config import ModelConfig
    from assay.metrics.base import Metric

judge_app = typer.Typer(
    name="judge", help="Check judge metrics against human labels.", no_args_is_help=True
)
app.add_typer(judge_app, name="judge")


@judge_app.command("check")
@user_errors
def check(
    file: Annotated[
        Path,
        typer.Argument(
            help="Labelled CSV/XLSX/JSONL: question, response, reference?, context?, label."
        ),
    ],
    metric: Annotated[str, typer.Option("--metric", help="The judge metric, e.g. correctness.")],
    judge: Annotated[str, typer.Option("--judge", help="PROVIDER:MODEL, e.g. openai:gpt-4o")],
    judge_base_url: Annotated[
        str | None, typer.Option("--judge-base-url", help="An OpenAI-compatible server URL.")
    ] = None,
    options: Annotated[
        str | None,
        typer.Option("--options", help="Metric options as JSON, e.g. '{\"threshold\": 0.8}'."),
    ] = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, help="rows scored at once")
    ] = 8,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Ask the judge every time.")] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Run a judge metric over labelled rows and report its agreement with the labels:
    accuracy and Cohen's kappa for pass/fail labels, Spearman for numeric ones."""
    # imported here, not at start-up: only this command needs the metrics and model clients
    import assay.metrics.judge  # noqa: F401  (registers the judge metrics)
    from assay.metrics.judge.calibration import AgreementReport, load_labelled, score_rows
    from assay.models import ResponseCache, default_cache_path, make_model

    labelled = load_labelled(file)
    built = _metric(metric, options)
    if built.scope != "turn":
        raise ConfigError(
            [
                Problem(
                    "options",
                    "--metric",
                    f"{metric!r} scores whole conversations; "
                    "judge check scores single rows: pick a turn metric",
                )
            ]
        )
    config = _judge_config(judge, judge_base_url)
    cache = None if no_cache else ResponseCache(default_cache_path())
    model = make_model(config, cache, source="options", field="--judge")

    async def go() -> AgreementReport:
        async with model:
            await model.check_reachable()  # exit 3 at once, not one error per row
            scored = await score_rows(built, model, labelled.rows, concurrency)
        return AgreementReport(labelled, built.label, model.name, built.threshold, scored)

    try:
        report = asyncio.run(go())
    finally:
        if cache is not None:
            cache.close()
    if json_output:
        out_console.print(visible(json.dumps(report.to_dict(), ensure_ascii=False)), markup=False)
    else:
        for line in report.lines():
            out_console.print(visible(line), markup=False, highlight=False)
    if not report.usable:
        raise typer.Exit(1)


def _metric(name: str, raw_options: str | None) -> Metric:
    from assay.metrics.registry import MetricConfigError, build_metric

    opts: Any = {}
    if raw_options:
        try:
            opts = json.loads(raw_options)
        except json.JSONDecodeError as exc:
            raise ConfigError(
                [Problem("options", "--options", f"not JSON ({exc.msg}): give a JSON object")]
            ) from None
        if not isinstance(opts, dict):
            raise ConfigError([Problem("options", "--options", "give a JSON object")])
    try:
        return build_metric(name, opts)
    except MetricConfigError as exc:
        raise ConfigError(
            [
                Problem("options", "--metric" if p == "metric" else f"--options {p}".strip(), m)
                for p, m in exc.problems
            ]
        ) from None


def _judge_config(value: str, base_url: str | None) -> ModelConfig:
    from assay.runner.plan import parse_judge_option

    config = parse_judge_option(value)
    if base_url:
        config = config.model_copy(update={"base_url": base_url})
    return config
