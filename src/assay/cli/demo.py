"""``assay demo``: run the travel example against the built-in agent, store it, show it."""

from __future__ import annotations

from pathlib import Path

import typer

from assay.cli.app import app, out_console, user_errors
from assay.errors import ConfigError, Problem

SUITE = Path("examples") / "travel" / "suite.yaml"
REPORT = Path(".assay") / "demo-report.html"
ENABLE_MODEL = (
    "make demo JUDGE=openai:llama3.1:8b JUDGE_BASE_URL=http://127.0.0.1:11434/v1"
    "   (or: assay demo --judge ... --judge-base-url ...)"
)


def find_suite() -> Path:
    """The example suite: under the current folder, or in the source tree assay runs from."""
    for root in (Path.cwd(), Path(__file__).resolve().parents[3]):
        if (root / SUITE).is_file():
            return root / SUITE
    raise ConfigError(
        [Problem("options", str(SUITE), "not found; run assay demo from the assay repository")]
    )


@app.command()
@user_errors
def demo(
    store: str | None = typer.Option(None, "--store", help="where to store the run"),
    judge: str | None = typer.Option(
        None, "--judge", help="PROVIDER:MODEL for judge metrics and goal-driven tests"
    ),
    judge_base_url: str | None = typer.Option(
        None, "--judge-base-url", help="an OpenAI-compatible server, e.g. a local Ollama"
    ),
) -> None:
    """Test the built-in travel agent with the example suite (no API key needed)."""
    from assay.cli._progress import execute_with_progress
    from assay.cli.summary import print_summary
    from assay.reporters import write_report
    from assay.runner import run_options
    from assay.store import open_store

    suite = find_suite()
    out_console.print(f"running {suite} against the built-in travel agent (no API key needed)")
    options = run_options({"judge": judge, "judge_base_url": judge_base_url})
    opened = open_store(store)
    try:
        outcome = execute_with_progress(suite, options, opened, store)
        print_summary(outcome.run, outcome.summary, outcome.shown, out_console)
        report = opened.load_report(outcome.run.id)
        write_report(report, REPORT, "html")
    finally:
        opened.close()
    run_id = outcome.run.id[:12]
    out_console.print(
        f"\nstored as run {run_id} in {opened.url}\n"
        f"open the HTML report: {REPORT.resolve()}\n"
        "browse it in the dashboard: assay serve, then open http://127.0.0.1:8484/\n"
        f"list stored runs: assay runs · render one: assay report {run_id} --format markdown\n"
        "the agent's flaws are by design: see `assay agent travel --help` and assay/demo"
    )
    if judge is None:
        out_console.print(
            "judge metrics such as correctness and the goal-driven tests need a model: any "
            "OpenAI-compatible server works; with a local Ollama, run them with:\n"
            f"  {ENABLE_MODEL}"
        )
