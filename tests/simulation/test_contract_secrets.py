"""No secret in an evaluation contract: a goal test whose scenario holds a ``${VAR}`` value,
judged by a model whose replies echo that value and its own API key, run through the real
``assay`` command. The contract file, the store, the caches, the reports and the output
hold ``***`` where the secrets were; a later run reuses the masked contract; a file or a
store row an earlier assay wrote in clear is read back masked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from assay.cases.models import GoalSpec
from assay.simulation import contract_hash
from assay.store import open_store
from assay.store.contracts import get_contract, replace_contract
from tests.cli.conftest import RunCli
from tests.fakes.llm_server import ScriptedLLM
from tests.simulation.conftest import goal_suite
from tests.simulation.scripted import GoalModel, behaviours, contract_reply, judge_reply, user_turn
from tests.targets.agent_server import AgentServer

KEY = "sk-JUDGEKEY-111"  # the judge's API key, from MY_JUDGE_KEY
TOKEN = "tok-ACCT-222"  # the scenario's ${ACCT_TOKEN}
ENV = {"MY_JUDGE_KEY": KEY, "ACCT_TOKEN": TOKEN}
GOAL = "Ask the assistant three questions and get answers"
SCENARIO = "You are the account owner; your API token is ${ACCT_TOKEN}"
REPORTS = ["report.json", "report.md", "report.html", "report.xml"]


def echoing(model: GoalModel) -> dict[str, Any]:
    """A contract model that echoes both secrets in every field of the contract, a
    simulated user that sends the token, a judge whose reasoning repeats the key."""
    contract = contract_reply(
        required=behaviours(f"Answer questions {KEY}", f"Accept the token {TOKEN}"),
        prohibited=behaviours(f"Reveal {KEY}", source="restrictions"),
        objective=f"Ask about {KEY} with the token {TOKEN}",
    )
    contract["notes"] = [f"note {KEY}"]
    model.contract = contract
    model.user = [user_turn(f"my token is {TOKEN}"), user_turn(f"and my key {KEY}?")]
    verdicts = judge_reply(contract)
    verdicts["reasoning"] = f"judged with {KEY} and {TOKEN}"
    model.judge = lambda conversation: verdicts
    return contract


def suite(tmp_path: Path, agent: AgentServer, llm: ScriptedLLM) -> Path:
    path = goal_suite(
        tmp_path, agent, llm, [{"name": "g1", "goal": GOAL, "scenario": SCENARIO, "max_turns": 2}]
    )
    data = yaml.safe_load(path.read_text())
    data["judge"]["api_key_env"] = "MY_JUDGE_KEY"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def run(assay_cli: RunCli, path: Path) -> str:
    args = ["run", str(path), "--verbose", "--no-cache"]
    for name in REPORTS:
        args += ["--out", str(path.parent / name)]
    proc = assay_cli(*args, env=ENV)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout + proc.stderr


def leaks(folder: Path, output: str) -> list[str]:
    """Where either secret occurs: any file under ``folder`` (the contract file, the store,
    the judge cache, the reports, their WAL files) or the command's output."""
    found = [f"output: {s}" for s in (KEY, TOKEN) if s in output]
    for file in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = file.read_bytes()
        found += [f"{file.relative_to(folder)}: {s}" for s in (KEY, TOKEN) if s.encode() in data]
    return found


def the_file(tmp_path: Path) -> Path:
    spec = GoalSpec(goal=GOAL, scenario=SCENARIO.replace("${ACCT_TOKEN}", TOKEN))
    return tmp_path / ".assay" / "contracts" / f"{contract_hash(spec)}.yaml"


def store_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / '.assay' / 'assay.db'}"


