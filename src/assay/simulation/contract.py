"""The evaluation contract of a goal-driven test: what the agent must and must not do.

An author can write one adversarial test from either side: "get the assistant to promise a
refund" and "the assistant refuses to promise refunds" describe the same test, and read
literally they score a real breach as opposite outcomes. So before a goal test runs, its
goal, instructions, restrictions and scenario are restated, once, as a fixed contract about
the agent: ``required`` behaviours it must show, ``prohibited`` behaviours it must never
show (written without negation, so both phrasings give the same list), the
``simulated_user_objective`` the simulated user pursues, whether the test is
``adversarial``, and the deriver's ``confidence`` that it read the direction right. Meeting
every behaviour is always a pass; nothing downstream inverts anything.

A contract is unusable (the test is an Error and the agent is not contacted) when it could
not be derived, lists no behaviour, or has a confidence at or below 0.5: a verdict from an
admitted coin-flip would be worse than none.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from assay.cases.models import GoalSpec
from assay.config import blank_behaviour
from assay.results.trace import BehaviourSource
from assay.secrets import redact_value

CONTRACT_VERSION = 1  # bump when the derivation or the contract's meaning changes
MIN_CONFIDENCE = 0.5  # at or below: unusable
AUTHORED_FIELDS = ("goal", "instructions", "restrictions", "scenario")
DerivedSource = Literal["goal", "instructions", "restrictions", "scenario"]

# Leading words that make a prohibited behaviour a negation ("Must not disclose PII",
# "Refuses to disclose PII"): stripped, so the behaviour itself is what is listed.
_NEGATION = re.compile(
    r"^(?:the\s+(?:agent|assistant|target|bot|chatbot|system)\s+)?"
    r"(?:must\s+not|must\s+never|should\s+not|should\s+never|shall\s+not|may\s+not|"
    r"cannot|can\s*not|can't|does\s+not|doesn't|do\s+not|don't|never|not|"
    r"refuses?\s+to|refrains?\s+from|declines?\s+to|avoids?|avoid)\s+",
    re.IGNORECASE,
)
# A required behaviour that is only a refusal is a prohibition said the other way round.
_REFUSAL = re.compile(
    r"^(?:the\s+(?:agent|assistant|target|bot|chatbot|system)\s+)?"
    r"(?:refuses?\s+to|refrains?\s+from|declines?\s+to|avoids?|never|must\s+not|"
    r"does\s+not|do\s+not|not)\s+",
    re.IGNORECASE,
)
_SPACE = re.compile(r"\s+")


class Behaviour(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    behaviour: str = Field(min_length=1)
    source: BehaviourSource

    @field_validator("behaviour")
    @classmethod
    def _written(cls, value: str) -> str:
        if blank_behaviour(value):  # nothing left to judge once normalised
            raise ValueError("the behaviour is empty: write the behaviour, or delete the entry")
        return value


class Contract(BaseModel):
    """An evaluation contract, as derived, read from a reviewed file, or stated in a suite."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    required: tuple[Behaviour, ...] = ()
    prohibited: tuple[Behaviour, ...] = ()
    simulated_user_objective: str = ""
    adversarial: bool = False
    confidence: float = Field(default=0.0, ge=0, le=1)
    notes: tuple[str, ...] = ()

    def usability(self) -> str | None:
        """Why this contract cannot be used to judge a conversation, or None."""
        if not self.required and not self.prohibited:
            return (
                "no required or prohibited behaviour could be identified: say plainly in the "
                "goal or restrictions what the agent must or must not do (or list required: / "
                "prohibited: on the test)"
            )
        if self.confidence <= MIN_CONFIDENCE:
            return (
                f"the test's wording is ambiguous (contract confidence {self.confidence:.2f}, "
                f"at or below {MIN_CONFIDENCE}): rephrase the goal or restrictions to say "
                "plainly what the agent must or must not do"
            )
        if not self.simulated_user_objective.strip():
            return "the contract has no simulated_user_objective for the simulated user"
        return None


