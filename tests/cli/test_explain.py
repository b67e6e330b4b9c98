"""Reading why: a normal ``assay run`` explains every test that did not pass, turn by turn
(input, the reply trimmed with its length, the expected answer, each failed check and why);
``--verbose`` adds the passing turns, ``--quiet`` prints the totals only, big runs are
capped and say so."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import REPO, RunCli

AGENT = """
LONG = "word " * 100  # 500 characters


def respond(query: str, session_id: str) -> str:
    if query == "boom":
        raise RuntimeError("the backend is down")
    if query == "long":
        return LONG
    if query == "sneaky":
        return "\\x1b]0;pwned\\x07Lyon"
    if query.startswith("q"):
        return "wrong"
    return "Paris"
"""

SUITE = """
name: explain
target: {python: "agent:respond"}
tests:
  - name: dialogue
    turns:
      - {input: "capital of France?", ground_truth: Paris}
      - {input: long, ground_truth: a short answer}
  - name: crash
    input: boom
    ground_truth: Paris
  - name: escape
    input: sneaky
    ground_truth: Paris
  - name: fine
    input: "all good?"
    ground_truth: Paris
"""


def _suite(tmp_path: Path, text: str = SUITE) -> Path:
    (tmp_path / "agent.py").write_text(AGENT)
    path = tmp_path / "suite.yaml"
    path.write_text(text)
    return path


def test_a_run_explains_each_failing_turn(assay_cli: RunCli, tmp_path: Path) -> None:
    proc = assay_cli("run", str(_suite(tmp_path)), "--store", f"sqlite:///{tmp_path}/s.db")
    assert proc.returncode == 1, proc.stderr
    out = proc.stdout
    why = out[out.index("why the tests that did not pass failed") :]
    dialogue = why[why.index("dialogue (multi_turn, failed)") : why.index("crash (")]
    assert "✗ turn 1" in dialogue
    assert "input:    long" in dialogue
    assert "(500 characters)" in dialogue and "more characters]" in dialogue
    assert "expected: a short answer" in dialogue
    assert "✗ equality 0.00: expected 'a short answer', got 'word word" in dialogue
    assert "turn 0" not in dialogue and "capital of France?" not in dialogue  # it passed
    crash = why[why.index("crash (single_turn, error)") : why.index("escape (")]
    assert "reply:" in crash and "(none)" in crash
    assert "✗ Agent invocation error: the backend is down" in crash  # HoloDeck's wording
    # the agent's escape sequence is written out, never sent to the terminal
    escape = why[why.index("escape (") :]
    assert "\\u001b]0;pwned\\u0007Lyon" in escape and "\x1b" not in out
    assert "fine (" not in why  # a passing test is not explained
    assert out.rstrip().splitlines()[-1].startswith("4 tests: 1 passed, 2 failed, 1 errored")


def test_verbose_shows_the_passing_turns_and_quiet_only_the_totals(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    suite, store = str(_suite(tmp_path)), f"sqlite:///{tmp_path}/s.db"
    verbose = assay_cli("run", suite, "--store", store, "--verbose").stdout
    why = verbose[verbose.index("every test, turn by turn") :]
    assert "✓ turn 0" in why and "input:    capital of France?" in why
    assert "✓ equality 1.00" in why
    assert "✓ fine (single_turn, passed)" in why
    quiet = assay_cli("run", suite, "--store", store, "--quiet")
    assert quiet.returncode == 1
    assert quiet.stdout.strip().splitlines() == [
        "4 tests: 1 passed, 2 failed, 1 errored, 0 not run — 5 turns"
    ]


def test_a_big_run_explains_the_first_50_and_counts_the_rest(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    row = "  - {{name: t{0:02d}, input: q{0}, ground_truth: right}}\n"
    tests = "".join(row.format(i) for i in range(60))
    suite = _suite(tmp_path, f'name: big\ntarget: {{python: "agent:respond"}}\ntests:\n{tests}')
    proc = assay_cli("run", str(suite), "--store", f"sqlite:///{tmp_path}/s.db")
    assert proc.returncode == 1, proc.stderr
    why = proc.stdout[proc.stdout.index("why the tests that did not pass failed") :]
    assert why.count("(single_turn, failed)") == 50
    assert "… 10 more tests that did not pass not explained here (50 of 60 failing shown)" in why
    assert "--format markdown" in why


def test_the_example_in_the_docs_is_what_assay_demo_prints(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    """docs/runs.md shows part of `assay demo`'s explanation: every line of it is printed."""
    page = (REPO / "docs" / "runs.md").read_text()
    example = page[page.index("    why the tests that did not pass failed") :]
    example = example[: example.index("\n\n")]
    lines = [line[4:] for line in example.splitlines() if line.strip() != "..."]
    demo = assay_cli("demo", "--store", f"sqlite:///{tmp_path}/demo.db", timeout=300)
    assert demo.returncode == 0, demo.stderr
    printed = demo.stdout.splitlines()
    for line in lines:
        assert line in printed, line