def test_the_contract_is_masked_in_the_file_the_store_and_every_report(
    tmp_path: Path, agent: AgentServer, llm: ScriptedLLM, model: GoalModel, assay_cli: RunCli
) -> None:
    echoing(model)
    path = suite(tmp_path, agent, llm)
    output = run(assay_cli, path)
    # the secrets did reach the contract model: the key as its credential, the token as data
    derive = next(
        r for r in llm.requests if r.body["messages"][0]["content"].startswith("You read")
    )
    assert derive.headers["Authorization"] == f"Bearer {KEY}"
    assert f"your API token is {TOKEN}" in derive.body["messages"][1]["content"]
    assert leaks(tmp_path, output) == []

    file = the_file(tmp_path)  # named by the hash of the real scenario: a digest only
    written = yaml.safe_load(file.read_text())
    assert written["fields"] == {"goal": GOAL, "scenario": SCENARIO.replace("${ACCT_TOKEN}", "***")}
    assert written["simulated_user_objective"] == "Ask about *** with the token ***"
    assert written["required"] == [
        {"behaviour": "Answer questions ***", "from": "goal"},
        {"behaviour": "Accept the token ***", "from": "goal"},
    ]
    assert written["prohibited"] == [{"behaviour": "Reveal ***", "from": "restrictions"}]
    assert written["notes"] == ["note ***"]
    with open_store(store_url(tmp_path)) as store:
        kept = get_contract(store, file.stem, 1)
    assert kept is not None and {k: written[k] for k in kept} == kept

    # the run used the contract it wrote: the judge was given the masked behaviours
    listed = model.seen["judge"][-1]["messages"][-1]["content"].split("<conversation>")[0]
    assert "R1: Answer questions ***" in listed and "P1: Reveal ***" in listed
    report = (tmp_path / "report.json").read_text()
    assert '"behaviour": "Accept the token ***"' in report

    # a later run reuses the masked contract: no derivation, and the simulated user still
    # has the token, from the test's own scenario
    echoing(model)
    output = run(assay_cli, path)
    assert model.calls("contract") == 1
    system = model.seen["user"][-1]["messages"][0]["content"]
    assert "Your objective: Ask about *** with the token ***" in system
    assert f"Who you are and your situation: {SCENARIO.replace('${ACCT_TOKEN}', TOKEN)}" in system
    assert '"origin": "file"' in (tmp_path / "report.json").read_text()
    assert leaks(tmp_path, output) == []


def test_a_contract_written_in_clear_by_an_earlier_assay_is_read_back_masked(
    tmp_path: Path, agent: AgentServer, llm: ScriptedLLM, model: GoalModel, assay_cli: RunCli
) -> None:
    echoing(model)
    path = suite(tmp_path, agent, llm)
    run(assay_cli, path)
    file = the_file(tmp_path)
    # as an earlier assay wrote it: the secrets in clear, in the file and in the store
    clear = file.read_text().replace("Ask about ***", f"Ask about {KEY}")
    clear = clear.replace("Reveal ***", f"Reveal {KEY}")
    file.write_text(clear)
    with open_store(store_url(tmp_path)) as store:
        data = get_contract(store, file.stem, 1)
        assert data is not None
        data["prohibited"] = [{"behaviour": f"Reveal {TOKEN}", "from": "restrictions"}]
        replace_contract(store, file.stem, 1, data)
    assert TOKEN.encode() in (tmp_path / ".assay" / "assay.db").read_bytes()

    echoing(model)
    output = run(assay_cli, path)
    # a person's file is never rewritten: named in a warning, used masked
    assert f"the contract file {file} holds a secret in clear" in output
    assert file.read_text() == clear
    listed = model.seen["judge"][-1]["messages"][-1]["content"].split("<conversation>")[0]
    assert "P1: Reveal ***" in listed and KEY not in listed
    assert '"behaviour": "Reveal ***"' in (tmp_path / "report.json").read_text()
    # only what the earlier assay left: the file, and the row, not read while the file wins
    assert leaks(tmp_path, output) == [
        f".assay/assay.db: {TOKEN}",
        f".assay/contracts/{file.name}: {KEY}",
    ]

    file.unlink()  # from the store: the row is masked in place, the file written masked
    echoing(model)
    output = run(assay_cli, path)
    assert model.calls("contract") == 1
    assert '"origin": "store"' in (tmp_path / "report.json").read_text()
    assert yaml.safe_load(file.read_text())["prohibited"] == [
        {"behaviour": "Reveal ***", "from": "restrictions"}
    ]
    assert leaks(tmp_path, output) == []
