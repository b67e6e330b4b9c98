"""Targets: the agents under test, behind one protocol."""

from assay.targets.base import (
    AgentSession,
    Message,
    Reply,
    Target,
    TurnRequest,
    reply_from_payload,
    token_usage,
    tool_invocations,
)
from assay.targets.factory import make_target

__all__ = [
    "AgentSession",
    "Message",
    "Reply",
    "Target",
    "TurnRequest",
    "make_target",
    "reply_from_payload",
    "token_usage",
    "tool_invocations",
]
