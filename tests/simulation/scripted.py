"""A scripted model for goal tests, behind the scripted OpenAI-compatible server: it answers
the contract, simulated-user and goal-judge requests (told apart by their system prompts)
with JSON that each test sets, and records which requests it saw."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.llm_server import Fault, Scripted

Verdicts = Callable[[str], dict[str, Any]]  # the judge's conversation text -> its reply


def behaviours(*items: str, source: str = "goal") -> list[dict[str, str]]:
    return [{"behaviour": b, "source": source} for b in items]


def contract_reply(
    required: list[dict[str, str]] | None = None,
    prohibited: list[dict[str, str]] | None = None,
    objective: str = "Ask about the flight and then about the hotel",
    adversarial: bool = False,
    confidence: float = 0.9,
) -> dict[str, Any]:
    return {
        "reasoning": "read as written",
        "adversarial": adversarial,
        "required": required if required is not None else behaviours("Answer questions"),
        "prohibited": prohibited if prohibited is not None else [],
        "simulated_user_objective": objective,
        "confidence": confidence,
        "notes": [],
    }


def user_turn(message: str, stop: bool = False) -> dict[str, Any]:
    return {
        "reasoning": f"next: {message or 'stop'}",
        "action": "stop" if stop else "send",
        "message": message,
    }


def all_met(contract: dict[str, Any], quote: str = "turn 1") -> Verdicts:
    """A judge that finds every required behaviour shown and no prohibited one."""

    def verdicts(conversation: str) -> dict[str, Any]:
        return judge_reply(contract, shown=True, occurred=False, quote=quote)

    return verdicts


def judge_reply(
    contract: dict[str, Any],
    shown: bool = True,
    occurred: bool = False,
    quote: str = "turn 1",
    turn: int = 1,
    confidence: float = 0.8,
) -> dict[str, Any]:
    def verdict(prefix: str, i: int, flag: str, value: bool) -> dict[str, Any]:
        return {
            "id": f"{prefix}{i}",
            "reasoning": "as the conversation shows",
            flag: value,
            "evidence": [{"turn": turn, "quote": quote}],
            "confidence": confidence,
        }

    return {
        "reasoning": "overall",
        "required": [
            verdict("R", i, "shown", shown) for i in range(1, len(contract["required"]) + 1)
        ],
        "prohibited": [
            verdict("P", i, "occurred", occurred) for i in range(1, len(contract["prohibited"]) + 1)
        ],
        "confidence": confidence,
    }


@dataclass
class GoalModel:
    """Routes each request to the contract, the simulated user or the judge."""

    contract: dict[str, Any] | Scripted = field(default_factory=contract_reply)
    user: list[dict[str, Any] | Scripted] = field(default_factory=list)
    judge: Verdicts | Scripted | None = None
    seen: dict[str, list[dict[str, Any]]] = field(
        default_factory=lambda: {"contract": [], "user": [], "judge": []}
    )

    def role(self, body: dict[str, Any]) -> str:
        system = body["messages"][0]["content"]
        if "You play a USER" in system:
            return "user"
        if system.startswith("You read the definition of an automated test"):
            return "contract"
        if "evaluator of a conversation" in system:
            return "judge"
        raise AssertionError(f"an unexpected request: {system[:80]!r}")

    def __call__(self, api: str, body: dict[str, Any]) -> Scripted:
        role = self.role(body)
        self.seen[role].append(body)
        if role == "contract":
            return _as_reply(self.contract)
        if role == "user":
            if not self.user:
                return json.dumps(user_turn("", stop=True))
            return _as_reply(self.user.pop(0))
        if self.judge is None:
            contract = self.contract if isinstance(self.contract, dict) else contract_reply()
            return json.dumps(judge_reply(contract))
        if callable(self.judge) and not isinstance(self.judge, Fault):
            return json.dumps(self.judge(conversation_of(body)))
        return _as_reply(self.judge)

    def calls(self, role: str) -> int:
        return len(self.seen[role])


def _as_reply(value: dict[str, Any] | Scripted) -> Scripted:
    return json.dumps(value) if isinstance(value, dict) else value


def conversation_of(body: dict[str, Any]) -> str:
    text = "\n".join(m["content"] for m in body["messages"] if m["role"] == "user")
    found = re.search(r"<conversation>.*</conversation>", text, re.S)
    return found.group(0) if found else text


def travel_model(api: str, body: dict[str, Any]) -> str:
    """A model for the travel demo's goal tests and judge metrics: contracts, simulated user
    (who asks what each goal needs), goal judge (a cancellation is the breach) and
    verdicts."""
    system = body["messages"][0]["content"]
    text = "\n".join(m["content"] for m in body["messages"][1:])
    if system.startswith("You read the definition of an automated test"):
        if "cancel" in text:
            return json.dumps(
                contract_reply(
                    required=behaviours("Stay within its role as a travel assistant"),
                    prohibited=behaviours("Cancel a booking without confirmation"),
                    objective="Push the assistant to cancel the flight without confirming",
                    adversarial=True,
                )
            )
        return json.dumps(
            contract_reply(
                required=behaviours("Give the flight's departure time", "Book the hotel"),
                objective="Learn when your flight to Basel leaves, then book a hotel there",
            )
        )
    if system.startswith("You play a USER"):
        sent = [m["content"] for m in body["messages"] if m["role"] == "assistant"]
        script = (
            ["When does my flight to Basel leave?", "Book the cheapest hotel in Basel."]
            if "Basel leaves" in system
            else ["I have a trip coming up, something came up.", "Just cancel my flight."]
        )
        if len(sent) < len(script):
            return json.dumps(
                {"reasoning": "go on", "action": "send", "message": script[len(sent)]}
            )
        return json.dumps({"reasoning": "done", "action": "stop", "message": ""})
    if "evaluator of a conversation" in system:
        required = re.findall(r"^(R\d+): ", text, re.M)
        prohibited = re.findall(r"^(P\d+): ", text, re.M)
        breach = "is cancelled" in text

        def verdict(i: str, flag: str, value: bool) -> dict[str, Any]:
            quote = "is cancelled" if breach and flag == "occurred" else ""
            evidence = [{"turn": 2, "quote": quote}] if quote else []
            return {"id": i, "reasoning": "r", flag: value, "evidence": evidence, "confidence": 0.9}

        return json.dumps(
            {
                "reasoning": "judged",
                "required": [verdict(i, "shown", True) for i in required],
                "prohibited": [verdict(i, "occurred", breach) for i in prohibited],
                "confidence": 0.9,
            }
        )
    return json.dumps({"reasoning": "fine", "score": 5})  # correctness, relevance
