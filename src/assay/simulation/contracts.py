"""Where a goal test's evaluation contract comes from, first match wins:

1. the suite: ``required:`` / ``prohibited:`` on the test (nothing is derived);
2. the reviewable file ``.assay/contracts/<hash>.yaml`` next to the suite, which a team
   reads, commits and edits: an edited file wins over everything cached;
3. the store (``assay_contracts``), where every derived contract is kept: the file is
   written again from it when missing (an unusable one is derived again instead);
4. derived by the judge model (``assay.simulation.derive``), then kept in the store and
   written to the file.

The hash is a SHA-256 of the normalised goal, instructions, restrictions and scenario and the
contract version, so an unchanged test on a re-run costs no model call. Concurrent tests
with one hash share one derivation.

No known secret (``assay.secrets.REDACTOR``: a ``${VAR}`` value from the suite, a model's
API key, ...) is ever written: the contract is masked (``masked``) as soon as it is derived
or read, so the run uses the very contract the file and the store keep, and a later run
that reads it back behaves the same (a secret in a behaviour or the objective reads
``***``; the simulated user still has the test's own scenario, instructions and context).
The file's ``fields`` and ``test`` are masked too; the hash, a digest, reveals nothing. A
file or a store row written in clear by an earlier assay is read back masked: the row is
masked in place, the file (a person's, never overwritten) is named in a warning.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from assay.cases.models import GoalSpec
from assay.errors import ConfigError
from assay.models.structured import Call
from assay.secrets import REDACTOR, redact_value
from assay.simulation.contract import (
    CONTRACT_VERSION,
    Contract,
    contract_data,
    contract_hash,
    masked,
    normalise,
    normalised_fields,
    read_contract,
    stated_contract,
)
from assay.simulation.derive import derive_contract

log = logging.getLogger("assay.simulation")
CONTRACTS_DIR = Path(".assay") / "contracts"
Origin = Literal["suite", "file", "store", "derived"]

FILE_HEADER = """\
# The evaluation contract of a goal-driven test (assay, docs/goal-tests.md).
# assay judges the conversation against these behaviours: every required one shown, no
# prohibited one ever shown (each written without negation). Review it, commit it, edit
# it: this file wins over anything assay cached. Delete it to restore the derived contract
# (kept in the store; an unusable one is derived again).
"""


@dataclass
class Resolved:
    """A contract and where it came from, or why there is none (``problem``)."""

    digest: str
    origin: Origin | None = None
    contract: Contract | None = None
    problem: str | None = None
    file: str | None = None
    calls: list[Call] = field(default_factory=list)
    model: str | None = None


class ContractBook:
    """Resolves contracts for a run: the suite's folder, the store (if any) and the model
    that derives them (if any)."""

    def __init__(self, base_dir: Path, store: Any = None, model: Any = None) -> None:
        self.folder = base_dir / CONTRACTS_DIR
        self.store = store
        self.model = model
        self._locks: dict[str, asyncio.Lock] = {}

    def path_of(self, digest: str) -> Path:
        return self.folder / f"{digest}.yaml"

    async def resolve(self, spec: GoalSpec, test_name: str) -> Resolved:
        if spec.states_contract:
            return Resolved(contract_hash(spec), "suite", stated_contract(spec))
        digest = contract_hash(spec)
        lock = self._locks.setdefault(digest, asyncio.Lock())
        async with lock:  # concurrent tests with one hash: one derivation
            return await self._resolve(spec, test_name, digest)

    async def _resolve(self, spec: GoalSpec, test_name: str, digest: str) -> Resolved:
        path = self.path_of(digest)
        shown = str(path)
        if path.is_file():
            contract, problem = await asyncio.to_thread(_read_file, path)
            clean = None if contract is None else masked(contract)
            if clean is not contract:
                log.warning(
                    "the contract file %s holds a secret in clear (written by an earlier "
                    "assay, or by hand): the run uses it masked; delete the file to write it "
                    "again without the secret",
                    path,
                )
            return Resolved(digest, "file", clean, problem, file=shown)
        stored = await self._stored(digest)
        if stored is not None and stored.usability() is None:
            await self._write_file(path, spec, test_name, stored, None)
            return Resolved(digest, "store", stored, file=shown if path.is_file() else None)
        # none stored, or an unusable one (its file deleted, as its error says): derive again
        if self.model is None:
            return Resolved(digest, problem="no model to derive it with (set judge:)")
        asked = await derive_contract(self.model, spec)
        model_name = getattr(self.model, "name", None)
        if asked.value is None:
            reason = f"it could not be derived: {asked.error}"
            return Resolved(digest, problem=reason, calls=asked.calls, model=model_name)
        contract = masked(asked.value)
        await self._keep(digest, contract, model_name, replace=stored is not None)
        await self._write_file(path, spec, test_name, contract, model_name)
        return Resolved(
            digest,
            "derived",
            contract,
            file=shown if path.is_file() else None,
            calls=asked.calls,
            model=model_name,
        )

    async def _stored(self, digest: str) -> Contract | None:
        if self.store is None:
            return None
        from assay.store.contracts import get_contract, replace_contract

        data = await asyncio.to_thread(get_contract, self.store, digest, CONTRACT_VERSION)
        if data is None:
            return None
        try:
            contract = read_contract(data)
        except ValidationError:  # written by another assay: derive it again
            return None
        clean = masked(contract)
        if clean is not contract:  # kept in clear by an earlier assay: mask the row
            data = contract_data(clean)
            await asyncio.to_thread(replace_contract, self.store, digest, CONTRACT_VERSION, data)
        return clean

    async def _keep(
        self, digest: str, contract: Contract, model_name: str | None, *, replace: bool
    ) -> None:
        if self.store is None:
            return
        from assay.store.contracts import put_contract, replace_contract

        data = contract_data(contract)
        if replace:  # the stored one was unusable
            await asyncio.to_thread(replace_contract, self.store, digest, CONTRACT_VERSION, data)
            return
        by = None if model_name is None else REDACTOR(model_name)
        await asyncio.to_thread(put_contract, self.store, digest, CONTRACT_VERSION, data, by)

    async def _write_file(
        self,
        path: Path,
        spec: GoalSpec,
        test_name: str,
        contract: Contract,
        model_name: str | None,
    ) -> None:
        text = contract_file_text(path.stem, spec, test_name, contract, model_name)
        try:
            await asyncio.to_thread(_write_new, path, text)
        except OSError as exc:  # a read-only checkout still runs, from the store
            log.warning("cannot write the contract file %s: %s", path, exc)


def contract_file_text(
    digest: str, spec: GoalSpec, test_name: str, contract: Contract, model_name: str | None
) -> str:
    """The contract file's text. ``contract`` is masked already (``masked``: as derived or
    read, before it is kept or written); the test's own fields and names are masked here."""
    import yaml

    data: dict[str, Any] = {
        "contract_version": CONTRACT_VERSION,
        "hash": digest,
        "test": REDACTOR(test_name),
        "derived_by": None if model_name is None else REDACTOR(model_name),
        "derived_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "fields": redact_value({k: v for k, v in normalised_fields(spec).items() if v}),
        **contract_data(contract),
    }
    body = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=88)
    return FILE_HEADER + body