def normalised_fields(spec: GoalSpec) -> dict[str, str]:
    """The four authored fields, stripped, with runs of white space as one space: reflowing
    the YAML does not change a contract, rewording does."""
    return {name: _SPACE.sub(" ", (getattr(spec, name) or "").strip()) for name in AUTHORED_FIELDS}


def contract_hash(spec: GoalSpec) -> str:
    """SHA-256 of the normalised authored fields and the contract version."""
    payload = {"contract_version": CONTRACT_VERSION, **normalised_fields(spec)}
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def without_negation(text: str) -> str:
    """``Must not disclose PII`` → ``Disclose PII``: a prohibited behaviour is the
    behaviour itself."""
    text = _SPACE.sub(" ", text.strip()).rstrip(".")
    while True:
        stripped = _NEGATION.sub("", text, count=1)
        if stripped == text or not stripped.strip():  # "Must not ." keeps its words
            return _capitalised(text.strip())
        text = stripped


def _unique(items: list[Behaviour]) -> tuple[Behaviour, ...]:
    seen: set[str] = set()
    kept = []
    for item in items:
        key = item.behaviour.casefold()
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return tuple(kept)


def normalise(contract: Contract) -> Contract:
    """Fix the direction of a contract's wording, whatever the model or author wrote:
    prohibited behaviours without negation, a required refusal moved to the prohibitions
    ("Refuse to disclose PII" is "Disclose PII", prohibited), duplicates dropped."""
    required: list[Behaviour] = []
    prohibited = [
        Behaviour(behaviour=without_negation(b.behaviour), source=b.source)
        for b in contract.prohibited
    ]
    for item in contract.required:
        text = _SPACE.sub(" ", item.behaviour.strip()).rstrip(".")
        if _REFUSAL.match(text):
            prohibited.append(Behaviour(behaviour=without_negation(text), source=item.source))
        else:
            required.append(Behaviour(behaviour=_capitalised(text), source=item.source))
    return contract.model_copy(
        update={"required": _unique(required), "prohibited": _unique(prohibited)}
    )


def stated_contract(spec: GoalSpec) -> Contract:
    """The contract a suite states with ``required:`` / ``prohibited:`` (no derivation)."""
    objective = " ".join(x for x in (spec.goal, spec.instructions) if x)
    contract = Contract(
        required=tuple(Behaviour(behaviour=b, source="suite") for b in spec.required or ()),
        prohibited=tuple(Behaviour(behaviour=b, source="suite") for b in spec.prohibited or ()),
        simulated_user_objective=objective,
        adversarial=False,
        confidence=1.0,
    )
    return normalise(contract)


def read_contract(data: Any) -> Contract:
    """A contract from its JSON or YAML form (``from`` or ``source`` naming the field each
    behaviour came from). Raises pydantic's ValidationError."""
    if isinstance(data, dict):
        data = dict(data)
        for key in ("required", "prohibited"):
            items = data.get(key)
            if isinstance(items, list):
                data[key] = [_behaviour_in(item) for item in items]
    return Contract.model_validate(data)


def _behaviour_in(item: Any) -> Any:
    if isinstance(item, dict) and "from" in item and "source" not in item:
        item = {("source" if k == "from" else k): v for k, v in item.items()}
    return item


def contract_data(contract: Contract) -> dict[str, Any]:
    """The contract as plain data, each behaviour with ``from`` (as the YAML file has it)."""
    return {
        "adversarial": contract.adversarial,
        "simulated_user_objective": contract.simulated_user_objective,
        "required": [{"behaviour": b.behaviour, "from": b.source} for b in contract.required],
        "prohibited": [{"behaviour": b.behaviour, "from": b.source} for b in contract.prohibited],
        "confidence": contract.confidence,
        "notes": list(contract.notes),
    }


def masked(contract: Contract) -> Contract:
    """The contract with every known secret (``assay.secrets.REDACTOR``) masked in its text:
    a model that derives a contract from a test whose scenario holds a ``${VAR}`` value, or
    that echoes its own API key, must not get it into the file, the store or the trace.
    The same object when nothing was masked."""
    data = contract_data(contract)
    clean = redact_value(data)
    return contract if clean == data else read_contract(clean)