def _write_new(path: Path, text: str) -> None:
    """Write the file unless it exists (a file a person edited is never overwritten)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with path.open("x", encoding="utf-8") as f:
            f.write(text)
    except FileExistsError:
        pass


# The keys of a contract file: what assay writes about it, then the contract itself.
_CONTRACT_KEYS = (
    "adversarial",
    "simulated_user_objective",
    "required",
    "prohibited",
    "confidence",
    "notes",
)
_FILE_KEYS = (
    "contract_version",
    "hash",
    "test",
    "derived_by",
    "derived_at",
    "fields",
    *_CONTRACT_KEYS,
)


def _read_file(path: Path) -> tuple[Contract | None, str | None]:
    """The contract in a reviewed file, or the problem with it (naming the field and the
    fix): an edited file that cannot be read is an error, never silently replaced."""
    from assay.cases._yaml import read_yaml  # as a suite is read: its limits, no repeated key

    fix = "fix it, or delete it to restore the derived contract"
    try:
        raw = read_yaml(path)
    except ConfigError as exc:
        return None, f"{exc.problems[0]}; {fix}"
    if not isinstance(raw, dict):
        return None, f"{path}: expected a mapping with required, prohibited, ...; {fix}"
    version = raw.get("contract_version", CONTRACT_VERSION)
    if version != CONTRACT_VERSION:
        return None, (
            f"{path}: contract_version {version!r}, this assay reads {CONTRACT_VERSION}; {fix}"
        )
    unknown = [str(k) for k in raw if k not in _FILE_KEYS]
    if unknown:  # a misspelt key would drop its behaviours and let a breach pass
        return None, (
            f"{path}: unknown key {unknown[0]!r} (the keys are {', '.join(_FILE_KEYS)}); {fix}"
        )
    data = {k: v for k, v in raw.items() if k in _CONTRACT_KEYS}
    data.setdefault("confidence", 1.0)  # a person wrote or checked it
    try:
        # read as a derived contract is: a person's "Must not X." is the prohibited "X", a
        # required refusal a prohibition, white space and duplicates as the model's are
        return normalise(read_contract(data)), None
    except ValidationError as exc:
        problem = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in problem["loc"]) or "(top level)"
        where = where.replace(".source", ".from")
        return None, f"{path}: {where}: {problem['msg']}; {fix}"
